"""Worker side of the decomposition player: a searcher per player kept in the worker
process (its hash table survives from job to job and iteration to iteration), the
job function, and the hooks the master uses to share a bound or exchange entries.

What a worker keeps is resident in the state of the runner whose jobs run there
(``base.runner.Resident``): the searchers by job key, and the jobs running now (so that a
bound or a stop order reaches them); closing the runner stops and drops them."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from base.cluster import worker_address
from base.runner import Resident
from players.position import Position
from players.result import IterationInfo
from .options import SearcherConfig


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


@dataclass(frozen=True)
class JobResult:
    job: str
    score: int  # fail-soft, from the job node's side to move
    nodes: int
    pv: tuple[str, ...]
    seconds: float
    worker: str


def searcher_for(key: str, options: SearcherConfig):
    return _SEARCHERS.get_or_create(key, options.make_searcher)


def run_job(key: str, options: SearcherConfig, job: str, fen: str, moves: tuple[str, ...], depth: int, ply: int,
            alpha: int, beta: int, share: bool) -> JobResult:
    """Search one node (the position after ``moves``) to ``depth`` in (alpha, beta)."""
    searcher = searcher_for(key, options)
    start = time.perf_counter()
    here = running_jobs()
    with here.lock:
        here.running[job] = searcher
    try:
        score, nodes, pv = searcher.search_node(Position.from_fen(fen, moves), depth, ply, alpha, beta, share)
    finally:
        with here.lock:
            here.running.pop(job, None)
    return JobResult(job, score, nodes, pv, time.perf_counter() - start, worker_address())


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


def clear(key: str) -> None:
    s = _SEARCHERS.get(key)
    if s is not None:
        s.new_game()


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


def run_iteration(key: str, job: str, options: SearcherConfig, fen: str, moves: tuple[str, ...], depth: int,
                  imported: tuple[np.ndarray, np.ndarray] | None, export: int) -> IterationResult:
    """Lazy SMP on workers without shared memory: one complete iterative-deepening run to
    ``depth`` from this worker's own table, after importing the others' deepest entries;
    returns this worker's deepest entries for the next exchange."""
    from players.core.tt import tt_export, tt_import
    from players.limits import Limit
    searcher = searcher_for(key, options)
    if imported is not None and imported[0].size:
        tt_import(searcher.tt, imported[0], imported[1])
    start = time.perf_counter()
    here = running_jobs()
    with here.lock:
        here.running[job] = searcher
    try:
        result = searcher.search(Position.from_fen(fen, moves), Limit(depth=depth))
    finally:
        with here.lock:
            here.running.pop(job, None)
    exported = tt_export(searcher.tt, export) if export else None
    return IterationResult(worker_address(), result.depth, result.score_cp, result.bestmove, result.pv, result.nodes,
                           time.perf_counter() - start, exported)


def stoppable_search(job: str, searcher, fen: str, moves: tuple[str, ...], depth: int, nodes: int | None,
                     searchmoves: tuple[str, ...]):
    """``searcher``'s iterative deepening as the running job ``job``, so that ``stop_jobs``
    reaches it; None if it was stopped before it began (nothing to search)."""
    from players.limits import Limit
    here = running_jobs()
    with here.lock:
        if job in here.stopped_early:
            here.stopped_early.discard(job)
            return None
        searcher.reset_stop()
        here.running[job] = searcher
    try:
        return searcher.search(Position.from_fen(fen, moves), Limit(depth=depth, nodes=nodes or None),
                               searchmoves=searchmoves or None, clear_stop=False)
    finally:
        with here.lock:
            here.running.pop(job, None)


def run_search(key: str, job: str, options: SearcherConfig, fen: str, moves: tuple[str, ...], depth: int,
               nodes: int | None = None, searchmoves: tuple[str, ...] = ()) -> IterationResult:
    """Lazy SMP and ABDADA over a shared table: this worker's whole iterative deepening to
    ``depth``, until the master stops it (another worker finished first, or the move's time
    is up); the answer is its deepest completed iteration and every node it searched."""
    searcher = searcher_for(key, options)
    start = time.perf_counter()
    result = stoppable_search(job, searcher, fen, moves, depth, nodes, searchmoves)
    if result is None:
        return IterationResult(worker_address(), 0, 0, "", (), 0, 0.0, None)
    return IterationResult(worker_address(), result.depth, result.score_cp, result.bestmove, result.pv, result.nodes,
                           time.perf_counter() - start, None, result.iterations)


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
    from .tables import local_table
    local_table(name, size_mb)


async def release_table(name: str) -> None:
    """Detach this worker from a shared table (its searchers are dropped first)."""
    from .tables import release_shared_table
    here = running_jobs()
    with here.lock:
        idle = not here.running
    release_shared_table(name, idle=idle)


def warm() -> str:
    """Load the compiled search in this worker (a tiny search through each entry point the
    jobs use: the whole iterative deepening, sequential, deferring and a YBW team's, and one
    node's search, with and without a shared bound), so that no job pays for it (compiling afresh, after the
    search's source changed, takes seconds)."""
    from players.core.tt import new_table
    from players.limits import Limit
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


@dataclass(frozen=True)
class PeerResult:
    worker: str
    searched: tuple[tuple[str, int, int, tuple[str, ...]], ...]  # (move, score from the root, nodes, pv)
    seconds: float


def run_peer(key: str, options: SearcherConfig, fen: str, moves: tuple[str, ...], agenda: tuple[str, ...],
             depth_by_move: dict, tag: str, share: bool) -> PeerResult:
    """Peer cooperation: take the next root move from the shared counter (the agenda) until
    none is left; search it against the shared best score; publish a better score under the
    shared lock.  With ``share`` a watcher thread refreshes the running search's bound."""
    from distributed import Lock, Variable

    from players.core.search import INF
    searcher = searcher_for(key, options)
    counter, best, lock = Variable(f"{tag}-next"), Variable(f"{tag}-best"), Lock(f"{tag}-lock")
    start = time.perf_counter()
    done = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.02):
            try:
                current = best.get(timeout=1)[0]
            except Exception:  # noqa: BLE001 - the watcher is an optimisation only
                continue
            searcher.set_shared_beta(-current)
    watcher = threading.Thread(target=watch, daemon=True) if share else None
    if watcher is not None:
        watcher.start()
    try:
        while True:
            with lock:
                index = counter.get()
                counter.set(index + 1)
            if index >= len(agenda):
                break
            move = agenda[index]
            alpha = best.get()[0]
            pos = Position.from_fen(fen, tuple(moves) + (move,))
            score, nodes, pv = searcher.search_node(pos, depth_by_move[move], 1, -INF, -alpha, share)
            s = -score
            if s > alpha:
                with lock:
                    if s > best.get()[0]:
                        best.set((s, move))
            done.append((move, s, nodes, (move,) + pv))
    finally:
        stop.set()
    return PeerResult(worker_address(), tuple(done), time.perf_counter() - start)


def noop(x: int) -> int:
    """The smallest job: what a round trip costs without any search."""
    return x
