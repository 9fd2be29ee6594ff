"""The bench: legal, varied positions, and a node count that a fresh searcher per position
reproduces exactly (the signature must not depend on what ran before)."""
import chess

from players.bench import BENCH_FENS, run_bench
from players.limits import Limit
from players.searcher import Searcher


def test_the_positions_are_legal_distinct_and_have_moves_to_search():
    boards = [chess.Board(fen) for fen in BENCH_FENS]
    assert all(board.is_valid() and any(board.legal_moves) for board in boards)
    assert len({board.epd() for board in boards}) == len(BENCH_FENS)
    assert {board.turn for board in boards} == {chess.WHITE, chess.BLACK}


def test_the_node_count_is_the_sum_of_fresh_searches_and_repeats():
    fens = BENCH_FENS[:4]
    first = run_bench(depth=4, fens=fens)
    fresh = [Searcher(hash_mb=16).search(fen, Limit(depth=4)) for fen in fens]
    assert first.nodes == sum(r.nodes for r in fresh) == run_bench(depth=4, fens=fens).nodes
    assert [r.bestmove for r in first.results] == [r.bestmove for r in fresh]
