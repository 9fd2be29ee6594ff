"""What a decomposition file configures, as plain data: the algorithms' names, how a worker
builds its searcher, and the node clock's settings of each family of algorithms.

Why a module of its own: reading a file (``.config``) must not load the compiled search (on
an empty numba cache its first import compiles for a minute, and ``concilio uci`` answers
``uciok`` before it); the modules that search import these from here.  Nothing here imports
the engine: ``SearcherConfig.make_searcher`` loads the searchers where it builds one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from evaluation.spec import CATEGORIES

ALGORITHMS = ("root_split", "peer", "pv_split", "dynamic_split", "lazy_smp", "abdada", "ybw", "aspiration",
              "lazy_cluster", "master_tree", "tree_split", "mandatory_first", "uidpabs", "mixed")
MASTER_TREES = ("master_tree", "tree_split", "mandatory_first")  # the master tree's policies (.tree_policies)
ROOT_POLICIES = ("uidpabs", "mixed")  # the root policies (.root_policy)


@dataclass(frozen=True)
class SearcherConfig:
    """How a worker builds the searcher of a job: evaluation, table and search options
    (plain data: it travels with every job)."""

    mask: str = CATEGORIES
    hash_mb: float = 16
    null_move: bool = True
    lmr: bool = True
    futility: bool = True
    exact: bool = False  # fixed-depth minimax: parallel and sequential answers must agree
    table: str = ""  # name of the table the workers share (shared memory, or their process's: ``threads``)
    defer: bool = False  # ABDADA: put off moves another worker is searching (needs ``table``)
    weights: tuple[float, ...] | None = None  # the categories' weights (default 1)
    ybw_threads: int = 0  # YBW: the searcher is a team of this many threads (``.ybw``); 0: one thread, no team
    min_split_depth: int = 4  # YBW: nodes at least this deep may become split points

    def with_ybw(self, threads: int, min_split_depth: int) -> SearcherConfig:
        """These options for a YBW team of ``threads`` threads."""
        return replace(self, ybw_threads=threads, min_split_depth=min_split_depth, defer=False)

    def engine_searcher(self):
        """A plain searcher with a table of its own (the node clock's workers): no shared table,
        no deferral, one thread."""
        from evaluation.spec import EvalSpec
        from players.searcher import Searcher
        return Searcher(EvalSpec.parse(self.mask, self.weights), self.hash_mb, null_move=self.null_move, lmr=self.lmr,
                        futility=self.futility, exact=self.exact)

    def make_searcher(self):
        from evaluation.spec import EvalSpec
        from .shared_searcher import SharedSearcher
        from .tables import shared_table
        spec = EvalSpec.parse(self.mask, self.weights)
        table = shared_table(self.table) if self.table else None
        if self.ybw_threads:
            from .ybw import YbwSearcher
            return YbwSearcher(spec, self.hash_mb, threads=self.ybw_threads, min_split_depth=self.min_split_depth,
                               table=table, null_move=self.null_move, lmr=self.lmr, futility=self.futility,
                               exact=self.exact)
        return SharedSearcher(spec, self.hash_mb, table=table,
                              defer=self.defer and bool(self.table), null_move=self.null_move, lmr=self.lmr,
                              futility=self.futility, exact=self.exact)


@dataclass(frozen=True)
class LockstepConfig:
    """The node clock's settings of a lazy cluster (YAML ``workers``, ``slice``, ...)."""

    workers: int = 4
    slice: int = 2000  # nodes a worker searches between two exchanges
    exchange_depth: int = 4  # entries at least this deep are sent ...
    exchange_size: int = 256  # ... at most this many per message, deepest first (0: no exchange)
    latency: int = 1  # slices from sending to storing in the receiver's table (>= 1)
    # Fixed-depth searches only (the speedup rows; no node budget): after this many slices in a
    # row without completing an iteration, the worker searches the iteration to its end at once
    # and owes the nodes past the slice, doing nothing else until they are paid (the master
    # tree's overrun).  Without it an exact search, whose table carries little progress from one
    # restart to the next, can restart the same iteration forever.  0: never (games).
    overrun_after: int = 0


@dataclass(frozen=True)
class MasterTreeConfig:
    """The master tree's settings (YAML ``workers``, ``master_depth``, ``slice``, ...)."""

    workers: int = 4
    master_depth: int = 2  # D_pre: plies the master expands; its leaves are the jobs
    slice: int = 1000  # nodes a worker searches between two boundaries
    latency: int = 1  # slices from sending a message to its delivery (>= 1)
    exchange_size: int = 1000  # deepest entries each way per worker and iteration (0: no exchange)
    sequential_depth: int = 5  # iterations shallower than this are one job (D_0; min_split_depth)
    margin: int = 25  # a PV node's younger children are probed at the previous score less this
    policy: str = "master_tree"  # which leaves get a job, with which window (.tree_policies)
    window_reduction: bool = False  # tree_split, mandatory_first: running jobs' windows narrow


@dataclass(frozen=True)
class SplitClockConfig:
    """One master-worker algorithm on the node clock (YAML ``algorithm``, ``workers``,
    ``score_sharing``, ``null_window``, ``speculative``, ``margin``, ``min_split_depth``,
    ``slice``, ``latency``)."""

    algorithm: str = "root_split"  # root_split | pv_split | dynamic_split
    workers: int = 4
    slice: int = 1000  # nodes a worker searches between two boundaries
    latency: int = 1  # slices from sending a message to its delivery (>= 1)
    min_split_depth: int = 5  # shallower iterations are one job; shallower nodes are not split
    score_sharing: bool = True  # a running job's beta follows the master's alpha (a Rewindow)
    null_window: bool = True  # younger brothers probed with a null window first (PVS)
    speculative: bool = False  # root_split: younger brothers do not wait for the eldest ...
    margin: int = 25  # ... and are probed at the previous score less this


@dataclass(frozen=True)
class RootPolicyConfig:
    """A root policy's settings (YAML ``algorithm``, ``workers``, ``margin``, ``order_depth``)."""

    algorithm: str = "uidpabs"
    workers: int = 4
    margin: int = 25  # half the width of the windows around the expected score
    order_depth: int = 4  # mixed: the ordering search's depth (0: Devesa's exhaustive player)
