"""The root policies (UIDPABS, Devesa's mixed and exhaustive strategies) on the node clock
(``docs/node-clock.md``): their settings, their workers (the node clock's one
:class:`.master_worker.Worker` and :class:`.master_worker.Team`, under the names the policies
use) and their result.

Both policies split the root's moves among workers that then search without talking to each
other until they answer, so no slices are needed: a worker's search is a deterministic
function of (position, its table, its share of the root, its window), the k workers run one
after another in this process, and the parallel time is read off their node counts (T_k).

A worker is a plain :class:`players.searcher.Searcher` with a table of its own, kept from
search to search and move to move (no shared memory).  One call of :meth:`.master_worker.Worker.search`
is one search of *its* root moves (a subset of the root's, in its order) to a depth in a
window, with at most ``limit`` nodes: the sequential root search (``search_root``) over fewer
moves, so every move's value, check extension included, is the one the sequential search
gives it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from players.result import IterationInfo

from .master_worker import RootSearch, Team, Worker  # noqa: F401 (RootSearch: re-exported)
from .options import RootPolicyConfig  # noqa: F401 (re-exported)
from .registry import ROOT_POLICIES  # noqa: F401 (re-exported)

ClockWorker = Worker  # the root policies' names for the node clock's worker and team
ClockTeam = Team


@dataclass(frozen=True)
class RootPolicyResult:
    """A root policy's answer and its node-clock metrics (nodes for seconds)."""

    algorithm: str
    move: str
    score: int
    depth: int  # the depth the answer was searched to
    pv: tuple[str, ...]
    worker: int  # whose search answers
    time: int  # T_k: nodes on the clock until the answer
    nodes: int  # N_k: all workers' nodes
    worker_nodes: tuple[int, ...]
    messages: int  # jobs handed out and answers sent back
    depths: tuple[int, ...] = ()  # UIDPABS: every worker's last completed iteration
    researches: int = 0  # searches again after a window failed
    fallbacks: int = 0  # full-window searches after contradictory answers (a selective search)
    iterations: tuple[IterationInfo, ...] = ()
    seconds: float = 0.0
    schedule: tuple[tuple[str, int, int, int], ...] = field(default=(), repr=False)  # mixed: (move, worker, start, end)

    def metrics(self) -> str:
        depths = f"; depths {'/'.join(map(str, self.depths))}" if self.depths else ""
        return (f"{self.algorithm}: T_k {self.time} nodes, {self.nodes} nodes "
                f"({'/'.join(map(str, self.worker_nodes))}), {self.messages} messages, {self.researches} "
                f"re-searches{depths}; worker {self.worker} answers {self.move} ({self.score}) at depth {self.depth}")
