"""The node clock's sliced driver and the master side shared by its masters
(``docs/design/node-clock.md``): :func:`run_slices`, the clock every sliced algorithm runs on (the
master tree, splitting, the lazy cluster); the ``Wait`` a splitting policy yields and the
:class:`Desk` through which it submits, rewindows and aborts jobs.

Why apart from :mod:`.split_clock`: the policies (:mod:`.split_policies`) need the desk and
the wait, and the clock needs the policies; with both here neither imports the other.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from players.core.search import INF
from players.result import IterationInfo

from .master_worker import Abort, Job, Message, Rewindow, RootIteration, SliceReport, completed, mate_confirmed
from .result import JobResult, Messages

Answer = JobResult | RootIteration


@dataclass(frozen=True)
class Wait:
    """Yielded by a policy: resume it with the first answer of one of these jobs."""

    jobs: frozenset[int]


@dataclass
class Desk:
    """The master's side of the clock, as a policy sees it: jobs, windows, aborts, the
    iterations it completes.  Messages leave at the boundary the policy acts in."""

    k: int
    max_depth: int
    start: float
    counts: Messages = field(default_factory=Messages)  # jobs, aborts, windows: what the desk sent
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
        self.iterations.append(completed(depth, score, self.nodes, self.start, line))
        if depth >= self.max_depth or mate_confirmed(score, depth):
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


class SlicedMaster(Protocol):
    """What :func:`run_slices` drives: the master's side of every boundary."""

    finished: bool  # the answer is known: the clock stops
    active: list[int] | None  # the workers that run in the next slice (None: all)

    def sends(self, report: SliceReport) -> bool:
        """Count what a worker's report sends the master as it leaves the worker (counted
        whether or not it arrives before the end); whether it sends anything."""

    def boundary(self, reports: Sequence[SliceReport], nodes: int) -> list[tuple[int, Message]]:
        """The reports that reached the master at this boundary (``nodes``: every worker's so
        far), acted on: the messages it sends now, to their workers."""


def run_slices(team, master: SlicedMaster, k: int, slice_nodes: int, latency: int, nodes: int | None = None,
               stopped: Callable[[], bool] = lambda: False, order: Sequence[int] | None = None,
               report_latency: int | None = None, first: dict[int, list[Message]] | None = None
               ) -> tuple[int, list[int], int]:
    """The sliced node clock: the workers advance in slices of ``slice_nodes`` nodes and the
    master acts only at slice boundaries; what the master sends at the boundary before slice s
    is delivered at its start (``latency`` 1) or ``latency`` − 1 slices later, a worker's report
    at the end of slice s reaches the master at boundary s + ``report_latency`` (by default
    ``latency``).  ``first``: delivered at the start of slice 0 whatever the latency.  It ends
    at the boundary where the master is ``finished``, ``stopped()`` holds or the clock reaches
    ``nodes``; ``order`` is the order the workers run in within a slice (it changes nothing).
    ``team``: a :class:`.master_worker.Team` or a :class:`.lockstep_dask.DaskTeam`.  Returns
    the slices, every worker's nodes and the overruns."""
    report_latency = latency if report_latency is None else report_latency
    to_master: dict[int, list[SliceReport]] = {}
    to_workers: dict[int, dict[int, list[Message]]] = {0: {w: list(m) for w, m in first.items()}} if first else {}
    worker_nodes = [0] * k
    overruns = 0
    t = 0
    while True:
        for w, m in master.boundary(to_master.pop(t, []), sum(worker_nodes)):
            to_workers.setdefault(t + latency - 1, {}).setdefault(w, []).append(m)
        if master.finished or stopped() or (nodes is not None and t * slice_nodes >= nodes):
            return t, worker_nodes, overruns
        budget = slice_nodes if nodes is None else min(slice_nodes, nodes - t * slice_nodes)
        for r in team.run_slice(to_workers.pop(t, {}), budget, master.active if master.active is not None else order):
            worker_nodes[r.worker] += r.nodes
            overruns += r.overrun
            if master.sends(r):
                to_master.setdefault(t + report_latency, []).append(r)
        t += 1
