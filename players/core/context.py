"""A search instance's state, one NumPy record: killers, history, principal variation, move
buffers, counters and limits, options, and the evaluation's spec, term values and caches.

One record, because Numba passes a record to a compiled function as one pointer, where a tuple
of arrays is passed as every field of every array on every call of a recursive search.  And
because the instance's evaluation mask, weights and options are values in it, one compiled
search serves every instance.  ``ctx[C_STATS]`` and the other array fields are views, in
Python and in compiled code alike.
"""
import numba
import numpy as np

from evaluation.evaluate import PAWN_CACHE_SIZE
from evaluation.params import DEFAULT_PARAMS
from .moves import MAX_MOVES

MAX_PLY = 128

# Fields of the record.
(C_KILLERS, C_HISTORY, C_PV, C_PV_LEN, C_MOVES, C_SCORES, C_QUIETS, C_STATS, C_STOP, C_WEIGHTS, C_OPTS,
 C_PARAMS, C_EVAL_CACHE, C_TERMS, C_ATTACKS, C_COUNTS, C_PAWN_KEYS, C_PAWN_VALUES, C_EXCHANGE, C_OUTBOX) = (
    "killers", "history", "pv", "pv_len", "moves", "scores", "quiets", "stats", "stop", "weights", "opts",
    "params", "eval_cache", "terms", "attacks", "counts", "pawn_keys", "pawn_values", "exchange", "outbox")
EVAL_CACHE_SIZE = 1 << 16  # entries of the per-instance evaluation cache

# ctx[C_STATS] slots: what a search counts, its node limit, and whether it was stopped.
S_NODES, S_SELDEPTH, S_NODE_LIMIT, S_STOPPED, S_ROOT_DONE = 0, 1, 2, 3, 4
# ctx[C_OPTS] slots.  O_EXACT: transposition-table cutoffs only from entries of exactly the
# node's depth, and no draw by the path to a node, so that with the selective options off the
# result is the fixed-depth minimax value whatever the window, the move order and the table's
# other contents (a parallel search must reproduce the sequential one).
O_MASK, O_NULL_MOVE, O_LMR, O_FUTILITY, O_EXACT = 0, 1, 2, 3, 4
# ctx[C_EXCHANGE] slots: a cluster worker's settings and counters (``players.core.exchange``).
# Apart from C_STATS because they outlive a search: ``Searcher.search`` zeroes the stats.
(X_SEND_DEPTH, X_CAPACITY, X_COUNT, X_DROPPED, X_SAVES, X_MOVE, X_PAUSE_AT, X_LIMIT, X_PAUSED,
 X_PAUSES) = range(10)
EXCHANGE_SLOTS = 16
OUTBOX_MAX = 256  # entries an outbox can hold: rows of ctx[C_OUTBOX] (key, packed entry, move stamp)


def _context_dtype(params_shape: tuple[int, ...]) -> np.dtype:
    return np.dtype([
        (C_KILLERS, np.int64, (MAX_PLY + 1, 2)),
        (C_HISTORY, np.int64, (12, 64)),                  # history[piece, to]
        (C_PV, np.int64, (MAX_PLY + 1, MAX_PLY + 1)),     # triangular PV
        (C_PV_LEN, np.int64, MAX_PLY + 1),
        (C_MOVES, np.int64, (MAX_PLY + 1, MAX_MOVES)),    # move buffers per ply
        (C_SCORES, np.int64, (MAX_PLY + 1, MAX_MOVES)),   # their ordering scores
        (C_QUIETS, np.int64, (MAX_PLY + 1, MAX_MOVES)),   # quiet moves searched without a cutoff, per ply
        (C_STATS, np.int64, 8),
        (C_STOP, np.uint8, 1),                            # external stop flag
        (C_WEIGHTS, np.float64, 7),                       # category weights
        (C_OPTS, np.int64, 8),
        (C_PARAMS, np.int64, params_shape),               # evaluation term values
        (C_EVAL_CACHE, np.uint64, 2 * EVAL_CACHE_SIZE),   # evaluation cache: key, value side by side
        (C_TERMS, np.int64, (7, 2)),                      # evaluation scratch
        (C_ATTACKS, np.uint64, (2, 8)),
        (C_COUNTS, np.int64, (2, 4)),
        (C_PAWN_KEYS, np.uint64, (PAWN_CACHE_SIZE, 2)),   # pawn cache (evaluation.evaluate.new_pawn_cache)
        (C_PAWN_VALUES, np.int64, (PAWN_CACHE_SIZE, 4)),
        (C_EXCHANGE, np.int64, EXCHANGE_SLOTS),           # cluster exchange: settings, counters, pause
        (C_OUTBOX, np.uint64, (OUTBOX_MAX, 3)),           # the deep entries stored since the last send
    ], align=True)


def new_context(mask: int, weights: np.ndarray, null_move: bool = True, lmr: bool = True,
                futility: bool = True, params: np.ndarray | None = None, exact: bool = False) -> np.void:
    """Fresh search state for one instance (see the module's docstring)."""
    params = DEFAULT_PARAMS if params is None else np.asarray(params, np.int64)
    if params.shape != DEFAULT_PARAMS.shape:
        raise ValueError(f"evaluation parameters must have shape {DEFAULT_PARAMS.shape}, got {params.shape}")
    ctx = np.zeros(1, _context_dtype(DEFAULT_PARAMS.shape))[0]
    opts = ctx[C_OPTS]
    opts[O_MASK] = mask
    opts[O_NULL_MOVE] = int(null_move)
    opts[O_LMR] = int(lmr)
    opts[O_FUTILITY] = int(futility)
    opts[O_EXACT] = int(exact)
    ctx[C_WEIGHTS][:] = np.asarray(weights, np.float64)
    ctx[C_PARAMS][:] = params
    return ctx


CONTEXT_TYPE = numba.typeof(new_context(127, np.ones(7)))
