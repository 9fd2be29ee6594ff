"""Alpha-beta search: iterative deepening is driven from Python (``players.searcher``);
this module holds the root search, the principal-variation search and quiescence.

Read top-down it is the textbook algorithm: ``search_root`` → ``negamax`` (PVS with a
transposition table, null-move pruning, reverse futility, futility, late-move pruning and
reductions, internal iterative reduction, check extension, mate-distance pruning) →
``quiescence`` (captures and promotions, every evasion when in check; captures that lose
material by static exchange evaluation are left out; the table's bounds settle null-window
nodes, its move goes first and its evaluation stands pat).  Move ordering is
``players.core.movepick``'s; the search's state is one record (``players.core.context``).

This is the search of one engine on its own.  Searches that share a table or a bound with
other searches at the same time (ABDADA, score sharing) run ``players.core.shared_search``,
the same search with those hooks.
"""
import numba
import numpy as np
from numba import njit, types

from evaluation.evaluate import evaluate_cached
from .bitboard import U0
from .context import (C_EVAL_CACHE, C_ATTACKS, C_COUNTS, C_KILLERS, C_MOVES, C_OPTS, C_PARAMS, C_PAWN_KEYS,
                      C_PAWN_VALUES, C_PV, C_PV_LEN, C_QUIETS, C_SCORES, C_STATS, C_STOP, C_TERMS, C_WEIGHTS,
                      CONTEXT_TYPE, MAX_PLY, O_EXACT, O_FUTILITY, O_LMR, O_MASK, O_NULL_MOVE, S_NODE_LIMIT, S_NODES,
                      S_ROOT_DONE, S_SELDEPTH, S_STOPPED)
from .exchange import node_checkpoint, record_store
from .hot import hot
from .movegen import generate_moves
from .movepick import (ORDER_VALUE, captured_piece, drop_quiet_non_checks, pick_move, score_moves,
                       update_quiet_stats)
from .moves import (KING, MAX_MOVES, OCC_WHITE, PAWN, POSITION_TYPE, QUEEN, ST_HALFMOVE, ST_SIDE, move_promo)
from .position import (check_info, current_key, gives_check_with, in_check, insufficient_material, make_move,
                       make_null_move, repetition_count, unmake_move, unmake_null_move)
from .tt import (BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, entry_bound, entry_depth, entry_eval, entry_move,
                 entry_score, new_table, prefetch_slot, tt_prefetch, tt_probe, tt_store)

INF = 32001
MATE = 32000
MATE_BOUND = MATE - 2 * MAX_PLY  # scores beyond this are mates
NO_EVAL = -32000 + 1

FUTILITY_MARGIN = np.array([0, 120, 220, 320], np.int64)
# Late-move pruning: at a non-PV node of depth d <= 4 a quiet move after the first 3 + d^2
# (ordered by history) is so rarely best that searching it does not pay.
LMP_DEPTH = 4
LMP_COUNT = np.array([3 + d * d for d in range(LMP_DEPTH + 1)], np.int64)


def _lmr_table() -> np.ndarray:
    table = np.zeros((64, 64), np.int64)
    for d in range(1, 64):
        for m in range(1, 64):
            table[d, m] = int(0.75 + np.log(d) * np.log(m) / 2.25)
    return table


LMR = _lmr_table()
# Internal iterative reduction: nodes of at least this depth with no hash move are searched a
# ply shallower (see ``reduced_without_hash_move``).
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
def is_draw(pos, exact):
    """Draws a node scores 0 before searching: dead material, the fifty-move rule, a repetition
    (one is enough inside the tree).  The last two depend on the path to the node, not the
    node: the exact mode leaves them out, so that a value found through one path is the value
    through any (as a shared table assumes)."""
    if insufficient_material(pos[0]):
        return True
    return not exact and (pos[2][ST_HALFMOVE] >= 100 or repetition_count(pos) > 0)


@njit(cache=True, inline="always")
def quiet_move_pruning(opts, checked, is_pv, depth, alpha, eval_here):
    """What a node decides before its first move about pruning its quiet moves (never in check
    or at a PV node): futility, whether the evaluation plus a margin stays below alpha; and
    late-move pruning, after how many moves the quiet ones left are not searched.
    Returns (futile, late-move limit)."""
    prunes = opts[O_FUTILITY] != 0 and not checked and not is_pv
    futile = prunes and depth <= 3 and abs(alpha) < MATE_BOUND and eval_here + FUTILITY_MARGIN[depth] <= alpha
    late_limit = LMP_COUNT[depth] if prunes and depth <= LMP_DEPTH else MAX_MOVES
    return futile, late_limit


@njit(cache=True, inline="always")
def late_move_reduction(depth, searched, new_depth, is_pv, killer):
    """Plies a late quiet move is searched shallower (``LMR`` by depth and move number): a move
    ordered this late rarely turns out best, and one that beats alpha is searched again in full.
    Less at a PV node and for a killer; never down to the quiescence search."""
    r = LMR[min(depth, 63), min(searched, 63)]
    if is_pv:
        r -= 1
    if killer:
        r -= 1
    return max(0, min(r, new_depth - 1))


@njit(cache=True, inline="always")
def node_bound(best, alpha, original_alpha, beta):
    """What a node's fail-soft result is: a lower bound (it cut off), exact (it raised alpha), or
    an upper bound."""
    if best >= beta:
        return BOUND_LOWER
    if alpha > original_alpha:
        return BOUND_EXACT
    return BOUND_UPPER


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
    """Count a node and say whether the search must unwind (node limit or stop flag); a
    cluster worker's search may pause here (``players.core.exchange.node_checkpoint``)."""
    stats = ctx[C_STATS]
    if stats[S_STOPPED]:
        return True
    stats[S_NODES] += 1
    # The limit is also where a cluster worker's pause falls due (``players.core.exchange``).
    if stats[S_NODE_LIMIT] > 0 and stats[S_NODES] >= stats[S_NODE_LIMIT] and node_checkpoint(ctx):
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
        tt_store(tt, key, best_move, node_bound(best, alpha, original_alpha, beta), 0, score_to_tt(best, ply),
                 stand if not checked else 0)
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
    exact = opts[O_EXACT] != 0
    if is_draw(pos, exact):
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

    # The table: its move goes first, its stored evaluation saves computing one, and an entry
    # that settles the node ends it (at a PV node the search goes on, for the PV).
    entry = tt_probe(tt, key)
    hash_move = 0
    eval_here = NO_EVAL
    if entry != 0:
        hash_move = entry_move(entry)
        eval_here = entry_eval(entry)
        settled, s = table_cutoff(entry, depth, ply, alpha, beta, exact)
        if settled and not is_pv:
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
                and has_non_pawn_material(pos[0], pos[2][ST_SIDE]):
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
    board = pos[1]
    futile, late_limit = quiet_move_pruning(opts, checked, is_pv, depth, alpha, eval_here)
    best = -INF
    best_move = 0
    searched = 0
    quiets = ctx[C_QUIETS][ply]  # the quiet moves searched without a cutoff (the history malus)
    n_quiets = 0
    original_alpha = alpha
    have_checks = False
    checks_info = (U0, U0, U0, U0, U0, U0, U0, U0)
    i = 0
    while i < n:
        m = pick_move(moves, scores, i, n)
        i += 1
        quiet = captured_piece(board, m) < 0 and move_promo(m) == 0
        # Futile and late quiet moves are pruned unless they check: tested without making them,
        # with what the node's checks are worked out once, at the first move that needs it.
        # Pruning, once it starts, goes on to the node's last move (searched and best only
        # grow), so the quiet moves left that cannot check are dropped from the list at once.
        if quiet and searched > 0 and (futile or (searched >= late_limit and best > -MATE_BOUND)):
            if not have_checks:
                checks_info = check_info(pos)
                have_checks = True
                n = drop_quiet_non_checks(pos, moves, scores, i, n, checks_info)
            if not gives_check_with(pos, m, checks_info):
                continue
        make_move(pos, m)
        checks = in_check(pos)
        new_depth = depth - 1 + (1 if checks else 0)  # check extension
        prefetch_child(tt, ctx, current_key(pos), new_depth <= 0, exact)
        if searched == 0:
            score = -negamax(pos, tt, ctx, new_depth, ply + 1, -beta, -alpha, may_null)
        else:
            # The other moves need only prove that they are no better: a null window, and a
            # late quiet move reduced; one that beats alpha anyway is searched again, in full.
            r = 0
            if opts[O_LMR] and depth >= 3 and quiet and not checked and not checks and searched >= 2:
                r = late_move_reduction(depth, searched, new_depth, is_pv,
                                        m == killers[ply, 0] or m == killers[ply, 1])
            score = -negamax(pos, tt, ctx, new_depth - r, ply + 1, -alpha - 1, -alpha, may_null)
            if score > alpha and r > 0:
                score = -negamax(pos, tt, ctx, new_depth, ply + 1, -alpha - 1, -alpha, may_null)
            if score > alpha and score < beta:
                score = -negamax(pos, tt, ctx, new_depth, ply + 1, -beta, -alpha, may_null)
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
    stored = tt_store(tt, key, best_move, node_bound(best, alpha, original_alpha, beta), depth,
                      score_to_tt(best, ply), eval_here if not checked else 0)
    record_store(ctx, key, stored, depth)
    return best


@hot(nogil=True)
def search_root(pos, tt, ctx, root_moves, n_root, depth, alpha, beta):
    """Search the root moves, in the order given, to ``depth``; returns (score, index of the
    best move).

    ``stats[S_ROOT_DONE]`` counts root moves fully searched (the thesis's ``N``),
    and ``ctx[C_PV][0]`` holds the principal variation.  A fail-high stops early.
    """
    stats = ctx[C_STATS]
    stats[S_ROOT_DONE] = 0
    ctx[C_PV_LEN][0] = 0
    best = -INF
    best_index = -1
    for i in range(n_root):
        m = root_moves[i]
        make_move(pos, m)
        checks = in_check(pos)
        new_depth = depth - 1 + (1 if checks else 0)
        if i == 0:
            score = -negamax(pos, tt, ctx, new_depth, 1, -beta, -alpha, True)
        else:
            score = -negamax(pos, tt, ctx, new_depth, 1, -alpha - 1, -alpha, True)
            if score > alpha and score < beta and not stats[S_STOPPED]:
                score = -negamax(pos, tt, ctx, new_depth, 1, -beta, -alpha, True)
        unmake_move(pos)
        if stats[S_STOPPED]:
            break
        stats[S_ROOT_DONE] = i + 1
        if score > best:
            best = score
            best_index = i
            if i == 0 or score > alpha:
                update_pv(ctx, 0, m)
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    if best_index >= 0 and not stats[S_STOPPED]:
        bound = BOUND_LOWER if best >= beta else BOUND_EXACT
        key = current_key(pos)
        stored = tt_store(tt, key, root_moves[best_index], bound, depth, score_to_tt(best, 0), 0)
        record_store(ctx, key, stored, depth)
    return best, best_index


@hot(nogil=True)
def search_node(pos, tt, ctx, depth, ply, alpha, beta):
    """``negamax`` called from Python: one node searched as if ``ply`` plies below the root."""
    return negamax(pos, tt, ctx, depth, ply, alpha, beta, True)
