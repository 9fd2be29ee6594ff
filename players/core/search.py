"""Alpha-beta search: iterative deepening is driven from Python (``players.searcher``);
this module holds the root search, the principal-variation search and quiescence.

Read top-down it is the textbook algorithm: ``search_root`` → ``negamax`` (PVS with a
transposition table, null-move pruning, reverse futility, futility, late-move pruning and
reductions, internal iterative reduction, check extension, mate-distance pruning) →
``quiescence`` (captures and promotions, every evasion when in check; captures that lose
material by static exchange evaluation are left out; the table's bounds settle null-window
nodes, its move goes first and its evaluation stands pat).

Move ordering is ``players.core.movepick``'s; the search's state is one record
(``players.core.context``).
"""
import numba
import numpy as np
from numba import njit, types

from evaluation.evaluate import evaluate_cached
from .bitboard import U0
from .context import (C_ATTACKS, C_COUNTS, C_DEFERRED, C_EVAL_CACHE, C_KILLERS, C_MOVES, C_OPTS, C_PARAMS,
                      C_PAWN_KEYS, C_PAWN_VALUES, C_PV, C_PV_LEN, C_QUIETS, C_SCORES, C_STATS, C_STOP, C_TERMS,
                      C_WEIGHTS, CONTEXT_TYPE, MAX_PLY, O_DEFER, O_EXACT, O_FUTILITY, O_LMR, O_MASK, O_NULL_MOVE,
                      S_NODE_LIMIT, S_NODES, S_ROOT_DONE, S_SELDEPTH, S_SHARED_BETA, S_SPLIT_PLY, S_STOPPED)
from .hot import hot
from .movegen import generate_moves
from .movepick import (ORDER_VALUE, captured_piece, drop_quiet_non_checks, next_move, pick_move, score_moves,
                       update_quiet_stats)
from .moves import KING, MAX_MOVES, OCC_WHITE, PAWN, POSITION_TYPE, QUEEN, ST_HALFMOVE, ST_SIDE, move_promo
from .position import (check_info, current_key, gives_check_with, in_check, insufficient_material, make_move, make_null_move,
                       repetition_count, unmake_move, unmake_null_move)
from .tt import (BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, busy_with, clear_busy, entry_bound, entry_depth,
                 entry_eval, entry_move, entry_score, mark_busy, new_table, prefetch_slot, tt_prefetch, tt_probe,
                 tt_store)

INF = 32001
MATE = 32000
MATE_BOUND = MATE - 2 * MAX_PLY  # scores beyond this are mates
NO_EVAL = -32000 + 1

# O_DEFER: several processes search the same tree over one shared table (``tt[1]`` holds the
# keys of the positions being searched).  A move other than a node's first whose position
# another search is busy with is put off until the node's other moves are done (ABDADA's
# deferral, in Kerrigan's simplified form): the searches spread over the younger brothers
# instead of all searching the same one, and when one comes back to a deferred move the
# table usually answers it.  Only at nodes of depth DEFER_DEPTH or more: below, marking
# costs more than the duplicated work it saves (depths 2, 3 and 4 search as many nodes
# within the noise, ``docs/decomposition.md``).
DEFER_DEPTH = 3

FUTILITY_MARGIN = np.array([0, 120, 220, 320], np.int64)
# Late-move pruning: at a non-PV node of depth d <= 4 a quiet move after the first 3 + d^2
# (ordered by history) is so rarely best that searching it does not pay.
LMP_DEPTH = 4
LMP_COUNT = np.array([3 + d * d for d in range(LMP_DEPTH + 1)], np.int64)


def _lmr_table():
    table = np.zeros((64, 64), np.int64)
    for d in range(1, 64):
        for m in range(1, 64):
            table[d, m] = int(0.75 + np.log(d) * np.log(m) / 2.25)
    return table


LMR = _lmr_table()
# Internal iterative reduction: nodes of at least this depth with no hash move are searched a
# ply shallower (see ``negamax``).
IIR_DEPTH = 4

TT_TYPE = numba.typeof(new_table(1))
NEGAMAX_SIGNATURE = types.int64(POSITION_TYPE, TT_TYPE, CONTEXT_TYPE, types.int64, types.int64, types.int64,
                                types.int64, types.boolean)
QUIESCENCE_SIGNATURE = types.int64(POSITION_TYPE, TT_TYPE, CONTEXT_TYPE, types.int64, types.int64, types.int64)


@njit(cache=True, inline="always")
def score_to_tt(score, ply):
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True, inline="always")
def score_from_tt(score, ply):
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True, inline="always")
def table_cutoff(entry, depth, ply, alpha, beta, exact):
    """(True, score) when a table entry settles a node searched to ``depth`` in (alpha, beta):
    deep enough (exactly as deep in the exact mode) and exact, or a bound beyond the window."""
    if entry == 0 or not (entry_depth(entry) == depth or (entry_depth(entry) > depth and not exact)):
        return False, 0
    s = score_from_tt(entry_score(entry), ply)
    b = entry_bound(entry)
    return b == BOUND_EXACT or (b == BOUND_LOWER and s >= beta) or (b == BOUND_UPPER and s <= alpha), s


@njit(cache=True, inline="always")
def defer_or_claim(busy, child, defer, may_defer, deferred, n_deferred, item):
    """ABDADA at one move (``child`` the position it leads to): put it off when allowed and
    another search is busy with it (``item`` joins ``deferred``), else mark it busy when
    deferring.  Returns (put off, the new count of deferred items)."""
    if may_defer and busy_with(busy, child):
        deferred[n_deferred] = item
        return True, n_deferred + 1
    if defer:
        mark_busy(busy, child)
    return False, n_deferred


# What a node's shared-search checkpoint tells it (see ``shared_checkpoint``).
GO_ON, CUT_OFF, SETTLED = 0, 1, 2


@njit(cache=True, inline="always")
def shared_checkpoint(tt, ctx, key, depth, ply, alpha, beta, best, searched, is_pv, shared_bound, defer):
    """Before each move of a node that other searches share: score sharing may have lowered
    this job's beta (never below alpha + 1: an empty window bounds nothing, and the master
    reads a null-window probe's answer as the bound it is), and under ABDADA another worker
    may have finished the node meanwhile, its table entry sparing the node's other moves.
    Returns (GO_ON | CUT_OFF | SETTLED, the settled value, beta)."""
    stats = ctx[C_STATS]
    opts = ctx[C_OPTS]
    if shared_bound and stats[S_SHARED_BETA] < beta:
        beta = max(stats[S_SHARED_BETA], alpha + 1)
        if best >= beta:
            return CUT_OFF, 0, beta
    if defer and searched > 0 and (not is_pv or opts[O_EXACT]):
        settled, s = table_cutoff(tt_probe(tt, key), depth, ply, alpha, beta, opts[O_EXACT] != 0)
        if settled:
            ctx[C_PV_LEN][ply] = ply  # the table's answer: the PV stops here
            return SETTLED, s, beta
    return GO_ON, 0, beta


@njit(cache=True, inline="always")
def eval_slot(cache, key):
    return np.int64(key & np.uint64(cache.shape[0] // 2 - 1)) * 2


@hot()
def static_eval(pos, ctx):
    """The instance's evaluation, through a small cache keyed by the Zobrist key
    (quiescence revisits the same leaves often, and the full evaluation is the
    dearest thing a node does).  Key and value sit side by side: a probe costs one
    memory access, and most probes miss the processor's caches (the parent prefetches
    the slot: ``prefetch_eval``)."""
    key = current_key(pos)
    cache = ctx[C_EVAL_CACHE]
    i = eval_slot(cache, key)
    if cache[i] == key:
        return np.int64(cache[i + 1])
    value = evaluate_cached(pos, ctx[C_OPTS][O_MASK], ctx[C_WEIGHTS], ctx[C_PARAMS], ctx[C_TERMS], ctx[C_ATTACKS],
                            ctx[C_COUNTS], ctx[C_PAWN_KEYS], ctx[C_PAWN_VALUES], True)
    cache[i] = key
    cache[i + 1] = np.uint64(value)
    return value


@njit(cache=True, inline="always")
def prefetch_eval(ctx, key):
    """Start fetching ``key``'s evaluation-cache slot: a parent calls it right after making
    the move to a child that will evaluate first thing (a quiescence node)."""
    cache = ctx[C_EVAL_CACHE]
    prefetch_slot(cache, eval_slot(cache, key))


@njit(cache=True, inline="always")
def prefetch_child(tt, ctx, child, quiescent, exact):
    """Start fetching what a child reads first, right after the move to it is made: its table
    slot (a quiescence child probes the table too, except in the exact mode) and, for a
    quiescence child, which evaluates first thing, its evaluation-cache slot."""
    if not (quiescent and exact):
        tt_prefetch(tt, child)
    if quiescent:
        prefetch_eval(ctx, child)


@hot(nogil=True)
def should_stop(ctx):
    """Count a node and say whether the search must unwind (node limit or stop flag)."""
    stats = ctx[C_STATS]
    if stats[S_STOPPED]:
        return True
    stats[S_NODES] += 1
    if stats[S_NODE_LIMIT] > 0 and stats[S_NODES] >= stats[S_NODE_LIMIT]:
        stats[S_STOPPED] = 1
        return True
    if (stats[S_NODES] & 1023) == 0 and ctx[C_STOP][0]:
        stats[S_STOPPED] = 1
        return True
    return False


@njit(cache=True, inline="always")
def enter_node(ctx, ply):
    """Bookkeeping every node does first: empty its PV, count it, track seldepth.
    Returns True when the search must unwind."""
    ctx[C_PV_LEN][ply] = ply
    if should_stop(ctx):
        return True
    stats = ctx[C_STATS]
    if ply > stats[S_SELDEPTH]:
        stats[S_SELDEPTH] = ply
    return False


@njit(cache=True, inline="always")
def reduced_without_hash_move(depth, hash_move, reductions):
    """Internal iterative reduction: a deep node the table has no move for was not searched
    before (or failed low everywhere), so its move order is a guess; searching it a ply
    shallower costs less than a full search in a poor order, and the next iteration finds the
    table's move there.  A reduction, so it is on only where the other reductions are."""
    if reductions and depth >= IIR_DEPTH and hash_move == 0:
        return depth - 1
    return depth


@njit(cache=True, inline="always")
def update_pv(ctx, ply, m):
    pv = ctx[C_PV]
    pv_len = ctx[C_PV_LEN]
    pv[ply, ply] = m
    for j in range(ply + 1, pv_len[ply + 1]):
        pv[ply, j] = pv[ply + 1, j]
    pv_len[ply] = max(pv_len[ply + 1], ply + 1)


@hot()
def has_non_pawn_material(bb, side):
    o = 6 * side
    return (bb[OCC_WHITE + side] & ~(bb[o + PAWN] | bb[o + KING])) != U0


@njit(cache=True, inline="always")
def stores_quiescence(entry):
    """A quiescence result is worth a slot unless the table holds a full-width search of the
    same position: that entry's bound is worth more, and its depth protects it only from a
    shallower bound, not from an exact one."""
    return entry == 0 or entry_depth(entry) == 0


@hot(QUIESCENCE_SIGNATURE, nogil=True)
def quiescence(pos, tt, ctx, ply, alpha, beta):
    """Captures and promotions until the position is quiet; evasions when in check."""
    if enter_node(ctx, ply):
        return 0
    stats = ctx[C_STATS]
    bb, board = pos[0], pos[1]
    if ply >= MAX_PLY - 1:
        return static_eval(pos, ctx)
    checked = in_check(pos)
    if not checked and insufficient_material(bb):
        return 0
    exact = ctx[C_OPTS][O_EXACT] != 0
    # The table: a null-window node it settles returns at once, its move is tried first, and
    # its static evaluation is the stand-pat score.  (The exact mode's values must not depend
    # on what other searches left in the table, so it goes without.)
    key = current_key(pos)
    entry = 0 if exact else tt_probe(tt, key)
    hash_move = 0
    if entry != 0:
        hash_move = entry_move(entry)
        if beta - alpha == 1:
            settled, s = table_cutoff(entry, 0, ply, alpha, beta, False)
            if settled:
                return s
    original_alpha = alpha
    stand = -INF
    if not checked:
        stand = entry_eval(entry) if entry != 0 else static_eval(pos, ctx)
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
    n = generate_moves(pos, ctx[C_MOVES][ply], True)
    if n == 0:
        return -MATE + ply if checked else stand
    score_moves(pos, ctx, ply, n, hash_move)
    moves = ctx[C_MOVES][ply]
    scores = ctx[C_SCORES][ply]
    best = stand
    best_move = 0
    for i in range(n):
        m = pick_move(moves, scores, i, n)
        if not checked:
            victim = captured_piece(board, m)
            gain = ORDER_VALUE[victim] if victim >= 0 else 0
            if move_promo(m) != 0:
                if move_promo(m) != QUEEN:
                    continue
                gain += ORDER_VALUE[QUEEN] - ORDER_VALUE[PAWN]
            # Delta pruning: even winning the piece for free cannot reach alpha.  (It depends
            # on the window, so the exact mode goes without it.)
            if stand + gain + 200 < alpha and not exact:
                continue
            # A capture that loses material in the exchange: score_moves ordered these, and the
            # under-promotions, after every other move, so nothing searchable follows.
            if scores[i] < 0:
                break
        make_move(pos, m)
        prefetch_child(tt, ctx, current_key(pos), True, exact)
        score = -quiescence(pos, tt, ctx, ply + 1, -beta, -alpha)
        unmake_move(pos)
        if stats[S_STOPPED]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                update_pv(ctx, ply, m)
                if score >= beta:
                    break
    if not exact and stores_quiescence(entry):
        bound = BOUND_LOWER if best >= beta else BOUND_EXACT if alpha > original_alpha else BOUND_UPPER
        tt_store(tt, key, best_move, bound, 0, score_to_tt(best, ply), stand if not checked else 0)
    return best


@hot(NEGAMAX_SIGNATURE, nogil=True)
def negamax(pos, tt, ctx, depth, ply, alpha, beta, null_allowed):
    """Principal-variation search below the root; returns a fail-soft score."""
    if depth <= 0:
        return quiescence(pos, tt, ctx, ply, alpha, beta)
    if enter_node(ctx, ply):
        return 0
    stats = ctx[C_STATS]
    opts = ctx[C_OPTS]
    bb, board, st = pos[0], pos[1], pos[2]
    # Draws: fifty-move rule, repetition (one is enough inside the tree), dead material.  The
    # first two depend on the path to the node, not the node: the exact mode leaves them out so
    # that a value found through one path is the value through any (as a shared table assumes).
    if insufficient_material(bb):
        return 0
    if not opts[O_EXACT] and (st[ST_HALFMOVE] >= 100 or repetition_count(pos) > 0):
        return 0
    if ply >= MAX_PLY - 1:
        return static_eval(pos, ctx)
    # Mate-distance pruning.
    alpha = max(alpha, -MATE + ply)
    beta = min(beta, MATE - ply - 1)
    if alpha >= beta:
        return alpha
    is_pv = beta - alpha > 1
    key = current_key(pos)
    # Recursive calls must not pass literals (True/False): numba mangles the literal
    # type into the call and its cache then cannot resolve the symbol.
    may_null = opts[O_NULL_MOVE] != 0

    entry = tt_probe(tt, key)
    hash_move = 0
    eval_here = NO_EVAL
    if entry != 0:
        hash_move = entry_move(entry)
        eval_here = entry_eval(entry)
        settled, s = table_cutoff(entry, depth, ply, alpha, beta, opts[O_EXACT] != 0)
        if settled and (not is_pv or (opts[O_DEFER] and opts[O_EXACT] and entry_bound(entry) == BOUND_EXACT)):
            # (At a PV node only a finished one another worker left: its exact value is the
            # answer, and the PV stops here; the sequential search never meets one.)
            return s

    checked = in_check(pos)
    if checked:
        eval_here = -INF
    elif eval_here == NO_EVAL:
        eval_here = static_eval(pos, ctx)

    if not checked and not is_pv:
        # Reverse futility: far above beta at shallow depth, assume it holds.
        if opts[O_FUTILITY] and depth <= 3 and eval_here - 90 * depth >= beta and abs(beta) < MATE_BOUND:
            return eval_here
        # Null move: if passing still fails high, a real move would too.
        if opts[O_NULL_MOVE] and null_allowed and depth >= 3 and eval_here >= beta \
                and has_non_pawn_material(bb, st[ST_SIDE]):
            # Keep one full-width ply after the pass so that a mate threat is seen.
            null_depth = max(1, depth - 4 - depth // 6)
            make_null_move(pos)
            score = -negamax(pos, tt, ctx, null_depth, ply + 1, -beta, -beta + 1, not may_null)
            unmake_null_move(pos)
            if stats[S_STOPPED]:
                return 0
            if score >= beta:
                return beta if score > MATE_BOUND else score

    depth = reduced_without_hash_move(depth, hash_move, opts[O_LMR] != 0)

    moves = ctx[C_MOVES][ply]
    n = generate_moves(pos, moves, False)
    if n == 0:
        return -MATE + ply if checked else 0
    score_moves(pos, ctx, ply, n, hash_move)
    scores = ctx[C_SCORES][ply]
    killers = ctx[C_KILLERS]

    futile = (opts[O_FUTILITY] and not checked and not is_pv and depth <= 3
              and abs(alpha) < MATE_BOUND and eval_here + FUTILITY_MARGIN[depth] <= alpha)
    late_limit = LMP_COUNT[depth] if opts[O_FUTILITY] and not checked and not is_pv and depth <= LMP_DEPTH \
        else MAX_MOVES
    best = -INF
    best_move = 0
    searched = 0
    n_quiets = 0
    quiets = ctx[C_QUIETS][ply]
    original_alpha = alpha
    # Searches that others share: a parallel job's root (its beta may be lowered meanwhile)
    # and ABDADA's nodes (moves another search is busy with are put off).
    shared_bound = stats[S_SPLIT_PLY] == ply
    defer = opts[O_DEFER] != 0 and depth >= DEFER_DEPTH
    shared = shared_bound or defer
    busy = tt[1]
    deferred = ctx[C_DEFERRED][ply]
    n_deferred = 0
    next_deferred = 0
    have_checks = False
    checks_info = (U0, U0, U0, U0, U0, U0, U0, U0)
    i = 0
    while True:
        if shared:
            action, value, beta = shared_checkpoint(tt, ctx, key, depth, ply, alpha, beta, best, searched, is_pv,
                                                    shared_bound, defer)
            if action == CUT_OFF:
                break
            if action == SETTLED:
                return value
        m, i, next_deferred, may_defer = next_move(moves, scores, i, n, deferred, next_deferred, n_deferred,
                                                   defer and searched > 0)
        if m == 0:
            break
        quiet = captured_piece(board, m) < 0 and move_promo(m) == 0
        # Futile and late quiet moves are pruned unless they check: tested without making them,
        # with what the node's checks are worked out once, at the first move that needs it.
        # Pruning, once it starts, goes on to the node's last move (searched and best only
        # grow), so the quiet moves left that cannot check are dropped from the list at once
        # rather than each brought forward by the selection sort only to be skipped.
        if quiet and searched > 0 and (futile or (searched >= late_limit and best > -MATE_BOUND)):
            if not have_checks:
                checks_info = check_info(pos)
                have_checks = True
                n = drop_quiet_non_checks(pos, moves, scores, i, n, checks_info)
            if not gives_check_with(pos, m, checks_info):
                continue
        make_move(pos, m)
        checks = in_check(pos)
        child = current_key(pos)
        new_depth = depth - 1 + (1 if checks else 0)
        prefetch_child(tt, ctx, child, new_depth <= 0, opts[O_EXACT] != 0)
        if defer:
            put_off, n_deferred = defer_or_claim(busy, child, defer, may_defer, deferred, n_deferred, m)
            if put_off:
                unmake_move(pos)
                continue
        if searched == 0:
            score = -negamax(pos, tt, ctx, new_depth, ply + 1, -beta, -alpha, may_null)
        else:
            r = 0
            if opts[O_LMR] and depth >= 3 and quiet and not checked and not checks and searched >= 2:
                r = LMR[min(depth, 63), min(searched, 63)]
                if is_pv:
                    r -= 1
                if m == killers[ply, 0] or m == killers[ply, 1]:
                    r -= 1
                r = max(0, min(r, new_depth - 1))
            score = -negamax(pos, tt, ctx, new_depth - r, ply + 1, -alpha - 1, -alpha, may_null)
            if score > alpha and r > 0:
                score = -negamax(pos, tt, ctx, new_depth, ply + 1, -alpha - 1, -alpha, may_null)
            if score > alpha and score < beta:
                score = -negamax(pos, tt, ctx, new_depth, ply + 1, -beta, -alpha, may_null)
        if defer:
            clear_busy(busy, child)
        unmake_move(pos)
        if stats[S_STOPPED]:
            return 0
        searched += 1
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                update_pv(ctx, ply, m)
                if score >= beta:
                    if quiet:
                        update_quiet_stats(pos, ctx, ply, m, depth, n_quiets)
                    break
        if quiet and n_quiets < MAX_MOVES:
            quiets[n_quiets] = m
            n_quiets += 1
    if searched == 0:  # every move was pruned as futile
        return alpha
    if best >= beta:
        bound = BOUND_LOWER
    elif alpha > original_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    tt_store(tt, key, best_move, bound, depth, score_to_tt(best, ply),
             eval_here if not checked else 0)
    return best


@hot(nogil=True)
def search_root(pos, tt, ctx, root_moves, n_root, depth, alpha, beta):
    """Search every root move to ``depth``; returns (score, index of best move).

    ``stats[S_ROOT_DONE]`` counts root moves fully searched (the thesis's ``N``),
    and ``ctx[C_PV][0]`` holds the principal variation.  A fail-high stops early.
    With ``O_DEFER`` a root move that another search is busy with is searched last.
    """
    stats = ctx[C_STATS]
    stats[S_ROOT_DONE] = 0
    ctx[C_PV_LEN][0] = 0
    best = -INF
    best_index = -1
    defer = ctx[C_OPTS][O_DEFER] != 0 and depth >= DEFER_DEPTH
    busy = tt[1]
    deferred = ctx[C_DEFERRED][0]  # indices into root_moves (negamax's ply 0 is not in use now)
    n_deferred = 0
    next_deferred = 0
    k = 0
    searched = 0
    while True:
        if k < n_root:
            i = k
            k += 1
            may_defer = defer and searched > 0
        elif next_deferred < n_deferred:
            i = deferred[next_deferred]
            next_deferred += 1
            may_defer = False
        else:
            break
        m = root_moves[i]
        make_move(pos, m)
        child = current_key(pos)
        put_off, n_deferred = defer_or_claim(busy, child, defer, may_defer, deferred, n_deferred, i)
        if put_off:
            unmake_move(pos)
            continue
        checks = in_check(pos)
        new_depth = depth - 1 + (1 if checks else 0)
        if searched == 0:
            score = -negamax(pos, tt, ctx, new_depth, 1, -beta, -alpha, True)
        else:
            score = -negamax(pos, tt, ctx, new_depth, 1, -alpha - 1, -alpha, True)
            if score > alpha and score < beta and not stats[S_STOPPED]:
                score = -negamax(pos, tt, ctx, new_depth, 1, -beta, -alpha, True)
        if defer:
            clear_busy(busy, child)
        unmake_move(pos)
        if stats[S_STOPPED]:
            break
        searched += 1
        stats[S_ROOT_DONE] = searched
        if score > best:
            best = score
            best_index = i
            if searched == 1 or score > alpha:
                update_pv(ctx, 0, m)
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    if best_index >= 0 and not stats[S_STOPPED]:
        bound = BOUND_LOWER if best >= beta else BOUND_EXACT
        tt_store(tt, current_key(pos), root_moves[best_index], bound, depth, score_to_tt(best, 0), 0)
    return best, best_index


@hot(nogil=True)
def search_node(pos, tt, ctx, depth, ply, alpha, beta):
    """``negamax`` called from Python (a parallel job's subtree)."""
    return negamax(pos, tt, ctx, depth, ply, alpha, beta, True)
