"""The workers of Jurčovič's master tree on the node clock (``docs/node-clock.md``): what the
master sends them, what they answer, and one worker's slice.

A worker holds one job at a time, a leaf of the master's tree (or, in the iterations too
shallow for a tree, the whole root), and a table of its own that it keeps from job to job,
iteration to iteration and move to move (no shared memory).  In a slice it searches at most
``slice`` nodes: a job stopped by the slice's end is searched again from its start in the
next slice, with the table kept (the table holds the progress), as the lazy cluster's
iterations are.  A job that was restarted ``MAX_RESTARTS`` times without finishing (a subtree
no slice holds, say a quiescence search that stores nothing) is run to its end at once and
its nodes are charged to the slices that follow as a debt: the worker does nothing else
until it is paid, so the clock still counts every node (an *overrun*: its table then holds a
little more than the clock allowed, if an abort comes meanwhile).

Messages from the master arrive at the start of a slice, in the order they were sent; a
worker's answer (a job's result, its table selection) leaves at the end of the slice.  A
slice is a deterministic function of (the worker's state, what it was delivered), so the
order in which :class:`InProcessTeam` runs the workers of one slice changes nothing."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from players.core.context import C_HISTORY, C_KILLERS, C_PV, C_PV_LEN, C_STATS, C_STOP, S_NODE_LIMIT, S_NODES, S_STOPPED
from players.core.moves import move_to_uci
from players.core.search import INF, search_node
from players.core.tt import tt_export_deep, tt_import
from players.position import Position
from players.searcher import Searcher, mate_in_moves

from .options import SearcherConfig

MAX_RESTARTS = 4
EXCHANGE_MIN_DEPTH = 1  # quiescence entries (depth 0) are never worth a message


@dataclass(frozen=True)
class Job:
    """Search the leaf after ``path`` to ``depth`` in (alpha, beta).  ``path`` empty: the
    whole root, iterations ``first`` to ``depth`` of the iterative deepening (the first around
    ``guess``), each reported as it is completed."""

    id: int
    path: tuple[str, ...]
    depth: int
    alpha: int = -INF
    beta: int = INF
    first: int = 1
    guess: int = 0


@dataclass(frozen=True)
class Rewindow:
    """The master's bounds moved: search the running job in this window from now on."""

    job: int
    alpha: int
    beta: int


@dataclass(frozen=True)
class Abort:
    """The job's subtree was cut off (or the iteration is over): drop it."""

    job: int


@dataclass(frozen=True)
class SendTable:
    """The iteration is over: send the master your ``size`` deepest entries."""

    size: int


@dataclass(frozen=True)
class Entries:
    """The master's merged selection, to store in the worker's table."""

    keys: np.ndarray
    data: np.ndarray


Message = Job | Rewindow | Abort | SendTable | Entries


@dataclass(frozen=True)
class JobResult:
    """A finished job: its fail-soft score in the window it was last searched with."""

    job: int
    worker: int
    score: int
    alpha: int
    beta: int
    pv: tuple[str, ...]  # a leaf's line from the leaf; the root's from the root
    nodes: int  # over all its slices


@dataclass(frozen=True)
class RootIteration:
    """An iteration a root job completed: one message to the master."""

    job: int
    depth: int
    score: int
    pv: tuple[str, ...]


class SlicedRun:
    """A search run on the node clock (the result of a lockstep, master-tree or splitting
    run): its parallel time is its slices."""

    slices: int
    slice_nodes: int

    @property
    def parallel_nodes(self) -> int:
        """T_k in nodes: slices × the slice's nodes."""
        return self.slices * self.slice_nodes


@dataclass(frozen=True)
class SliceReport:
    """What one worker did in one slice and what it sends the master at its end."""

    worker: int
    nodes: int
    result: JobResult | None = None
    table: tuple[np.ndarray, np.ndarray] | None = None  # its selection, asked by SendTable
    overrun: bool = False  # a job run past the slice (see the module docstring)
    iterations: tuple[RootIteration, ...] = ()  # a root job's, completed in this slice


class TreeWorker:
    """One worker: a plain searcher with a table of its own, one job at a time."""

    def __init__(self, index: int, options: SearcherConfig) -> None:
        from evaluation.spec import EvalSpec
        self.index = index
        self.searcher = Searcher(EvalSpec.parse(options.mask, options.weights), options.hash_mb,
                                 null_move=options.null_move, lmr=options.lmr, futility=options.futility,
                                 exact=options.exact)
        self.job: Job | None = None
        self.root: Position | None = None

    def new_game(self) -> None:
        self.searcher.new_game()

    def begin(self, fen: str, moves: tuple[str, ...], searchmoves: tuple[str, ...] = ()) -> None:
        """A new move: its root (and the root moves a root job may search)."""
        s = self.searcher
        self.root = Position.from_fen(fen, moves)
        s.ctx[C_KILLERS][:] = 0
        s.ctx[C_HISTORY][:] //= 8
        self.root_moves, self.n_root = s._root_moves(self.root, searchmoves or None)
        self._drop()

    def _drop(self) -> None:
        self.job = None
        self.window = (-INF, INF)
        self.pos: Position | None = None
        self.job_nodes = 0
        self.restarts = 0
        self.debt = 0
        self.pending: tuple[JobResult | None, tuple[RootIteration, ...]] = (None, ())

    def _take(self, job: Job) -> None:
        self._drop()
        self.job = job
        self.window = (job.alpha, job.beta)
        if job.path:
            self.pos = self.root.copy()
            self.pos.push_ucis(job.path)
        else:
            self.next_depth, self.guess = job.first, job.guess

    def run_slice(self, delivered: Sequence[Message], budget: int) -> SliceReport:
        """Take the messages in the order sent, then search the job for at most ``budget`` nodes."""
        table = None
        for m in delivered:
            if isinstance(m, Entries):
                if m.keys.size:
                    tt_import(self.searcher.tt, m.keys, m.data)
            elif isinstance(m, SendTable):
                table = tt_export_deep(self.searcher.tt, EXCHANGE_MIN_DEPTH, m.size)
            elif isinstance(m, Abort):
                if self.job is not None and self.job.id == m.job:
                    self._drop()
            elif isinstance(m, Rewindow):
                if self.job is not None and self.job.id == m.job and self.debt == 0:
                    self.window = (m.alpha, m.beta)
                    self.restarts = 0
            else:
                self._take(m)
        if self.debt:
            paid = min(self.debt, budget)
            self.debt -= paid
            if self.debt:
                return SliceReport(self.index, paid, None, table)
            result, iterations = self.pending
            self._drop()
            return SliceReport(self.index, paid, result, table, iterations=iterations)
        if self.job is None:
            return SliceReport(self.index, 0, None, table)
        whole = self.restarts >= MAX_RESTARTS
        if self.job.path:
            nodes, result, iterations = self._leaf(0 if whole else budget)  # 0: no limit
        else:
            nodes, result, iterations = self._root(0 if whole else budget)
        self.job_nodes += nodes
        done = result is not None or (not self.job.path and self.next_depth > self.job.depth)
        if not done:
            self.restarts = 0 if iterations else self.restarts + 1  # an iteration completed is progress
            return SliceReport(self.index, nodes, None, table, iterations=iterations)
        if nodes > budget:  # run to its end past the slice: the rest is owed, the answer waits
            self.debt, self.pending = nodes - budget, (result, iterations)
            return SliceReport(self.index, budget, None, table, overrun=True)
        self._drop()
        return SliceReport(self.index, nodes, result, table, iterations=iterations)

    def _start_search(self, limit: int):
        stats = self.searcher.ctx[C_STATS]
        stats[:] = 0
        self.searcher.ctx[C_STOP][0] = 0
        stats[S_NODE_LIMIT] = limit
        return stats

    def _leaf(self, limit: int) -> tuple[int, JobResult | None, tuple[RootIteration, ...]]:
        """The leaf's search in its window, at most ``limit`` nodes (0: to its end): the
        nodes and, unless stopped, the result."""
        s = self.searcher
        stats = self._start_search(limit)
        job = self.job
        ply = len(job.path)
        alpha, beta = self.window
        score = search_node(self.pos.arrays, s.tt, s.ctx, job.depth, ply, alpha, beta)
        nodes = int(stats[S_NODES])
        if stats[S_STOPPED]:
            return nodes, None, ()
        pv = s.ctx[C_PV]
        n = int(s.ctx[C_PV_LEN][ply])
        line = tuple(move_to_uci(int(pv[ply, j])) for j in range(ply, n) if pv[ply, j] != 0)
        return nodes, JobResult(job.id, self.index, int(score), alpha, beta, line, self.job_nodes + nodes), ()

    def _root(self, limit: int) -> tuple[int, None, tuple[RootIteration, ...]]:
        """The root job's iterations from where it stands, at most ``limit`` nodes in all (0:
        to the last): the nodes and the iterations completed; an iteration the limit stops is
        searched again in the next slice."""
        s = self.searcher
        stats = self._start_search(limit)
        done = []
        while self.next_depth <= self.job.depth:
            d = self.next_depth
            score, _, _, _ = s.iteration(self.root.arrays, self.root_moves, self.n_root, d, self.guess)
            if stats[S_STOPPED]:
                break
            best = move_to_uci(int(self.root_moves[0]))
            line = s._pv()
            if not line or line[0] != best:
                line = (best,)
            done.append(RootIteration(self.job.id, d, int(score), line))
            self.next_depth, self.guess = d + 1, int(score)
            mate = mate_in_moves(int(score))
            if mate is not None and d >= 2 * abs(mate) + 1:
                self.next_depth = self.job.depth + 1  # a confirmed mate: deeper search cannot change it
        return int(stats[S_NODES]), None, tuple(done)


class InProcessTeam:
    """The k workers in this process, run one after another in each slice (in ``order`` if
    given: the answers do not depend on it), and the master's own table: the merged
    selections go through it (Jurčovič's master stores them as it stores its own entries)."""

    def __init__(self, options: SearcherConfig, workers: int) -> None:
        self.options = options
        self.workers = [TreeWorker(w, options) for w in range(workers)]
        self.master = Searcher(hash_mb=options.hash_mb)  # its table and move ordering; it never searches
        self.best_moves: dict[int, str] = {}  # position key -> its best move in the master's last tree

    def begin(self, fen: str, moves: tuple[str, ...], searchmoves: tuple[str, ...] = ()) -> None:
        for w in self.workers:
            w.begin(fen, moves, searchmoves)

    def run_slice(self, delivered: dict[int, list[Message]], budget: int,
                  order: Sequence[int] | None = None) -> list[SliceReport]:
        ran = {w: self.workers[w].run_slice(delivered.get(w, ()), budget)
               for w in (order if order is not None else range(len(self.workers)))}
        return [ran[w] for w in sorted(ran)]

    def new_game(self) -> None:
        for w in self.workers:
            w.new_game()
        self.master.new_game()
        self.best_moves.clear()

    def close(self) -> None:
        self.workers = []
