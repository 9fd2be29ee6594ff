"""The wall clock's worker: one job function, :func:`run`, for every job a master sends (a
node, an iteration, a whole search, a window, a peer round), on a searcher kept in the worker
process, and the signals the master sends to running jobs (share a bound, stop).

What a worker keeps is resident in the state of the runner whose jobs run there
(``base.runner.Resident``): the searchers by key (their tables stay warm from job to job and
from move to move: the game's key, ``{key}-w{i}`` for a job pinned to slot i, ``{key}-ybw{k}``
for a YBW team), and the jobs running now, so that a bound or a stop order reaches them;
closing the runner stops and drops them.  A job is a frozen dataclass (it travels to Dask
workers) whose ``run`` says what it searches; this module's :func:`run` finds its searcher and
hands it over.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from base.cluster import worker_address
from base.runner import Resident
from players.core.context import S_NODES, S_STOPPED
from players.core.search import search_node
from players.core.tt import new_table, tt_export, tt_import
from players.limits import Limit
from players.position import Position
from players.result import IterationInfo
from .master_worker import start_search
from .options import SearcherConfig
from .result import JobResult
from .tables import local_table, release_shared_table

if TYPE_CHECKING:
    from .ybw import TeamCounts


class RunningJobs:
    """The jobs running in one worker process, and the stop orders that came before their
    job started.  Closing it (its runner closing) stops every search still running."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[str, object] = {}  # job id -> searcher running it
        self.stopped_early: set[str] = set()  # jobs whose stop order came before they started

    def close(self) -> None:
        with self.lock:
            searchers = list(self.running.values())
        for searcher in searchers:
            searcher.stop()


_SEARCHERS: Resident = Resident("decomposition.searchers")  # job key -> the worker's searcher (its table stays warm)
_JOBS: Resident[RunningJobs] = Resident("decomposition.jobs")


def running_jobs() -> RunningJobs:
    """The jobs running in this worker process (its runner's state): where stop orders find them."""
    return _JOBS.get_or_create("running", RunningJobs)


def searcher_for(key: str, options: SearcherConfig):
    return _SEARCHERS.get_or_create(key, options.make_searcher)


@contextmanager
def registered(job_id: str, searcher, prepare: Callable[[], Any] = lambda: None) -> Iterator[Any]:
    """``job_id`` running on ``searcher`` for the body's length, where stop orders and shared
    bounds find it; ``prepare`` runs under the same lock first (its value is the body's)."""
    here = running_jobs()
    with here.lock:
        prepared = prepare()
        here.running[job_id] = searcher
    try:
        yield prepared
    finally:
        with here.lock:
            here.running.pop(job_id, None)


def run(key: str, options: SearcherConfig, job_id: str, job: Any) -> Any:
    """The one job function of the wall clock: ``job`` searched as ``job_id`` on the searcher
    this worker keeps for ``key``."""
    return job.run(job.searcher(key, options), job_id)


class WallJob:
    """A job's searcher: the one the worker keeps for the master's key."""

    def searcher(self, key: str, options: SearcherConfig):
        return searcher_for(key, options)


# --- a node ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NodeJob(WallJob):
    """Search one node (the position after ``moves``) to ``depth`` in (alpha, beta), ``ply``
    plies below the root; with ``share`` its beta follows the shared bound."""

    fen: str
    moves: tuple[str, ...]
    depth: int
    ply: int
    alpha: int
    beta: int
    share: bool

    def run(self, searcher, job_id: str) -> JobResult:
        start = time.perf_counter()
        with registered(job_id, searcher):
            score, nodes, pv = searcher.search_node(Position.from_fen(self.fen, self.moves), self.depth, self.ply,
                                                    self.alpha, self.beta, self.share)
        return JobResult(job_id, worker_address(), score, pv, nodes, self.alpha, self.beta, time.perf_counter() - start)


# --- a whole iterative deepening -------------------------------------------------------------------
@dataclass(frozen=True)
class IterationResult:
    worker: str
    depth: int  # the deepest iteration completed (0: none)
    score: int
    move: str
    pv: tuple[str, ...]
    nodes: int
    seconds: float
    exported: tuple[np.ndarray, np.ndarray] | None
    iterations: tuple[IterationInfo, ...] = ()  # every completed iteration
    counts: TeamCounts | None = None  # a YBW team's split points


@dataclass(frozen=True)
class IterationJob(WallJob):
    """Lazy SMP on workers without shared memory: one complete iterative-deepening run to
    ``depth`` from this worker's own table, after importing the others' deepest entries;
    answers this worker's deepest ``export`` entries for the next exchange."""

    fen: str
    moves: tuple[str, ...]
    depth: int
    imported: tuple[np.ndarray, np.ndarray] | None
    export: int

    def run(self, searcher, job_id: str) -> IterationResult:
        if self.imported is not None and self.imported[0].size:
            tt_import(searcher.tt, self.imported[0], self.imported[1])
        start = time.perf_counter()
        with registered(job_id, searcher):
            result = searcher.search(Position.from_fen(self.fen, self.moves), Limit(depth=self.depth))
        seconds = time.perf_counter() - start
        exported = tt_export(searcher.tt, self.export) if self.export else None
        return IterationResult(worker_address(), result.depth, result.score_cp, result.bestmove, result.pv,
                               result.nodes, seconds, exported)


def stoppable_search(job_id: str, searcher, fen: str, moves: tuple[str, ...], depth: int, nodes: int | None,
                     searchmoves: tuple[str, ...]):
    """``searcher``'s iterative deepening as the running job ``job_id``, so that ``stop_jobs``
    reaches it; None if it was stopped before it began (nothing to search)."""
    here = running_jobs()
    with here.lock:
        if job_id in here.stopped_early:
            here.stopped_early.discard(job_id)
            return None
        searcher.reset_stop()
        here.running[job_id] = searcher
    try:
        return searcher.search(Position.from_fen(fen, moves), Limit(depth=depth, nodes=nodes or None),
                               searchmoves=searchmoves or None, clear_stop=False)
    finally:
        with here.lock:
            here.running.pop(job_id, None)


@dataclass(frozen=True)
class SearchJob(WallJob):
    """Lazy SMP and ABDADA over a shared table, or a YBW team's search (``threads`` > 0): this
    worker's whole iterative deepening to ``depth`` within ``nodes``, until the master stops it
    (another worker finished first, or the move's time is up); the answer is its deepest
    completed iteration and every node it searched."""

    fen: str
    moves: tuple[str, ...]
    depth: int
    nodes: int | None = None
    searchmoves: tuple[str, ...] = ()
    threads: int = 0  # a YBW team of this many threads in this process
    min_split_depth: int = 0

    def searcher(self, key: str, options: SearcherConfig):
        if self.threads:
            return searcher_for(f"{key}-ybw{self.threads}", options.with_ybw(self.threads, self.min_split_depth))
        return searcher_for(key, options)

    def run(self, searcher, job_id: str) -> IterationResult:
        start = time.perf_counter()
        result = stoppable_search(job_id, searcher, self.fen, self.moves, self.depth, self.nodes, self.searchmoves)
        counts = None
        if self.threads:
            from .ybw import TeamCounts  # the worker has the team's module loaded already (its searcher)
            counts = TeamCounts() if result is None else searcher.counts()
        if result is None:
            return IterationResult(worker_address(), 0, 0, "", (), 0, 0.0, None, counts=counts)
        return IterationResult(worker_address(), result.depth, result.score_cp, result.bestmove, result.pv,
                               result.nodes, time.perf_counter() - start, None, result.iterations, counts)


# --- a window at the root (parallel aspiration) ----------------------------------------------------
@dataclass(frozen=True)
class WindowJob(WallJob):
    """One worker's search of the root in (alpha, beta), on its own table, stopped after
    ``node_limit`` nodes (0: none) or by a stop order.  The core's ``search_node`` directly:
    the searcher's own would zero the node limit."""

    fen: str
    moves: tuple[str, ...]
    depth: int
    alpha: int
    beta: int
    node_limit: int = 0

    def run(self, searcher, job_id: str) -> JobResult:
        position = Position.from_fen(self.fen, self.moves)
        ctx = searcher.ctx
        start = time.perf_counter()
        with registered(job_id, searcher, lambda: start_search(searcher, self.node_limit)) as stats:
            score = search_node(position.arrays, searcher.tt, ctx, self.depth, 0, self.alpha, self.beta)
        return JobResult(job_id, worker_address(), int(score), searcher._pv(), int(stats[S_NODES]), self.alpha,
                         self.beta, time.perf_counter() - start, bool(stats[S_STOPPED]))


# --- the master's signals and a game's lifetime ----------------------------------------------------
async def share_beta(jobs_and_betas: dict) -> int:
    """Lower the beta of jobs running here (score sharing); returns how many were touched."""
    touched = 0
    here = running_jobs()
    with here.lock:
        for job, beta in jobs_and_betas.items():
            s = here.running.get(job)
            if s is not None:
                s.set_shared_beta(beta)
                touched += 1
    return touched


async def stop_jobs(job_ids: list[str]) -> int:
    """A cut-off made these jobs useless, or the move's time is up: stop them.  A job not
    started yet is remembered, so that it does not start a search nobody waits for."""
    stopped = 0
    here = running_jobs()
    with here.lock:
        if len(here.stopped_early) > 10_000:  # orders for jobs that had finished: forget them
            here.stopped_early.clear()
        for job in job_ids:
            s = here.running.get(job)
            if s is not None:
                s.stop()
                stopped += 1
            else:
                here.stopped_early.add(job)
    return stopped


async def drop_prefix(prefix: str) -> int:
    """Drop the searchers of the jobs whose keys start with ``prefix`` (a finished game's),
    closing those that hold threads (a YBW team's helpers)."""
    dropped = _SEARCHERS.pop_prefix(prefix)
    for searcher in dropped:
        close = getattr(searcher, "close", None)
        if callable(close):
            close()
    return len(dropped)


def create_local_table(name: str, size_mb: float) -> None:
    """The table the search threads of this worker process share (``threads: true``)."""
    local_table(name, size_mb)


async def release_table(name: str) -> None:
    """Detach this worker from a shared table (its searchers are dropped first)."""
    here = running_jobs()
    with here.lock:
        idle = not here.running
    release_shared_table(name, idle=idle)


def warm() -> str:
    """Load the compiled search in this worker (a tiny search through each entry point the
    jobs use: the whole iterative deepening, sequential, deferring and a YBW team's, and one
    node's search, with and without a shared bound), so that no job pays for it (compiling
    afresh, after the search's source changed, takes seconds)."""
    from .shared_searcher import SharedSearcher
    searcher = SearcherConfig().make_searcher()
    searcher.search(None, Limit(depth=1))
    node = Position.from_fen(moves=("e2e4",))
    searcher.search_node(node, 1, 1, -32001, 32001)
    searcher.search_node(node, 1, 1, -32001, 32001, share_bound=True)
    SharedSearcher(hash_mb=1, table=new_table(1), defer=True).search(None, Limit(depth=1))
    from .ybw import YbwSearcher  # a YBW team: its master's root search, a helper's idle loop, a split
    team = YbwSearcher(hash_mb=1, threads=2, min_split_depth=1)
    try:
        team.search(None, Limit(depth=3))
    finally:
        team.close()
    return worker_address()


def noop(x: int) -> int:
    """The smallest job: what a round trip costs without any search."""
    return x
