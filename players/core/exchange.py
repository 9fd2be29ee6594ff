"""A cluster worker's two hooks in the search, inert unless switched on in its context record:
an outbox of the deep entries it stored, and a pause at exact node counts.

* **Outbox** (Stockfish's cluster ``TTCache``): every table store of negamax and the root with
  depth >= ``ctx[C_EXCHANGE][X_SEND_DEPTH]`` (0: off) also goes into ``ctx[C_OUTBOX]``, a
  bounded buffer of (key, packed entry, move stamp) that keeps the deepest entries stored since
  the last send: the same key already there is overwritten, a full buffer gives its shallowest
  entry's place to a deeper one (and counts a drop either way).  The move stamp is
  ``X_MOVE`` at the store, so that a driver can tell entries stored during this move from
  leftovers of the last one.  Quiescence's stores (depth 0) never qualify.
* **Pause** (the node clock): with ``X_PAUSE_AT`` > 0 when ``Searcher.search`` starts
  (:func:`arm_pauses`), the search stops counting nodes at exactly that count and waits there,
  without unwinding, until a coordinator in another thread has taken the outbox, stored what
  was due in the table and released it with the next pause point (:func:`release`).  The search
  arms the pause through its node limit: ``S_NODE_LIMIT`` becomes the nearer of the limit and
  the pause point, so a search without pauses pays nothing per node for them, and
  :func:`node_checkpoint` is called only when that count is reached.

``X_PAUSED`` is the handshake: the worker stores the node count it paused at (a release store,
after its outbox writes), the coordinator reads it, works, and stores 0 (a release store, after
its table writes), which the worker's acquire loads see.  Counts refer to ``S_NODES``: the
nodes of the current ``Searcher.search`` call, across all its iterations.
"""
import numpy as np

from .atomics import atomic_load, atomic_store, sleep_microseconds
from .context import (C_EXCHANGE, C_OUTBOX, C_STATS, OUTBOX_MAX, S_NODE_LIMIT, S_NODES, X_CAPACITY, X_COUNT,
                      X_DROPPED, X_LIMIT, X_MOVE, X_PAUSE_AT, X_PAUSED, X_PAUSES, X_SAVES, X_SEND_DEPTH)
from .hot import hot
from .tt import entry_depth

PAUSE_SLEEP_MICROSECONDS = 50  # a paused search's polling step: it must not take a core from the searching ones


@hot(nogil=True)
def outbox_add(ctx, key, entry):
    """Record a deep store in the outbox (the caller checked the threshold)."""
    x = ctx[C_EXCHANGE]
    box = ctx[C_OUTBOX]
    x[X_SAVES] += 1
    n = x[X_COUNT]
    stamp = np.uint64(x[X_MOVE])
    for j in range(n):
        if box[j, 0] == key:
            box[j, 1] = np.uint64(entry)
            box[j, 2] = stamp
            return
    if n < x[X_CAPACITY]:
        box[n, 0] = key
        box[n, 1] = np.uint64(entry)
        box[n, 2] = stamp
        x[X_COUNT] = n + 1
        return
    x[X_DROPPED] += 1
    low = 0
    low_depth = entry_depth(np.int64(box[0, 1]))
    for j in range(1, n):
        d = entry_depth(np.int64(box[j, 1]))
        if d < low_depth:
            low, low_depth = j, d
    if entry_depth(entry) > low_depth:
        box[low, 0] = key
        box[low, 1] = np.uint64(entry)
        box[low, 2] = stamp


@hot(inline="always")
def record_store(ctx, key, entry, depth):
    """A search's table store, seen by the outbox: recorded when stored (``entry`` != 0) and
    at least as deep as the send threshold (0: the outbox is off)."""
    threshold = ctx[C_EXCHANGE][X_SEND_DEPTH]
    if threshold > 0 and depth >= threshold and entry != 0:
        outbox_add(ctx, key, entry)


@hot(nogil=True)
def wait_at_pause(x, nodes):
    """Paused at ``nodes``: say so and wait for the coordinator's release."""
    atomic_store(x, X_PAUSED, nodes)
    while atomic_load(x, X_PAUSED) != 0:
        sleep_microseconds(PAUSE_SLEEP_MICROSECONDS)
    x[X_PAUSES] += 1


@hot(nogil=True)
def node_checkpoint(ctx):
    """The node count reached ``S_NODE_LIMIT``: True when the search must stop (its own
    limit); else it pauses if a pause point is reached, and sets the next count to stop at."""
    x = ctx[C_EXCHANGE]
    stats = ctx[C_STATS]
    pause = x[X_PAUSE_AT]
    if pause <= 0:
        return True  # no pauses armed: the count was the search's own limit
    nodes = stats[S_NODES]
    limit = x[X_LIMIT]
    if limit > 0 and nodes >= limit:
        return True
    if nodes >= pause:
        wait_at_pause(x, nodes)
        pause = atomic_load(x, X_PAUSE_AT)
    stats[S_NODE_LIMIT] = nearest_stop(limit, pause)
    return False


@hot(inline="always")
def nearest_stop(limit, pause):
    """The next node count the search must look up at: the nearer of a limit and a pause
    point, each 0 when there is none."""
    if pause <= 0:
        return limit
    if limit <= 0:
        return pause
    return min(limit, pause)


def arm_pauses(ctx: np.void) -> None:
    """At a search's start, once its node limit is set: with a pause point set, the limit moves
    to ``X_LIMIT`` and the search stops at the nearer of the two (``node_checkpoint``)."""
    x = ctx[C_EXCHANGE]
    if x[X_PAUSE_AT] > 0:
        stats = ctx[C_STATS]
        x[X_LIMIT] = stats[S_NODE_LIMIT]
        stats[S_NODE_LIMIT] = nearest_stop(int(x[X_LIMIT]), int(x[X_PAUSE_AT]))


def disarm_pauses(ctx: np.void) -> None:
    """At a search's end: a pause point is for one search, never for the next one."""
    ctx[C_EXCHANGE][X_PAUSE_AT] = 0


def configure(ctx: np.void, send_depth: int, capacity: int = 16) -> None:
    """Switch the outbox on (``send_depth`` >= 1: entries at least that deep, ``capacity`` of
    them at most) or off (``send_depth`` 0), emptying it."""
    if not 0 <= send_depth <= 255:
        raise ValueError(f"send depth must lie in 0..255, got {send_depth}")
    if not 1 <= capacity <= OUTBOX_MAX:
        raise ValueError(f"outbox capacity must lie in 1..{OUTBOX_MAX}, got {capacity}")
    x = ctx[C_EXCHANGE]
    x[X_SEND_DEPTH] = send_depth
    x[X_CAPACITY] = capacity
    x[X_COUNT] = x[X_DROPPED] = x[X_SAVES] = 0


def set_threshold(ctx: np.void, send_depth: int) -> None:
    """A new send threshold (the adaptive one), the outbox kept."""
    ctx[C_EXCHANGE][X_SEND_DEPTH] = send_depth


def set_move(ctx: np.void, move: int) -> None:
    """The stamp the outbox gives the entries stored from now on (a move of the game)."""
    ctx[C_EXCHANGE][X_MOVE] = move


def set_pause(ctx: np.void, pause_at: int) -> None:
    """The first pause point of the next search (0: none); set before ``Searcher.search``."""
    x = ctx[C_EXCHANGE]
    x[X_PAUSE_AT] = pause_at
    x[X_PAUSED] = 0


def paused_at(ctx: np.void) -> int:
    """The node count a search is paused at, 0 while it runs."""
    # A plain load: x86 keeps stores in order, so the worker's outbox writes before its
    # release store of the count are seen once the count is.
    return int(ctx[C_EXCHANGE][X_PAUSED])


def take_outbox(ctx: np.void) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Empty the outbox: (keys, packed entries, move stamps, deep stores counted, drops) since
    the last take, entries in the order the outbox holds them."""
    x = ctx[C_EXCHANGE]
    n = int(x[X_COUNT])
    box = ctx[C_OUTBOX]
    keys, entries, stamps = box[:n, 0].copy(), box[:n, 1].copy().view(np.int64), box[:n, 2].astype(np.int64)
    saves, dropped = int(x[X_SAVES]), int(x[X_DROPPED])
    x[X_COUNT] = x[X_DROPPED] = x[X_SAVES] = 0
    return keys, entries, stamps, saves, dropped


def release(ctx: np.void, next_pause: int) -> None:
    """Let a paused search go on, to pause again at ``next_pause`` (0: never)."""
    _release(ctx[C_EXCHANGE], np.int64(next_pause))


@hot(nogil=True)
def _release(x, next_pause):
    atomic_store(x, X_PAUSE_AT, next_pause)
    atomic_store(x, X_PAUSED, 0)

