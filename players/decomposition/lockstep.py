"""The lazy cluster in lockstep mode (issue 42; ``docs/node-clock.md``).

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
not depend on how many cores run the workers nor on where they run.  :class:`InProcess` runs
the k workers one after the other in this process (the reference, and what tests use);
:mod:`players.decomposition.lockstep_dask` runs the same workers on Dask workers, one slice
a task.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from base.runner import Resident
from players.core.context import S_NODES, S_SELDEPTH, S_STOPPED
from players.core.moves import move_to_uci
from players.core.search import MATE_BOUND
from players.core.tt import tt_export_deep, tt_import
from players.result import IterationInfo
from players.searcher import mate_in_moves
from .options import LockstepConfig, SearcherConfig
from .result import SlicedRun
from .master_worker import MAX_DEPTH, fresh_root, mate_confirmed, start_search

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
EMPTY = (np.zeros(0, np.uint64), np.zeros(0, np.int64))


@dataclass(frozen=True)
class SliceReport:
    """What one worker did in one slice."""

    worker: int
    nodes: int  # searched in this slice
    done: bool  # its budget spent, its depth reached or a mate confirmed
    depth: int  # its last completed iteration (0: none yet)
    move: str
    score: int
    pv: tuple[str, ...]
    sent: tuple[np.ndarray, np.ndarray]  # the entries it sends the others
    iterations: tuple[IterationInfo, ...] = ()  # iterations completed in this slice


class LockstepWorker:
    """One lazy-cluster worker: a searcher with its own table, searching slice by slice."""

    def __init__(self, index: int, options: SearcherConfig, key: str = "") -> None:
        self.index = index
        self.key = key  # its name on a Dask worker (lockstep_dask)
        self.searcher = options.engine_searcher()
        self.done = True

    def new_game(self) -> None:
        self.searcher.new_game()

    def begin(self, fen: str, moves: tuple[str, ...], max_depth: int | None, nodes: int | None,
              searchmoves: tuple[str, ...] = ()) -> None:
        """A new move: the root (only ``searchmoves`` where given), the deepest iteration and
        this worker's node budget."""
        self.pos, self.root_moves, self.n_root = fresh_root(self.searcher, fen, moves, searchmoves)
        self.max_depth = min(max_depth or MAX_DEPTH, MAX_DEPTH)
        self.budget = nodes
        self.used = 0
        self.depth = 1  # the iteration to search next
        self.completed = 0
        first = move_to_uci(int(self.root_moves[0])) if self.n_root else "0000"
        self.move, self.score, self.pv = first, 0, (first,)
        self.done = self.n_root == 0
        self.restarts = self.debt = 0
        self.pending: tuple[IterationInfo, ...] = ()

    def receive(self, entries: tuple[np.ndarray, np.ndarray]) -> None:
        if entries[0].size:
            tt_import(self.searcher.tt, entries[0], entries[1])

    def run_slice(self, delivered: tuple[np.ndarray, np.ndarray], slice_nodes: int, exchange_depth: int,
                  exchange_size: int, overrun_after: int = 0) -> SliceReport:
        """Store what was delivered, search up to ``slice_nodes`` nodes, and say what to send."""
        self.receive(delivered)
        if self.debt:
            paid = min(self.debt, slice_nodes)
            self.debt -= paid
            if self.debt:
                return SliceReport(self.index, paid, False, 0, self.move, self.score, self.pv, EMPTY)
            iterations, self.pending = self.pending, ()
            sent = tt_export_deep(self.searcher.tt, exchange_depth, exchange_size) if exchange_size > 0 else EMPTY
            return self._report(paid, sent, iterations)
        if self.done:
            return self._report(0, EMPTY, ())
        s = self.searcher
        limit = slice_nodes if self.budget is None else min(slice_nodes, self.budget - self.used)
        overrun = self.budget is None and 0 < overrun_after <= self.restarts
        stats = start_search(s, 0 if overrun else max(1, limit))  # 0: no limit
        arrays = self.pos.arrays
        root_moves, n_root = self.root_moves, self.n_root
        iterations = []
        while self.depth <= self.max_depth:
            depth = self.depth
            if skips(self.index, depth, self.max_depth):
                self.depth += 1
                continue
            score, _, _, _ = s.iteration(arrays, root_moves, n_root, depth, self.score)
            if stats[S_STOPPED]:
                break  # the slice is over: this iteration is searched again in the next one
            self.completed = depth
            self.depth = depth + 1
            self.move, self.score, self.pv = move_to_uci(int(root_moves[0])), int(score), s._pv()
            if not self.pv or self.pv[0] != self.move:
                self.pv = (self.move,)
            iterations.append(IterationInfo(depth, int(stats[S_SELDEPTH]), self.score, mate_in_moves(self.score),
                                            self.used + int(stats[S_NODES]), 0.0, self.pv))
            if mate_confirmed(self.score, depth):
                self.depth = self.max_depth + 1  # deeper search cannot change it
            if overrun:
                break  # one iteration past the slice, no more
        nodes = int(stats[S_NODES])
        self.used += nodes
        self.restarts = 0 if iterations else self.restarts + 1
        if self.depth > self.max_depth or (self.budget is not None and self.used >= self.budget):
            self.done = True
        if overrun and nodes > slice_nodes:  # an overrun: the rest is owed, the iteration's answer waits for it
            self.debt, self.pending = nodes - slice_nodes, tuple(iterations)
            return SliceReport(self.index, slice_nodes, False, 0, self.move, self.score, self.pv, EMPTY)
        sent = tt_export_deep(s.tt, exchange_depth, exchange_size) if exchange_size > 0 else EMPTY
        return self._report(nodes, sent, tuple(iterations))

    def _report(self, nodes: int, sent, iterations) -> SliceReport:
        return SliceReport(self.index, nodes, self.done, self.completed, self.move, self.score, self.pv, sent,
                           iterations)


class InProcess:
    """The k workers in this process, run one after the other: the reference."""

    def __init__(self, options: SearcherConfig, workers: int) -> None:
        self.workers = [LockstepWorker(w, options) for w in range(workers)]

    def begin(self, fen: str, moves: tuple[str, ...], depth: int | None, nodes: int | None,
              searchmoves: tuple[str, ...] = ()) -> None:
        for w in self.workers:
            w.begin(fen, moves, depth, nodes, searchmoves)

    def run_slice(self, active: list[int], delivered: dict[int, tuple], config: LockstepConfig) -> list[SliceReport]:
        return [self.workers[w].run_slice(delivered.get(w, EMPTY), config.slice, config.exchange_depth,
                                          config.exchange_size, config.overrun_after) for w in active]

    def new_game(self) -> None:
        for w in self.workers:
            w.new_game()

    def close(self) -> None:
        self.workers = []


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


@dataclass
class LockstepResult(SlicedRun):
    """The answer and the node clock's metrics of one move (nodes for seconds)."""

    move: str
    score: int
    depth: int
    pv: tuple[str, ...]
    worker: int  # whose line answers
    slices: int  # T_n in slices: slices until every worker was done
    nodes: int  # all workers' nodes
    worker_nodes: tuple[int, ...]
    messages: int  # one per (sender, receiver) per slice
    entries_sent: int  # entries in those messages
    answers: tuple[WorkerAnswer, ...]
    iterations: tuple[IterationInfo, ...] = ()  # the answering worker's
    seconds: float = 0.0
    slice_nodes: int = 0
    votes: dict = field(default_factory=dict)


    def metrics(self) -> str:
        return (f"lockstep: {self.slices} slices of {self.slice_nodes} nodes (T_n {self.parallel_nodes} nodes), "
                f"{self.nodes} nodes ({'/'.join(map(str, self.worker_nodes))}), {self.messages} messages, "
                f"{self.entries_sent} entries sent; depths {'/'.join(str(a.depth) for a in self.answers)}, "
                f"worker {self.worker} answers {self.move} ({self.score})")


def run_lockstep(transport, config: LockstepConfig, fen: str, moves: tuple[str, ...] = (), nodes: int | None = None,
                 depth: int | None = None, stopped=lambda: False,
                 searchmoves: tuple[str, ...] = ()) -> LockstepResult:
    """One move of the lazy cluster: slices until every worker is done (``nodes`` per worker,
    or ``depth``), the messages of slice s stored at the start of slice s + latency, then the
    vote.  ``stopped()`` (a deadline) ends it at a slice boundary; ``searchmoves`` restricts
    every worker's root (UCI ``go searchmoves``; an illegal one raises ``ValueError``)."""
    if nodes is None and depth is None:
        raise ValueError("a lazy cluster needs a node budget per worker or a depth")
    start = time.perf_counter()
    k = config.workers
    transport.begin(fen, moves, depth, nodes, searchmoves)
    inbox: dict[int, dict[int, list]] = {}
    last: dict[int, SliceReport] = {}
    iterations: dict[int, list] = {w: [] for w in range(k)}
    worker_nodes = [0] * k
    active = list(range(k))
    messages = entries = 0
    s = 0
    while active:
        due = inbox.pop(s, {})
        delivered = {w: (np.concatenate([p[0] for p in due[w]]), np.concatenate([p[1] for p in due[w]]))
                     for w in active if due.get(w)}
        reports = transport.run_slice(active, delivered, config)
        for r in reports:
            last[r.worker] = r
            worker_nodes[r.worker] += r.nodes
            iterations[r.worker].extend(r.iterations)
        s += 1
        active = [r.worker for r in reports if not r.done]
        for r in reports:  # in worker order: every receiver stores the senders' entries in one order
            if r.sent[0].size:
                for w in range(k):
                    if w != r.worker:
                        inbox.setdefault(s - 1 + config.latency, {}).setdefault(w, []).append(r.sent)
                        messages += 1
                        entries += int(r.sent[0].size)
        if stopped():
            break
    answers = tuple(WorkerAnswer(w, last[w].move, last[w].score, last[w].depth, last[w].pv) for w in range(k))
    best = vote(list(answers))
    low = min(a.score for a in answers)
    votes: dict[str, int] = {}
    for a in answers:
        if a.depth > 0:
            votes[a.move] = votes.get(a.move, 0) + a.score - low + 14
    return LockstepResult(best.move, best.score, best.depth, best.pv, best.worker, s, sum(worker_nodes),
                          tuple(worker_nodes), messages, entries, answers, tuple(iterations[best.worker]),
                          time.perf_counter() - start, config.slice, votes)


# The worker side over Dask: one long-lived LockstepWorker per (player, search worker) in the
# worker process, resident in the state of the player's runner; each slice is a job sent to the
# runner's slot on that process (see lockstep_dask).
_WORKERS: Resident = Resident("decomposition.lockstep")


def remote_begin(key: str, index: int, options: SearcherConfig, fen: str, moves: tuple[str, ...],
                 depth: int | None, nodes: int | None, searchmoves: tuple[str, ...] = ()) -> None:
    _WORKERS.get_or_create(key, lambda: LockstepWorker(index, options, key)).begin(fen, moves, depth, nodes,
                                                                                     searchmoves)


def remote_slice(key: str, delivered, slice_nodes: int, exchange_depth: int, exchange_size: int) -> SliceReport:
    worker = _WORKERS.get(key)
    if worker is None:
        raise RuntimeError(f"lazy-cluster worker {key} is not on this Dask worker (restarted?)")
    return worker.run_slice(delivered, slice_nodes, exchange_depth, exchange_size)


def remote_new_game(prefix: str) -> None:
    """A new game for this process's workers of one player: tables, history and killers
    cleared, as :meth:`InProcess.new_game` does (the workers themselves are kept)."""
    for worker in _WORKERS:
        if worker.key.startswith(prefix):
            worker.new_game()

