"""The kernels of the term-value fit (``tournaments.training.fit``), in numba so that a million
positions cost seconds: the mean squared error between a target win probability and
the logistic of the full evaluation, and each position's coefficients of the term
values.

The full evaluation is linear in the term values: every term adds ``count × value`` to a
middlegame and an endgame sum, and the two are tapered by the game phase.  So each
position's score is ``rest + coefficients · values``, where ``rest`` holds what no term
value touches (piece-square tables, the bare-king drive).  With the coefficients in hand
a fit moves the values without evaluating a position again; the only departure from the
linear model is the taper's integer division, at most a centipawn per category and side.
"""
import math

import numpy as np
from numba import njit

from players.core.bitboard import lsb
from players.core.moves import ST_SIDE, WHITE
from .evaluate import evaluate, game_phase
from .tables import PHASE_MAX

LN10_400 = math.log(10) / 400
FULL_MASK = 127
COEFFICIENT_STEP = 240  # a multiple of the taper's 24: the division rounds once, not per unit


@njit(cache=True)
def mean_squared_error(bbs, boards, sts, hist, keys, params, targets, scale, terms, attacks, counts):
    """Mean of ``(sigmoid(scale × White score) - target)²`` over the positions."""
    weights = np.ones(7)
    total = 0.0
    for i in range(bbs.shape[0]):
        pos = (bbs[i], boards[i], sts[i], hist, keys)
        score = evaluate(pos, FULL_MASK, weights, params, terms, attacks, counts)
        if sts[i][ST_SIDE] != WHITE:
            score = -score
        p = 1.0 / (1.0 + np.exp(-score * scale))
        total += (p - targets[i]) ** 2
    return total / bbs.shape[0]


@njit(cache=True)
def white_scores(bbs, boards, sts, hist, keys, params, terms, attacks, counts):
    """The full evaluation of each position from White's point of view."""
    weights = np.ones(7)
    out = np.empty(bbs.shape[0], np.float64)
    for i in range(bbs.shape[0]):
        score = evaluate((bbs[i], boards[i], sts[i], hist, keys), FULL_MASK, weights, params, terms, attacks,
                         counts)
        out[i] = score if sts[i][ST_SIDE] == WHITE else -score
    return out


@njit(cache=True)
def term_coefficients(bbs, boards, sts, hist, keys, params, terms, attacks, counts):
    """``(scores, coefficients)``: each position's White score at ``params`` and, per term
    value (``params`` flattened: term 0 middlegame, term 0 endgame, ...), how many
    centipawns one more centipawn of that value adds to it.  Measured by moving each
    value ``COEFFICIENT_STEP`` centipawns, so the taper's rounding costs at most
    1/``COEFFICIENT_STEP`` per coefficient."""
    weights = np.ones(7)
    n, k = bbs.shape[0], params.shape[0]
    scores = np.empty(n, np.float64)
    coefficients = np.empty((n, 2 * k), np.float64)
    moved = params.copy()
    for i in range(n):
        pos = (bbs[i], boards[i], sts[i], hist, keys)
        sign = 1 if sts[i][ST_SIDE] == WHITE else -1
        base = sign * evaluate(pos, FULL_MASK, weights, moved, terms, attacks, counts)
        scores[i] = base
        for j in range(k):
            for phase in range(2):
                moved[j, phase] += COEFFICIENT_STEP
                score = sign * evaluate(pos, FULL_MASK, weights, moved, terms, attacks, counts)
                moved[j, phase] -= COEFFICIENT_STEP
                coefficients[i, 2 * j + phase] = (score - base) / COEFFICIENT_STEP
    return scores, coefficients


PST_COLUMNS = 2 * 6 * 64  # phase × piece type × square, as ``tables.PST`` is laid out


@njit(cache=True)
def pst_coefficients(bbs):
    """``(rows, columns, values)`` of the piece-square tables' coefficients, sparse: one
    entry per piece (column ``phase·384 + type·64 + square`` as White reads the table; a
    black piece counts minus one on its mirrored square), weighted by the taper.  The
    tables feed the **B** sum that the taper divides, so these are exact up to it."""
    n = bbs.shape[0]
    rows = np.empty(n * 64, np.int64)
    columns = np.empty(n * 64, np.int64)
    values = np.empty(n * 64, np.float64)
    k = 0
    for i in range(n):
        phase = game_phase(bbs[i])
        mg = phase / PHASE_MAX
        for c in range(2):
            sign = 1.0 if c == 0 else -1.0
            for t in range(6):
                pieces = bbs[i][6 * c + t]
                while pieces:
                    sq = lsb(pieces) ^ (56 * c)
                    pieces &= pieces - np.uint64(1)
                    rows[k], columns[k], values[k] = i, t * 64 + sq, sign * mg
                    rows[k + 1], columns[k + 1], values[k + 1] = i, 384 + t * 64 + sq, sign * (1.0 - mg)
                    k += 2
    return rows[:k], columns[:k], values[:k]
