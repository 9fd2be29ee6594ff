"""The workers of Jurčovič's master tree on the node clock (``docs/design/node-clock.md``): what the
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
order in which :class:`Team` runs the workers of one slice changes nothing."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from players.core.context import (C_HISTORY, C_KILLERS, C_PV, C_PV_LEN, C_STATS, C_STOP, S_NODE_LIMIT, S_NODES,
                                  S_SELDEPTH, S_STOPPED)
from players.core.moves import move_to_uci
from players.core.search import INF, MAX_PLY, search_node
from players.core.tt import tt_export_deep, tt_import
from players.position import Position
from players.result import IterationInfo
from players.searcher import Searcher, mate_in_moves

from .options import SearcherConfig
from .result import JobResult

if TYPE_CHECKING:
    from .config import DecompositionConfig

MAX_DEPTH = 63  # the deepest iteration a node-clock search runs
POLL_SECONDS = 0.005  # how often a running search looks at its stop condition (root policies)

MAX_RESTARTS = 4
EXCHANGE_MIN_DEPTH = 1  # quiescence entries (depth 0) are never worth a message


@dataclass(frozen=True)
class Job:
    """Search the leaf after ``path`` to ``depth`` in (alpha, beta).  ``path`` empty: the
    whole root, iterations ``first`` to ``depth`` of the iterative deepening (the first around
    ``guess``), each reported as it is completed.

    The lazy cluster's worker runs one root job a move, and it needs what a master's job does
    not: ``skip`` (the iterations it leaves to others), ``budget`` (its own nodes, where the
    clock has no end), ``export`` (after every slice it searched, its ``size`` entries at least
    ``depth`` deep, deepest first, for the others) and an overrun of one iteration, not the
    whole job (``overrun_whole``).  ``overrun_after``: restarts without progress before the
    job runs past its slice (0: never)."""

    id: int
    path: tuple[str, ...]
    depth: int
    alpha: int = -INF
    beta: int = INF
    first: int = 1
    guess: int = 0
    skip: tuple[int, ...] = ()
    budget: int | None = None
    export: tuple[int, int] | None = None  # (depth, size)
    overrun_after: int = MAX_RESTARTS
    overrun_whole: bool = True


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
class RootIteration:
    """An iteration a root job completed: one message to the master."""

    job: int
    depth: int
    score: int
    pv: tuple[str, ...]
    seldepth: int = 0
    nodes: int = 0  # the job's so far


@dataclass(frozen=True)
class SliceReport:
    """What one worker did in one slice and what it sends the master at its end."""

    worker: int
    nodes: int
    result: JobResult | None = None
    table: tuple[np.ndarray, np.ndarray] | None = None  # its selection, asked by SendTable
    overrun: bool = False  # a job run past the slice (see the module docstring)
    iterations: tuple[RootIteration, ...] = ()  # a root job's, completed in this slice
    exported: tuple[np.ndarray, np.ndarray] | None = None  # the job's ``export`` after the slice
    finished: bool = False  # the job ended in this slice (the worker is idle from the next)


@dataclass(frozen=True)
class RootSearch:
    """One search of a worker's root moves: a fail-soft score in (alpha, beta)."""

    score: int
    move: str  # its best root move ('' when stopped before any was searched)
    pv: tuple[str, ...]
    nodes: int
    stopped: bool  # by its node limit or a stop order: the score means nothing
    alpha: int
    beta: int

    @property
    def exact(self) -> bool:
        return not self.stopped and self.alpha < self.score < self.beta


def mate_confirmed(score: int, depth: int) -> bool:
    """The sequential search's rule: an iteration ``depth`` deep that finds a mate in n moves
    has proven it once ``depth >= 2n + 1``; deeper iterations cannot change it."""
    mate = mate_in_moves(int(score))
    return mate is not None and depth >= 2 * abs(mate) + 1


def completed(depth: int, score: int, nodes: int, start: float, line: tuple[str, ...]) -> IterationInfo:
    """An iteration a parallel search completed, with the nodes searched so far and the time
    since ``start``; parallel jobs report no selective depth, so ``seldepth`` stays unknown."""
    return IterationInfo(depth, None, int(score), mate_in_moves(int(score)), nodes, time.perf_counter() - start,
                         line)


def fresh_root(searcher: Searcher, fen: str, moves: tuple[str, ...],
               searchmoves: Sequence[str] = ()) -> tuple[Position, np.ndarray, int]:
    """A worker's new move: the root, its moves in the searcher's order (only ``searchmoves``
    where given), the killers cleared and the history aged as the sequential search does."""
    root = Position.from_fen(fen, moves)
    searcher.ctx[C_KILLERS][:] = 0
    searcher.ctx[C_HISTORY][:] //= 8
    root_moves, n_root = searcher._root_moves(root, list(searchmoves) or None)
    return root, root_moves, n_root


def start_search(searcher: Searcher, limit: int) -> np.ndarray:
    """Before a search: its counters zeroed, no stop order, at most ``limit`` nodes (0: no
    limit).  The limit goes in after the counters are zeroed, or it is zeroed with them."""
    stats = searcher.ctx[C_STATS]
    stats[:] = 0
    searcher.ctx[C_STOP][0] = 0
    stats[S_NODE_LIMIT] = limit
    return stats


class Worker:
    """One node-clock worker: a plain searcher with a table of its own, kept from job to job
    and move to move.  The master tree's and the splitting masters' workers take one job at a
    time, slice by slice (``run_slice``); the root policies' search their share of the root
    in one call (``search``, ``iterate``)."""

    def __init__(self, index: int, options: SearcherConfig, key: str = "") -> None:
        self.index = index
        self.key = key  # its name where a Dask worker keeps it (lockstep_dask)
        self.searcher = options.build()
        self.job: Job | None = None
        self.root: Position | None = None
        self.root_moves = np.zeros(0, np.int64)
        self.n_root = 0

    def new_game(self) -> None:
        self.searcher.new_game()

    def begin(self, fen: str, moves: tuple[str, ...], searchmoves: Sequence[str] = ()) -> tuple[str, ...]:
        """A new move: its root (only ``searchmoves`` where given; an illegal one raises
        ``ValueError``); returns the root moves in the searcher's order (hash move first)."""
        self.root, self.root_moves, self.n_root = fresh_root(self.searcher, fen, moves, searchmoves)
        self._drop()
        return self.order()

    def restrict(self, moves: Sequence[str]) -> None:
        """Search only ``moves`` (root moves, in this order) from now on."""
        self.root_moves, self.n_root = self.searcher._root_moves(self.root, list(moves))
        codes = {move_to_uci(int(m)): int(m) for m in self.root_moves[:self.n_root]}
        self.root_moves[:self.n_root] = [codes[m] for m in dict.fromkeys(moves)]

    def order(self) -> tuple[str, ...]:
        """Its root moves, best first as far as its searches know."""
        return tuple(move_to_uci(int(m)) for m in self.root_moves[:self.n_root])

    def search(self, depth: int, alpha: int, beta: int, limit: int = 0,
               stopped: Callable[[], bool] | None = None) -> RootSearch:
        """Its root moves to ``depth`` in (alpha, beta), at most ``limit`` nodes (0: no limit),
        stopped early once ``stopped()`` holds.  A new best move goes to the front."""
        s = self.searcher
        stats = start_search(s, limit)
        alpha, beta = max(-INF, alpha), min(INF, max(beta, alpha + 1))
        with _watching(s, stopped):
            score, index = s._search_root(self.root.arrays, self.root_moves, self.n_root, depth, alpha, beta)
        halted = bool(stats[S_STOPPED])
        if index > 0 and score > alpha and not halted:
            self.root_moves[: index + 1] = np.roll(self.root_moves[: index + 1], 1)
        return self._answer(stats, score, index, alpha, beta)

    def iterate(self, depth: int, guess: int, limit: int = 0, stopped: Callable[[], bool] | None = None) -> RootSearch:
        """One iteration of the sequential search over its moves, with the sequential search's
        own aspiration windows (``Searcher.iteration``): the exact score, unless stopped."""
        s = self.searcher
        stats = start_search(s, limit)
        with _watching(s, stopped):
            score, index, alpha, beta = s.iteration(self.root.arrays, self.root_moves, self.n_root, depth, guess)
        return self._answer(stats, score, index, alpha, beta)

    def _answer(self, stats: np.ndarray, score: int, index: int, alpha: int, beta: int) -> RootSearch:
        """A root search's answer: its best move and line, none if it was stopped or searched no move."""
        halted = bool(stats[S_STOPPED])
        line = () if halted or index < 0 else self._line()
        return RootSearch(int(score), line[0] if line else "", line, int(stats[S_NODES]), halted, alpha, beta)

    def _line(self) -> tuple[str, ...]:
        """The best root move's line: the searcher's PV, or the move alone where the PV does not
        start with it."""
        best = move_to_uci(int(self.root_moves[0]))
        line = self.searcher._pv()
        return line if line and line[0] == best else (best,)

    def _drop(self) -> None:
        self.job = None
        self.window = (-INF, INF)
        self.pos: Position | None = None
        self.job_nodes = 0
        self.restarts = 0
        self.debt = 0
        self.pending: tuple[JobResult | None, tuple[RootIteration, ...], bool] = (None, (), False)

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
        job = self.job
        if self.debt:
            paid = min(self.debt, budget)
            self.debt -= paid
            if self.debt:
                return SliceReport(self.index, paid, None, table)
            (result, iterations, done), self.pending = self.pending, (None, (), False)
            return self._report(paid, result, table, iterations, done)
        if job is None:
            return SliceReport(self.index, 0, None, table)
        whole = job.budget is None and 0 < job.overrun_after <= self.restarts
        limit = max(1, budget if job.budget is None else min(budget, job.budget - self.job_nodes))
        if job.path:
            nodes, result, iterations = self._leaf(0 if whole else limit)  # 0: no limit
        else:
            nodes, result, iterations = self._root(0 if whole else limit, whole and not job.overrun_whole)
        self.job_nodes += nodes
        self.restarts = 0 if iterations else self.restarts + 1  # an iteration completed is progress
        done = (result is not None or (not job.path and self.next_depth > job.depth)
                or (job.budget is not None and self.job_nodes >= job.budget))
        if nodes > budget and (done if job.overrun_whole else whole):
            # run past the slice: the rest is owed, the answer waits for it
            self.debt, self.pending = nodes - budget, (result, iterations, done)
            return SliceReport(self.index, budget, None, table, overrun=True)
        return self._report(nodes, result, table, iterations, done)

    def _report(self, nodes: int, result: JobResult | None, table, iterations: tuple[RootIteration, ...],
                done: bool) -> SliceReport:
        """The slice's report once its nodes are paid; a finished job is dropped."""
        export = self.job.export
        exported = tt_export_deep(self.searcher.tt, *export) if export is not None else None
        if done:
            self._drop()
        return SliceReport(self.index, nodes, result, table, iterations=iterations, exported=exported, finished=done)

    def _leaf(self, limit: int) -> tuple[int, JobResult | None, tuple[RootIteration, ...]]:
        """The leaf's search in its window, at most ``limit`` nodes (0: to its end): the
        nodes and, unless stopped, the result."""
        s = self.searcher
        stats = start_search(s, limit)
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
        return nodes, JobResult(job.id, self.index, int(score), line, self.job_nodes + nodes, alpha, beta), ()

    def _root(self, limit: int, once: bool = False) -> tuple[int, None, tuple[RootIteration, ...]]:
        """The root job's iterations from where it stands (the job's ``skip`` left out), at
        most ``limit`` nodes in all (0: to the last; ``once``: one iteration): the nodes and
        the iterations completed; an iteration the limit stops is searched again in the next
        slice."""
        s = self.searcher
        job = self.job
        stats = start_search(s, limit)
        done = []
        if not self.n_root:
            self.next_depth = job.depth + 1  # no move: nothing to search
        while self.next_depth <= job.depth:
            d = self.next_depth
            if d in job.skip:
                self.next_depth += 1
                continue
            score, _, _, _ = s.iteration(self.root.arrays, self.root_moves, self.n_root, d, self.guess)
            if stats[S_STOPPED]:
                break
            done.append(RootIteration(job.id, d, int(score), self._line(), int(stats[S_SELDEPTH]),
                                      self.job_nodes + int(stats[S_NODES])))
            self.next_depth, self.guess = d + 1, int(score)
            if mate_confirmed(score, d):
                self.next_depth = job.depth + 1  # deeper search cannot change it
            if once:
                break
        return int(stats[S_NODES]), None, tuple(done)


class _watching:
    """While a search runs, a thread that raises its stop flag once ``stopped()`` holds (a
    deadline or a UCI stop): the jitted search polls the flag, not Python callables."""

    def __init__(self, searcher: Searcher, stopped: Callable[[], bool] | None) -> None:
        self.searcher, self.stopped = searcher, stopped
        self.done = threading.Event()

    def __enter__(self) -> None:
        if self.stopped is not None:
            threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while not self.done.wait(POLL_SECONDS):
            if self.stopped():
                self.searcher.stop()
                return

    def __exit__(self, *exc) -> None:
        self.done.set()


class Team:
    """The k node-clock workers in this process, run one after another in each slice (those
    in ``order`` if given, in that order: the answers do not depend on it), and the master's
    own searcher, built when a master first asks for it (the root policies and the lazy
    cluster never do): its table and move order, through which the master tree's merged
    selections go (Jurčovič's master stores them as it stores its own entries).
    :class:`.lockstep_dask.DaskTeam` has the same interface, its workers on Dask."""

    def __init__(self, options: SearcherConfig, workers: int) -> None:
        self.options = options
        self.workers = [Worker(w, options) for w in range(workers)]
        self._master: Searcher | None = None
        self.best_moves: dict[int, str] = {}  # position key -> its best move in the master's last tree

    @property
    def master(self) -> Searcher:
        """The master's searcher: it orders moves and keeps a table, and never searches."""
        if self._master is None:
            self._master = Searcher(hash_mb=self.options.hash_mb)
        return self._master

    def begin(self, fen: str, moves: tuple[str, ...], searchmoves: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        """A new move on every worker: their root moves in their order."""
        return [w.begin(fen, moves, searchmoves) for w in self.workers]

    def begin_root(self, algorithm: str, fen: str, moves: tuple[str, ...], nodes: int | None, depth: int | None,
                   searchmoves: tuple[str, ...] = ()) -> tuple[list[tuple[str, ...]], int, int]:
        """A root policy's move (UIDPABS, :mod:`.uidpabs`; Devesa's mixed and exhaustive,
        :mod:`.mixed`) begun on every worker: their root moves in their order, the deepest
        iteration and the node budget per worker (0: none).

        Both policies split the root's moves among workers that then search without talking to
        each other until they answer, so no slices are needed: a worker's search is a
        deterministic function of (position, its table, its share of the root, its window), the
        k workers run one after another, and the parallel time is read off their node counts.
        One call of a worker's ``search`` is the sequential root search over *its* root moves,
        so every move's value, check extension included, is the one the sequential search
        gives it."""
        if nodes is None and depth is None:
            raise ValueError(f"{algorithm} needs a node budget per worker or a depth")
        orders = self.begin(fen, moves, searchmoves)
        if not orders[0]:
            raise ValueError(f"no legal move in {fen} after {' '.join(moves) or 'no moves'}")
        return orders, min(depth or MAX_PLY - 1, MAX_PLY - 1), nodes or 0

    def run_slice(self, delivered: dict[int, list[Message]], budget: int,
                  order: Sequence[int] | None = None) -> list[SliceReport]:
        ran = {w: self.workers[w].run_slice(delivered.get(w, ()), budget)
               for w in (order if order is not None else range(len(self.workers)))}
        return [ran[w] for w in sorted(ran)]

    def new_game(self) -> None:
        for w in self.workers:
            w.new_game()
        if self._master is not None:
            self._master.new_game()
        self.best_moves.clear()

    def close(self) -> None:
        self.workers = []


def team(config: DecompositionConfig) -> Team:
    """The registry's entry for the master families (splitting on the node clock, the master
    tree, the root policies): their workers, always in this process."""
    return Team(config.search, config.workers)
