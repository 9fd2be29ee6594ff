"""Atomic operations on integer array elements, for compiled code that runs in several threads at
once (``nogil``) over shared arrays, and the C library's waits.

Numba's nopython mode has no mutex and no atomics, so they are LLVM instructions emitted by
``numba.extending.intrinsic`` (as ``players.core.tt`` emits ``prefetch``):

* ``atomic_cas(a, i, expected, new)``: ``cmpxchg`` (sequentially consistent), True when
  ``a[i]`` was ``expected`` and is now ``new``;
* ``atomic_load(a, i)`` / ``atomic_store(a, i, v)``: an acquire load and a release store.  A
  spin loop must read through ``atomic_load``: a plain load of a value the loop never writes
  may be hoisted out of the loop by the optimiser, and the loop would never see the change;
* ``atomic_add(a, i, v)``: ``atomicrmw add``, returns the old value;
* ``sched_yield()``, ``sleep_microseconds(us)``, ``cpu_pause()``: what a waiting thread does.

They live in the engine's layer because the search itself waits on them (a search paused at a
node count, ``players.core.exchange``); the spinlock built on them is
``players.threads.spinlock``.
"""
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def _element_pointer(context, builder, array_type, array, index):
    view = context.make_array(array_type)(context, builder, value=array)
    return cgutils.get_item_pointer(context, builder, array_type, view, [index], wraparound=False)


def _is_int64_array(array) -> bool:
    return isinstance(array, types.Array) and array.dtype == types.int64 and array.ndim == 1


@intrinsic
def atomic_cas(typingctx, array, index, expected, new):
    """``cmpxchg`` on ``array[index]``: True if it held ``expected`` (it now holds ``new``)."""
    if not (_is_int64_array(array) and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, array, args[0], args[1])
        int64 = ir.IntType(64)
        old = builder.sext(args[2], int64) if args[2].type.width < 64 else args[2]
        value = builder.sext(args[3], int64) if args[3].type.width < 64 else args[3]
        pair = builder.cmpxchg(pointer, old, value, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return types.boolean(array, index, expected, new), codegen


@intrinsic
def atomic_load(typingctx, array, index):
    """``array[index]`` read with acquire ordering (never hoisted out of a loop); any integer
    array (a stop flag is a byte)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and isinstance(array.dtype, types.Integer)
            and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, array, args[0], args[1])
        return builder.load_atomic(pointer, "acquire", array.dtype.bitwidth // 8)

    return array.dtype(array, index), codegen


@intrinsic
def atomic_store(typingctx, array, index, value):
    """``array[index] = value`` with release ordering: every write before it is visible to a
    thread that reads this value with ``atomic_load``."""
    if not (_is_int64_array(array) and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, array, args[0], args[1])
        v = builder.sext(args[2], ir.IntType(64)) if args[2].type.width < 64 else args[2]
        builder.store_atomic(v, pointer, "release", 8)
        return context.get_dummy_value()

    return types.void(array, index, value), codegen


@intrinsic
def atomic_add(typingctx, array, index, value):
    """``array[index] += value`` as one atomic step; returns the old value."""
    if not (_is_int64_array(array) and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, array, args[0], args[1])
        v = builder.sext(args[2], ir.IntType(64)) if args[2].type.width < 64 else args[2]
        return builder.atomic_rmw("add", pointer, v, "seq_cst")

    return types.int64(array, index, value), codegen


@intrinsic
def sched_yield(typingctx):
    """The C library's ``sched_yield``, called by name (the JIT links it from the process, and
    the compiled code stays cacheable, where a ctypes pointer would not be)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def sleep_microseconds(typingctx, microseconds):
    """The C library's ``usleep``, called by name like ``sched_yield``."""
    if not isinstance(microseconds, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32)])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "usleep"),
                     [builder.trunc(args[0], ir.IntType(32)) if args[0].type.width > 32 else args[0]])
        return context.get_dummy_value()

    return types.void(microseconds), codegen


@intrinsic
def cpu_pause(typingctx):
    """The x86 ``pause`` hint inside a spin loop (saves power, frees the sibling hyperthread)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()

    return types.void(), codegen
