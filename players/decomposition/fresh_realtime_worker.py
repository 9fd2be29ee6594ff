"""The worker side of the real-time fresh cluster (issue 58 item 3): a searcher kept resident on
a runner's worker, searching in a thread of its own while short jobs, sent by the coordinator
(:mod:`.fresh_realtime`) through the runner's channel, store what the other workers sent and
take its outbox.

The search runs in its own thread, not in the slot's, so that the slot stays free for those jobs
while the search goes on: a slot runs one job at a time, and a job that searched would hold its
channel for the whole move.

**Taking the outbox safely.**  The outbox (``players.core.exchange``) is written by the searching
thread at every deep store, so it is read only while that thread waits at a pause.  The hooks as
built arm pauses at node counts fixed before the search starts, and are not safe to arm later as
they stand: ``arm_pauses`` reads ``X_PAUSE_AT`` once, at the start (with none armed then, the
search's own limit is not moved to ``X_LIMIT``, which keeps an old search's value), and the
search writes ``S_NODE_LIMIT`` itself as it leaves a pause.  Here a pause is asked for at *now*,
from another thread, without changing the hooks.  The search starts with a pause point far
beyond any budget (``FAR``), so that its node limit is moved to ``X_LIMIT`` and
``node_checkpoint`` is reached only at its own limit or at a pause.  To pause it, this thread
stores ``X_PAUSE_AT = 1`` and then ``S_NODE_LIMIT = 1``: at its next node the search finds the
count reached, ``node_checkpoint`` finds the pause point passed and waits there (unchanged node
count, no unwinding) until ``release`` sets the far point again.  The one store of the searching
thread that could undo the request is its own ``S_NODE_LIMIT`` store as it leaves a pause; a
request is made only once the search has counted a node past its last pause, which it does after
that store (x86 keeps stores in order), so no request is lost.  A search that ends meanwhile is
seen as done, and its outbox is then read with no thread writing it.

**Storing received entries** needs no pause: ``tt_import`` writes a slot's ``key ^ entry`` and
``entry`` one after the other, and the search's probe checks the full key against both, so a pair
torn by the search's own store (or read half-written) fails the key test and is a miss, never a
wrong entry (``players.core.tt``, Hyatt's lockless hashing).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from base.runner import Resident
from players.core.context import C_EXCHANGE, C_STATS, MAX_PLY, S_NODE_LIMIT, S_NODES, X_COUNT, X_PAUSE_AT
from players.core.exchange import configure, paused_at, release, set_move, set_pause, set_threshold, take_outbox
from players.core.tt import tt_import, tt_probe
from players.limits import Limit
from players.position import Position
from .fresh_cluster import Part, adapt
from .options import SearcherConfig
from .lockstep import WorkerAnswer, skips

FAR = 1 << 62  # a pause point no search reaches: it arms the hooks, it never pauses
SPINS = 200  # polls of a pause request before sleeping: the search reaches its next node in about a microsecond
POLL_S = 0.00005


@dataclass(frozen=True)
class Exchange:
    """What one exchange job hands back: the worker's outbox of the round and its state."""

    worker: int
    part: Part  # its outbox, taken at ``taken`` (time.time(), comparable on one host)
    taken: float
    dropped: int
    threshold: int  # its send threshold for the next round
    stored: int  # entries received in this job and given to tt_import
    stored_at: float  # when they were (time.time())
    waited: float  # seconds the job waited for its round
    took: float  # seconds the take took (a pause asked for, reached, the outbox copied, released)
    done: bool
    nodes: int
    answer: WorkerAnswer | None  # once done: its last completed iteration
    pauses: int  # pauses of its search so far this move
    paused: float  # seconds its search spent paused so far this move
    seconds: float  # its search's time (once done)
    error: str = ""  # the search's error, once done


class RealtimeWorker:
    """One cluster worker, resident on a runner's worker for a game: its searcher (table,
    history), its outbox and adapted threshold carry over from move to move."""

    def __init__(self, index: int, options: SearcherConfig, threshold: int, buffer: int) -> None:
        self.index = index
        self.searcher = options.build()
        self.buffer = buffer
        self.threshold = threshold
        configure(self.searcher.ctx, threshold, buffer)
        self.done = threading.Event()
        self.done.set()
        self.thread: threading.Thread | None = None
        self.result = None
        self.error: BaseException | None = None
        self.lock = threading.Lock()  # one exchange at a time
        self._reset_counts()

    def _reset_counts(self) -> None:
        self.last_pause = 0
        self.pauses = 0
        self.paused = 0.0
        self.started = time.perf_counter()

    def begin(self, fen: str, moves: tuple[str, ...], limit: Limit, move: int, carry: bool,
              exchange: bool = True, searchmoves: tuple[str, ...] = ()) -> None:
        """Start this move's search in a thread of its own and return (``exchange`` False: its
        outbox off, the arm the exchange's cost is measured against)."""
        self.join()
        ctx = self.searcher.ctx
        if not carry:
            take_outbox(ctx)
        set_move(ctx, move)
        set_threshold(ctx, self.threshold if exchange else 0)
        set_pause(ctx, FAR)
        ctx[C_STATS][S_NODES] = 0  # a pause is asked for only once this search has counted a node
        self._reset_counts()
        self.result, self.error = None, None
        self.done.clear()
        max_depth = min(limit.depth or MAX_PLY - 1, MAX_PLY - 1)
        skip = None if self.index == 0 else (lambda d: skips(self.index, d, max_depth))
        self.thread = threading.Thread(target=self._run, args=(Position.from_fen(fen, moves), limit, skip,
                                                               searchmoves or None),
                                       daemon=True, name=f"fresh-realtime-{self.index}")
        self.thread.start()

    def _run(self, position: Position, limit: Limit, skip, searchmoves) -> None:
        try:
            self.result = self.searcher.search(position, limit, skip=skip, searchmoves=searchmoves)
        except BaseException as e:  # noqa: BLE001 - reported in the next exchange
            self.error = e
        finally:
            self.done.set()

    def store(self, parts: tuple[Part, ...]) -> int:
        """Store received entries (concurrently with the search: see the module's docstring)."""
        n = 0
        for p in parts:
            if p.size:
                tt_import(self.searcher.tt, p.keys, p.entries)
                n += p.size
        return n

    def wait_round(self, seconds: float, fill: int) -> None:
        """Wait until ``seconds`` have passed, the outbox holds ``fill`` entries or the search ends."""
        x = self.searcher.ctx[C_EXCHANGE]
        until = time.perf_counter() + seconds
        while not self.done.is_set() and x[X_COUNT] < fill:
            left = until - time.perf_counter()
            if left <= 0:
                return
            self.done.wait(min(left, 0.0005))

    def take(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
        """The outbox, taken with the search paused at its next node (or ended)."""
        ctx = self.searcher.ctx
        stats, x = ctx[C_STATS], ctx[C_EXCHANGE]
        if not self._poll(lambda: stats[S_NODES] > self.last_pause):
            return take_outbox(ctx)  # ended: nothing writes the outbox any more
        start = time.perf_counter()
        x[X_PAUSE_AT] = 1  # passed already: the next node count checked pauses there
        stats[S_NODE_LIMIT] = 1
        if not self._poll(lambda: paused_at(ctx) != 0):
            return take_outbox(ctx)
        at = paused_at(ctx)
        try:
            return take_outbox(ctx)
        finally:
            self.last_pause = at
            release(ctx, FAR)
            self.pauses += 1
            self.paused += time.perf_counter() - start

    def _poll(self, condition) -> bool:
        """Wait for ``condition``: True when it holds, False when the search ended first."""
        spins = 0
        while not condition():
            if self.done.is_set():
                return False
            spins += 1
            if spins > SPINS:
                time.sleep(POLL_S)
        return True

    def exchange(self, inbound: tuple[Part, ...], wait: float, fill: int, adaptive: bool, stop: bool) -> Exchange:
        """One round: store ``inbound``, wait for the round (``wait`` seconds or ``fill``
        entries), take the outbox; ``stop`` ends the search first."""
        with self.lock:
            stored = self.store(inbound)
            stored_at = time.time()
            if stop:
                self.stop()
                self.done.wait()  # a stopped search ends within a thousand nodes
            begun = time.perf_counter()
            if not stop:
                self.wait_round(wait, fill)
            waited = time.perf_counter() - begun
            done = self.done.is_set()
            if done:
                self.join()
            begun = time.perf_counter()
            keys, entries, stamps, _, dropped = self.take()
            taken, took = time.time(), time.perf_counter() - begun
            if adaptive:
                self.threshold = adapt(self.threshold, int(keys.size), dropped, self.buffer)
                set_threshold(self.searcher.ctx, self.threshold)
            r = self.result if done else None
            answer = None if r is None else WorkerAnswer(self.index, r.bestmove, r.score_cp, r.depth, r.pv)
            nodes = r.nodes if r is not None else int(self.searcher.ctx[C_STATS][S_NODES])
            error = "" if self.error is None else f"{type(self.error).__name__}: {self.error}"
            return Exchange(self.index, Part(self.index, keys, entries, stamps), taken, dropped, self.threshold,
                            stored, stored_at, waited, took, done, nodes, answer, self.pauses, self.paused,
                            r.time if r is not None else time.perf_counter() - self.started, error)

    def stop(self) -> None:
        """End the search (a stop order, a closing runner).  A search pauses only inside a take,
        which releases it itself: releasing it here too could let it write the outbox while that
        take copies it."""
        self.searcher.stop()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None

    def close(self) -> None:
        self.stop()
        self.join()

    def new_game(self, threshold: int) -> None:
        self.close()
        self.searcher.new_game()
        self.threshold = threshold
        configure(self.searcher.ctx, threshold, self.buffer)

    def holds(self, keys: np.ndarray) -> int:
        """How many of ``keys`` its table holds (tests: received entries were stored)."""
        return sum(1 for k in keys if tt_probe(self.searcher.tt, np.uint64(k)) != 0)


_WORKERS: Resident[RealtimeWorker] = Resident("fresh_realtime.workers")  # stopped and closed with the runner


def _get(key: str) -> RealtimeWorker:
    worker = _WORKERS.get(key)
    if worker is None:
        raise RuntimeError(f"fresh cluster worker {key} is not resident here (its worker restarted?)")
    return worker


def rt_begin(key: str, index: int, options: SearcherConfig, threshold: int, buffer: int, fen: str,
             moves: tuple[str, ...], limit: Limit, move: int, carry: bool, exchange: bool = True,
             searchmoves: tuple[str, ...] = ()) -> float:
    """Make the worker if it is not resident yet, and start its search; when it started (time.time())."""
    worker = _WORKERS.get_or_create(key, lambda: RealtimeWorker(index, options, threshold, buffer))
    worker.begin(fen, moves, limit, move, carry, exchange, searchmoves)
    return time.time()


def rt_exchange(key: str, inbound: tuple[Part, ...], wait: float, fill: int, adaptive: bool,
                stop: bool) -> Exchange:
    return _get(key).exchange(inbound, wait, fill, adaptive, stop)


def rt_new_game(key: str, threshold: int) -> None:
    worker = _WORKERS.get(key)
    if worker is not None:
        worker.new_game(threshold)


def rt_holds(key: str, keys: np.ndarray) -> int:
    return _get(key).holds(keys)


def rt_drop(key: str) -> None:
    """Let the worker go (its search stopped, its thread joined)."""
    worker = _WORKERS.pop(key)
    if worker is not None:
        worker.close()


def rt_ping(payload: bytes) -> int:
    """A job that does nothing but answer (the channel's round trip, measured)."""
    return len(payload)


def rt_stop(*keys: str) -> int:
    """Stop whichever of these workers live here (a runner's signal: it reaches a busy slot)."""
    workers = [w for w in map(_WORKERS.get, keys) if w is not None]
    for worker in workers:
        worker.stop()
    return len(workers)
