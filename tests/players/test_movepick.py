"""Move ordering (``players.core.movepick``) against an order worked out with python-chess: the
moves a node picks are the legal moves, each once, in the documented order; what a cutoff
teaches; the staged picker of a deferring node; the quiet moves dropped once pruning starts."""
import random

import chess
import numpy as np

from evaluation.spec import FULL_ENGINE
from players.core.context import C_HISTORY, C_KILLERS, C_MOVES, C_QUIETS, new_context
from players.core.movegen import generate_moves
from players.core.movepick import (HISTORY_LIMIT, drop_quiet_non_checks, next_move, pick_move, score_moves,
                                   update_quiet_stats)
from players.core.moves import MAX_MOVES, move_to_uci
from players.core.position import check_info
from players.position import Position

from .random_games import random_game_positions
from .test_see import oracle_see

VALUE = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 2000}
PIECE_INDEX = {(colour, kind): 6 * (0 if colour == chess.WHITE else 1) + kind - 1
               for colour in chess.COLORS for kind in chess.PIECE_TYPES}  # the engine's board codes
# Positions random play seldom reaches: promotions with and without a capture, en passant.
SPECIAL_FENS = (
    "1n2k3/P1P5/8/8/8/8/5p1p/K5N1 w - - 0 1",
    "1n2k3/P1P5/8/8/8/8/5p1p/K5N1 b - - 0 1",
    "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
)


def _positions():
    for fen in SPECIAL_FENS:
        yield chess.Board(fen)
    yield from random_game_positions(20261126, 300, (10, 140))


def _expected_rank(board: chess.Board, move: chess.Move, hash_move: str, killers: tuple[str, str],
                   history: np.ndarray) -> tuple[int, int]:
    """(class, score within the class), higher first: the hash move; captures that do not lose
    material and queen promotions by 10 x victim (plus the queen) - attacker / 10; the two
    killers; the quiet moves by history; captures that lose material (static exchange); and the
    under-promotions."""
    if move.uci() == hash_move:
        return 6, 0
    attacker = VALUE[board.piece_type_at(move.from_square)]
    victim = VALUE[chess.PAWN] if board.is_en_passant(move) else (
        VALUE[board.piece_type_at(move.to_square)] if board.is_capture(move) else 0)
    if board.is_capture(move) or move.promotion == chess.QUEEN:
        mvv_lva = 10 * (victim + (VALUE[chess.QUEEN] if move.promotion == chess.QUEEN else 0)) - attacker // 10
        loses = (board.is_capture(move) and not move.promotion and not board.is_en_passant(move)
                 and oracle_see(board, move) < 0)
        return (1 if loses else 5), mvv_lva
    if move.promotion:
        return 0, 0
    if move.uci() == killers[0]:
        return 4, 0
    if move.uci() == killers[1]:
        return 3, 0
    piece = board.piece_at(move.from_square)
    return 2, int(history[PIECE_INDEX[piece.color, piece.piece_type], move.to_square])


def test_a_node_picks_every_legal_move_once_in_the_documented_order():
    rng = random.Random(20261126)
    ctx = new_context(FULL_ENGINE.mask, FULL_ENGINE.weight_array())
    ply = 3
    seen = {rank: 0 for rank in range(7)}
    for board in _positions():
        legal = [m.uci() for m in board.legal_moves]
        if not legal:
            continue
        quiet = [m.uci() for m in board.legal_moves if not board.is_capture(m) and not m.promotion]
        hash_move = rng.choice(legal)
        killers = tuple(rng.sample(quiet, 2)) if len(quiet) >= 3 else ("", "")
        history = ctx[C_HISTORY]
        history[:] = np.array([rng.randrange(-HISTORY_LIMIT, HISTORY_LIMIT + 1) for _ in range(12 * 64)]).reshape(12, 64)
        pos = Position(board)
        moves = ctx[C_MOVES][ply]
        n = generate_moves(pos.arrays, moves, False)
        codes = {move_to_uci(int(m)): int(m) for m in moves[:n]}
        ctx[C_KILLERS][ply] = [codes.get(k, 0) for k in killers]
        score_moves(pos.arrays, ctx, ply, n, codes[hash_move])
        scores = ctx["scores"][ply]
        picked = [move_to_uci(int(pick_move(moves, scores, i, n))) for i in range(n)]
        # Every legal move, each once, and nothing else.
        assert sorted(picked) == sorted(legal), board.fen()
        assert picked[0] == hash_move
        ranks = [_expected_rank(board, chess.Move.from_uci(m), hash_move, killers, history) for m in picked]
        assert ranks == sorted(ranks, reverse=True), (board.fen(), list(zip(picked, ranks)))
        for rank, _ in ranks:
            seen[rank] += 1
    # Every class came up, losing captures and under-promotions included.
    assert min(seen.values()) >= 5, seen


def test_a_quiet_cutoff_makes_a_killer_and_moves_the_history():
    """The cutoff move becomes the first killer (the old one second, never twice); it gains
    32 d^2 of history (at most 1,600) and the quiet moves searched before it lose as much, each
    step shrinking as a score nears +-HISTORY_LIMIT, which it never passes."""
    board = chess.Board()
    pos = Position(board)
    ctx = new_context(FULL_ENGINE.mask, FULL_ENGINE.weight_array())
    code = {move_to_uci(int(c)): int(c) for c in pos.legal_move_codes()}
    ply = 2
    knight, pawn, other = code["g1f3"], code["e2e4"], code["d2d4"]
    history = ctx[C_HISTORY]
    ctx[C_QUIETS][ply][:2] = [pawn, other]
    update_quiet_stats(pos.arrays, ctx, ply, knight, 3, 2)
    assert list(ctx[C_KILLERS][ply]) == [knight, 0]
    assert history[PIECE_INDEX[chess.WHITE, chess.KNIGHT], chess.F3] == 32 * 9
    assert history[PIECE_INDEX[chess.WHITE, chess.PAWN], chess.E4] == -32 * 9
    assert history[PIECE_INDEX[chess.WHITE, chess.PAWN], chess.D4] == -32 * 9
    update_quiet_stats(pos.arrays, ctx, ply, knight, 3, 0)
    assert list(ctx[C_KILLERS][ply]) == [knight, 0]  # the same killer is not kept twice
    update_quiet_stats(pos.arrays, ctx, ply, pawn, 10, 0)
    assert list(ctx[C_KILLERS][ply]) == [pawn, knight]
    values = []
    for _ in range(200):
        update_quiet_stats(pos.arrays, ctx, ply, knight, 20, 0)
        values.append(int(history[PIECE_INDEX[chess.WHITE, chess.KNIGHT], chess.F3]))
    steps = np.diff(values)
    assert values[-1] <= HISTORY_LIMIT and values[-1] > HISTORY_LIMIT - 100
    assert (steps >= 0).all() and steps[0] > steps[-1]


def test_a_deferring_node_picks_its_ordered_moves_then_the_ones_it_put_off():
    moves = np.array([11, 12, 13, 0], np.int64)
    scores = np.array([5, 30, 20, 0], np.int64)
    deferred = np.array([12, 13, 0], np.int64)
    i, next_deferred, order = 0, 0, []
    while True:
        m, i, next_deferred, may_defer = next_move(moves, scores, i, 3, deferred, next_deferred, 2, True)
        if m == 0:
            break
        order.append((int(m), may_defer))
    # Best first while ordered moves are left (each may be put off), then the deferred ones in
    # the order they were put off, which may not be put off again.
    assert order == [(12, True), (13, True), (11, True), (12, False), (13, False)]


def test_dropping_quiet_moves_keeps_the_captures_promotions_and_checks_in_their_order():
    """Once pruning starts at a node only moves that capture, promote or check can still be
    searched; the rest go in one pass, and what stays keeps its order and its scores."""
    rng = random.Random(20261124)
    dropped = 0
    for board in random_game_positions(20261124, 600, (10, 120)):
        pos = Position(board)
        codes = pos.legal_move_codes()
        n = len(codes)
        moves = np.zeros(MAX_MOVES, np.int64)
        scores = np.zeros(MAX_MOVES, np.int64)
        moves[:n] = codes
        scores[:n] = [rng.randrange(-1000, 1000) for _ in range(n)]
        before_moves, before_scores = moves[:n].copy(), scores[:n].copy()
        start = rng.randrange(n)
        info = tuple(np.uint64(v) for v in check_info(pos.arrays))
        kept = drop_quiet_non_checks(pos.arrays, moves, scores, start, n, info)
        as_moves = [chess.Move.from_uci(move_to_uci(int(m))) for m in before_moves[start:]]
        expected = [(m, s) for m, s, move in zip(before_moves[start:], before_scores[start:], as_moves)
                    if board.is_capture(move) or move.promotion or board.gives_check(move)]
        assert list(moves[:start]) == list(before_moves[:start])
        assert list(zip(moves[start:kept], scores[start:kept])) == expected, board.fen()
        dropped += n - kept
    assert dropped > 5000
