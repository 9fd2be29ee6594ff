"""A spinlock for compiled code that runs in several threads at once (``nogil``) over shared
arrays: Young Brothers Wait's split points (``players.threads.ybw_search``).  It is built on the
atomics of ``players.core.atomics`` (``atomic_cas``, ``atomic_load``, ``atomic_store``,
``atomic_add``, re-exported here for the threads' code).

A lock is an int64 element, 0 when free and 1 when held: ``lock`` spins on a CAS from 0 to 1
(reading, not writing, while it is held, so that the waiting cores do not steal the line from
the holder), ``unlock`` is a release store of 0.  A thread that has spun a while yields its
core (``sched_yield``), and after longer sleeps in short steps (``relax``): with more threads
than cores (the oversubscribed speedup rows, a busy machine) the holder may be waiting for that
very core.
"""
from numba import njit

from players.core.atomics import (atomic_add, atomic_cas, atomic_load, atomic_store, cpu_pause,  # noqa: F401
                                  sched_yield, sleep_microseconds)

SPINS_BEFORE_YIELD = 64
SPINS_BEFORE_SLEEP = 1024
SLEEP_MICROSECONDS = 100


@njit(cache=True, inline="always")
def relax(spins):
    """One step of a spin-wait: a ``pause``; after ``SPINS_BEFORE_YIELD`` steps the core is
    yielded at every step; after ``SPINS_BEFORE_SLEEP`` the thread sleeps a tenth of a
    millisecond at every step.  A thread left idle long (no split point to join: a shallow
    iteration, the Python code between two) then stops taking the cores from the threads that
    search — on a busy machine a spinning thread cost its searching master stalls of 100 ms.
    Returns the new count."""
    spins += 1
    if spins >= SPINS_BEFORE_SLEEP:
        sleep_microseconds(SLEEP_MICROSECONDS)
    elif spins >= SPINS_BEFORE_YIELD:
        sched_yield()
    else:
        cpu_pause()
    return spins


@njit(cache=True, inline="always")
def lock(locks, i):
    """Take the lock ``locks[i]`` (spin until it is free)."""
    spins = 0
    while not atomic_cas(locks, i, 0, 1):
        while atomic_load(locks, i) != 0:
            spins = relax(spins)


@njit(cache=True, inline="always")
def unlock(locks, i):
    atomic_store(locks, i, 0)


@njit(cache=True, nogil=True)
def count_under_lock(locks, counter, times, locked):
    """Add 1 to ``counter[0]`` ``times`` times by a plain read, a pause and a write, each under
    the lock ``locks[0]`` when ``locked``: the test of the lock (without it, threads doing
    this at the same time lose about half of their increments)."""
    for _ in range(times):
        if locked:
            lock(locks, 0)
        value = counter[0]
        cpu_pause()  # (also keeps the compiler from folding the loop into one addition)
        counter[0] = value + 1
        if locked:
            unlock(locks, 0)
