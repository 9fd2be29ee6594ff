"""The wall clock: a master over a runner, and the driver that runs a policy's generator on it.

* :class:`WallMaster`: the runner, the options every job carries, the job ids, the tally, and
  the deadline or node budget that aborts an iteration (``Aborted``).  Parallel aspiration
  (:mod:`.aspiration`) and the shared-memory searches (:mod:`.smp`) build on it directly.
* :class:`WallDriver`: the context a policy (:mod:`.split_policies`) submits through, and the
  loop that answers its waits: a ``Wait`` is the first of its jobs the runner finishes, a job
  is ``runner.submit`` of the worker's job function (home: its path), a shared bound is the
  ``share_beta`` signal, a cut-off stops and cancels the jobs it made useless, a ``Peers`` round
  runs on the workers (:mod:`.peer`).  A deadline or the node budget raises ``Aborted`` at the
  next submit or answer; the caller keeps the last completed iteration.

The driver's properties are the wall clock's ways (:mod:`.split_policies`' docstring): python-
chess's move order (:class:`.trees.BoardTree`), one job per shallow iteration, two speculative
jobs per worker in flight, idle workers counted among the split's own jobs, and no shared bound
after a subcontracted sibling.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from base.runner import Runner
from players.core.search import INF, MAX_PLY
from players.result import IterationInfo
from .master_worker import completed
from .node_clock import Wait
from .options import SearcherConfig
from .peer import peer_round
from .result import JobResult, Tally
from .runner import share_bounds, stop_running
from .worker import NodeJob, run

if TYPE_CHECKING:
    from .split_policies import Peers

__all__ = ["Aborted", "WallDriver", "WallMaster"]


class Aborted(Exception):
    """The move's time or node budget ran out inside an iteration."""


class WallMaster:
    """A master on the wall clock: the runner, the options every job carries, the job ids, the
    tally, and the deadline or node budget that aborts an iteration (``Aborted``)."""

    def __init__(self, runner: Runner, options: SearcherConfig, key: str, score_sharing: bool = True,
                 min_split_depth: int = 1, dynamic: bool = False, first_job: int = 0,
                 null_window: bool = True, speculative: bool = False, margin: int = 25,
                 whole_budget: bool = False) -> None:
        self.runner = runner
        self.options = options
        self.key = key
        self.score_sharing = score_sharing
        self.min_split_depth = min_split_depth
        self.dynamic = dynamic
        self.null_window = null_window
        self.speculative = speculative
        self.margin = margin
        self.whole_budget = whole_budget  # shared_smp: every worker spends its share of a node budget
        self.root_nodes: dict[str, int] = {}  # nodes per root move in the last speculative iteration
        self.tally = Tally()
        self._ids = itertools.count(first_job)  # job ids stay unique over a game's moves
        self.running: set[str] = set()
        self.aborted = False
        self.node_limit: int | None = None

    def abort(self) -> None:
        """Stop everything now (called from a timer thread at the move's deadline)."""
        self.aborted = True
        stop_running(self.runner, list(self.running))

    def _check(self) -> None:
        if self.node_limit is not None and self.tally.nodes >= self.node_limit and not self.aborted:
            self.abort()
        if self.aborted:
            raise Aborted()


class WallDriver:
    """A policy's context on the wall clock, and its driver (module docstring).  Paths are
    relative to the position after ``moves``, searched as if ``ply`` plies below the root."""

    lookahead = 2
    shallow = "per_iteration"
    share_subcontracted = False

    def __init__(self, master: WallMaster, fen: str, moves: tuple[str, ...], ply: int = 0,
                 depth: int = MAX_PLY - 1, start: float | None = None) -> None:
        self.master = master
        self.runner = master.runner
        self.k = self.runner.workers
        self.max_depth = min(depth, MAX_PLY - 1)
        self.fen = fen
        self.moves = tuple(moves)
        self.ply = ply
        self.start = time.perf_counter() if start is None else start
        self.futures: dict[str, Any] = {}  # job id -> its future, in submission order
        self.history: list[IterationInfo] = []

    @property
    def peers(self) -> bool:
        """Peer rounds need the workers' shared variables: a Dask client."""
        return self.runner.client is not None

    # --- what the policy calls -----------------------------------------------------------------------
    def submit(self, path: tuple[str, ...], depth: int, alpha: int = -INF, beta: int = INF, first: int = 1,
               guess: int = 0) -> str:
        """A node job, its id (``first`` and ``guess`` are the node clock's root jobs')."""
        master = self.master
        master._check()
        job = f"{master.key}-{next(master._ids)}"
        master.running.add(job)
        moves = self.moves + tuple(path)
        node = NodeJob(self.fen, moves, depth, self.ply + len(path), alpha, beta, master.score_sharing)
        self.futures[job] = self.runner.submit(run, master.key, master.options, job, node, key=job,
                                               home=(self.fen, moves))
        return job

    def share(self, running: list, alpha: int) -> None:
        share_bounds(self.runner, {job: -alpha for job in running})

    def abort(self, running: list) -> None:
        stop_running(self.runner, running)
        self.master.running.difference_update(running)
        for job in running:
            self.futures.pop(job).cancel()
        self.master.tally.cancelled += len(running)

    def idle(self, running: int) -> int:
        return self.k - running

    def record(self, depth: int, score: int, pv: tuple[str, ...]) -> bool:
        self.history.append(completed(depth, score, self.master.tally.nodes, self.start, pv))
        return depth >= self.max_depth

    # --- the driver --------------------------------------------------------------------------------
    def drive(self, policy: Generator) -> Any:
        """Run ``policy`` to its end and return its value; ``Aborted`` ends it early."""
        try:
            request = next(policy)
            while True:
                request = policy.send(self._answer(request) if isinstance(request, Wait) else self._peers(request))
        except StopIteration as stop:
            return stop.value
        finally:
            policy.close()

    def _answer(self, wait: Wait) -> JobResult:
        """The first of the awaited jobs to finish (the others keep running).  A deadline
        withdraws the others: a stopped job's score is garbage, never used."""
        pending = [(job, f) for job, f in self.futures.items() if job in wait.jobs]
        future = self.runner.first_done([f for _, f in pending])
        job = next(job for job, f in pending if f is future)
        del self.futures[job]
        master = self.master
        try:
            result = future.result()
            master.running.discard(job)
            master.tally.add(result)
            master._check()
        except Aborted:
            for _, f in pending:
                if f is not future:
                    f.cancel()
            raise
        return result

    def _peers(self, request: Peers) -> list:
        return peer_round(self.master, self.fen, self.moves, request)
