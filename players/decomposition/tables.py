"""Named transposition tables that several searches share: a block of shared memory for the
worker processes of one machine, or a table in one process's own memory for its search
threads (``threads: true``).  The decomposition player creates one per game; its workers
attach to it by name.  The layout is the engine's (``players.core.tt``): slots, then busy
marks."""
import numpy as np

from base.runner import Resident
from players.core.tt import BUSY_ENTRIES, ENTRY_BYTES, new_table, table_entries

# Mappings released while a search may still run over them, closed at a later idle release.
# Not a table anyone uses: only memory waiting to be unmapped, for the life of the process.
_RETIRED: list = []


class Tables:
    """The named tables one runner holds in one process: its own memory's (``local``), and
    shared memory it made or attached to (``shared``; the ones it ``made`` it also removes).
    Closing it (its runner closing, or its worker) releases them all."""

    def __init__(self) -> None:
        self.local: dict[str, tuple] = {}  # name -> a table in this process's memory, for its search threads
        self.shared: dict[str, object] = {}  # name -> SharedMemory kept open by this process
        self.made: set[str] = set()  # the shared blocks this process created (and removes)

    def close(self) -> None:
        for name in list(self.shared):
            self.release(name, unlink=name in self.made, idle=False)
        self.local.clear()

    def release(self, name: str, unlink: bool = False, idle: bool = True) -> None:
        if idle:
            for shm in list(_RETIRED):
                try:
                    shm.close()
                    _RETIRED.remove(shm)
                except BufferError:  # an array over it is still alive here: next time
                    pass
        self.local.pop(name, None)  # freed once the last searcher over it is gone
        shm = self.shared.pop(name, None)
        if shm is not None:
            if unlink or name in self.made:
                self.made.discard(name)
                try:
                    shm.unlink()
                except FileNotFoundError:  # removed already
                    pass
            _RETIRED.append(shm)


_TABLES: Resident[Tables] = Resident("decomposition.tables", close=Tables.close)


def _tables() -> Tables:
    return _TABLES.get_or_create("tables", Tables)


def local_table(name: str, size_mb: float):
    """A named table in this process's own memory, for the search threads of one process
    (``threads: true``): ordinary memory gets huge pages (NumPy asks for them) where shared
    memory often gets none (``shmem_enabled = never``), and a search over a table without
    them runs about a tenth slower (``docs/results/parallel-search.md``).  :func:`shared_table` finds it by its name."""
    held = _tables()
    table = held.local.get(name)
    if table is None:
        table = held.local[name] = new_table(size_mb)
    return table


def shared_table(name: str, size_mb: float | None = None):
    """A table in shared memory, created when ``size_mb`` is given, else attached: the
    workers of one machine search with one table, as threads of one engine would.  A
    table of this process's own (:func:`local_table`) of that name comes first."""
    from multiprocessing import shared_memory
    held = _tables()
    if name in held.local:
        return held.local[name]
    shm = held.shared.get(name)
    if shm is None:
        if size_mb is not None:  # a new block is zero-filled: an empty table
            size = table_entries(size_mb) * ENTRY_BYTES + BUSY_ENTRIES * 8
            shm = shared_memory.SharedMemory(name=name, create=True, size=size)
            held.made.add(name)
        else:
            shm = shared_memory.SharedMemory(name=name)
        held.shared[name] = shm
    # Layout: slots, then busy marks.  The block may be rounded up to whole pages.
    entries = table_entries((shm.size - BUSY_ENTRIES * 8) / (1024 * 1024))
    return (np.ndarray((2 * entries,), np.uint64, buffer=shm.buf),
            np.ndarray((BUSY_ENTRIES,), np.uint64, buffer=shm.buf, offset=entries * ENTRY_BYTES))


def release_shared_table(name: str, unlink: bool = False, idle: bool = True) -> None:
    """Forget a table (and remove a shared block's name, for its creator).

    A shared block's mapping is not closed now: NumPy arrays over shared memory do not keep
    the mapping open, and a search stopped by a deadline may still be unwinding over it
    (closing it under that search crashed a worker).  It is closed at a later release made
    while no search runs in this process (``idle``)."""
    _tables().release(name, unlink, idle)


def local_table_names() -> list[str]:
    """The tables this process holds in its own memory (a released one is gone)."""
    return list(_tables().local)
