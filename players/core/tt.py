"""Transposition table: two flat arrays, keys and packed entries.

An entry packs move (17 bits), bound (2), depth (8), score (16) and static eval
(16) into one int64, so a probe touches two cache lines at most.  The key array
holds ``key ^ entry`` (Hyatt's lockless hashing): a table shared by several
processes (``shared_table``) may see one process's key with another's entry, and
such a torn pair then fails the key test instead of answering for the wrong position.  Mate scores are
stored relative to the node (distance from it), not to the root.
"""
import numpy as np
from numba import njit

from .bitboard import U0

BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 0, 1, 2, 3
ENTRY_BYTES = 16


def table_entries(size_mb: float) -> int:
    """Entries of a table of about ``size_mb`` MiB: a power of two, at least 1024."""
    if not size_mb > 0:
        raise ValueError(f"hash size must be positive, got {size_mb} MB")
    entries = max(1024, int(size_mb * 1024 * 1024) // ENTRY_BYTES)
    return 1 << (entries.bit_length() - 1)


def new_table(size_mb: float):
    """Keys and entries for a table of about ``size_mb`` MiB."""
    entries = table_entries(size_mb)
    return np.zeros(entries, np.uint64), np.zeros(entries, np.int64)


def clear_table(tt) -> None:
    tt[0][:] = 0
    tt[1][:] = 0


_SHARED: dict[str, object] = {}  # name -> SharedMemory kept open by this process
_RETIRED: list = []  # released tables whose mapping is closed at the next idle release


def shared_table(name: str, size_mb: float | None = None):
    """A table in shared memory, created when ``size_mb`` is given, else attached: the
    workers of one machine search with one table, as threads of one engine would."""
    from multiprocessing import shared_memory
    shm = _SHARED.get(name)
    if shm is None:
        if size_mb is not None:  # a new block is zero-filled: an empty table
            shm = shared_memory.SharedMemory(name=name, create=True, size=table_entries(size_mb) * ENTRY_BYTES)
        else:
            shm = shared_memory.SharedMemory(name=name)
        _SHARED[name] = shm
    entries = table_entries(shm.size / (1024 * 1024))  # the block may be rounded up to whole pages
    return (np.ndarray((entries,), np.uint64, buffer=shm.buf),
            np.ndarray((entries,), np.int64, buffer=shm.buf, offset=entries * 8))


def release_shared_table(name: str, unlink: bool = False, idle: bool = True) -> None:
    """Forget a shared table (and remove its name, for its creator).

    Its mapping is not closed now: NumPy arrays over shared memory do not keep the mapping
    open, and a search stopped by a deadline may still be unwinding over it (closing it
    under that search crashed a worker).  It is closed at a later release made while no
    search runs in this process (``idle``)."""
    if idle:
        for shm in list(_RETIRED):
            try:
                shm.close()
                _RETIRED.remove(shm)
            except BufferError:  # an array over it is still alive here: next time
                pass
    shm = _SHARED.pop(name, None)
    if shm is not None:
        if unlink:
            shm.unlink()
        _RETIRED.append(shm)


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


@njit(cache=True)
def tt_probe(tt, key):
    """The packed entry stored for ``key``, or 0 if none."""
    keys, data = tt
    i = np.int64(key & np.uint64(keys.shape[0] - 1))
    e = data[i]
    if (keys[i] ^ np.uint64(e)) == key and key != U0:
        return e
    return 0


@njit(cache=True)
def tt_store(tt, key, move, bound, depth, score, static_eval):
    """Store unless a deeper entry for the same position is there; keep its move
    when the new entry has none."""
    keys, data = tt
    i = np.int64(key & np.uint64(keys.shape[0] - 1))
    old = data[i]
    if (keys[i] ^ np.uint64(old)) == key:
        if bound != BOUND_EXACT and entry_depth(old) > depth + 2:
            return
        if move == 0:
            move = entry_move(old)
    depth = max(0, min(depth, 255))
    e = pack_entry(move, bound, depth, score, static_eval)
    keys[i] = key ^ np.uint64(e)
    data[i] = e


@njit(cache=True)
def tt_fill_permille(tt):
    """Share of used slots in the first thousand (UCI ``hashfull``)."""
    keys = tt[0]
    n = min(1000, keys.shape[0])
    used = 0
    for i in range(n):
        if keys[i] != U0:
            used += 1
    return used * 1000 // n


def tt_export(tt, count: int):
    """The ``count`` deepest entries (keys, packed data): what a worker shares with the
    others between iterations (Jurčovič's exchange of the deepest entries)."""
    keys, data = tt
    used = np.nonzero(keys)[0]
    if used.size == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    depths = (data[used] >> 19) & 0xFF
    if used.size > count:
        used = used[np.argpartition(-depths, count - 1)[:count]]
    return keys[used] ^ data[used].astype(np.uint64), data[used].copy()


@njit(cache=True)
def tt_import(tt, keys_in, data_in):
    """Store shared entries, keeping a deeper entry already there."""
    keys, data = tt
    mask = np.uint64(keys.shape[0] - 1)
    for j in range(keys_in.shape[0]):
        key = keys_in[j]
        i = np.int64(key & mask)
        if (keys[i] ^ np.uint64(data[i])) == key and entry_depth(data[i]) >= entry_depth(data_in[j]):
            continue
        keys[i] = key ^ np.uint64(data_in[j])
        data[i] = data_in[j]
