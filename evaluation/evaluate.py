"""The evaluation the search calls: seven categories, each skipped when masked out.

``evaluate(pos, mask, weights, terms)`` fills ``terms[c, colour]`` with each
category's tapered value for White and Black (unweighted centipawns) and returns
the weighted total from the side to move's point of view.  The total is the sum
of the per-category nets, each rounded on its own, so a trace adds up exactly.
"""
import numpy as np
from numba import njit

from players.core.bitboard import U0, U1, lsb, popcount
from players.core.moves import BISHOP, KNIGHT, PAWN, QUEEN, ROOK, ST_SIDE, WHITE
from .tables import BISHOP_PAIR, KNIGHT_PAIR, PHASE_MAX, PHASE_WEIGHT, PIECE_VALUE_EG, PIECE_VALUE_MG, PST

CAT_M, CAT_B, CAT_X, CAT_K, CAT_P, CAT_A, CAT_R = 0, 1, 2, 3, 4, 5, 6
N_CATEGORIES = 7


@njit(cache=True, inline="always")
def category_on(mask, cat):
    return (mask >> (6 - cat)) & 1


@njit(cache=True, inline="always")
def taper(mg, eg, phase):
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


@njit(cache=True)
def game_phase(bb):
    """24 with every minor and major piece on the board, 0 with none (the smooth
    counterpart of GnuChess's opening / middlegame / endgame stage)."""
    phase = 0
    for colour in range(2):
        for t in range(1, 5):
            phase += PHASE_WEIGHT[t] * popcount(bb[6 * colour + t])
    return min(phase, PHASE_MAX)


@njit(cache=True)
def evaluate_material(bb, phase, terms):
    for colour in range(2):
        mg = 0
        eg = 0
        for t in range(5):
            n = popcount(bb[6 * colour + t])
            mg += n * PIECE_VALUE_MG[t]
            eg += n * PIECE_VALUE_EG[t]
        terms[CAT_M, colour] = taper(mg, eg, phase)


@njit(cache=True)
def evaluate_positional(bb, phase, terms):
    """Piece-square values, bishop pair, knight pair."""
    for colour in range(2):
        flip = 56 * colour
        mg = 0
        eg = 0
        for t in range(6):
            pieces = bb[6 * colour + t]
            while pieces:
                sq = lsb(pieces) ^ flip
                pieces &= pieces - U1
                mg += PST[0, t, sq]
                eg += PST[1, t, sq]
        if popcount(bb[6 * colour + BISHOP]) >= 2:
            mg += BISHOP_PAIR[0]
            eg += BISHOP_PAIR[1]
        if popcount(bb[6 * colour + KNIGHT]) >= 2:
            mg += KNIGHT_PAIR[0]
            eg += KNIGHT_PAIR[1]
        terms[CAT_B, colour] = taper(mg, eg, phase)


@njit(cache=True)
def evaluate(pos, mask, weights, terms):
    """Weighted evaluation from the side to move's point of view (centipawns)."""
    bb = pos[0]
    terms[:, :] = 0
    phase = game_phase(bb)
    if category_on(mask, CAT_M):
        evaluate_material(bb, phase, terms)
    if category_on(mask, CAT_B):
        evaluate_positional(bb, phase, terms)
    total = 0
    for c in range(N_CATEGORIES):
        if category_on(mask, c):
            total += int(np.round(weights[c] * (terms[c, 0] - terms[c, 1])))
    return total if pos[2][ST_SIDE] == WHITE else -total
