"""The search of an engine that works on one tree together with other searches at the same
time: ``players.core.search``'s principal-variation search with three hooks.

* ABDADA's deferral (Weill 1996, in Kerrigan's simplified form): the searches share one
  transposition table, whose busy marks (``tt[1]``) hold the keys of the positions being
  searched.  At a node of depth ``DEFER_DEPTH`` or more, a move other than the first whose
  position another search is busy with is put off until the node's other moves are done: the
  searches spread over the younger brothers instead of all searching the same one, and when
  one comes back to a deferred move the table usually answers it.  Below that depth marking
  costs more than the duplicated work it saves (depths 2, 3 and 4 search as many nodes within
  the noise, ``docs/results/parallel-search.md``).
* A finished node: between two moves of a deferring node the table may show that another
  search has settled the node meanwhile, which spares its other moves.
* Score sharing: a parallel job's node (the ``split ply``) lowers its beta before every move to
  the shared beta, which another thread lowers while the job runs when the master learns a
  better sibling (``players.decomposition``).

What the hooks need lives in a record of its own (``new_shared_state``: the deferred moves per
ply, whether to defer, the split ply and the shared beta), so that the sequential search carries
none of it.  With nothing shared (no deferral, a shared beta never lowered) this search visits
the same tree as ``players.core.search``, node for node: ``tests/players/test_shared_search.py``
holds the two to that, so a change to one is made to both.
"""
import numba
import numpy as np
from numba import njit, types

from .bitboard import U0
from .context import (C_KILLERS, C_MOVES, C_OPTS, C_PV_LEN, C_QUIETS, C_SCORES, C_STATS, CONTEXT_TYPE, MAX_PLY,
                      O_EXACT, O_FUTILITY, O_LMR, O_NULL_MOVE, S_ROOT_DONE, S_STOPPED)
from .hot import hot
from .movegen import generate_moves
from .movepick import captured_piece, drop_quiet_non_checks, next_move, score_moves, update_quiet_stats
from .moves import MAX_MOVES, POSITION_TYPE, ST_SIDE, move_promo
from .position import (check_info, current_key, gives_check_with, in_check, make_move, make_null_move,
                       unmake_move, unmake_null_move)
from .search import (INF, MATE, MATE_BOUND, NO_EVAL, TT_TYPE, enter_node, has_non_pawn_material, is_draw,
                     late_move_reduction, node_bound, prefetch_child, quiescence, quiet_move_pruning,
                     reduced_without_hash_move, score_to_tt, static_eval, table_cutoff, update_pv)
from .tt import (BOUND_EXACT, BOUND_LOWER, busy_with, clear_busy, entry_bound, entry_eval, entry_move, mark_busy,
                 tt_probe, tt_store)

DEFER_DEPTH = 3

# The record's fields, and the slots of its control array.
SH_DEFERRED, SH_CONTROL = "deferred", "control"
K_DEFER, K_SPLIT_PLY, K_SHARED_BETA = 0, 1, 2
NO_SPLIT = -1  # K_SPLIT_PLY when no node follows a shared beta (0 is the root's ply)


def new_shared_state(defer: bool = False) -> np.void:
    """What this search shares with others: ``defer`` turns ABDADA's deferral on (the table must
    have busy marks); no node follows a shared beta until ``follow_shared_bound``."""
    state = np.zeros(1, np.dtype([(SH_DEFERRED, np.int64, (MAX_PLY + 1, MAX_MOVES)),  # moves put off, per ply
                                  (SH_CONTROL, np.int64, 4)], align=True))[0]
    control = state[SH_CONTROL]
    control[K_DEFER] = int(defer)
    control[K_SPLIT_PLY] = NO_SPLIT
    return state


def follow_shared_bound(state: np.void, ply: int, beta: int) -> None:
    """From now on the node at ``ply`` takes its beta from the shared beta, ``beta`` until
    lowered."""
    control = state[SH_CONTROL]
    control[K_SHARED_BETA] = beta
    control[K_SPLIT_PLY] = ply


def lower_shared_bound(state: np.void, beta: int) -> None:
    """Lower the shared beta, if a node follows it (safe from another thread while it searches)."""
    control = state[SH_CONTROL]
    if control[K_SPLIT_PLY] != NO_SPLIT and beta < control[K_SHARED_BETA]:
        control[K_SHARED_BETA] = beta


def stop_following(state: np.void) -> None:
    state[SH_CONTROL][K_SPLIT_PLY] = NO_SPLIT


SHARED_TYPE = numba.typeof(new_shared_state())
NEGAMAX_SHARED_SIGNATURE = types.int64(POSITION_TYPE, TT_TYPE, CONTEXT_TYPE, SHARED_TYPE, types.int64, types.int64,
                                       types.int64, types.int64, types.boolean)


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
def shared_checkpoint(tt, ctx, state, key, depth, ply, alpha, beta, best, searched, is_pv, shared_bound, defer):
    """Before each move of a node that other searches share: score sharing may have lowered
    this job's beta (never below alpha + 1: an empty window bounds nothing, and the master
    reads a null-window probe's answer as the bound it is), and under ABDADA another search
    may have finished the node meanwhile, its table entry sparing the node's other moves.
    Returns (GO_ON | CUT_OFF | SETTLED, the settled value, beta)."""
    control = state[SH_CONTROL]
    if shared_bound and control[K_SHARED_BETA] < beta:
        beta = max(control[K_SHARED_BETA], alpha + 1)
        if best >= beta:
            return CUT_OFF, 0, beta
    exact = ctx[C_OPTS][O_EXACT] != 0
    if defer and searched > 0 and (not is_pv or exact):
        settled, s = table_cutoff(tt_probe(tt, key), depth, ply, alpha, beta, exact)
        if settled:
            ctx[C_PV_LEN][ply] = ply  # the table's answer: the PV stops here
            return SETTLED, s, beta
    return GO_ON, 0, beta


@hot(NEGAMAX_SHARED_SIGNATURE, nogil=True)
def negamax_shared(pos, tt, ctx, state, depth, ply, alpha, beta, null_allowed):
    """``players.core.search.negamax`` with the hooks of a shared search (the module's docstring)."""
    if depth <= 0:
        return quiescence(pos, tt, ctx, ply, alpha, beta)
    if enter_node(ctx, ply):
        return 0
    stats = ctx[C_STATS]
    opts = ctx[C_OPTS]
    exact = opts[O_EXACT] != 0
    control = state[SH_CONTROL]
    deferring = control[K_DEFER] != 0
    if is_draw(pos, exact):
        return 0
    if ply >= MAX_PLY - 1:
        return static_eval(pos, ctx)
    alpha = max(alpha, -MATE + ply)
    beta = min(beta, MATE - ply - 1)
    if alpha >= beta:
        return alpha
    is_pv = beta - alpha > 1
    key = current_key(pos)
    may_null = opts[O_NULL_MOVE] != 0

    entry = tt_probe(tt, key)
    hash_move = 0
    eval_here = NO_EVAL
    if entry != 0:
        hash_move = entry_move(entry)
        eval_here = entry_eval(entry)
        settled, s = table_cutoff(entry, depth, ply, alpha, beta, exact)
        if settled and (not is_pv or (deferring and exact and entry_bound(entry) == BOUND_EXACT)):
            # At a PV node only a finished one another search left: its exact value is the
            # answer, and the PV stops here.
            return s

    checked = in_check(pos)
    if checked:
        eval_here = -INF
    elif eval_here == NO_EVAL:
        eval_here = static_eval(pos, ctx)

    if not checked and not is_pv:
        if opts[O_FUTILITY] and depth <= 3 and eval_here - 90 * depth >= beta and abs(beta) < MATE_BOUND:
            return eval_here
        if opts[O_NULL_MOVE] and null_allowed and depth >= 3 and eval_here >= beta \
                and has_non_pawn_material(pos[0], pos[2][ST_SIDE]):
            null_depth = max(1, depth - 4 - depth // 6)
            make_null_move(pos)
            score = -negamax_shared(pos, tt, ctx, state, null_depth, ply + 1, -beta, -beta + 1, not may_null)
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
    board = pos[1]
    futile, late_limit = quiet_move_pruning(opts, checked, is_pv, depth, alpha, eval_here)
    best = -INF
    best_move = 0
    searched = 0
    quiets = ctx[C_QUIETS][ply]
    n_quiets = 0
    original_alpha = alpha
    have_checks = False
    checks_info = (U0, U0, U0, U0, U0, U0, U0, U0)
    # The hooks: a parallel job's node follows the shared beta; ABDADA's nodes put off the moves
    # another search is busy with, and search them after the others.
    shared_bound = control[K_SPLIT_PLY] == ply
    defer = deferring and depth >= DEFER_DEPTH
    shared = shared_bound or defer
    busy = tt[1]
    deferred = state[SH_DEFERRED][ply]
    n_deferred = 0
    next_deferred = 0
    i = 0
    while True:
        if shared:
            action, value, beta = shared_checkpoint(tt, ctx, state, key, depth, ply, alpha, beta, best, searched,
                                                    is_pv, shared_bound, defer)
            if action == CUT_OFF:
                break
            if action == SETTLED:
                return value
        m, i, next_deferred, may_defer = next_move(moves, scores, i, n, deferred, next_deferred, n_deferred,
                                                   defer and searched > 0)
        if m == 0:
            break
        quiet = captured_piece(board, m) < 0 and move_promo(m) == 0
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
        prefetch_child(tt, ctx, child, new_depth <= 0, exact)
        if defer:
            put_off, n_deferred = defer_or_claim(busy, child, defer, may_defer, deferred, n_deferred, m)
            if put_off:
                unmake_move(pos)
                continue
        if searched == 0:
            score = -negamax_shared(pos, tt, ctx, state, new_depth, ply + 1, -beta, -alpha, may_null)
        else:
            r = 0
            if opts[O_LMR] and depth >= 3 and quiet and not checked and not checks and searched >= 2:
                r = late_move_reduction(depth, searched, new_depth, is_pv,
                                        m == killers[ply, 0] or m == killers[ply, 1])
            score = -negamax_shared(pos, tt, ctx, state, new_depth - r, ply + 1, -alpha - 1, -alpha, may_null)
            if score > alpha and r > 0:
                score = -negamax_shared(pos, tt, ctx, state, new_depth, ply + 1, -alpha - 1, -alpha, may_null)
            if score > alpha and score < beta:
                score = -negamax_shared(pos, tt, ctx, state, new_depth, ply + 1, -beta, -alpha, may_null)
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
    tt_store(tt, key, best_move, node_bound(best, alpha, original_alpha, beta), depth, score_to_tt(best, ply),
             eval_here if not checked else 0)
    return best


@hot(nogil=True)
def search_root_shared(pos, tt, ctx, state, root_moves, n_root, depth, alpha, beta):
    """``players.core.search.search_root`` over ``negamax_shared``; a deferring search also puts
    off a root move (other than the first) that another search is busy with, until the rest
    are done."""
    stats = ctx[C_STATS]
    stats[S_ROOT_DONE] = 0
    ctx[C_PV_LEN][0] = 0
    best = -INF
    best_index = -1
    defer = state[SH_CONTROL][K_DEFER] != 0 and depth >= DEFER_DEPTH
    busy = tt[1]
    deferred = state[SH_DEFERRED][0]  # indices into root_moves (ply 0 has no node of its own)
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
            score = -negamax_shared(pos, tt, ctx, state, new_depth, 1, -beta, -alpha, True)
        else:
            score = -negamax_shared(pos, tt, ctx, state, new_depth, 1, -alpha - 1, -alpha, True)
            if score > alpha and score < beta and not stats[S_STOPPED]:
                score = -negamax_shared(pos, tt, ctx, state, new_depth, 1, -beta, -alpha, True)
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
def search_node_shared(pos, tt, ctx, state, depth, ply, alpha, beta):
    """``negamax_shared`` called from Python: a parallel job's node, ``ply`` plies below the root."""
    return negamax_shared(pos, tt, ctx, state, depth, ply, alpha, beta, True)
