"""The thesis's master-worker algorithms (root splitting and its variants, PV splitting,
dynamic splitting) on the node clock (``docs/node-clock.md``): the clock and the master's desk.

Why a module of its own: :mod:`.algorithms` drives these algorithms over Dask, where 4, 8
or 16 workers on two cores only give node counts.  Here the workers are the master tree's
(:mod:`.master_worker`: one job at a time, a table of their own, ``Abort`` and ``Rewindow``
at slice boundaries, restart from the table) and the master is a *policy*
(:mod:`.split_policies`): a generator that submits jobs, changes their windows, aborts them
and yields :class:`Wait` until one of the jobs it names answers.  This module runs the
clock around it, with the master tree's conventions:

* the workers advance in slices of ``slice`` nodes; the master acts only at slice
  boundaries; a message sent at the end of slice s (a worker's answer) or at the boundary
  before slice s + 1 (the master's) is delivered at the start of slice s + ``latency``;
* a job waits in the master's queue until a worker is idle (first come, first served; a
  path goes back to the worker that searched it last if that one is idle: its table holds
  the subtree); a worker is idle from the moment the master knows its answer, or sends it
  an abort;
* T_k = the slices until the master knows the answer × ``slice``; N_k = every worker's
  nodes; messages: jobs, results (a root job's: one per iteration), aborts, new windows.

The answers the master receives are ordered by (boundary, worker): the run is a pure function
of (position, config, the workers' tables), whatever order a slice runs the workers in.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from players.core.search import INF
from players.position import Position
from players.result import IterationInfo
from players.searcher import mate_in_moves

from .master_worker import (Abort, InProcessTeam, Job, JobResult, Message, Rewindow, RootIteration, SlicedRun,
                            SliceReport)

MAX_DEPTH = 63
Answer = JobResult | RootIteration


@dataclass(frozen=True)
class SplitClockConfig:
    """One master-worker algorithm on the node clock (YAML ``algorithm``, ``workers``,
    ``score_sharing``, ``null_window``, ``speculative``, ``margin``, ``min_split_depth``,
    ``slice``, ``latency``)."""

    algorithm: str = "root_split"  # root_split | pv_split | dynamic_split
    workers: int = 4
    slice: int = 1000  # nodes a worker searches between two boundaries
    latency: int = 1  # slices from sending a message to its delivery (>= 1)
    min_split_depth: int = 5  # shallower iterations are one job; shallower nodes are not split
    score_sharing: bool = True  # a running job's beta follows the master's alpha (a Rewindow)
    null_window: bool = True  # younger brothers probed with a null window first (PVS)
    speculative: bool = False  # root_split: younger brothers do not wait for the eldest ...
    margin: int = 25  # ... and are probed at the previous score less this


@dataclass(frozen=True)
class Wait:
    """Yielded by a policy: resume it with the first answer of one of these jobs."""

    jobs: frozenset[int]


@dataclass(frozen=True)
class SplitMessages:
    """Messages sent during one move, by kind."""

    jobs: int = 0
    results: int = 0
    aborts: int = 0
    windows: int = 0

    @property
    def total(self) -> int:
        return self.jobs + self.results + self.aborts + self.windows


@dataclass(frozen=True)
class SplitClockResult(SlicedRun):
    """The answer and the node clock's metrics of one move (nodes for seconds)."""

    algorithm: str
    move: str
    score: int
    depth: int
    pv: tuple[str, ...]
    slices: int  # until the master knew the answer
    slice_nodes: int
    nodes: int  # all workers' nodes
    worker_nodes: tuple[int, ...]
    messages: SplitMessages
    overruns: int
    iterations: tuple[IterationInfo, ...]
    seconds: float


    def metrics(self) -> str:
        m = self.messages
        return (f"{self.algorithm} (node clock): {self.slices} slices of {self.slice_nodes} nodes "
                f"(T_k {self.parallel_nodes} nodes), {self.nodes} nodes ({'/'.join(map(str, self.worker_nodes))}), "
                f"{m.total} messages (jobs {m.jobs}, results {m.results}, aborts {m.aborts}, windows {m.windows}), "
                f"{self.overruns} overruns; depth {self.depth}, {self.move} ({self.score})")


@dataclass
class _Counts:
    jobs: int = 0
    results: int = 0
    aborts: int = 0
    windows: int = 0


@dataclass
class Desk:
    """The master's side of the clock, as a policy sees it: jobs, windows, aborts, the
    iterations it completes.  Messages leave at the boundary the policy acts in."""

    k: int
    max_depth: int
    start: float
    counts: _Counts = field(default_factory=_Counts)
    nodes: int = 0  # every worker's so far (the driver keeps it)
    finished: bool = False
    best: tuple[str, int, int, tuple[str, ...]] = ("", 0, 0, ())  # move, score, depth, PV
    iterations: list[IterationInfo] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ids = itertools.count()
        self.queue: list[Job] = []
        self.running: dict[int, Job] = {}  # worker -> its job
        self.windows: dict[int, tuple[int, int]] = {}  # job -> its window now (queued or running)
        self.home: dict[tuple[str, ...], int] = {}  # path -> the worker that searched it last
        self.outbox: list[tuple[int, Message]] = []
        self.inbox: list[Answer] = []  # answers not yet taken by the policy, in arrival order

    # --- what a policy calls -------------------------------------------------------------------------
    def submit(self, path: tuple[str, ...], depth: int, alpha: int = -INF, beta: int = INF, first: int = 1,
               guess: int = 0) -> int:
        """A job (``path`` empty: the root's iterations ``first`` to ``depth``), queued until a
        worker is idle; its id."""
        job = Job(next(self.ids), tuple(path), depth, alpha, beta, first, guess)
        self.queue.append(job)
        self.windows[job.id] = (alpha, beta)
        return job.id

    def window(self, job: int) -> tuple[int, int] | None:
        """A job's window now; None once its answer has reached the master (or it was aborted)."""
        return self.windows.get(job)

    def rewindow(self, job: int, alpha: int, beta: int) -> None:
        """A new window for a job: queued, it leaves with it; running, a message."""
        if self.windows.get(job) in (None, (alpha, beta)):
            return  # answered (or aborted) already, or no change
        self.windows[job] = (alpha, beta)
        for i, queued in enumerate(self.queue):
            if queued.id == job:
                self.queue[i] = Job(job, queued.path, queued.depth, alpha, beta, queued.first, queued.guess)
                return
        for w, running in self.running.items():
            if running.id == job:
                self.counts.windows += 1
                self.outbox.append((w, Rewindow(job, alpha, beta)))
                return

    def abort(self, job: int) -> None:
        """Drop a job: queued, silently; running, a message (its worker is idle from now)."""
        self.windows.pop(job, None)
        self.queue = [j for j in self.queue if j.id != job]
        for w, running in list(self.running.items()):
            if running.id == job:
                del self.running[w]
                self.counts.aborts += 1
                self.outbox.append((w, Abort(job)))
        self.inbox = [a for a in self.inbox if a.job != job]

    def idle(self) -> int:
        """Workers with nothing to do once the queue is handed out."""
        return self.k - len(self.running) - len(self.queue)

    def record(self, depth: int, score: int, line: tuple[str, ...]) -> None:
        """Iteration ``depth`` is complete: its answer is the move's now."""
        self.best = (line[0], int(score), depth, line)
        mate = mate_in_moves(int(score))
        self.iterations.append(IterationInfo(depth, None, int(score), mate, self.nodes,
                                             time.perf_counter() - self.start, line))
        if depth >= self.max_depth or (mate is not None and depth >= 2 * abs(mate) + 1):
            self.finished = True

    # --- what the driver calls -----------------------------------------------------------------------
    def receive(self, report: SliceReport) -> None:
        """A worker's answer reached the master (an aborted job's is dropped)."""
        for it in report.iterations:
            if it.job in self.windows:
                self.inbox.append(it)
                running = self.running.get(report.worker)
                if running is not None and running.id == it.job and it.depth >= running.depth:
                    del self.running[report.worker]
                    self.windows.pop(it.job, None)
        r = report.result
        if r is not None and r.job in self.windows:
            running = self.running.get(report.worker)
            if running is not None and running.id == r.job:
                del self.running[report.worker]
            self.windows.pop(r.job, None)
            self.inbox.append(r)

    def take(self, wait: Wait) -> Answer | None:
        """The first answer the policy waits for, if it has arrived."""
        for i, a in enumerate(self.inbox):
            if a.job in wait.jobs:
                return self.inbox.pop(i)
        return None

    def dispatch(self) -> None:
        """The queue's jobs to the idle workers, first come first served (a path to its home)."""
        idle = [w for w in range(self.k) if w not in self.running]
        while self.queue and idle:
            job = self.queue.pop(0)
            home = self.home.get(job.path)
            w = home if home in idle else idle[0]
            idle.remove(w)
            self.running[w] = job
            self.home[job.path] = w
            self.counts.jobs += 1
            self.outbox.append((w, job))


Policy = Callable[[Desk], Generator[Wait, Answer, None]]


def run_split_clock(team: InProcessTeam, config: SplitClockConfig, fen: str, moves: tuple[str, ...] = (),
                    nodes: int | None = None, depth: int | None = None, searchmoves: tuple[str, ...] = (),
                    stopped: Callable[[], bool] = lambda: False,
                    order: Sequence[int] | None = None) -> SplitClockResult:
    """One move: iterations until ``depth`` or until the clock reaches ``nodes`` (per worker:
    k × that in all, at most), the last completed iteration answering.  ``stopped()`` (a
    deadline) ends it at a slice boundary; ``order`` is the order the workers run in within a
    slice (tests: it changes nothing)."""
    from .split_policies import MasterPolicy
    if nodes is None and depth is None:
        raise ValueError(f"{config.algorithm} on the node clock needs a node budget per worker or a depth")
    if len(team.workers) != config.workers:
        raise ValueError(f"{config.algorithm}: {len(team.workers)} workers in the team, {config.workers} configured")
    start = time.perf_counter()
    k = config.workers
    root = Position.from_fen(fen, moves)
    desk = Desk(k, min(depth or MAX_DEPTH, MAX_DEPTH), start)
    # ValueError here: an illegal searchmove, or no legal move at all
    policy = MasterPolicy(desk, config, team.master, root, tuple(searchmoves), team.options.exact)
    team.begin(fen, moves, searchmoves)
    master = policy.iterate()
    waiting: Wait | None = next(master)
    latency = config.latency
    to_master: dict[int, list[SliceReport]] = {}
    to_workers: dict[int, dict[int, list[Message]]] = {}
    worker_nodes = [0] * k
    overruns = results = 0
    t = 0
    while True:
        desk.nodes = sum(worker_nodes)
        for report in to_master.pop(t, []):
            desk.receive(report)
        while waiting is not None and (answer := desk.take(waiting)) is not None:
            try:
                waiting = master.send(answer)
            except StopIteration:
                waiting = None
        if waiting is None:
            desk.finished = True
        else:
            desk.dispatch()
            if not desk.running and not desk.inbox:
                raise RuntimeError(f"{config.algorithm}: the master waits for jobs {sorted(waiting.jobs)} that no "
                                   f"worker searches (depth {desk.best[2]} done)")
        for w, m in desk.outbox:
            to_workers.setdefault(t + latency - 1, {}).setdefault(w, []).append(m)
        desk.outbox = []
        if desk.finished or stopped() or (nodes is not None and t * config.slice >= nodes):
            break
        budget = config.slice if nodes is None else min(config.slice, nodes - t * config.slice)
        for r in team.run_slice(to_workers.pop(t, {}), budget, order):
            worker_nodes[r.worker] += r.nodes
            overruns += r.overrun
            results += (r.result is not None) + len(r.iterations)
            if r.result is not None or r.iterations:
                to_master.setdefault(t + latency, []).append(r)
        t += 1
    master.close()
    move, score, done, line = desk.best
    c = desk.counts
    return SplitClockResult(config.algorithm, move, score, done, line, t, config.slice, sum(worker_nodes),
                            tuple(worker_nodes), SplitMessages(c.jobs, results, c.aborts, c.windows), overruns,
                            tuple(desk.iterations), time.perf_counter() - start)
