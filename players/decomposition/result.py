"""What a parallel search on the node clock answers with: the move, and the clock's metrics
(nodes for seconds).  One type for the algorithms that advance in slices with a master
(splitting, the master tree and its policies) and one message count for every master.
"""
from __future__ import annotations

from dataclasses import dataclass

from players.result import IterationInfo


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
