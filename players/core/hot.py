"""How the search's hot functions are compiled: cached, and without Numba's runtime.

Numba reference-counts every array it passes, unpacks from a tuple or slices: a compiled
function calls ``NRT_incref`` on each array argument when it starts and ``NRT_decref`` when it
returns, even for arrays whose count is never used.  The search's functions take many arrays
(the evaluation a dozen) and run millions of times a second, so that bookkeeping would be a
large share of what a node costs (``CHANGELOG.md`` has the measurements).

Compiled without the runtime (Numba's ``_nrt=False`` flag), a function does no reference
counting at all.  That is sound for functions that only read and write arrays their caller
owns for the length of the call, which is what the search does throughout; Numba itself
refuses to compile an allocation (``np.zeros`` and the like) or the return of a new array
view under the flag, and ``tests/players/test_hot.py`` checks that no hot function returns an
array.  Functions that allocate (perft's buffers, the evaluation's stand-alone entry point)
stay on plain ``njit`` and call hot functions freely.

They are also compiled with NumPy's error model: under Python's, every integer division and
modulo checks its divisor and keeps a path that raises ``ZeroDivisionError``, which the search
never takes (its divisors are table sizes and constants) but pays for at every node.  The trees
are the same node for node (the bench signature does not move).
"""
from typing import Any, Callable

from numba import njit


def hot(*signature: Any, **options: Any) -> Callable[[Callable], Callable]:
    """``njit`` for a function on the search's hot path: cached on disk, no reference counting.

    ``signature`` and ``options`` (``nogil``, ``inline``, ...) are passed on to ``njit``."""
    return njit(*signature, cache=True, _nrt=False, error_model="numpy", **options)
