"""Young Brothers Wait with split points in shared memory, as Stockfish 6 does it (Chillemi's
study, ``docs/results/parallel-search.md``): k search threads of one process over one transposition table.

* A thread at a node of depth >= the minimum split depth that has searched the node's eldest
  child, and sees a thread available to help it, opens a *split point* (``open_split_point``):
  the node's position, depth, window, best value and move, the moves not searched yet (the
  shared move picker), a cut-off flag, the mask of the threads working there and the split
  point the thread was working under (its parent).  The available threads are made its
  slaves at once; every one of them, the master too, then takes the next move from the shared
  picker under the split point's lock, searches it on a position of its own and folds the
  value into the shared alpha and best (``negamax_ybw`` with ``sp >= 0``: Stockfish's
  ``search<SpNode>``).  A value at or above beta raises the cut-off flag; a thread checks the
  flags of its whole chain of split points after every child (``aborted``) and unwinds when
  one is up, storing nothing.
* The helpful master: a master that has run out of moves waits for its slaves, and meanwhile
  joins split points opened by its slaves only (``available_to``), so that it is free again
  by the time its last slave is (a thread never waits for a thread that waits for it).
* Late join: an idle thread also joins, on its own, a split point where every thread is still
  searching (none has run out of moves), the one with the fewest split points above it.
* Locks are spinlocks on atomic compare-and-swap (``players.threads.spinlock``): one for the
  threads (who works where: taken before a split point's) and one per split point.

A thread's position, search record (killers, history, PV, move buffers) and counters are its
own: a slave copies the split point's position into a slot of its own (``own``, one slot per
split point it can be the master of, plus one: a waiting master's joined search must leave its
own node's position alone), and plays its moves there.

With one thread nothing splits and ``negamax_ybw`` is ``players.core.search.negamax`` node for
node (``tests/players/test_ybw_search.py``): the two are kept in step, and the node's helpers
(``table_cutoff``, ``quiet_move_pruning``, ``late_move_reduction``, ...) are shared.
"""
import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from players.core.bitboard import U0
from players.core.context import (C_KILLERS, C_MOVES, C_OPTS, C_PV, C_PV_LEN, C_QUIETS, C_SCORES, C_STATS, C_STOP, CONTEXT_TYPE,
                      MAX_PLY, O_EXACT, O_FUTILITY, O_LMR, O_NULL_MOVE, S_ROOT_DONE, S_STOPPED)
from players.core.hot import hot
from players.core.movegen import generate_moves
from players.core.movepick import captured_piece, drop_quiet_non_checks, pick_move, score_moves, update_quiet_stats
from players.core.moves import H_SIZE, MAX_HISTORY, MAX_MOVES, POSITION_TYPE, ST_HALFMOVE, ST_PLY, ST_SIDE, ST_SIZE, move_promo
from players.core.position import (check_info, current_key, gives_check_with, in_check, make_move, make_null_move,
                       unmake_move, unmake_null_move)
from players.core.search import (INF, MATE, MATE_BOUND, NO_EVAL, TT_TYPE, enter_node, has_non_pawn_material, is_draw,
                     late_move_reduction, node_bound, prefetch_child, quiescence, quiet_move_pruning,
                     reduced_without_hash_move, score_to_tt, static_eval, table_cutoff, update_pv)
from .spinlock import atomic_load, atomic_store, lock, relax, unlock
from players.core.tt import BOUND_EXACT, BOUND_LOWER, entry_eval, entry_move, tt_probe, tt_store

MAX_THREADS = 32           # threads of one search (bits of a split point's slaves mask)
MAX_SPLIT_POINTS = 8       # split points one thread can be the master of at once (Stockfish's)
MAX_SLAVES = 4             # threads working at one split point, its master included (Stockfish's)
N_SPLIT_POINTS = MAX_THREADS * MAX_SPLIT_POINTS
KEY_WINDOW = 256           # Zobrist keys a split point keeps of its path (repetitions look back this far)
LOCK_STRIDE = 8            # one lock per 64-byte line: a busy split point's lock does not slow its neighbours'

# team["control"]
K_STOP, K_RUNNING, K_THREADS, K_MIN_SPLIT, K_NO_SP = 0, 1, 2, 3, 4  # K_NO_SP holds -1
# team["threads"], THREAD_FIELDS per thread (one 128-byte block each)
THREAD_FIELDS = 16
(T_SEARCHING, T_ACTIVE_SP, T_SP_SIZE, T_SPLITS, T_JOINS, T_LATE_JOINS, T_IDLE_CYCLES, T_CYCLES,
 T_HELPS) = range(9)  # T_HELPS: split points a waiting master worked at (the helpful master)
# team["sp"], SP_FIELDS per split point
SP_FIELDS = 32
(P_DEPTH, P_PLY, P_ALPHA, P_BETA, P_BEST, P_BEST_MOVE, P_NEXT, P_N, P_COUNT, P_CUTOFF, P_SLAVES, P_ALL_SEARCHING,
 P_PARENT, P_MASTER, P_IS_PV, P_CHECKED, P_FUTILE, P_LATE_LIMIT, P_MAY_NULL, P_LMR, P_KEYS_FROM) = range(21)
THREADS_LOCK = 0


def new_team(threads: int, min_split_depth: int) -> np.void:
    """The state k threads share: locks, who works where, the split points."""
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"YBW runs 1 to {MAX_THREADS} threads, not {threads}")
    team = np.zeros(1, np.dtype([
        ("locks", np.int64, (1 + N_SPLIT_POINTS) * LOCK_STRIDE),
        ("control", np.int64, 16),
        ("threads", np.int64, MAX_THREADS * THREAD_FIELDS),
        ("sp", np.int64, N_SPLIT_POINTS * SP_FIELDS),
        ("sp_moves", np.int64, (N_SPLIT_POINTS, MAX_MOVES)),    # the shared move picker: moves ...
        ("sp_scores", np.int64, (N_SPLIT_POINTS, MAX_MOVES)),   # ... and their ordering scores
        ("sp_pv", np.int64, (N_SPLIT_POINTS, MAX_PLY + 1)),     # the best line from the node (by ply)
        ("sp_pv_len", np.int64, N_SPLIT_POINTS),
        ("sp_bb", np.uint64, (N_SPLIT_POINTS, 14)),             # the node's position
        ("sp_board", np.int8, (N_SPLIT_POINTS, 64)),
        ("sp_st", np.int64, (N_SPLIT_POINTS, ST_SIZE)),
        ("sp_keys", np.uint64, (N_SPLIT_POINTS, KEY_WINDOW)),
    ], align=True))[0]
    control = team["control"]
    control[K_THREADS] = threads
    control[K_MIN_SPLIT] = min_split_depth
    control[K_NO_SP] = -1
    for t in range(MAX_THREADS):
        team["threads"][t * THREAD_FIELDS + T_ACTIVE_SP] = -1
    return team


def new_own() -> np.void:
    """One thread's position slots: slot s is where it searches a split point it joins while
    it is the master of s split points (waiting at the last)."""
    slots = MAX_SPLIT_POINTS + 1
    return np.zeros(1, np.dtype([
        ("bb", np.uint64, (slots, 14)),
        ("board", np.int8, (slots, 64)),
        ("st", np.int64, (slots, ST_SIZE)),
        ("hist", np.int64, (slots, MAX_HISTORY, H_SIZE)),
        ("keys", np.uint64, (slots, MAX_HISTORY + 1)),
    ], align=True))[0]


TEAM_TYPE = numba.typeof(new_team(1, 4))
OWN_TYPE = numba.typeof(new_own())
YBW_SIGNATURE = types.int64(POSITION_TYPE, TT_TYPE, CONTEXT_TYPE, TEAM_TYPE, OWN_TYPE, types.int64, types.int64,
                            types.int64, types.int64, types.int64, types.boolean, types.int64)


@intrinsic
def cycles(typingctx):
    """The processor's cycle counter (``llvm.readcyclecounter``): idle time as a share of a
    thread's time, with no clock call in compiled code."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter"), [])

    return types.int64(), codegen


# --- who works where ---------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def thread_field(t, f):
    return t * THREAD_FIELDS + f


@njit(cache=True, inline="always")
def sp_field(x, f):
    return x * SP_FIELDS + f


@njit(cache=True, inline="always")
def sp_lock(x):
    return (1 + x) * LOCK_STRIDE


@njit(cache=True, inline="always")
def copy_into(target, source):
    for j in range(source.shape[0]):
        target[j] = source[j]


@njit(cache=True, inline="always")
def bit_count(mask):
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def available_to(team, t, master):
    """Whether thread ``t`` can help ``master`` at a split point: it is idle, and if it is itself
    a master waiting at a split point, ``master`` is one of that split point's slaves (the
    helpful master: it helps only the threads that work for it)."""
    threads = team["threads"]
    if t == master or atomic_load(threads, thread_field(t, T_SEARCHING)) != 0:
        return False
    size = atomic_load(threads, thread_field(t, T_SP_SIZE))
    if size == 0:
        return True
    top = t * MAX_SPLIT_POINTS + size - 1
    return (atomic_load(team["sp"], sp_field(top, P_SLAVES)) >> master) & 1 != 0


@njit(cache=True, inline="always")
def some_thread_available(team, t):
    for other in range(team["control"][K_THREADS]):
        if available_to(team, other, t):
            return True
    return False


@njit(cache=True, inline="always")
def cut_off(team, t):
    """Whether a split point in thread ``t``'s chain (where it works, and every one above) has
    cut off: what it searches is not needed any more."""
    sp = team["sp"]
    x = atomic_load(team["threads"], thread_field(t, T_ACTIVE_SP))
    while x >= 0:
        if atomic_load(sp, sp_field(x, P_CUTOFF)) != 0:
            return True
        x = sp[sp_field(x, P_PARENT)]
    return False


@njit(cache=True, inline="always")
def aborted(ctx, team, t):
    """Whether the value just searched must be thrown away: the search was stopped (this thread
    hit its node limit or was told to stop: then every thread stops), or a cut-off above."""
    control = team["control"]
    if ctx[C_STATS][S_STOPPED]:
        atomic_store(control, K_STOP, 1)
        return True
    return atomic_load(control, K_STOP) != 0 or cut_off(team, t)


@njit(cache=True, inline="always")
def can_split(team, t, depth):
    return (depth >= team["control"][K_MIN_SPLIT] and team["threads"][thread_field(t, T_SP_SIZE)] < MAX_SPLIT_POINTS
            and some_thread_available(team, t))


@njit(cache=True, inline="always")
def open_split_point(pos, ctx, team, t, moves, scores, i, n, depth, ply, alpha, beta, best, best_move, searched,
                     is_pv, checked, futile, late_limit, may_null, lmr):
    """Make the node a split point: its state and moves ``moves[i:n]`` copied into thread
    ``t``'s next split point, the available threads its slaves (Stockfish's ``split``).
    Returns the split point."""
    threads, sp, locks = team["threads"], team["sp"], team["locks"]
    lock(locks, THREADS_LOCK)
    size = threads[thread_field(t, T_SP_SIZE)]
    x = t * MAX_SPLIT_POINTS + size
    lock(locks, sp_lock(x))
    base = x * SP_FIELDS
    sp[base + P_DEPTH] = depth
    sp[base + P_PLY] = ply
    sp[base + P_ALPHA] = alpha
    sp[base + P_BETA] = beta
    sp[base + P_BEST] = best
    sp[base + P_BEST_MOVE] = best_move
    sp[base + P_NEXT] = 0
    sp[base + P_N] = n - i
    sp[base + P_COUNT] = searched
    sp[base + P_CUTOFF] = 0
    sp[base + P_ALL_SEARCHING] = 1
    sp[base + P_PARENT] = threads[thread_field(t, T_ACTIVE_SP)]
    sp[base + P_MASTER] = t
    sp[base + P_IS_PV] = is_pv
    sp[base + P_CHECKED] = checked
    sp[base + P_FUTILE] = futile
    sp[base + P_LATE_LIMIT] = late_limit
    sp[base + P_MAY_NULL] = may_null
    sp[base + P_LMR] = lmr
    sp_moves, sp_scores = team["sp_moves"][x], team["sp_scores"][x]
    for j in range(i, n):
        sp_moves[j - i] = moves[j]
        sp_scores[j - i] = scores[j]
    # The best line so far (the eldest's), kept unless a better move comes.
    pv, pv_len = ctx[C_PV], ctx[C_PV_LEN]
    sp_pv = team["sp_pv"][x]
    for j in range(ply, pv_len[ply]):
        sp_pv[j] = pv[ply, j]
    team["sp_pv_len"][x] = pv_len[ply]
    # The position, and the keys of its path a repetition can reach back to.
    bb, board, st, keys = pos[0], pos[1], pos[2], pos[4]
    copy_into(team["sp_bb"][x], bb)
    copy_into(team["sp_board"][x], board)
    copy_into(team["sp_st"][x], st)
    game_ply = st[ST_PLY]
    first = max(0, game_ply - min(st[ST_HALFMOVE], KEY_WINDOW - 1))
    sp[sp_field(x, P_KEYS_FROM)] = first
    sp_keys = team["sp_keys"][x]
    for j in range(first, game_ply + 1):
        sp_keys[j - first] = keys[j]
    threads[thread_field(t, T_SP_SIZE)] = size + 1
    threads[thread_field(t, T_ACTIVE_SP)] = x
    threads[thread_field(t, T_SPLITS)] += 1
    slaves = np.int64(1) << t
    for other in range(team["control"][K_THREADS]):
        if bit_count(slaves) >= MAX_SLAVES:
            break
        if available_to(team, other, t):
            slaves |= np.int64(1) << other
            threads[thread_field(other, T_ACTIVE_SP)] = x
            atomic_store(threads, thread_field(other, T_SEARCHING), 1)  # the slave leaves its idle loop
            threads[thread_field(t, T_JOINS)] += 1
    atomic_store(sp, sp_field(x, P_SLAVES), slaves)
    unlock(locks, sp_lock(x))
    unlock(locks, THREADS_LOCK)
    return x


@njit(cache=True, inline="always")
def try_late_join(team, t):
    """An idle thread joins a split point where every thread is still searching and it is
    available to the master: of those, the one with the fewest split points above it (a
    cut-off above wastes the least).  Returns it, or -1."""
    threads, sp, locks = team["threads"], team["sp"], team["locks"]
    k = team["control"][K_THREADS]
    best, best_level = -1, 1 << 30
    for other in range(k):
        size = atomic_load(threads, thread_field(other, T_SP_SIZE))
        if other == t or size == 0:
            continue
        x = other * MAX_SPLIT_POINTS + size - 1
        if (atomic_load(sp, sp_field(x, P_ALL_SEARCHING)) != 0
                and bit_count(atomic_load(sp, sp_field(x, P_SLAVES))) < MAX_SLAVES and available_to(team, t, other)):
            level = 0
            p = atomic_load(threads, thread_field(other, T_ACTIVE_SP))
            while p >= 0 and level < 64:
                level += 1
                p = sp[sp_field(p, P_PARENT)]
            if level < best_level:
                best, best_level = x, level
    if best < 0:
        return -1
    other = best // MAX_SPLIT_POINTS
    joined = -1
    lock(locks, THREADS_LOCK)
    lock(locks, sp_lock(best))
    # Again under the locks: the split point may have closed, or another thread taken us.
    if (threads[thread_field(other, T_SP_SIZE)] == best % MAX_SPLIT_POINTS + 1
            and sp[sp_field(best, P_ALL_SEARCHING)] != 0
            and bit_count(sp[sp_field(best, P_SLAVES)]) < MAX_SLAVES and available_to(team, t, other)):
        atomic_store(sp, sp_field(best, P_SLAVES), sp[sp_field(best, P_SLAVES)] | (np.int64(1) << t))
        threads[thread_field(t, T_ACTIVE_SP)] = best
        atomic_store(threads, thread_field(t, T_SEARCHING), 1)
        threads[thread_field(t, T_LATE_JOINS)] += 1
        joined = best
    unlock(locks, sp_lock(best))
    unlock(locks, THREADS_LOCK)
    return joined


@njit(cache=True, inline="always")
def next_work(ctx, team, t, waiting_at):
    """Thread ``t``'s idle loop: the split point it is given or joins, or -1 when there is
    nothing left to wait for — the master's split point ``waiting_at`` has no thread left
    working there, or (``waiting_at`` < 0, a helper) the search is over.  A stop order for
    this thread (its deadline) is passed on to the team meanwhile: a waiting master searches
    no node that would notice it."""
    threads = team["threads"]
    control = team["control"]
    stop = ctx[C_STOP]
    start = cycles()
    spins = 0
    while True:
        if atomic_load(stop, 0) != 0:
            atomic_store(control, K_STOP, 1)
        if atomic_load(threads, thread_field(t, T_SEARCHING)) != 0:
            j = threads[thread_field(t, T_ACTIVE_SP)]
            break
        if waiting_at >= 0:
            if atomic_load(team["sp"], sp_field(waiting_at, P_SLAVES)) == 0:
                j = -1
                break
        elif atomic_load(control, K_RUNNING) == 0:
            j = -1
            break
        j = try_late_join(team, t)
        if j >= 0:
            break
        spins = relax(spins)
    threads[thread_field(t, T_IDLE_CYCLES)] += cycles() - start
    if j >= 0 and waiting_at >= 0:
        threads[thread_field(t, T_HELPS)] += 1
    return j


@njit(cache=True, inline="always")
def join_slot(team, own, t, x):
    """Copy split point ``x``'s position into thread ``t``'s slot for it; returns the slot."""
    s = team["threads"][thread_field(t, T_SP_SIZE)]
    copy_into(own["bb"][s], team["sp_bb"][x])
    copy_into(own["board"][s], team["sp_board"][x])
    st = own["st"][s]
    copy_into(st, team["sp_st"][x])
    first = team["sp"][sp_field(x, P_KEYS_FROM)]
    keys, sp_keys = own["keys"][s], team["sp_keys"][x]
    for j in range(first, st[ST_PLY] + 1):
        keys[j] = sp_keys[j - first]
    return s


@njit(cache=True, inline="always")
def leave_split_point(team, t, x, back_to):
    """Thread ``t`` has no move left to take at ``x``: it leaves (``x`` closes once nobody is
    left) and is idle again, working under ``back_to``.  ``x`` may be reused the moment the
    lock is released: nothing of it is read after."""
    threads, sp, locks = team["threads"], team["sp"], team["locks"]
    lock(locks, sp_lock(x))
    sp[sp_field(x, P_ALL_SEARCHING)] = 0
    threads[thread_field(t, T_ACTIVE_SP)] = back_to
    atomic_store(threads, thread_field(t, T_SEARCHING), 0)
    atomic_store(sp, sp_field(x, P_SLAVES), sp[sp_field(x, P_SLAVES)] & ~(np.int64(1) << t))
    unlock(locks, sp_lock(x))


@njit(cache=True, inline="always")
def close_split_point(ctx, team, t, x):
    """Every thread has left ``x``: the master takes its result back and works under the
    split point above again.  Returns (best, best move, alpha, moves handed out)."""
    threads, sp, locks = team["threads"], team["sp"], team["locks"]
    lock(locks, THREADS_LOCK)
    lock(locks, sp_lock(x))
    atomic_store(threads, thread_field(t, T_SEARCHING), 1)
    threads[thread_field(t, T_SP_SIZE)] -= 1
    threads[thread_field(t, T_ACTIVE_SP)] = sp[sp_field(x, P_PARENT)]
    ply = sp[sp_field(x, P_PLY)]
    pv, pv_len = ctx[C_PV], ctx[C_PV_LEN]
    n = team["sp_pv_len"][x]
    sp_pv = team["sp_pv"][x]
    for j in range(ply, n):
        pv[ply, j] = sp_pv[j]
    pv_len[ply] = max(n, ply)
    result = sp[sp_field(x, P_BEST)], sp[sp_field(x, P_BEST_MOVE)], sp[sp_field(x, P_ALPHA)], sp[sp_field(x, P_COUNT)]
    unlock(locks, sp_lock(x))
    unlock(locks, THREADS_LOCK)
    return result


@njit(cache=True, inline="always")
def take_move(team, x):
    """The next move of split point ``x``'s picker, under its lock: (move or 0 when none is
    left or it cut off, moves handed out before it, alpha, best)."""
    sp, locks = team["sp"], team["locks"]
    lock(locks, sp_lock(x))
    m = 0
    count = sp[sp_field(x, P_COUNT)]
    i, n = sp[sp_field(x, P_NEXT)], sp[sp_field(x, P_N)]
    if sp[sp_field(x, P_CUTOFF)] == 0 and i < n:
        m = pick_move(team["sp_moves"][x], team["sp_scores"][x], i, n)
        sp[sp_field(x, P_NEXT)] = i + 1
        sp[sp_field(x, P_COUNT)] = count + 1
    alpha, best = sp[sp_field(x, P_ALPHA)], sp[sp_field(x, P_BEST)]
    unlock(locks, sp_lock(x))
    return m, count, alpha, best


@njit(cache=True, inline="always")
def fold_value(ctx, team, x, m, score):
    """A move of split point ``x`` searched to ``score``: the shared best, alpha, best move and
    line, and the cut-off flag, under the lock.  Returns whether the split point cut off."""
    sp, locks = team["sp"], team["locks"]
    lock(locks, sp_lock(x))
    if score > sp[sp_field(x, P_BEST)] and sp[sp_field(x, P_CUTOFF)] == 0:
        sp[sp_field(x, P_BEST)] = score
        if score > sp[sp_field(x, P_ALPHA)]:
            ply = sp[sp_field(x, P_PLY)]
            sp[sp_field(x, P_ALPHA)] = score
            sp[sp_field(x, P_BEST_MOVE)] = m
            pv, pv_len = ctx[C_PV], ctx[C_PV_LEN]
            sp_pv = team["sp_pv"][x]
            sp_pv[ply] = m
            for j in range(ply + 1, pv_len[ply + 1]):
                sp_pv[j] = pv[ply + 1, j]
            team["sp_pv_len"][x] = max(pv_len[ply + 1], ply + 1)
            if score >= sp[sp_field(x, P_BETA)]:
                atomic_store(sp, sp_field(x, P_CUTOFF), 1)
    cut = sp[sp_field(x, P_CUTOFF)] != 0
    unlock(locks, sp_lock(x))
    return cut


# --- the search ---------------------------------------------------------------------------------------

@hot(YBW_SIGNATURE, nogil=True)
def negamax_ybw(pos, tt, ctx, team, own, t, depth, ply, alpha, beta, null_allowed, sp):
    """``players.core.search.negamax`` for thread ``t`` of a YBW team; with ``sp >= 0`` the
    thread's share of split point ``sp``'s moves (the node's state is the split point's, the
    other arguments but ``pos`` are ignored, and the value is in the split point)."""
    opts = ctx[C_OPTS]
    exact = opts[O_EXACT] != 0
    may_null = opts[O_NULL_MOVE] != 0
    killers = ctx[C_KILLERS]
    board = pos[1]
    splits = sp >= 0
    # Recursive calls must not pass literals (numba mangles a literal's type into the call,
    # and the cache then cannot resolve the symbol: see players.core.search).
    no_sp = team["control"][K_NO_SP]
    if splits:
        shared = team["sp"]
        depth, ply = shared[sp_field(sp, P_DEPTH)], shared[sp_field(sp, P_PLY)]
        beta = shared[sp_field(sp, P_BETA)]
        is_pv, checked = shared[sp_field(sp, P_IS_PV)] != 0, shared[sp_field(sp, P_CHECKED)] != 0
        futile, late_limit = shared[sp_field(sp, P_FUTILE)] != 0, shared[sp_field(sp, P_LATE_LIMIT)]
        may_null = shared[sp_field(sp, P_MAY_NULL)] != 0
        lmr = shared[sp_field(sp, P_LMR)] != 0
        moves, scores = team["sp_moves"][sp], team["sp_scores"][sp]
        n = shared[sp_field(sp, P_N)]
        key = U0
        eval_here = 0
        best = -INF
    else:
        if depth <= 0:
            return quiescence(pos, tt, ctx, ply, alpha, beta)
        if enter_node(ctx, ply):
            return 0
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
            if opts[O_FUTILITY] and depth <= 3 and eval_here - 90 * depth >= beta and abs(beta) < MATE_BOUND:
                return eval_here
            if opts[O_NULL_MOVE] and null_allowed and depth >= 3 and eval_here >= beta \
                    and has_non_pawn_material(pos[0], pos[2][ST_SIDE]):
                null_depth = max(1, depth - 4 - depth // 6)
                make_null_move(pos)
                score = -negamax_ybw(pos, tt, ctx, team, own, t, null_depth, ply + 1, -beta, -beta + 1,
                                     not may_null, no_sp)
                unmake_null_move(pos)
                if aborted(ctx, team, t):
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
        futile, late_limit = quiet_move_pruning(opts, checked, is_pv, depth, alpha, eval_here)
        lmr = opts[O_LMR] != 0
        best = -INF
    best_move = 0
    searched = 0
    quiets = ctx[C_QUIETS][ply]
    n_quiets = 0
    original_alpha = alpha
    have_checks = False
    checks_info = (U0, U0, U0, U0, U0, U0, U0, U0)
    i = 0
    while True:
        if splits:
            m, searched, alpha, best = take_move(team, sp)
            if m == 0:
                break
        else:
            if i >= n:
                break
            m = pick_move(moves, scores, i, n)
            i += 1
        quiet = captured_piece(board, m) < 0 and move_promo(m) == 0
        if quiet and searched > 0 and (futile or (searched >= late_limit and best > -MATE_BOUND)):
            if not have_checks:
                checks_info = check_info(pos)
                have_checks = True
                if not splits:  # a split point's moves are shared: each thread tests its own
                    n = drop_quiet_non_checks(pos, moves, scores, i, n, checks_info)
            if not gives_check_with(pos, m, checks_info):
                continue
        make_move(pos, m)
        checks = in_check(pos)
        new_depth = depth - 1 + (1 if checks else 0)
        prefetch_child(tt, ctx, current_key(pos), new_depth <= 0, exact)
        if searched == 0:
            score = -negamax_ybw(pos, tt, ctx, team, own, t, new_depth, ply + 1, -beta, -alpha, may_null, no_sp)
        else:
            r = 0
            if lmr and depth >= 3 and quiet and not checked and not checks and searched >= 2:
                r = late_move_reduction(depth, searched, new_depth, is_pv,
                                        m == killers[ply, 0] or m == killers[ply, 1])
            score = -negamax_ybw(pos, tt, ctx, team, own, t, new_depth - r, ply + 1, -alpha - 1, -alpha, may_null,
                                 no_sp)
            if score > alpha and r > 0:
                score = -negamax_ybw(pos, tt, ctx, team, own, t, new_depth, ply + 1, -alpha - 1, -alpha, may_null,
                                     no_sp)
            if score > alpha and score < beta:
                score = -negamax_ybw(pos, tt, ctx, team, own, t, new_depth, ply + 1, -beta, -alpha, may_null, no_sp)
        unmake_move(pos)
        if aborted(ctx, team, t):
            return 0
        if splits:
            if fold_value(ctx, team, sp, m, score):
                if quiet and score >= beta:
                    update_quiet_stats(pos, ctx, ply, m, depth, 0)
                break
            continue
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
        if i < n and can_split(team, t, depth):
            # Young brothers wait no longer: the eldest is searched, the rest is shared.
            x = open_split_point(pos, ctx, team, t, moves, scores, i, n, depth, ply, alpha, beta, best, best_move,
                                 searched, is_pv, checked, futile, late_limit, may_null, lmr)
            negamax_ybw(pos, tt, ctx, team, own, t, depth, ply, alpha, beta, null_allowed, x)
            leave_split_point(team, t, x, x)
            while True:  # the helpful master
                j = next_work(ctx, team, t, x)
                if j < 0:
                    break
                s = join_slot(team, own, t, j)
                negamax_ybw((own["bb"][s], own["board"][s], own["st"][s], own["hist"][s], own["keys"][s]), tt, ctx,
                            team, own, t, depth, ply, alpha, beta, null_allowed, j)
                leave_split_point(team, t, j, x)
            best, best_move, alpha, searched = close_split_point(ctx, team, t, x)
            if aborted(ctx, team, t):
                return 0
            break
    if splits:
        return 0
    if searched == 0:
        return alpha
    tt_store(tt, key, best_move, node_bound(best, alpha, original_alpha, beta), depth, score_to_tt(best, ply),
             eval_here if not checked else 0)
    return best


@hot(nogil=True)
def search_root_ybw(pos, tt, ctx, team, own, root_moves, n_root, depth, alpha, beta):
    """``players.core.search.search_root`` for the team's first thread: the root's moves in
    the order given, the younger ones shared out as a split point once the eldest is searched.
    Returns (score, index of the best move)."""
    stats = ctx[C_STATS]
    threads = team["threads"]
    start = cycles()
    stats[S_ROOT_DONE] = 0
    ctx[C_PV_LEN][0] = 0
    # Variables, not literals, in the calls (see negamax_ybw): the first ply, null moves allowed.
    no_sp = team["control"][K_NO_SP]
    first = 1
    null_allowed = n_root > 0
    best = -INF
    best_index = -1
    i = 0
    while i < n_root:
        m = root_moves[i]
        make_move(pos, m)
        checks = in_check(pos)
        new_depth = depth - 1 + (1 if checks else 0)
        if i == 0:
            score = -negamax_ybw(pos, tt, ctx, team, own, 0, new_depth, first, -beta, -alpha, null_allowed, no_sp)
        else:
            score = -negamax_ybw(pos, tt, ctx, team, own, 0, new_depth, first, -alpha - 1, -alpha, null_allowed,
                                 no_sp)
            if score > alpha and score < beta and not aborted(ctx, team, 0):
                score = -negamax_ybw(pos, tt, ctx, team, own, 0, new_depth, first, -beta, -alpha, null_allowed,
                                     no_sp)
        unmake_move(pos)
        if aborted(ctx, team, 0):
            break
        i += 1
        stats[S_ROOT_DONE] = i
        if score > best:
            best = score
            best_index = i - 1
            if i == 1 or score > alpha:
                update_pv(ctx, 0, m)
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
        if i < n_root and can_split(team, 0, depth):
            # The root's younger moves keep their order: scores that fall with the index.
            scores = ctx[C_SCORES][0]
            for j in range(i, n_root):
                scores[j] = n_root - j
            x = open_split_point(pos, ctx, team, 0, root_moves, scores, i, n_root, depth, 0, alpha, beta, best,
                                 root_moves[best_index], i, True, False, False, MAX_MOVES, True, False)
            negamax_ybw(pos, tt, ctx, team, own, 0, depth, first, alpha, beta, null_allowed, x)
            leave_split_point(team, 0, x, x)
            while True:  # the helpful master
                j = next_work(ctx, team, 0, x)
                if j < 0:
                    break
                s = join_slot(team, own, 0, j)
                negamax_ybw((own["bb"][s], own["board"][s], own["st"][s], own["hist"][s], own["keys"][s]), tt, ctx,
                            team, own, 0, depth, first, alpha, beta, null_allowed, j)
                leave_split_point(team, 0, j, x)
            best, best_move, alpha, done = close_split_point(ctx, team, 0, x)
            if aborted(ctx, team, 0):
                break
            stats[S_ROOT_DONE] = done
            for j in range(n_root):
                if root_moves[j] == best_move:
                    best_index = j
            break
    if best_index >= 0 and not aborted(ctx, team, 0):
        bound = BOUND_LOWER if best >= beta else BOUND_EXACT
        tt_store(tt, current_key(pos), root_moves[best_index], bound, depth, score_to_tt(best, 0), 0)
    threads[thread_field(0, T_CYCLES)] += cycles() - start
    return best, best_index


@hot(nogil=True)
def idle_loop(tt, ctx, team, own, t):
    """A helper thread (``t`` > 0) for one search: wait for a split point to work at, search
    its share there, and again, until the search is over (``K_RUNNING`` back to 0)."""
    threads = team["threads"]
    start = cycles()
    while True:
        j = next_work(ctx, team, t, -1)
        if j < 0:
            break
        s = join_slot(team, own, t, j)
        negamax_ybw((own["bb"][s], own["board"][s], own["st"][s], own["hist"][s], own["keys"][s]), tt, ctx, team,
                    own, t, s, s, s, s, s > 0, j)  # (the node's values are the split point's)
        leave_split_point(team, t, j, -1)
    threads[thread_field(t, T_CYCLES)] += cycles() - start
