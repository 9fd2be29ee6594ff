"""What a parallel search answers with: one ``ParallelResult`` for every algorithm on either
clock (the move, what it cost, and the metrics its algorithm has: on the node clock a
``NodeClock`` of nodes for seconds, the node-clock masters' ``Messages``, the fresh cluster's
``exchange`` and ``real_time``), and one ``JobResult`` for a worker's finished job.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from players.core.search import INF
from players.result import IterationInfo


@dataclass(frozen=True)
class JobResult:
    """A worker's finished job, on either clock: its fail-soft score (from the job node's side
    to move) in the window it was last searched with (on the wall clock: the one it was given),
    and its line from the job's node."""

    job: int | str  # the master's id (node clock: a number; wall clock: the Dask key)
    worker: int | str  # its index (node clock) or address (wall clock)
    score: int
    pv: tuple[str, ...]
    nodes: int  # over all its slices
    alpha: int = -INF
    beta: int = INF
    seconds: float = 0.0  # the wall clock's
    stopped: bool = False  # a window's search stopped at its node limit or by a stop order


@dataclass
class Tally:
    """What a parallel search cost: the thesis's counters."""

    nodes: int = 0
    jobs: int = 0
    busy: float = 0.0  # seconds workers spent searching
    cancelled: int = 0

    def add(self, r: JobResult) -> None:
        self.nodes += r.nodes
        self.jobs += 1
        self.busy += r.seconds


@dataclass
class NodeClock:
    """A parallel search measured in nodes, what a speedup row sums: ``time`` = T_k (the nodes
    until the answer), ``nodes`` = what all workers searched until they were stopped.  Parallel
    aspiration keeps one as it goes (its ``iterations``); every node-clock result gives one
    (``ParallelResult.clock``)."""

    workers: int
    time: int = 0
    nodes: int = 0
    messages: int = 0
    overruns: int = 0  # workers that searched past T because T was not known yet
    fallbacks: int = 0  # iterations no window answered (search instability): one full-window search
    iterations: list[tuple[int, tuple[int, ...], int]] = field(default_factory=list)  # (depth, nodes, decider)


@dataclass
class Messages:
    """Messages a node-clock master sent and received during one move, by kind (entries: the
    table entries they carried); a kind an algorithm never sends stays 0."""

    jobs: int = 0
    results: int = 0
    aborts: int = 0
    windows: int = 0
    table: int = 0
    entries: int = 0

    @property
    def total(self) -> int:
        return self.jobs + self.results + self.aborts + self.windows + self.table


@dataclass(frozen=True)
class ExchangeCounts:
    """What the fresh cluster's exchange did during one move."""

    rounds: int  # checkpoints held (in real time: exchanges, outboxes taken over all workers)
    originated: int  # entries taken from outboxes
    fresh: int  # of those, the ones stored during this move
    bytes: int  # a key and a packed entry per entry sent
    thresholds: tuple[int, ...]  # each worker's send threshold at the end of the move

    @property
    def fresh_share(self) -> float:
        """The share of sent entries stored during this move (1.0 when none was sent)."""
        return self.fresh / self.originated if self.originated else 1.0


@dataclass(frozen=True)
class RealTime:
    """What a move in real time cost on the wire and in the workers (the real-time fresh cluster)."""

    delay_ms: float
    round_trip_ms: float  # median of an exchange job's time less its wait and its take: the channel out and back
    latency_ms: float  # mean, over messages delivered, from the sender's take to the receiver's store
    min_latency_ms: float  # the least of those (>= delay_ms)
    delivered: int  # entries handed to receivers' tt_import
    pauses: int  # pauses of the searches to take their outboxes
    paused_ms: float  # the searches' time spent paused, in all
    take_ms: float  # mean time a take took (pause asked for, reached, outbox copied, released)
    worker_seconds: tuple[float, ...]
    lost: tuple[int, ...]  # workers that left the vote (lost, or failed)


@dataclass(frozen=True)
class ParallelResult:
    """One move of any parallel search, on either clock: the answer, what it cost and the
    metrics its algorithm has (one it does not have is None).  On the wall clock: the master's
    ``tally`` and the runner's messages (parallel aspiration on a runner without a client also
    ``measured`` its node clock as it went).  On the node clock the clock is sliced (splitting,
    the master tree and its policies, the lazy and fresh clusters: ``slices`` of
    ``slice_nodes``) or read off the workers' node counts (the root policies: ``time``)."""

    algorithm: str  # the master tree's: its policy
    move: str
    score: int
    depth: int
    pv: tuple[str, ...]
    nodes: int  # all workers' nodes
    worker_nodes: tuple[int, ...]  # () on the wall clock
    messages: Messages | int  # the lazy cluster's: its exchange; the root policies': jobs and answers
    iterations: tuple[IterationInfo, ...]  # the lazy cluster's and the root policies': the answering worker's
    seconds: float
    tally: Tally | None = None  # the wall clock's: jobs, their nodes and busy seconds, cancellations
    measured: NodeClock | None = None  # parallel aspiration's node clock, kept as it went
    slices: int | None = None  # until the master knew the answer (the lazy cluster: every worker was done)
    slice_nodes: int | None = None
    time: int | None = None  # T_k in nodes, where there are no slices
    worker: int | None = None  # whose search answers (the lazy cluster, the root policies)
    overruns: int | None = None  # jobs run past a slice (splitting, the master tree)
    leaves: int | None = None  # the master tree's: jobs dispatched to tree leaves, all iterations
    entries_sent: int | None = None  # the lazy cluster's: table entries in its messages
    answers: tuple | None = None  # the lazy cluster's: every worker's last completed iteration
    votes: dict | None = None  # the lazy cluster's: each move's votes
    researches: int | None = None  # the root policies': searches again after a window failed
    fallbacks: int | None = None  # the root policies': full-window searches after contradictory answers
    depths: tuple[int, ...] | None = None  # UIDPABS, the fresh cluster: every worker's last completed iteration
    exchange: ExchangeCounts | None = None  # the fresh cluster's
    real_time: RealTime | None = None  # the fresh cluster's in real time
    schedule: tuple[tuple[str, int, int, int], ...] | None = field(default=None, repr=False)  # mixed's jobs:
    # (move, worker, start, end)

    @classmethod
    def on_wall(cls, algorithm: str, move: str, score: int, depth: int, pv: Sequence[str], tally: Tally,
                seconds: float, messages: int, iterations: Sequence[IterationInfo],
                measured: NodeClock | None = None) -> ParallelResult:
        """A wall-clock master's answer: its nodes are its tally's."""
        return cls(algorithm, move, score, depth, tuple(pv), tally.nodes, (), messages, tuple(iterations), seconds,
                   tally=tally, measured=measured)

    @property
    def parallel_nodes(self) -> int:
        """T_k in nodes: slices × the slice's nodes, or ``time``."""
        return self.time if self.slices is None else self.slices * self.slice_nodes

    @property
    def clock(self) -> NodeClock | None:
        """What a speedup row counts of this move (``tournaments.speedup.nodes``): the lazy
        cluster's overruns (restarts run to their end in fixed-depth rows) stay out of it, and
        the root policies' re-searches count as its fallbacks.  On the wall clock: the node
        clock it measured, if any."""
        if self.tally is not None:
            return self.measured
        messages = self.messages if isinstance(self.messages, int) else self.messages.total
        return NodeClock(len(self.worker_nodes), time=self.parallel_nodes, nodes=self.nodes, messages=messages,
                         overruns=self.overruns or 0, fallbacks=self.researches or 0)

    @property
    def nps(self) -> float:
        """In real time: nodes per second of one worker, on average (0.0 on the node clock)."""
        seconds = self.real_time.worker_seconds if self.real_time else ()
        busy = [(n, s) for n, s in zip(self.worker_nodes, seconds) if s > 0]
        return sum(n / s for n, s in busy) / len(busy) if busy else 0.0

    def metrics(self) -> str:
        if self.exchange is not None:
            return self._exchange_metrics()
        if self.slices is None:
            depths = f"; depths {'/'.join(map(str, self.depths))}" if self.depths else ""
            return (f"{self.algorithm}: T_k {self.time} nodes, {self.nodes} nodes "
                    f"({'/'.join(map(str, self.worker_nodes))}), {self.messages} messages, {self.researches} "
                    f"re-searches{depths}; worker {self.worker} answers {self.move} ({self.score}) at depth "
                    f"{self.depth}")
        lockstep = self.answers is not None
        spent = (f"{self.slices} slices of {self.slice_nodes} nodes ({'T_n' if lockstep else 'T_k'} "
                 f"{self.parallel_nodes} nodes), {self.nodes} nodes ({'/'.join(map(str, self.worker_nodes))})")
        if lockstep:
            return (f"lockstep: {spent}, {self.messages} messages, {self.entries_sent} entries "
                    f"sent; depths {'/'.join(str(a.depth) for a in self.answers)}, worker {self.worker} answers "
                    f"{self.move} ({self.score})")
        m = self.messages
        if self.leaves is None:
            name, table = f"{self.algorithm} (node clock)", ""
        else:
            name = "master tree" if self.algorithm == "master_tree" else f"master tree, {self.algorithm}"
            table = f", table {m.table} with {m.entries} entries"
        return (f"{name}: {spent}, {m.total} messages (jobs {m.jobs}, results {m.results}, aborts {m.aborts}, "
                f"windows {m.windows}{table}), {self.overruns} overruns; depth {self.depth}, {self.move} "
                f"({self.score})")

    def _exchange_metrics(self) -> str:
        x, rt = self.exchange, self.real_time
        line = (f"fresh cluster{' (real time)' if rt else ''}: {x.rounds} rounds, {self.nodes} nodes "
                f"({'/'.join(map(str, self.worker_nodes))}), {self.messages} messages, {self.entries_sent} entries "
                f"sent ({x.bytes} bytes, {x.fresh_share:.0%} of {x.originated} stored this move), thresholds "
                f"{'/'.join(map(str, x.thresholds))}; depths {'/'.join(map(str, self.depths))}, worker {self.worker} "
                f"answers {self.move} ({self.score})")
        if rt:
            line += (f"; round trip {rt.round_trip_ms:.2f} ms, latency {rt.latency_ms:.2f} ms"
                     + (f", lost {'/'.join(map(str, rt.lost))}" if rt.lost else ""))
        return line
