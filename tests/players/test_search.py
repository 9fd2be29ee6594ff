"""The search: mates found, moves always legal, determinism, limits, results that pickle."""
import pickle
import threading
import time

import chess
import numpy as np
import pytest

from evaluation.spec import EvalSpec
from players.core.moves import move_to_uci
from players.core.search import IIR_DEPTH, INF, reduced_without_hash_move
from players.core.tt import BOUND_EXACT, entry_bound, entry_depth, entry_eval, entry_move, entry_score, tt_probe
from players.decomposition.shared_searcher import SharedSearcher
from players.limits import Limit, LimitError
from players.position import Position
from players.searcher import Searcher


def _wac_mates_in_two(data_dir):
    cases = []
    for line in (data_dir / "suites" / "wac.epd").read_text().splitlines():
        if "dm 2;" not in line:
            continue
        board, ops = chess.Board.from_epd(line.strip())
        cases.append((ops["id"], board.fen(), {m.uci() for m in ops["bm"]}))
    return cases


def test_finds_every_wac_mate_in_two(data_dir):
    cases = _wac_mates_in_two(data_dir)
    assert len(cases) == 16
    searcher = Searcher(hash_mb=8)
    missed = []
    for ident, fen, best in cases:
        searcher.new_game()
        result = searcher.search(fen, Limit(depth=5))
        board = chess.Board(fen)
        # The result must be a mate in two; any mating first move counts (some have several).
        if result.mate != 2 or not _mates_in(board, result.pv, 3):
            missed.append((ident, result.bestmove, result.score_text(), best))
    assert missed == []


def _mates_in(board, pv, plies):
    board = board.copy()
    for uci in pv[:plies]:
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            return False
        board.push(move)
    return board.is_checkmate()


def test_mated_and_stalemated_roots():
    mated = Searcher().search("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", Limit(depth=3))
    assert mated.bestmove == "0000" and mated.mate == 0
    stalemate = Searcher().search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limit(depth=3))
    assert stalemate.bestmove == "0000" and stalemate.score_cp == 0 and stalemate.mate is None


def test_search_is_deterministic_under_depth_and_node_limits():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    for limits in (Limit(depth=7), Limit(nodes=30000)):
        a = Searcher().search(fen, limits)
        b = Searcher().search(fen, limits)
        assert (a.bestmove, a.score_cp, a.nodes, a.pv) == (b.bestmove, b.score_cp, b.nodes, b.pv)
    limited = Searcher().search(fen, Limit(nodes=30000))
    assert limited.nodes == 30000


def test_random_positions_always_get_a_legal_move(data_dir):
    lines = (data_dir / "openings" / "8moves_v3-1000.epd").read_text().splitlines()[:40]
    searcher = Searcher(EvalSpec.parse("MP"), hash_mb=4)
    for line in lines:
        board = chess.Board.from_epd(line)[0]
        result = searcher.search(board, Limit(nodes=3000))
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves, (board.fen(), result)
        assert result.depth >= 1 and result.root_moves == board.legal_moves.count()


def test_repetition_is_a_draw_for_the_side_that_is_behind():
    # White, two rooks down, has shuffled a knight while Black shuffled its king: Ng1 now
    # repeats the position a third time.  Only the game's history makes that a draw.
    fen = "r3k2r/8/8/8/8/8/8/4K1N1 w kq - 0 1"
    history = ["g1f3", "e8f8", "f3g1", "f8e8", "g1f3", "e8f8", "f3g1", "f8e8", "g1f3", "e8f8"]
    board = chess.Board(fen)
    for uci in history:
        board.push_uci(uci)
    fresh = chess.Board(board.fen())  # the same position without its past
    lost = Searcher().search(fresh, Limit(depth=5))
    assert lost.score_cp < -500
    drawn = Searcher().search(board, Limit(depth=5))
    assert drawn.bestmove == "f3g1" and drawn.score_cp == 0


def test_movetime_and_external_stop_return_promptly():
    searcher = Searcher()
    start = time.perf_counter()
    result = searcher.search(None, Limit(movetime=300))
    assert time.perf_counter() - start < 3.0
    assert chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves
    threading.Timer(0.3, searcher.stop).start()
    start = time.perf_counter()
    result = searcher.search(None, Limit(depth=60))
    assert time.perf_counter() - start < 3.0 and result.depth < 60
    assert chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves


def test_info_callback_sees_every_completed_iteration():
    seen = []
    result = Searcher().search(None, Limit(depth=5), info=seen.append)
    assert [it.depth for it in seen] == [1, 2, 3, 4, 5]
    assert result.depth == 5 and result.root_moves_searched == 20 and result.iterations == tuple(seen)
    assert seen[-1].pv == result.pv


def test_result_pickles():
    result = Searcher().search(None, Limit(depth=3))
    assert pickle.loads(pickle.dumps(result)) == result


@pytest.mark.parametrize("kwargs", [{"depth": 0}, {"nodes": -5}, {"movetime": 1.5}, {"depth": True},
                                    {"wtime": -1}, {"searchmoves": "e2e4"}])
def test_bad_limits_are_rejected(kwargs):
    with pytest.raises(LimitError):
        Limit(**kwargs)


def test_no_limit_searches_until_stop():
    searcher = Searcher()
    timer = threading.Timer(0.3, searcher.stop)
    timer.start()
    result = searcher.search(None, Limit())  # until stop: no sentinel depth
    assert chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves and result.depth >= 4


def test_masked_instance_searches_with_its_own_evaluation():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    full = Searcher().search(fen, Limit(depth=5))
    material = Searcher(EvalSpec.parse("M")).search(fen, Limit(depth=5))
    assert full.nodes != material.nodes


@pytest.mark.parametrize("depth, hash_move, reductions, expected", [
    (IIR_DEPTH, 0, True, IIR_DEPTH - 1),        # deep enough, no hash move: a ply less
    (IIR_DEPTH + 5, 0, True, IIR_DEPTH + 4),
    (IIR_DEPTH - 1, 0, True, IIR_DEPTH - 1),    # too shallow to pay
    (IIR_DEPTH, 1234, True, IIR_DEPTH),         # the table has a move: searched in full
    (IIR_DEPTH, 0, False, IIR_DEPTH),           # reductions off (the exact mode's fixed depth)
])
def test_internal_iterative_reduction(depth, hash_move, reductions, expected):
    assert reduced_without_hash_move(depth, hash_move, reductions) == expected


def test_quiescence_stores_its_result_in_the_table():
    """A quiescence node leaves its value, move and evaluation in the table; a later
    null-window visit the stored value settles costs one node; the exact mode (whose values
    must not depend on the table) neither stores nor reads."""
    fen = "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1"  # exd5 wins the queen
    position = Position.from_fen(fen)
    key = np.uint64(position.key)
    searcher = SharedSearcher(hash_mb=1)  # nothing shared: the sequential search of one node
    score, nodes, pv = searcher.search_node(position, 0, 1, -INF, INF)
    assert pv == ("e4d5",) and nodes > 1
    entry = tt_probe(searcher.tt, key)
    assert entry != 0
    assert move_to_uci(entry_move(entry)) == "e4d5"
    assert (entry_bound(entry), entry_depth(entry), entry_score(entry)) == (BOUND_EXACT, 0, score)
    assert entry_eval(entry) < -500  # the side to move is a queen down before it captures
    assert searcher.search_node(position, 0, 1, score, score + 1)[:2] == (score, 1)

    exact = SharedSearcher(hash_mb=1, exact=True)
    assert exact.search_node(position, 0, 1, -INF, INF)[0] == score
    assert tt_probe(exact.tt, key) == 0
