"""What a decomposition file configures, as plain data: how a worker builds its searcher, the
keys every algorithm's options class reads and checks, and those classes (the node clock's
families and the fresh cluster).

Each algorithm declares its own keys and checks their values, as scikit-learn estimators own
their parameter constraints: ``KEYS`` are the file's keys it accepts, ``read`` reads and checks
them (naming each problem in the file) and answers its options, or None when it needs none
beyond the master's keys (``MASTER_KEYS``, which every algorithm of the thesis's family accepts:
they are ``algorithms.Master``'s keyword arguments).  :mod:`.registry` says which class is whose;
:mod:`.config` reads the common keys, then asks the row's class.

Why a module of its own: reading a file (``.config``) must not load the compiled search (on
an empty numba cache its first import compiles for a minute, and ``concilio uci`` answers
``uciok`` before it); the modules that search import these from here.  Nothing here imports
the engine: ``SearcherConfig.make_searcher`` loads the searchers where it builds one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from base.config import get_bool, get_int, get_number
from players.searcher_spec import SearcherSpec

if TYPE_CHECKING:
    from base.config import Located, YamlSource

MASTER_KEYS = ("score_sharing", "min_split_depth", "tt_exchange", "null_window", "margin")
FIXED_DEPTH_OVERRUN = 4  # restarts of one iteration before it runs to its end (master_worker.MAX_RESTARTS)
OUTBOX_MAX = 256  # players.core.context.OUTBOX_MAX (not imported: it would load the engine)


@dataclass(frozen=True)
class Common:
    """What :mod:`.config` read before it asks an algorithm's options: the common keys and the
    master's keys an algorithm's node-clock settings reuse."""

    algorithm: str
    workers: int
    shared: bool
    threads: bool
    in_process: bool
    scheduler: str | None
    node_clock: bool
    min_split_depth: int
    split_given: bool  # min_split_depth was in the file
    score_sharing: bool
    null_window: bool
    speculative: bool
    margin: int


class Options:
    """An algorithm's own settings (module docstring): the keys it accepts, and how it reads
    and checks them."""

    KEYS: ClassVar[tuple[str, ...]] = ()
    clock: ClassVar[str] = "node"  # what runs it when these options exist (wall algorithms have none)
    MIN_SPLIT_DEPTH: ClassVar[int] = 5  # the master's min_split_depth where the file gives none

    @classmethod
    def accepts(cls, key: str, common: Common) -> bool:
        """Whether a file of this algorithm may give ``key``."""
        return key in cls.KEYS

    @classmethod
    def read(cls, src: YamlSource | Located, data: dict, common: Common) -> Options | None:
        """This algorithm's options from the file's ``data`` (problems named in ``src``)."""
        return None

    def with_workers(self, workers: int) -> Options:
        """These options for ``workers`` workers (the node clock counts the workers it advances)."""
        return replace(self, workers=workers)

    def for_fixed_depth(self) -> Options:
        """These options for a search to a fixed depth with no node budget (a speedup row),
        where an algorithm may need a guard that games do not."""
        return self


class WallOptions(Options):
    """The thesis's algorithms on the wall clock: the master's keys and nothing more."""

    KEYS = MASTER_KEYS


class YbwOptions(WallOptions):
    """Young Brothers Wait: without a min_split_depth, Stockfish's rule by the number of threads
    (0 here, resolved by ``players.decomposition.ybw.ybw_min_split``)."""

    MIN_SPLIT_DEPTH = 0


class SmpOptions(WallOptions):
    """ABDADA and lazy SMP: with one shared table a node budget may be split into shares."""

    KEYS = MASTER_KEYS + ("whole_budget",)

    @classmethod
    def accepts(cls, key: str, common: Common) -> bool:
        if key == "whole_budget":
            return common.algorithm == "abdada" or common.shared
        return super().accepts(key, common)


@dataclass(frozen=True)
class SearcherConfig(SearcherSpec):
    """How a worker builds the searcher of a job: a :class:`players.searcher_spec.SearcherSpec`
    and what a searcher working on one tree with others needs (plain data: it travels with every
    job)."""

    table: str = ""  # name of the table the workers share (shared memory, or their process's: ``threads``)
    defer: bool = False  # ABDADA: put off moves another worker is searching (needs ``table``)
    ybw_threads: int = 0  # YBW: the searcher is a team of this many threads (``.ybw``); 0: one thread, no team
    min_split_depth: int = 4  # YBW: nodes at least this deep may become split points

    def with_ybw(self, threads: int, min_split_depth: int) -> SearcherConfig:
        """These options for a YBW team of ``threads`` threads."""
        return replace(self, ybw_threads=threads, min_split_depth=min_split_depth, defer=False)

    def make_searcher(self):
        """The searcher of a job that works on one tree with others: over the named shared table
        (deferring with ABDADA), or a YBW team; :meth:`build` is the plain one."""
        from .shared_searcher import SharedSearcher
        from .tables import shared_table
        spec = self.eval_spec
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
class LockstepConfig(Options):
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

    KEYS: ClassVar[tuple[str, ...]] = MASTER_KEYS + ("slice", "exchange_depth", "exchange_size", "latency")

    def for_fixed_depth(self) -> LockstepConfig:
        """An iteration restarted four times runs to its end (the master tree's rule)."""
        return replace(self, overrun_after=FIXED_DEPTH_OVERRUN)

    @classmethod
    def read(cls, src: YamlSource | Located, data: dict, common: Common) -> LockstepConfig:
        d = LockstepConfig()
        return LockstepConfig(common.workers, get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                              get_int(src, data, ("exchange_depth",), d.exchange_depth, 0, 255),
                              get_int(src, data, ("exchange_size",), d.exchange_size, 0, 1 << 20),
                              get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency)


@dataclass(frozen=True)
class MasterTreeConfig(Options):
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

    KEYS: ClassVar[tuple[str, ...]] = MASTER_KEYS + ("slice", "exchange_depth", "exchange_size", "latency",
                                                     "master_depth")

    @classmethod
    def read(cls, src: YamlSource | Located, data: dict, common: Common) -> MasterTreeConfig:
        """The master tree's settings (``policy``: the algorithm, ``.tree_policies``);
        ``min_split_depth`` is Jurčovič's D_0 and must leave the tree's leaves at least one ply."""
        d = MasterTreeConfig()
        master_depth = get_int(src, data, ("master_depth",), d.master_depth, 1, 3) or d.master_depth
        if common.split_given and common.min_split_depth <= master_depth:
            src.problem(("min_split_depth",), f"{common.min_split_depth}: the iterations searched by the tree need "
                                              f"leaves below master_depth {master_depth}, so min_split_depth must "
                                              "exceed it")
        tree = MasterTreeConfig(common.workers, master_depth, get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                                get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency,
                                get_int(src, data, ("exchange_size",), d.exchange_size, 0, 1 << 20),
                                max(common.min_split_depth, master_depth + 1), common.margin, common.algorithm,
                                bool(get_bool(src, data, ("window_reduction",), False)))
        if "exchange_depth" in data:
            src.problem(("exchange_depth",),
                        f"{common.algorithm} sends the deepest entries whatever their depth: no exchange_depth")
        return tree


class WindowReductionOptions(MasterTreeConfig):
    """Tree splitting and mandatory work first: a running job's window may narrow."""

    KEYS = MasterTreeConfig.KEYS + ("window_reduction",)


@dataclass(frozen=True)
class SplitClockConfig(Options):
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

    KEYS: ClassVar[tuple[str, ...]] = MASTER_KEYS + ("node_clock",)
    NODE_KEYS: ClassVar[tuple[str, ...]] = ("slice", "latency")  # with node_clock: true only

    @classmethod
    def accepts(cls, key: str, common: Common) -> bool:
        return key in cls.KEYS or (common.node_clock and key in cls.NODE_KEYS)

    @classmethod
    def read(cls, src: YamlSource | Located, data: dict, common: Common) -> SplitClockConfig | None:
        """On the wall clock (no ``node_clock``) none: the master's keys are all it has."""
        if not common.node_clock:
            return None
        d = SplitClockConfig()
        return SplitClockConfig(common.algorithm, common.workers,
                                get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                                get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency,
                                common.min_split_depth, common.score_sharing, common.null_window, common.speculative,
                                common.margin)


class RootSplitOptions(SplitClockConfig):
    """Root splitting: younger brothers may be searched speculatively."""

    KEYS = SplitClockConfig.KEYS + ("speculative",)


@dataclass(frozen=True)
class RootPolicyConfig(Options):
    """A root policy's settings (YAML ``algorithm``, ``workers``, ``margin``, ``order_depth``)."""

    algorithm: str = "uidpabs"
    workers: int = 4
    margin: int = 25  # half the width of the windows around the expected score
    order_depth: int = 4  # mixed: the ordering search's depth (0: Devesa's exhaustive player)

    KEYS: ClassVar[tuple[str, ...]] = MASTER_KEYS

    @classmethod
    def read(cls, src: YamlSource | Located, data: dict, common: Common) -> RootPolicyConfig:
        d = RootPolicyConfig()
        order_depth = get_int(src, data, ("order_depth",), d.order_depth, 0, 32)
        return RootPolicyConfig(common.algorithm, common.workers, common.margin,
                                d.order_depth if order_depth is None else order_depth)


class OrderDepthOptions(RootPolicyConfig):
    """Devesa's mixed strategy: its ordering search's depth."""

    KEYS = RootPolicyConfig.KEYS + ("order_depth",)


@dataclass(frozen=True)
class FreshClusterOptions(Options):
    """The fresh lazy cluster (issue 58, :mod:`.fresh_cluster`): YAML ``workers``, ``batch``,
    ``threshold`` (an int, or ``adaptive``: Texel's rule from Stockfish's 4), ``buffer``,
    ``topology``, ``latency`` (nodes), ``carry``; ``realtime: true`` runs it on Dask workers in
    real time (:mod:`.fresh_realtime`), with ``interval_ms`` and ``delay_ms``."""

    workers: int = 4
    batch: int = 1000
    threshold: int = 4
    adaptive: bool = False
    buffer: int = 16
    topology: str = "ring"
    latency: int = 1000
    carry: bool = True
    realtime: bool = False
    interval_ms: float = 5.0
    delay_ms: float = 0.0

    KEYS: ClassVar[tuple[str, ...]] = ("batch", "threshold", "buffer", "topology", "latency", "carry", "realtime",
                                       "interval_ms", "delay_ms")
    TOPOLOGIES: ClassVar[tuple[str, ...]] = ("ring", "all")

    @property
    def clock(self) -> str:  # type: ignore[override]
        """The node clock, or real time on Dask workers."""
        return "wall" if self.realtime else "node"

    @classmethod
    def read(cls, src: YamlSource | Located, data: dict, common: Common) -> FreshClusterOptions:
        d = cls()
        adaptive = data.get("threshold") == "adaptive"  # Texel's rule, from Stockfish's threshold
        threshold = d.threshold
        if isinstance(data.get("threshold"), str) and not adaptive:
            src.problem(("threshold",), f"expected an integer 1..255 or adaptive, got {data['threshold']!r}")
        elif not adaptive:
            threshold = get_int(src, data, ("threshold",), d.threshold, 1, 255) or d.threshold
        topology = data.get("topology", d.topology)
        if topology not in cls.TOPOLOGIES:
            src.problem(("topology",), f"expected one of {', '.join(cls.TOPOLOGIES)}, got {topology!r}")
            topology = d.topology
        latency = get_int(src, data, ("latency",), d.latency, 0, None)
        if latency == 0 and topology == "ring":
            src.problem(("latency",), "a ring forwards what it was delivered: latency must be at least 1 node")
        realtime = bool(get_bool(src, data, ("realtime",), False))
        for key in ("interval_ms", "delay_ms"):
            if key in data and not realtime:
                src.problem((key,), "only the real-time cluster (realtime: true) has it")
        interval = get_number(src, data, ("interval_ms",), d.interval_ms, 0)
        if interval <= 0:
            src.problem(("interval_ms",), f"expected a number > 0, got {interval!r}")
        return cls(common.workers, get_int(src, data, ("batch",), d.batch, 1) or d.batch, threshold,
                   adaptive, get_int(src, data, ("buffer",), d.buffer, 1, OUTBOX_MAX) or d.buffer, str(topology),
                   d.latency if latency is None else latency, bool(get_bool(src, data, ("carry",), True)), realtime,
                   interval if interval > 0 else d.interval_ms, get_number(src, data, ("delay_ms",), d.delay_ms, 0))
