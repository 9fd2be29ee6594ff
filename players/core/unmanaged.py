"""Borrowed views of the search's arrays, without Numba's reference counting.

Every array Numba passes to a compiled function, unpacks from a tuple or slices
carries a pointer to its memory-info block, and Numba increments and decrements
that block's count atomically each time (``NRT_incref`` / ``NRT_decref``).  The
search passes a position (5 arrays) and a table (2) through every recursive call, and
such atomic updates can take a third of its time (``perf`` shows them).  The context
is one record, whose field arrays Numba does not count.

An array whose memory-info pointer is null is skipped by both functions.  The
search entry points therefore rebuild their arguments with :func:`unmanaged`
(same data, shape and strides, no memory info) and search with those.  This is
sound because the caller keeps the owning NumPy arrays alive for the whole call
and the search never stores an array anywhere that outlives it.
"""
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def unmanaged(typingctx, array):
    """A view of ``array`` that Numba does not reference-count (see the module docstring)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        view.nitems = source.nitems
        view.itemsize = source.itemsize
        view.data = source.data
        view.shape = source.shape
        view.strides = source.strides
        return view._getvalue()

    return array(array), codegen


@njit(cache=True, inline="always")
def unmanaged_position(pos):
    return (unmanaged(pos[0]), unmanaged(pos[1]), unmanaged(pos[2]), unmanaged(pos[3]), unmanaged(pos[4]))


@njit(cache=True, inline="always")
def unmanaged_table(tt):
    return unmanaged(tt[0]), unmanaged(tt[1])
