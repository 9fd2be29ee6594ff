"""Move ordering: which of a node's moves the search tries first, and what a cutoff teaches.

The order: the hash move; captures that do not lose material, and queen promotions, by MVV-LVA
(most valuable victim, then least valuable attacker); the ply's two killers; the other quiet
moves by history; the captures that lose material by static exchange evaluation; the
under-promotions.  Alpha-beta cuts off sooner the sooner the best move comes, and most nodes
that cut off do so on their first or second move: so the moves are scored once
(``score_moves``) and brought forward one at a time (``pick_move``), never sorted in full.

A quiet move that cuts off becomes the ply's first killer and gains history; the quiet moves
tried before it lose as much (the history malus: they were tried first and did not cut off).
"""
import numpy as np
from numba import njit

from .context import C_HISTORY, C_KILLERS, C_MOVES, C_QUIETS, C_SCORES
from .hot import hot
from .moves import EMPTY, FLAG_EN_PASSANT, PAWN, QUEEN, move_flag, move_from, move_promo, move_to
from .position import gives_check_with
from .see import see_ge

ORDER_HASH = 10_000_000
ORDER_CAPTURE = 1_000_000
ORDER_KILLER_1 = 900_000
ORDER_KILLER_2 = 800_000
ORDER_BAD_CAPTURE = -50_000  # captures that lose material (SEE < 0): after the quiet moves
ORDER_UNDER_PROMOTION = -100_000  # rarely better than the queen: last of all
HISTORY_LIMIT = 16_384  # history scores stay within +-this (the gravity update below)
ORDER_VALUE = np.array([100, 320, 330, 500, 900, 2000], np.int64)  # P N B R Q K, for ordering and deltas


@hot()
def captured_piece(board, m):
    """The type of the piece ``m`` captures, or -1 for none."""
    if move_flag(m) == FLAG_EN_PASSANT:
        return PAWN
    p = board[move_to(m)]
    return -1 if p == EMPTY else p % 6


@hot()
def score_moves(pos, ctx, ply, n, hash_move):
    """Score the ``n`` moves in ``ctx[C_MOVES][ply]`` into ``ctx[C_SCORES][ply]`` (higher first).

    Only a capture whose victim is worth less than its attacker can lose material, so only those
    pay for an exchange evaluation."""
    board = pos[1]
    moves = ctx[C_MOVES][ply]
    scores = ctx[C_SCORES][ply]
    killers = ctx[C_KILLERS]
    history = ctx[C_HISTORY]
    for i in range(n):
        m = moves[i]
        if m == hash_move:
            scores[i] = ORDER_HASH
            continue
        victim = captured_piece(board, m)
        promo = move_promo(m)
        attacker = board[move_from(m)] % 6
        if victim >= 0 or promo == QUEEN:
            v = ORDER_VALUE[victim] if victim >= 0 else 0
            if promo == QUEEN:
                v += ORDER_VALUE[QUEEN]
            base = ORDER_CAPTURE
            if victim >= 0 and promo == 0 and ORDER_VALUE[attacker] > ORDER_VALUE[victim] and not see_ge(pos, m, 0):
                base = ORDER_BAD_CAPTURE
            scores[i] = base + 10 * v - ORDER_VALUE[attacker] // 10
        elif promo != 0:
            scores[i] = ORDER_UNDER_PROMOTION
        elif m == killers[ply, 0]:
            scores[i] = ORDER_KILLER_1
        elif m == killers[ply, 1]:
            scores[i] = ORDER_KILLER_2
        else:
            scores[i] = history[board[move_from(m)], move_to(m)]


@njit(cache=True, inline="always")
def pick_move(moves, scores, start, n):
    """Selection sort step: bring the best-scored remaining move to ``start``."""
    best = start
    for j in range(start + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != start:
        moves[start], moves[best] = moves[best], moves[start]
        scores[start], scores[best] = scores[best], scores[start]
    return moves[start]


@njit(cache=True, inline="always")
def next_move(moves, scores, i, n, deferred, next_deferred, n_deferred, may_defer):
    """The next move of a node that may put moves off (ABDADA, ``players.core.shared_search``):
    the best-ordered one left, then the moves put off, in the order they were put off (searched
    now whoever else is busy with them).  Returns (move or 0 when none is left, i, next_deferred,
    whether this move may be put off)."""
    if i < n:
        return pick_move(moves, scores, i, n), i + 1, next_deferred, may_defer
    if next_deferred < n_deferred:
        return deferred[next_deferred], i, next_deferred + 1, False
    return 0, i, next_deferred, False


@hot()
def drop_quiet_non_checks(pos, moves, scores, start, n, checks_info):
    """Remove the quiet moves that give no check from ``moves[start:n]`` (and their scores),
    keeping the others in their order; returns the new ``n``.  Once a node prunes its quiet
    moves it prunes every later one that does not check: removing them at once is cheaper than
    bringing each forward only to skip it."""
    board = pos[1]
    kept = start
    for j in range(start, n):
        m = moves[j]
        if captured_piece(board, m) < 0 and move_promo(m) == 0 and not gives_check_with(pos, m, checks_info):
            continue
        moves[kept] = m
        scores[kept] = scores[j]
        kept += 1
    return kept


@njit(cache=True, inline="always")
def add_history(history, board, m, bonus):
    """Move a history score towards +-HISTORY_LIMIT by ``bonus`` (the 'gravity' update: the
    nearer the limit, the smaller the step, so scores never need rescaling)."""
    piece, to = board[move_from(m)], move_to(m)
    h = history[piece, to]
    history[piece, to] = h + bonus - h * abs(bonus) // HISTORY_LIMIT


@hot()
def update_quiet_stats(pos, ctx, ply, m, depth, n_quiets):
    """A quiet move cut off: it becomes a killer and gains history; the ``n_quiets`` quiet moves
    searched before it without a cutoff (``ctx[C_QUIETS][ply]``) lose as much."""
    killers = ctx[C_KILLERS]
    if killers[ply, 0] != m:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = m
    history = ctx[C_HISTORY]
    board = pos[1]
    bonus = min(32 * depth * depth, 1600)
    add_history(history, board, m, bonus)
    quiets = ctx[C_QUIETS][ply]
    for j in range(n_quiets):
        add_history(history, board, quiets[j], -bonus)
