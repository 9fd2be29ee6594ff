"""Jurčovič's master tree on the node clock (issue 42; ``docs/design/node-clock.md``;
his diploma thesis, Bratislava, 2005): the master's side and the clock.

Per iteration of depth d the master expands the tree to ``master_depth`` plies
(:mod:`.master_tree`: types, bounds, windows), ordering every node's children by the previous
iteration (its PV, each node's best child), then the master's table (the workers' merged
selections), then captures; it dispatches the leaves that matter, minimal tree first, to idle
workers (each leaf preferably to the worker that searched it before: its table holds the
subtree); on every answer it backs the bounds up, aborts the jobs whose subtree was cut off
and sends a running job a new window when its bounds moved.  The iterations shallower than
``sequential_depth`` (the file's ``min_split_depth``; Jurčovič's D_0) are one job on worker 0,
its own iterative deepening, each iteration reported as it completes: a tree of tiny jobs would
spend more slices than it saves.  After that job and after every tree iteration but the last,
each worker sends its ``exchange_size`` deepest entries to the master, which stores them in its
table and sends its own ``exchange_size`` deepest to every worker before the next iteration
starts (Jurčovič's synchronisation phase; without it his speedup fell to 0.81 on 4
processors).  With one worker too: the master orders its tree from that table.  The move and
score are the root's.

**Policies.**  Which leaves get a job, with which window, is the config's ``policy``
(:mod:`.tree_policies`): Jurčovič's (``master_tree``), Fishburn and Finkel's tree splitting
(``tree_split``, with or without ``window_reduction``) or Akl's mandatory work first
(``mandatory_first``).  Everything else here (the iterations, the exchange, the clock, the
aborts) is the same for the three, so their rows differ by the policy alone.

**The clock** (:func:`.node_clock.run_slices`).  The workers (:mod:`.master_worker`) advance
in slices of ``slice`` nodes; the master acts only at slice boundaries.  A message sent at the
end of slice s (a worker's answer) or at the boundary before slice s + 1 (the master's) is
delivered at the start of slice s + ``latency``: with latency 1 a result found in slice s is
acted on, and the worker's next job searched, in slice s + 1.  T_k = the slices until the
master knows the answer × ``slice``; N_k = every worker's nodes; messages: jobs, results (a
root job's: one per iteration), aborts, new windows, and per exchange and worker three table
messages (the master's request, the worker's selection, the master's merged selection).  The k
workers run one after another in this process; the answer is a pure function of (position,
config, the workers' and the master's tables), whatever the cores and whatever order a slice
runs them in.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

import numpy as np

from players.core.movegen import generate_moves
from players.core.moves import MAX_MOVES, ST_HALFMOVE, move_to_uci
from players.core.position import current_key, in_check, insufficient_material, make_move, repetition_count, unmake_move
from players.core.search import MATE
from players.core.tt import tt_export_deep, tt_import
from players.position import Position
from players.result import IterationInfo

from .master_tree import Node, back_up_all, best_children, best_line, dispatch, number, record, sent
from .master_worker import (
    EXCHANGE_MIN_DEPTH,
    MAX_DEPTH,
    Abort,
    Entries,
    Job,
    Message,
    Rewindow,
    RootIteration,
    SendTable,
    SliceReport,
    Team,
    completed,
    mate_confirmed,
)
from .options import MasterTreeConfig
from .node_clock import run_slices
from .registry import ClockedSearch
from .result import Messages, ParallelResult
from .tree_policies import make_policy


class _Master:
    """The master's side of one move: the iterations, the tree, the workers' jobs."""

    def __init__(self, team: Team, config: MasterTreeConfig, fen: str, moves: tuple[str, ...],
                 max_depth: int, searchmoves: tuple[str, ...], messages: Messages, start: float) -> None:
        self.team = team
        self.config = config
        self.k = len(team.workers)
        self.policy = make_policy(config.policy, self.k, config.master_depth, config.window_reduction)
        self.exact = team.options.exact
        self.root = Position.from_fen(fen, moves)
        self.searchmoves = tuple(searchmoves)
        codes, n = team.master._root_moves(self.root, self.searchmoves or None)  # ValueError: an illegal one
        if n == 0:
            raise ValueError(f"no legal move in {self.root.fen()}")
        first = move_to_uci(int(codes[0]))
        self.best: tuple[str, int, int, tuple[str, ...]] = (first, 0, 0, (first,))
        self.max_depth = max_depth
        self.messages = messages
        self.start = start
        self.nodes = 0  # every worker's so far (the driver keeps it)
        self.finished = False
        self.exchanging = False
        self.tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.tree: Node | None = None
        self.depth = 0
        self.jobs: dict[int, Node | None] = {}  # this iteration's job ids -> leaf (None: the root job)
        self.jobs_depth = 0  # the root job's last iteration
        self.running: dict[int, tuple[int, Node | None, tuple[int, int]]] = {}  # worker -> job, leaf, window
        self.home: dict[tuple[str, ...], int] = {}  # leaf path -> the worker that searched it last
        self.ids = itertools.count()
        self.iterations: list[IterationInfo] = []
        self.leaves = 0
        self.moves_buffer = np.zeros(MAX_MOVES, np.int64)
        self.outbox: list[tuple[int, Message]] = []
        self._start(1)

    # --- messages ------------------------------------------------------------------------------------
    def _send(self, worker: int, message: Message) -> None:
        m = self.messages
        if isinstance(message, Job):
            m.jobs += 1
        elif isinstance(message, Abort):
            m.aborts += 1
        elif isinstance(message, Rewindow):
            m.windows += 1
        else:
            m.table += 1
            if isinstance(message, Entries):
                m.entries += int(message.keys.size)
        self.outbox.append((worker, message))

    active = None  # every worker runs every slice

    def sends(self, r: SliceReport) -> bool:
        """A worker's report counted as it leaves: results, root iterations, its table."""
        m = self.messages
        m.results += (r.result is not None) + len(r.iterations)
        if r.table is not None:
            m.table += 1
            m.entries += int(r.table[0].size)
        return r.result is not None or r.table is not None or bool(r.iterations)

    def boundary(self, reports: Sequence[SliceReport], nodes: int) -> list[tuple[int, Message]]:
        """What reached the master at this boundary (``nodes``: every worker's so far), acted
        on: the messages it sends now."""
        self.nodes = nodes
        for r in reports:
            if r.table is not None and self.exchanging:
                self.tables[r.worker] = r.table
            for it in r.iterations:
                self._root_iteration(r.worker, it)
            if r.result is not None:
                self._result(r)
        if self.tree is not None and not self.finished:
            if self.tree.settled:
                self._record(self.tree.lo, best_line(self.tree))
                self._end_iteration()
            else:
                self._replan()
        if self.exchanging and len(self.tables) == self.k:
            self._merge()
        out, self.outbox = self.outbox, []
        return out

    def _result(self, r: SliceReport) -> None:
        res = r.result
        if self.running.get(res.worker, (None,))[0] == res.job:
            del self.running[res.worker]
        if res.job in self.jobs and self.tree is not None:
            # an aborted or re-windowed job's answer is still a sound bound: used too
            record(self.jobs[res.job], res.alpha, res.beta, res.score, res.pv)
        # else: an earlier iteration's, finished before its abort arrived

    def _root_iteration(self, worker: int, it: RootIteration) -> None:
        """An iteration of the root job (the shallow iterations, one job on worker 0)."""
        if it.job not in self.jobs or self.finished:
            return
        job_depth = self.jobs_depth
        if it.depth >= job_depth and self.running.get(worker, (None,))[0] == it.job:
            del self.running[worker]  # its last iteration: the job is over
        self.depth = it.depth
        self._record(it.score, it.pv)
        if self.finished or it.depth >= job_depth:
            self._end_iteration()

    # --- iterations ----------------------------------------------------------------------------------
    def _start(self, depth: int) -> None:
        self.depth = depth
        self.jobs = {}
        shallow = max(self.config.sequential_depth, self.config.master_depth + 1)
        if depth < shallow:  # Jurčovič's step 1: the iterations up to D_0 searched by one worker
            last = min(self.max_depth, shallow - 1)
            job = Job(next(self.ids), (), last, first=depth, guess=self.best[1] if self.best[2] else 0)
            self.jobs[job.id] = None
            self.jobs_depth = last
            self.running[0] = (job.id, None, (job.alpha, job.beta))
            self._send(0, job)
            return
        self.tree = self._build(depth)
        if self.tree.settled:  # every root move's value known without a job (mates, draws)
            self._record(self.tree.lo, best_line(self.tree))
            self._end_iteration()
        else:
            self._replan()

    def _record(self, score: int, line: tuple[str, ...]) -> None:
        """Iteration ``self.depth`` is complete: its answer is the move's now."""
        d = self.depth
        if not line:
            line = (self.best[0],)
        self.best = (line[0], int(score), d, line)
        self.iterations.append(completed(d, score, self.nodes, self.start, line))
        if d >= self.max_depth or mate_confirmed(score, d):
            self.finished = True

    def _end_iteration(self) -> None:
        """The jobs still running are useless now; then the exchange, or the next iteration."""
        for w in sorted(self.running):
            self._send(w, Abort(self.running[w][0]))
        self.running.clear()
        if self.tree is not None:
            self.team.best_moves.update(best_children(self.tree))
        self.tree = None
        self.jobs = {}
        if self.finished:
            return
        if self.config.exchange_size > 0:
            self.exchanging = True
            self.tables = {}
            for w in range(self.k):
                self._send(w, SendTable(self.config.exchange_size))
        else:
            self._start(self.depth + 1)

    def _merge(self) -> None:
        """Jurčovič's synchronisation phase: the selections into the master's table, its own
        deepest entries to every worker, then the next iteration."""
        tt = self.team.master.tt
        for w in range(self.k):
            keys, data = self.tables[w]
            if keys.size:
                tt_import(tt, keys, data)
        keys, data = tt_export_deep(tt, EXCHANGE_MIN_DEPTH, self.config.exchange_size)
        for w in range(self.k):
            self._send(w, Entries(keys, data))
        self.exchanging = False
        self.tables = {}
        self._start(self.depth + 1)

    # --- the tree ------------------------------------------------------------------------------------
    def _build(self, depth: int) -> Node:
        arrays = self.root.arrays
        root = Node("", depth, key=int(current_key(arrays)))
        self._expand(root, arrays, self.config.master_depth, self.best[3])
        number(root)
        back_up_all(root)
        return root

    def _expand(self, node: Node, arrays: tuple, plies: int, line: tuple[str, ...]) -> None:
        for code in self._ordered(node, line):
            uci = move_to_uci(code)
            make_move(arrays, code)
            checks = bool(in_check(arrays))
            value = self._terminal(arrays, node.ply + 1, checks) if plies > 1 else None
            child = node.add(uci, node.depth - 1 + (1 if checks else 0), int(current_key(arrays)), value)
            if plies > 1 and value is None:
                self._expand(child, arrays, plies - 1, line[1:] if line and line[0] == uci else ())
            unmake_move(arrays)

    def _ordered(self, node: Node, line: tuple[str, ...]) -> list[int]:
        """The children's order: the previous PV's move, else the node's best child last
        iteration, else the master table's move, then the engine's ordering (captures first)."""
        codes, n = self.team.master._root_moves(self.root, (self.searchmoves or None) if node.ply == 0 else None)
        codes = [int(c) for c in codes[:n]]
        first = line[0] if line else self.team.best_moves.get(node.key)
        for i, c in enumerate(codes):
            if move_to_uci(c) == first:
                codes.insert(0, codes.pop(i))
                break
        return codes

    def _terminal(self, arrays: tuple, ply: int, checks: bool) -> int | None:
        """An interior node's value when the sequential search knows it without searching: a
        draw (dead material; by the fifty-move rule or a repetition outside the exact mode),
        mate or stalemate (in the search's order)."""
        if insufficient_material(arrays[0]) or (not self.exact and (arrays[2][ST_HALFMOVE] >= 100
                                                                    or repetition_count(arrays) > 0)):
            return 0
        if generate_moves(arrays, self.moves_buffer, False) == 0:
            return -MATE + ply if checks else 0
        return None

    def _replan(self) -> None:
        """Aborts for the jobs whose leaf no longer matters, new windows for the ones whose
        window moved, and jobs for the idle workers in the policy's order (``dispatch``)."""
        wants = self.policy.plan(self.tree, self.best[1], self.config.margin)
        orders = dispatch(wants, {w: (leaf, window) for w, (_, leaf, window) in self.running.items()}, self.k,
                          self.home)
        for w in orders.aborts:
            self._send(w, Abort(self.running.pop(w)[0]))
        for w, want in orders.windows:
            job = self.running[w][0]
            self._send(w, Rewindow(job, want.alpha, want.beta))
            sent(want)
            self.running[w] = (job, want.leaf, (want.alpha, want.beta))
        for w, want in orders.jobs:
            path = want.leaf.path()
            job = Job(next(self.ids), path, want.leaf.depth, want.alpha, want.beta)
            self.jobs[job.id] = want.leaf
            self.running[w] = (job.id, want.leaf, (want.alpha, want.beta))
            self.home[path] = w
            self.leaves += 1
            sent(want)
            self._send(w, job)
        if not self.running:
            raise RuntimeError(f"master tree: nothing to search at depth {self.depth}, root not settled "
                               f"({self.tree.lo}, {self.tree.hi})")


def run_master_tree(team: Team, config: MasterTreeConfig, fen: str, moves: tuple[str, ...] = (),
                    nodes: int | None = None, depth: int | None = None, searchmoves: tuple[str, ...] = (),
                    stopped: Callable[[], bool] = lambda: False,
                    order: Sequence[int] | None = None) -> ParallelResult:
    """One move: iterations until ``depth`` or until the clock reaches ``nodes`` (per worker:
    k × that in all, at most), the last completed iteration answering.  ``stopped()`` (a
    deadline) ends it at a slice boundary; ``order`` is the order the workers run in within a
    slice (tests: it changes nothing)."""
    if nodes is None and depth is None:
        raise ValueError("a master tree needs a node budget per worker or a depth")
    start = time.perf_counter()
    messages = Messages()
    master = _Master(team, config, fen, moves, min(depth or MAX_DEPTH, MAX_DEPTH), searchmoves, messages, start)
    team.begin(fen, moves, searchmoves)
    t, worker_nodes, overruns = run_slices(team, master, len(team.workers), config.slice, config.latency, nodes,
                                           stopped, order)
    move, score, done, line = master.best
    return ParallelResult(config.policy, move, score, done, line, sum(worker_nodes), tuple(worker_nodes), messages,
                          tuple(master.iterations), time.perf_counter() - start, slices=t, slice_nodes=config.slice,
                          overruns=overruns, leaves=master.leaves)


def run(team: Team, options: MasterTreeConfig, s: ClockedSearch) -> ParallelResult:
    """The registry's entry: one move of a player (:class:`.registry.ClockedSearch`)."""
    return run_master_tree(team, options, s.fen, s.moves, s.nodes, s.depth, s.searchmoves, s.stopped)
