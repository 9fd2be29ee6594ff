"""The wall clock's master side, shared by every algorithm driven over a runner: the abort at a
deadline or node budget (``Aborted``) and a master's job plumbing (submit a job, wait for the
first answer, keep the tally).

Why a module of its own: the splitting masters (:mod:`.algorithms`), parallel aspiration
(:mod:`.aspiration`) and the shared-memory searches (:mod:`.smp`) all build on it; with it
here none of them needs another, and :mod:`.algorithms` can import them all to dispatch.
"""
from __future__ import annotations

import itertools
import time

import chess

from base.runner import Runner
from players.result import IterationInfo
from players.searcher import mate_in_moves
from . import jobs
from .options import SearcherConfig
from .result import Tally
from .runner import stop_running


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

    # --- one job ---------------------------------------------------------------------------------
    def _submit(self, fen: str, path: tuple[str, ...], depth: int, ply: int, alpha: int, beta: int):
        self._check()
        job = f"{self.key}-{next(self._ids)}"
        self.running.add(job)
        future = self.runner.submit(jobs.run_job, self.key, self.options, job, fen, path, depth, ply, alpha, beta,
                                    self.score_sharing, key=job, home=(fen, path))
        return job, future

    def _finished(self, job: str, future) -> jobs.JobResult:
        result = future.result()
        self.running.discard(job)
        self.tally.add(result)
        self._check()  # a stopped job's score is garbage: never use it
        return result

    def _next_answer(self, running: dict) -> tuple[tuple, jobs.JobResult]:
        """The first of the running jobs to answer: its entry (taken out of ``running``) and
        its result.  A deadline withdraws the others."""
        future = self.runner.first_done(list(running))
        entry = running.pop(future)
        try:
            return entry, self._finished(entry[0], future)
        except Aborted:
            for f in running:
                f.cancel()
            raise

    def search_job(self, fen, path, depth, ply, alpha, beta) -> jobs.JobResult:
        job, future = self._submit(fen, path, depth, ply, alpha, beta)
        return self._finished(job, future)


def completed(master: WallMaster, depth: int, score: int, pv: tuple[str, ...], start: float) -> IterationInfo:
    """An iteration the master completed, with the nodes of every worker so far.  Parallel
    jobs report no selective depth: ``seldepth`` stays unknown."""
    return IterationInfo(depth, None, score, mate_in_moves(score), master.tally.nodes, time.perf_counter() - start,
                         pv)


def board_after(fen: str, moves: tuple[str, ...]) -> chess.Board:
    board = chess.Board(fen)
    for m in moves:
        board.push_uci(m)
    return board
