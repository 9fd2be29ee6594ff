"""The fresh lazy cluster in real time (issue 58 item 3): k workers searching at once on a
runner's slots (Dask workers, or threads of this process), exchanging their fresh deep entries
asynchronously while they search, no lockstep, no node-count barrier.

Each worker (:mod:`.fresh_realtime_worker`) is resident in its slot's process for a game: a plain
searcher with a table of its own and lazy SMP's depth skipping for workers > 0, running its whole
iterative deepening to its node budget (or movetime) in a thread of its own.  The coordinator,
here, keeps one *exchange job* outstanding per worker on the runner's channel (a direct TCP
connection on Dask): the job stores the entries delivered to the worker, waits for the worker's
round (``interval_ms``, or until ``fill`` entries are in its outbox, or its search ends), takes the
outbox with the search paused for a moment at its next node, and answers with it.  Each worker
keeps its own cadence; the coordinator answers each exchange as it comes, with no barrier.

**Routing goes through the coordinator**, by :func:`.fresh_cluster.route` (``ring`` or ``all``),
as the node clock's cluster routes: a worker's answer gives its own part, and on a ring it
forwards the parts it was delivered in that job except those that began at its successor.  Why
not worker to worker: the runner offers a channel between the coordinator and each slot, not
between slots, and a slot runs one job at a time; relaying costs one extra hop on loopback
(about 0.1 ms, see ``round_trip_ms``) and keeps the workers free of sockets, addresses and
topology.  A message to a worker whose search has ended is, on a ring, forwarded at once on
its behalf (its link stays up, as in the node clock's cluster); with ``all`` it is dropped.

**Delay**: a message is held ``delay_ms`` from its sender's take before it can be delivered; it
goes with its receiver's next exchange job after that (so it waits up to one more round).

The answer is :func:`.fresh_cluster.cluster_vote` over each worker's last completed iteration. A
worker that is lost (its job raises: its Dask worker died) leaves the vote; the others answer; if
none is left the search raises :class:`base.cluster.ClusterError`.  :meth:`stop` (from another
thread) ends the move early: the next exchange of each worker stops its search, which answers.
"""
from __future__ import annotations

import math
import statistics
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from base.cluster import ClusterError
from base.runner import Runner
from players.core.tt import ENTRY_BYTES
from players.limits import Limit
from players.position import Position
from players.searcher import as_position
from .fresh_cluster import FreshCluster, FreshClusterConfig, Message, node_config, route, voted
from .fresh_realtime_worker import Exchange, rt_begin, rt_drop, rt_exchange, rt_new_game, rt_stop
from .options import FreshClusterOptions, SearcherConfig
from .result import ExchangeCounts, ParallelResult, RealTime
from .runner import open_runner

if TYPE_CHECKING:
    from .config import DecompositionConfig
    from .registry import ClockedSearch


@dataclass(frozen=True)
class RealtimeConfig:
    """The real-time cluster's settings: ``cluster`` as the node clock's (workers, threshold,
    adaptive, buffer, topology, carry; its ``batch`` and ``latency`` in nodes are the node
    clock's only), and the real time's own."""

    cluster: FreshClusterConfig = field(default_factory=FreshClusterConfig)
    interval_ms: float = 5.0  # a worker's round: its outbox is taken this often ...
    fill: int = 0  # ... or as soon as it holds this many entries (0: a full outbox, ``buffer``)
    delay_ms: float = 0.0  # injected: a message is held this long before delivery
    searcher: SearcherConfig = field(default_factory=SearcherConfig)
    exchange: bool = True  # False: the workers search alone (outboxes off, one job each): the cost's baseline

    def __post_init__(self) -> None:
        if self.interval_ms <= 0:
            raise ValueError(f"interval_ms must be positive, got {self.interval_ms}")
        if self.delay_ms < 0:
            raise ValueError(f"delay_ms must be >= 0, got {self.delay_ms}")
        if not 0 <= self.fill <= self.cluster.buffer:
            raise ValueError(f"fill must lie in 0..buffer ({self.cluster.buffer}), got {self.fill}")

    @property
    def workers(self) -> int:
        return self.cluster.workers


def root_and_moves(position: Position | str | None) -> tuple[str, tuple[str, ...]]:
    """A position as the game's first FEN and its moves (repetitions reach the workers)."""
    board = as_position(position).to_board()
    return board.root().fen(), tuple(m.uci() for m in board.move_stack)


@dataclass
class _Mail:
    due: float  # perf_counter
    taken: float  # the sender's take, time.time()
    message: Message


class _Tally:
    """The move's counts, as exchanges come in."""

    def __init__(self, k: int) -> None:
        self.rounds = self.messages = self.sent = self.originated = self.fresh = self.delivered = 0
        self.trips: list[float] = []
        self.takes: list[float] = []
        self.latencies: list[float] = []
        self.exchanges: dict[int, Exchange] = {}
        self.lost: dict[int, str] = {}


class FreshClusterRealtime:
    """k real-time workers on ``runner``'s slots (worker w in live slot w mod slots), kept for a
    game.  ``search(position, limit)`` plays one move; ``close`` lets the workers go (the
    runner's closing does too)."""

    def __init__(self, runner: Runner, config: RealtimeConfig = RealtimeConfig()) -> None:
        self.runner = runner
        self.config = config
        slots = runner.live()
        if not slots:
            raise ClusterError("the runner has no live slot")
        self.homes = [slots[w % len(slots)] for w in range(config.workers)]
        self.prefix = f"fresh-rt-{uuid.uuid4().hex[:8]}-"
        self.moves = 0
        self.last_delivered: dict[int, np.ndarray] = {}  # keys last delivered to each worker (tests)
        self._stop = threading.Event()
        self.stopped: list[int] = []  # workers told to stop after their job failed

    def key(self, w: int) -> str:
        return f"{self.prefix}{w}"

    def stop(self) -> None:
        """End the current move early (from another thread): the workers answer with what they have."""
        self._stop.set()

    def new_game(self) -> None:
        c = self.config.cluster
        for job in [self.runner.submit_to(self.homes[w], rt_new_game, self.key(w), c.threshold)
                    for w in range(c.workers)]:
            job.result()
        self.moves = 0

    def close(self) -> None:
        for job in [self.runner.submit_to(self.homes[w], rt_drop, self.key(w)) for w in range(self.config.workers)]:
            try:
                job.result()
            except Exception:  # noqa: BLE001 - a worker that is gone holds nothing
                pass

    def search(self, position: Position | str | None, limit: Limit, searchmoves: tuple[str, ...] = ()
               ) -> ParallelResult:
        """One move: each worker searches to ``limit`` (nodes per worker, or movetime), exchanging
        as it goes; ``searchmoves`` restrict every worker's root."""
        cfg, c = self.config, self.config.cluster
        start = time.perf_counter()
        self.moves += 1
        self._stop.clear()
        fen, moves = root_and_moves(position)
        tally = _Tally(c.workers)
        begun = [self.runner.submit_to(self.homes[w], rt_begin, self.key(w), w, cfg.searcher, c.threshold, c.buffer,
                                       fen, moves, limit, self.moves, c.carry, cfg.exchange, tuple(searchmoves))
                 for w in range(c.workers)]
        live = []
        for w, job in enumerate(begun):
            try:
                job.result()
                live.append(w)
            except Exception as e:  # noqa: BLE001 - a worker that cannot start leaves the vote
                tally.lost[w] = f"{type(e).__name__}: {e}"
        try:
            self._exchange(live, tally)
        except BaseException:
            self.runner.signal(rt_stop, *[self.key(w) for w in live])  # no search outlives its move
            raise
        return self._result(tally, time.perf_counter() - start)

    def _exchange(self, live: list[int], tally: _Tally) -> None:
        """Keep one exchange job outstanding per searching worker until every one has ended."""
        cfg, c = self.config, self.config.cluster
        wait, fill = cfg.interval_ms / 1000.0, cfg.fill or c.buffer
        if not cfg.exchange:
            wait, fill = math.inf, c.buffer + 1  # one job, answered when the search ends
        mail: dict[int, list[_Mail]] = {w: [] for w in range(c.workers)}
        ended: set[int] = set(tally.lost)
        outstanding: dict[int, tuple[object, float, list[_Mail]]] = {}
        rounds = dict.fromkeys(range(c.workers), 0)

        def send(w: int) -> None:
            now = time.perf_counter()
            due = [m for m in mail[w] if m.due <= now]
            mail[w] = [m for m in mail[w] if m.due > now]
            parts = tuple(p for m in due for p in m.message.parts)
            job = self.runner.submit_to(self.homes[w], rt_exchange, self.key(w), parts, wait, fill,
                                        c.adaptive and cfg.exchange,
                                        self._stop.is_set())
            outstanding[w] = (job, now, due)

        def post(message: Message, due: float, taken: float) -> None:
            r = message.receiver
            if r not in ended:
                mail[r].append(_Mail(due, taken, message))
            elif c.topology == "ring":  # its link stays up: forwarded on its behalf, a hop later
                for m in route(c.topology, c.workers, message.round, {}, {r: [message]}):
                    post(m, due + cfg.delay_ms / 1000.0, taken)

        def undelivered(w: int) -> None:
            """What waited for a worker that has ended: forwarded on its behalf on a ring."""
            waiting, mail[w] = mail[w], []
            for m in waiting:
                post(m.message, m.due, m.taken)

        for w in live:
            send(w)
        while outstanding:
            jobs = {id(j): w for w, (j, _, _) in outstanding.items()}
            done = self.runner.first_done([j for j, _, _ in outstanding.values()])
            w = jobs[id(done)]
            _, sent_at, delivered = outstanding.pop(w)
            try:
                ex: Exchange = done.result()
            except Exception as e:  # noqa: BLE001 - its worker is gone: the others go on
                tally.lost[w] = f"{type(e).__name__}: {e}"
                ended.add(w)
                self._stop_worker(w)
                undelivered(w)
                continue
            tally.exchanges[w] = ex
            tally.trips.append(time.perf_counter() - sent_at - ex.waited - ex.took)
            tally.takes.append(ex.took)
            tally.latencies.extend(ex.stored_at - m.taken for m in delivered)
            tally.delivered += ex.stored
            if delivered:
                self.last_delivered[w] = np.concatenate([p.keys for m in delivered for p in m.message.parts])
            rounds[w] += 1
            tally.rounds += 1
            own = ex.part
            tally.originated += own.size
            tally.fresh += int(np.count_nonzero(own.stamps == self.moves))
            if ex.done:
                ended.add(w)
                undelivered(w)
                if ex.answer is None:
                    tally.lost[w] = ex.error or "no iteration completed"
            sent = route(c.topology, c.workers, rounds[w], {w: own}, {w: [m.message for m in delivered]}
                         ) if cfg.exchange else []
            due = time.perf_counter() + cfg.delay_ms / 1000.0
            tally.messages += len(sent)
            tally.sent += sum(m.entries for m in sent)
            for m in sent:
                post(m, due, ex.taken)
            if not ex.done:
                send(w)

    def _stop_worker(self, w: int) -> None:
        """Tell a worker whose job failed to stop, should its search still run (a signal
        reaches a busy slot; one to a dead worker is dropped)."""
        self.stopped.append(w)
        self.runner.signal(rt_stop, self.key(w), slots=[self.homes[w]])

    def _result(self, tally: _Tally, seconds: float) -> ParallelResult:
        c = self.config.cluster
        answered = [w for w in sorted(tally.exchanges) if w not in tally.lost]
        if not answered:
            raise ClusterError(f"no worker of the fresh cluster answered: {tally.lost}")
        answers = [tally.exchanges[w].answer for w in answered]
        exchanges = [tally.exchanges.get(w) for w in range(c.workers)]
        ms = [1000.0 * t for t in tally.latencies]
        exchange = ExchangeCounts(tally.rounds, tally.originated, tally.fresh, ENTRY_BYTES * tally.sent,
                                  tuple(e.threshold if e else 0 for e in exchanges))
        real_time = RealTime(self.config.delay_ms, 1000.0 * statistics.median(tally.trips) if tally.trips else 0.0,
                             sum(ms) / len(ms) if ms else 0.0, min(ms) if ms else 0.0, tally.delivered,
                             sum(e.pauses for e in exchanges if e), 1000.0 * sum(e.paused for e in exchanges if e),
                             1000.0 * statistics.mean(tally.takes) if tally.takes else 0.0,
                             tuple(e.seconds if e else 0.0 for e in exchanges), tuple(sorted(tally.lost)))
        return voted(answers, tuple(e.nodes if e else 0 for e in exchanges), tally.messages, tally.sent, exchange,
                     seconds, real_time=real_time)


def search_realtime(runner: Runner, config: RealtimeConfig, position: Position | str | None,
                    limit: Limit) -> ParallelResult:
    """One move of a fresh cluster made for it (no table kept): the integrator's one call."""
    cluster = FreshClusterRealtime(runner, config)
    try:
        return cluster.search(position, limit)
    finally:
        cluster.close()


class RealtimeTeam:
    """A decomposition player's real-time cluster (``realtime: true``): its runner (a local Dask
    cluster, the scheduler's workers, or threads of this process with ``in_process``) and the
    cluster on it, kept for a game."""

    def __init__(self, config: DecompositionConfig) -> None:
        o = config.options
        self.runner = open_runner(config.workers, config.scheduler, in_process=config.in_process)
        try:
            self.cluster = FreshClusterRealtime(self.runner, RealtimeConfig(
                node_config(o), interval_ms=o.interval_ms, delay_ms=o.delay_ms, searcher=config.search))
        except BaseException:
            self.runner.close()
            raise

    def search(self, position: Position, s: ClockedSearch) -> ParallelResult:
        """One move of ``registry.ClockedSearch`` ``s``: its nodes per worker, depth and movetime."""
        limit = Limit(nodes=s.nodes, depth=s.depth, movetime=s.limits.movetime)
        return self.cluster.search(position, limit, s.searchmoves)

    def new_game(self) -> None:
        self.cluster.new_game()

    def stop(self) -> None:
        self.cluster.stop()

    def close(self) -> None:
        try:
            self.cluster.close()
        finally:
            self.runner.close()


# The decomposition player's entry points (``registry``: the ``fresh_cluster`` row), here as this
# module knows both clocks' clusters.

def team(config: DecompositionConfig) -> FreshCluster | RealtimeTeam:
    """The cluster of a player, kept for a game: on the node clock its workers are threads of
    this process; with ``realtime`` they are resident on the runner's workers."""
    if config.options.realtime:
        return RealtimeTeam(config)
    return FreshCluster(node_config(config.options), config.search.build)


def run(cluster: FreshCluster | RealtimeTeam, options: FreshClusterOptions, s: ClockedSearch) -> ParallelResult:
    """One move of the player: ``s.nodes`` per worker, or ``s.depth``; on the node clock a
    deadline or stop order ends it at a checkpoint, in real time at the workers' next exchange."""
    position = Position.from_fen(s.fen, s.moves)
    if options.realtime:
        return cluster.search(position, s)
    return cluster.search(position, s.nodes, s.depth, searchmoves=s.searchmoves, stopped=s.stopped)
