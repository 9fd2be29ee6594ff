"""The kernel of the term-value fit (``tournaments.tuning``): the mean squared error
between a target win probability and the logistic of the full evaluation, over many
positions, in one jitted loop, so that a pass of the local search costs milliseconds."""
import math

import numpy as np
from numba import njit

from players.core.moves import ST_SIDE, WHITE
from .evaluate import evaluate

LN10_400 = math.log(10) / 400


@njit(cache=True)
def mean_squared_error(bbs, boards, sts, hist, keys, params, targets, terms, attacks, counts):
    weights = np.ones(7)
    total = 0.0
    for i in range(bbs.shape[0]):
        pos = (bbs[i], boards[i], sts[i], hist, keys)
        score = evaluate(pos, 127, weights, params, terms, attacks, counts)
        if sts[i][ST_SIDE] != WHITE:
            score = -score
        p = 1.0 / (1.0 + np.exp(-score * LN10_400))
        total += (p - targets[i]) ** 2
    return total / bbs.shape[0]
