"""The spinlock and atomics of ``players.threads.spinlock``, which Young Brothers Wait's split points
rely on (``players.threads.ybw_search``)."""
import threading

import numpy as np
from numba import njit

from players.threads.spinlock import atomic_add, atomic_cas, atomic_load, atomic_store, count_under_lock


def _in_threads(target, n: int, *args) -> None:
    """Run ``target(*args)`` in ``n`` threads started together."""
    barrier = threading.Barrier(n)

    def go() -> None:
        barrier.wait()
        target(*args)
    threads = [threading.Thread(target=go) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_two_threads_counting_under_the_lock_count_exactly():
    locks, counter = np.zeros(8, np.int64), np.zeros(1, np.int64)
    count_under_lock(locks, counter, 10, True)  # compiled before the threads start
    for n, times in ((2, 300_000), (4, 100_000)):
        counter[:] = 0
        _in_threads(count_under_lock, n, locks, counter, times, True)
        assert counter[0] == n * times
        assert locks[0] == 0  # released


@njit(cache=True)
def _atomics(a):
    old = atomic_add(a, 0, 5)
    first = atomic_cas(a, 1, 0, 7)
    second = atomic_cas(a, 1, 0, 9)  # holds 7 now: no swap
    atomic_store(a, 2, 11)
    return old, first, second, atomic_load(a, 1)


def test_atomic_operations_do_what_they_say():
    a = np.array([1, 0, 0], np.int64)
    assert _atomics(a) == (1, True, False, 7)
    assert a.tolist() == [6, 7, 11]
