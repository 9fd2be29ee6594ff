"""What a parallel search answers with: the move, what it cost and, on the node clock, the
clock's metrics (nodes for seconds).  A master on the wall clock answers a ``ParallelResult``
(with a ``NodeClock`` for parallel aspiration); the masters that advance in slices
(splitting, the master tree and its policies) a ``SlicedResult``; every node-clock master
counts its messages in one ``Messages``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from players.result import IterationInfo

if TYPE_CHECKING:
    from .jobs import JobResult


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
class ParallelResult:
    """A wall-clock master's answer: the last completed iteration, the tally, the runner's messages."""

    move: str
    score: int
    depth: int
    pv: tuple[str, ...]
    tally: Tally
    wall: float
    messages: int
    iterations: list[IterationInfo] = field(default_factory=list)  # every completed iteration


@dataclass
class NodeClock:
    """A parallel search measured in nodes: ``time`` = T_k (the nodes until the answer, the
    iterations' sum), ``nodes`` = what all workers searched until they were stopped."""

    workers: int
    time: int = 0
    nodes: int = 0
    messages: int = 0
    overruns: int = 0  # workers that searched past T because T was not known yet
    fallbacks: int = 0  # iterations no window answered (search instability): one full-window search
    iterations: list[tuple[int, tuple[int, ...], int]] = field(default_factory=list)  # (depth, nodes, decider)


@dataclass
class AspirationResult(ParallelResult):
    """Parallel aspiration's answer, with its node clock (measured when its runner has no client)."""

    clock: NodeClock | None = None


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
class SlicedResult(SlicedRun):
    """One move of a master on the sliced node clock (root, PV or dynamic splitting; the master
    tree and its policies): the answer and the clock's metrics."""

    algorithm: str  # the master tree's: its policy
    move: str
    score: int
    depth: int
    pv: tuple[str, ...]
    slices: int  # until the master knew the answer
    slice_nodes: int
    nodes: int  # all workers' nodes
    worker_nodes: tuple[int, ...]
    messages: Messages
    overruns: int
    iterations: tuple[IterationInfo, ...]
    seconds: float
    leaves: int | None = None  # the master tree's: jobs dispatched to tree leaves, all iterations

    @property
    def policy(self) -> str:
        """The master tree's policy (its algorithm)."""
        return self.algorithm

    def metrics(self) -> str:
        m = self.messages
        if self.leaves is None:
            name, table = f"{self.algorithm} (node clock)", ""
        else:
            name = "master tree" if self.algorithm == "master_tree" else f"master tree, {self.algorithm}"
            table = f", table {m.table} with {m.entries} entries"
        return (f"{name}: {self.slices} slices of {self.slice_nodes} nodes (T_k {self.parallel_nodes} nodes), "
                f"{self.nodes} nodes ({'/'.join(map(str, self.worker_nodes))}), {m.total} messages (jobs {m.jobs}, "
                f"results {m.results}, aborts {m.aborts}, windows {m.windows}{table}), {self.overruns} overruns; "
                f"depth {self.depth}, {self.move} ({self.score})")
