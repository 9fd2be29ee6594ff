"""Static exchange evaluation: what a capture wins if both sides keep recapturing on its
square with their least valuable attacker, each free to stop when going on would lose.

The search asks one question of it, Stockfish's ``see_ge``: does the exchange gain at least
``threshold``?  Answering that needs no list of gains, only a running balance, and stops as
soon as the answer is known.  X-rays are found by recomputing slider attacks after each
capture.  Pins are ignored (a pinned piece may recapture), as most engines do.
"""
import numpy as np
from numba import njit

from .bitboard import U0, bishop_attacks, rook_attacks
from .hot import hot
from .moves import (BISHOP, EMPTY, FLAG_CASTLE, FLAG_EN_PASSANT, KING, OCC_WHITE, PAWN, QUEEN, ROOK,
                    ST_SIDE, move_flag, move_from, move_promo, move_to)
from .position import attackers_to

# Piece values of the exchange (P N B R Q K); the king never gets captured, so its value
# only has to exceed anything it could win.
SEE_VALUE = np.array([100, 320, 330, 500, 900, 20000], np.int64)


@njit(cache=True, inline="always")
def _least_valuable(bb, attackers, side):
    """The type and bitboard (one bit) of ``side``'s least valuable piece among ``attackers``."""
    o = 6 * side
    for kind in range(6):
        b = attackers & bb[o + kind]
        if b != U0:
            return kind, b & (~b + np.uint64(1))
    return -1, U0


@hot()
def see_ge(pos, m, threshold):
    """Whether the exchange that ``m`` starts gains at least ``threshold`` centipawns for the
    side making it.  Castling, en passant and promotions are taken as gaining nothing
    (rare, and never worth the special cases in an ordering or pruning test)."""
    if move_flag(m) == FLAG_CASTLE or move_flag(m) == FLAG_EN_PASSANT or move_promo(m) != 0:
        return 0 >= threshold
    bb, board = pos[0], pos[1]
    fr, to = move_from(m), move_to(m)
    victim = board[to]
    swap = (SEE_VALUE[victim % 6] if victim != EMPTY else 0) - threshold
    if swap < 0:  # even keeping the victim for free is not enough
        return False
    swap = SEE_VALUE[board[fr] % 6] - swap
    if swap <= 0:  # losing the mover for nothing still leaves enough
        return True
    occupied = (bb[OCC_WHITE] | bb[OCC_WHITE + 1]) ^ (np.uint64(1) << np.uint64(fr)) ^ (np.uint64(1) << np.uint64(to))
    side = pos[2][ST_SIDE]
    attackers = attackers_to(bb, to, occupied)
    diagonal = bb[BISHOP] | bb[QUEEN] | bb[6 + BISHOP] | bb[6 + QUEEN]
    straight = bb[ROOK] | bb[QUEEN] | bb[6 + ROOK] | bb[6 + QUEEN]
    result = 1
    while True:
        side = 1 - side
        attackers &= occupied
        mine = attackers & bb[OCC_WHITE + side]
        if mine == U0:
            break
        kind, piece = _least_valuable(bb, mine, side)
        result ^= 1
        if kind == KING:
            # The king may take only if nothing would take it back.
            return bool(result ^ 1) if (attackers & bb[OCC_WHITE + 1 - side]) != U0 else bool(result)
        swap = SEE_VALUE[kind] - swap
        if swap < result:
            break
        occupied ^= piece
        if kind == PAWN or kind == BISHOP or kind == QUEEN:
            attackers |= bishop_attacks(to, occupied) & diagonal
        if kind == ROOK or kind == QUEEN:
            attackers |= rook_attacks(to, occupied) & straight
    return bool(result)
