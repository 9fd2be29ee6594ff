"""How the search's hot functions are compiled: cached, and without Numba's runtime.

Numba reference-counts every array it passes, unpacks from a tuple or slices: a compiled
function calls ``NRT_incref`` on each array argument when it starts and ``NRT_decref`` when it
returns, even for arrays whose count is never used.  The evaluation takes a dozen arrays, so
every call of it made some 26 such calls, about 20 ns of the 170 ns a whole evaluation costs;
the search's other functions paid the same toll per call.  (An earlier fix, views with a null
count pointer, made each call cheap but did not remove it.)

Compiled without the runtime (Numba's ``_nrt=False`` flag), a function does no reference
counting at all.  That is sound for functions that only read and write arrays their caller
owns for the length of the call, which is what the search does throughout; Numba itself
refuses to compile an allocation (``np.zeros`` and the like) or the return of a new array
view under the flag, and ``tests/players/test_hot.py`` checks that no hot function returns an
array.  Functions that allocate (perft's buffers, the evaluation's stand-alone entry point)
stay on plain ``njit`` and call hot functions freely.

Measured on the bench (signature unchanged, 984390): ``benchmarks/compare_commits.py``, see
``docs/engine-changes.md``.
"""
from numba import njit


def hot(*signature, **options):
    """``njit`` for a function on the search's hot path: cached on disk, no reference counting.

    ``signature`` and ``options`` (``nogil``, ``inline``, ...) are passed on to ``njit``."""
    return njit(*signature, cache=True, _nrt=False, **options)
