"""Atomic operations on int64 array elements, and a spinlock built on them, for compiled code
that runs in several threads at once (``nogil``) over shared arrays: Young Brothers Wait's
split points (``players.threads.ybw_search``).

Numba's nopython mode has no mutex and no atomics, so they are LLVM instructions emitted by
``numba.extending.intrinsic`` (as ``players.core.tt`` emits ``prefetch``):

* ``atomic_cas(a, i, expected, new)``: ``cmpxchg`` (sequentially consistent), True when
  ``a[i]`` was ``expected`` and is now ``new``;
* ``atomic_load(a, i)`` / ``atomic_store(a, i, v)``: an acquire load and a release store.  A
  spin loop must read through ``atomic_load``: a plain load of a value the loop never writes
  may be hoisted out of the loop by the optimiser, and the loop would never see the change;
* ``atomic_add(a, i, v)``: ``atomicrmw add``, returns the old value.

A lock is an int64 element, 0 when free and 1 when held: ``lock`` spins on a CAS from 0 to 1
(reading, not writing, while it is held, so that the waiting cores do not steal the line from
the holder), ``unlock`` is a release store of 0.  A thread that has spun a while yields its
core (``sched_yield``), and after longer sleeps in short steps (``relax``): with more threads
than cores (the oversubscribed speedup rows, a busy machine) the holder may be waiting for that
very core.
"""
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

SPINS_BEFORE_YIELD = 64
SPINS_BEFORE_SLEEP = 1024
SLEEP_MICROSECONDS = 100



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
