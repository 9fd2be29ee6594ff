"""The lazy cluster in lockstep mode (issue 42; ``docs/design/node-clock.md``).

Stockfish's MPI "lazy cluster" on the node clock: k workers, each a plain
:class:`players.searcher.Searcher` with a table of its own (no shared memory), each running
the whole iterative deepening on the root.  The workers advance in slices of ``slice`` nodes;
at the end of slice s every worker that searched in it sends its table entries of depth
>= ``exchange_depth`` (at most ``exchange_size``, deepest first) to every other worker, and
they are stored in the receivers' tables at the start of slice s + ``latency``.  A worker
stopped mid-iteration by the end of its slice restarts that iteration in its next slice with
its table (and move order, killers, history) kept: the table holds the progress.  The move is
Stockfish's thread vote over the workers' last completed iterations (:func:`vote`).

A worker's slice is a deterministic function of (position, its state, what it was
delivered), and the coordinator (:func:`run_lockstep`) delivers messages in worker order, so
the answer is a pure function of (position, config, the workers' history in the game): it does
not depend on how many cores run the workers nor on where they run.  The workers are the node
clock's (:class:`.master_worker.Worker`), each given the whole move as one root job; the
:class:`.master_worker.Team` runs them one after the other in this process (the reference,
and what tests use), :mod:`players.decomposition.lockstep_dask` on Dask workers, one slice a
task.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from players.core.search import MATE_BOUND
from players.result import IterationInfo
from players.searcher import mate_in_moves
from .master_worker import MAX_DEPTH, Entries, Job, Message, SliceReport, Team
from .node_clock import run_slices
from .options import LockstepConfig
from .registry import ClockedSearch
from .result import ParallelResult

if TYPE_CHECKING:
    from .config import DecompositionConfig

# Stockfish 9's lazy-SMP depth skipping: worker i > 0 skips the iterations d with
# ((d + SKIP_PHASE[j]) // SKIP_SIZE[j]) odd, j = (i - 1) % 20.  Workers that share no memory
# and search deterministically would otherwise search the same tree, send each other what they
# already have and all vote alike; skipping makes them reach different depths at a slice's end.
SKIP_SIZE = (1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4)
SKIP_PHASE = (0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7)


def skips(worker: int, depth: int, max_depth: int) -> bool:
    """Whether ``worker`` skips iteration ``depth`` (never the first, nor the last one asked for)."""
    if worker == 0 or depth <= 1 or depth >= max_depth:
        return False
    j = (worker - 1) % 20
    return ((depth + SKIP_PHASE[j]) // SKIP_SIZE[j]) % 2 == 1



@dataclass(frozen=True)
class WorkerAnswer:
    """A worker's last completed iteration, what the vote counts."""

    worker: int
    move: str
    score: int
    depth: int
    pv: tuple[str, ...]


def vote(answers: list[WorkerAnswer]) -> WorkerAnswer:
    """Stockfish's thread vote: ``votes[move] += score - min_score + 14`` over the workers'
    last completed iterations; the move with most votes, the worker among its voters with
    the longer PV (then the lower index) answering.  A proven win overrides the vote (the
    shortest one answers); a proven loss answers only when every worker has one (the
    longest).  Workers that completed no iteration do not vote unless none did."""
    voters = [a for a in answers if a.depth > 0] or list(answers)
    low = min(a.score for a in voters)
    votes: dict[str, int] = {}
    for a in voters:
        votes[a.move] = votes.get(a.move, 0) + a.score - low + 14
    best = voters[0]
    for a in voters[1:]:
        if best.score > MATE_BOUND:
            if a.score > best.score:
                best = a  # a shorter mate
        elif a.score > MATE_BOUND:
            best = a
        elif best.score < -MATE_BOUND:
            if a.score > best.score:
                best = a  # not lost, or lost later
        elif a.score < -MATE_BOUND:
            continue
        elif votes[a.move] > votes[best.move] or (votes[a.move] == votes[best.move] and len(a.pv) > len(best.pv)):
            best = a
    return best



class _Cluster:
    """The lazy cluster at a slice boundary: no master, the exchange only.  It reads every
    report of the last slice (its worker's iterations, whether it is done) and sends each
    export on to every other worker, one concatenated block a receiver in sender order."""

    def __init__(self, k: int, orders: list[tuple[str, ...]]) -> None:
        self.k = k
        first = [order[0] if order else "0000" for order in orders]
        self.last = {w: WorkerAnswer(w, first[w], 0, 0, (first[w],)) for w in range(k)}
        self.iterations: dict[int, list[IterationInfo]] = {w: [] for w in range(k)}
        self.active: list[int] = list(range(k))  # the workers not done: only they run, and receive
        self.finished = False
        self.messages = self.entries = 0  # one per (sender, receiver) per slice, and the entries in them

    def sends(self, report: SliceReport) -> bool:
        return True  # every report: whether its worker is done

    def boundary(self, reports: Sequence[SliceReport], nodes: int) -> list[tuple[int, Message]]:
        for r in reports:
            for it in r.iterations:
                self.last[r.worker] = WorkerAnswer(r.worker, it.pv[0], it.score, it.depth, it.pv)
                self.iterations[r.worker].append(IterationInfo(it.depth, it.seldepth, it.score,
                                                               mate_in_moves(it.score), it.nodes, 0.0, it.pv))
        if reports:
            self.active = [r.worker for r in reports if not r.finished]
            self.finished = not self.active
        sent = [r for r in reports if r.exported is not None and r.exported[0].size]
        out = []
        for w in range(self.k):
            blocks = [r.exported for r in sent if r.worker != w]
            if blocks:
                out.append((w, Entries(np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks]))))
                self.messages += len(blocks)
                self.entries += sum(int(b[0].size) for b in blocks)
        return out


def run_lockstep(team: Team, config: LockstepConfig, fen: str, moves: tuple[str, ...] = (), nodes: int | None = None,
                 depth: int | None = None, stopped=lambda: False,
                 searchmoves: tuple[str, ...] = ()) -> ParallelResult:
    """One move of the lazy cluster: slices until every worker is done (``nodes`` per worker,
    or ``depth``), the messages of slice s stored at the start of slice s + latency, then the
    vote.  ``stopped()`` (a deadline) ends it at a slice boundary; ``searchmoves`` restricts
    every worker's root (UCI ``go searchmoves``; an illegal one raises ``ValueError``).
    ``team``: the workers in this process or on Dask (``lockstep_dask``), the same answers."""
    if nodes is None and depth is None:
        raise ValueError("a lazy cluster needs a node budget per worker or a depth")
    start = time.perf_counter()
    k = config.workers
    max_depth = min(depth or MAX_DEPTH, MAX_DEPTH)
    cluster = _Cluster(k, team.begin(fen, moves, searchmoves))
    export = (config.exchange_depth, config.exchange_size) if config.exchange_size > 0 else None
    # Each worker's whole iterative deepening is one job, its own budget, the iterations it skips left out.
    jobs = {w: [Job(w, (), max_depth, skip=tuple(d for d in range(1, max_depth + 1) if skips(w, d, max_depth)),
                    budget=nodes, export=export, overrun_after=config.overrun_after, overrun_whole=False)]
            for w in range(k)}
    # Reports reach the boundary after their slice; the exchange takes ``latency`` slices.
    slices, worker_nodes, _ = run_slices(team, cluster, k, config.slice, config.latency, stopped=stopped,
                                         report_latency=1, first=jobs)
    answers = tuple(cluster.last[w] for w in range(k))
    best = vote(list(answers))
    low = min(a.score for a in answers)
    votes: dict[str, int] = {}
    for a in answers:
        if a.depth > 0:
            votes[a.move] = votes.get(a.move, 0) + a.score - low + 14
    return ParallelResult("lazy_cluster", best.move, best.score, best.depth, best.pv, sum(worker_nodes),
                          tuple(worker_nodes), cluster.messages, tuple(cluster.iterations[best.worker]),
                          time.perf_counter() - start, slices=slices, slice_nodes=config.slice, worker=best.worker,
                          entries_sent=cluster.entries, answers=answers, votes=votes)


def team(config: DecompositionConfig):
    """The lazy cluster's workers: in this process one after the other (``in_process``, or a
    single worker), else on Dask workers (a local cluster of at most 2 processes, or the scheduler's)."""
    if config.in_process or (config.workers == 1 and not config.scheduler):
        return Team(config.search, config.workers)
    from .lockstep_dask import DaskTeam
    return DaskTeam(config.search, config.workers, min(config.workers, 2), config.scheduler)


def run(team, options: LockstepConfig, s: ClockedSearch) -> ParallelResult:
    """The registry's entry: one move of a player (:class:`.registry.ClockedSearch`)."""
    return run_lockstep(team, options, s.fen, s.moves, s.nodes, s.depth, s.stopped, s.searchmoves)
