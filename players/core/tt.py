"""Transposition table: one flat array of 16-byte slots, and a small array of busy marks.

An entry packs move (17 bits), bound (2), depth (8), score (16) and static eval
(16) into one int64.  A slot holds ``key ^ entry`` and the entry side by side
(``slots[2i]``, ``slots[2i + 1]``), so that a probe or a store touches one cache
line and one page: in a table shared by several processes, whose memory may get no
huge pages and whose lines move between the cores, keys and entries in two arrays
would cost two of each.  ``key ^ entry`` is Hyatt's lockless hashing: a shared
table may see one process's key with another's entry, and such a torn pair then
fails the key test instead of answering for the wrong position.  Mate scores are
stored relative to the node (distance from it), not to the root.

The busy marks (``tt[1]``) hold the keys of the positions some search is busy with
right now: searches sharing the table defer a younger brother another one is
searching (ABDADA's deferral, see ``players.core.shared_search``).
"""
import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

from .hot import hot
from .bitboard import U0

BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 0, 1, 2, 3
ENTRY_BYTES = 16
BUSY_ENTRIES = 1 << 14  # keys of the positions being searched (a few per search thread and ply)


def table_entries(size_mb: float) -> int:
    """Entries of a table of about ``size_mb`` MiB: a power of two, at least 1024."""
    if not size_mb > 0:
        raise ValueError(f"hash size must be positive, got {size_mb} MB")
    entries = max(1024, int(size_mb * 1024 * 1024) // ENTRY_BYTES)
    return 1 << (entries.bit_length() - 1)


def new_table(size_mb: float, busy_entries: int = BUSY_ENTRIES):
    """Slots and busy marks for a table of about ``size_mb`` MiB.  A table no other search
    shares needs no busy marks: ``busy_entries=1`` keeps the type and costs nothing."""
    return np.zeros(2 * table_entries(size_mb), np.uint64), np.zeros(busy_entries, np.uint64)


def clear_table(tt) -> None:
    for part in tt:
        part[:] = 0


@njit(cache=True, inline="always")
def pack_entry(move, bound, depth, score, static_eval):
    return (move | (bound << 17) | (depth << 19) | ((score + 32768) << 27)
            | ((static_eval + 32768) << 43))


@njit(cache=True, inline="always")
def entry_move(e):
    return e & 0x1FFFF


@njit(cache=True, inline="always")
def entry_bound(e):
    return (e >> 17) & 3


@njit(cache=True, inline="always")
def entry_depth(e):
    return (e >> 19) & 0xFF


@njit(cache=True, inline="always")
def entry_score(e):
    return ((e >> 27) & 0xFFFF) - 32768


@njit(cache=True, inline="always")
def entry_eval(e):
    return ((e >> 43) & 0xFFFF) - 32768


@njit(cache=True, inline="always")
def slot_of(slots, key):
    return 2 * np.int64(key & np.uint64((slots.shape[0] >> 1) - 1))


@intrinsic
def _prefetch(typingctx, array, index):
    """Ask the CPU to bring ``array[index]``'s cache line (and its page's translation) in
    now, without waiting for it: LLVM's ``prefetch`` for reading, high locality."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        pointer = cgutils.get_item_pointer(context, builder, array, view, [args[1]], wraparound=False)
        int32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [pointer.type, int32, int32, int32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [pointer, ir.Constant(int32, 0), ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@njit(cache=True, inline="always")
def prefetch_slot(array, index):
    """Start fetching ``array[index]`` (a one-dimensional table's slot)."""
    _prefetch(array, index)


@njit(cache=True, inline="always")
def tt_prefetch(tt, key):
    """Start fetching ``key``'s slot while the caller does other work: a search prefetches a
    child's slot right after making the move, so that the child's probe finds it in cache.
    Random probes over a table of many megabytes miss the cache and the TLB; in a shared
    table without huge pages (shared memory often gets none) the misses cost the most
    (see ``docs/results/parallel-search.md``)."""
    slots = tt[0]
    _prefetch(slots, slot_of(slots, key))


@hot()
def tt_probe(tt, key):
    """The packed entry stored for ``key``, or 0 if none."""
    slots = tt[0]
    i = slot_of(slots, key)
    e = slots[i + 1]
    if (slots[i] ^ e) == key and key != U0:
        return np.int64(e)
    return 0


@hot()
def tt_store(tt, key, move, bound, depth, score, static_eval):
    """Store unless a deeper entry for the same position is there; keep its move
    when the new entry has none.  Returns the packed entry stored, 0 when none was (what a
    cluster worker's outbox records, ``players.core.exchange``)."""
    slots = tt[0]
    i = slot_of(slots, key)
    old = slots[i + 1]
    if (slots[i] ^ old) == key:
        if bound != BOUND_EXACT and entry_depth(np.int64(old)) > depth + 2:
            return 0
        if move == 0:
            move = entry_move(np.int64(old))
    depth = max(0, min(depth, 255))
    packed = pack_entry(move, bound, depth, score, static_eval)
    e = np.uint64(packed)
    slots[i] = key ^ e
    slots[i + 1] = e
    return packed


@njit(cache=True, inline="always")
def busy_with(busy, key):
    """Whether some search sharing this table is searching the position ``key`` now."""
    return busy[np.int64(key & np.uint64(busy.shape[0] - 1))] == key


@njit(cache=True, inline="always")
def mark_busy(busy, key):
    busy[np.int64(key & np.uint64(busy.shape[0] - 1))] = key


@njit(cache=True, inline="always")
def clear_busy(busy, key):
    """Unmark ``key`` unless another position has taken its slot meanwhile (a lost mark only
    means a move searched twice, never a wrong value)."""
    i = np.int64(key & np.uint64(busy.shape[0] - 1))
    if busy[i] == key:
        busy[i] = 0


def tt_export(tt, count: int):
    """The ``count`` deepest entries (keys, packed data): what a worker shares with the
    others between iterations (Jurčovič's exchange of the deepest entries)."""
    stored, data = tt[0][0::2], tt[0][1::2].view(np.int64)
    used = np.nonzero(stored)[0]
    if used.size == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    depths = (data[used] >> 19) & 0xFF
    if used.size > count:
        used = used[np.argpartition(-depths, count - 1)[:count]]
    return stored[used] ^ data[used].astype(np.uint64), data[used].copy()


@hot()
def tt_import(tt, keys_in, data_in):
    """Store shared entries, keeping a deeper entry already there."""
    slots = tt[0]
    for j in range(keys_in.shape[0]):
        key = keys_in[j]
        i = slot_of(slots, key)
        if (slots[i] ^ slots[i + 1]) == key and entry_depth(np.int64(slots[i + 1])) >= entry_depth(data_in[j]):
            continue
        e = np.uint64(data_in[j])
        slots[i] = key ^ e
        slots[i + 1] = e


def tt_export_deep(tt, min_depth: int, count: int):
    """Entries of depth >= ``min_depth``, at most ``count`` of them, deepest first (ties in
    slot order): what a lazy-cluster worker sends the others at a slice boundary.  The
    selection and its order depend only on the table's contents, so two runs of one search
    send the same message (``tt_export``'s partition may pick among ties differently)."""
    if count <= 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    used = _deepest_slots(tt[0], min_depth, count)
    stored, data = tt[0][0::2], tt[0][1::2].view(np.int64)
    return stored[used] ^ data[used].astype(np.uint64), data[used].copy()


@njit(cache=True)
def _deepest_slots(slots, min_depth, count):
    """``tt_export_deep``'s selection in one compiled pass: the first ``count`` used slots of
    each depth, in slot order, then the buckets read from the deepest.  A lazy-cluster worker
    exports at every slice boundary, and sorting every used slot of a full table made the
    export cost more than the search it follows.

    Memory is O(count), whatever ``count`` a config asks for: candidates go into a pool of
    2 × ``count`` slots, and a full pool is compacted to the at most ``count`` that can still
    be sent.  A depth's share only shrinks as deeper entries turn up, so what a compaction
    drops is never needed later, and the pool, filled in slot order, keeps each depth's
    earliest slots."""
    size = min(2 * count, slots.shape[0] // 2)
    pool = np.empty(size, np.int64)
    pool_depth = np.empty(size, np.int64)
    seen = np.zeros(256, np.int64)  # slots of each depth met so far, up to count
    floor = np.int64(min_depth)  # shallower entries can no longer be sent
    n = 0
    for i in range(slots.shape[0] // 2):
        if slots[2 * i] == 0:
            continue
        d = np.int64((slots[2 * i + 1] >> np.uint64(19)) & np.uint64(0xFF))
        if d < floor or seen[d] >= count:
            continue
        if n == size:
            n, floor = _compact_pool(pool, pool_depth, n, seen, count, floor)
            if d < floor:
                continue
        seen[d] += 1
        pool[n] = i
        pool_depth[n] = d
        n += 1
    n, floor = _compact_pool(pool, pool_depth, n, seen, count, floor)
    start = np.zeros(257, np.int64)  # deepest first: depth d's slots begin at start[d + 1]
    for d in range(255, -1, -1):
        start[d] = start[d + 1] + seen[d]
    out = np.empty(n, np.int64)
    for j in range(n):
        d = pool_depth[j]
        out[start[d + 1]] = pool[j]
        start[d + 1] += 1
    return out


@njit(cache=True)
def _compact_pool(pool, pool_depth, n, seen, count, floor):
    """Keep, in order, each depth's share of ``count`` read from the deepest; ``seen`` becomes
    the kept numbers, and the returned floor the shallowest depth still wanted."""
    quota = np.zeros(256, np.int64)
    left = count
    for d in range(255, -1, -1):
        quota[d] = min(seen[d], left)
        left -= quota[d]
        if left == 0:
            floor = d + 1  # depth d's share is filled and can only shrink
            break
    kept = np.zeros(256, np.int64)
    m = 0
    for j in range(n):
        d = pool_depth[j]
        if kept[d] < quota[d]:
            kept[d] += 1
            pool[m] = pool[j]
            pool_depth[m] = d
            m += 1
    seen[:] = kept
    return m, floor
