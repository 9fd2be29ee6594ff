"""Decomposition files (``configs/decomposition/*.yaml``)::

    name: pv-split
    algorithm: pv_split        # root_split | peer | pv_split | dynamic_split | lazy_smp | abdada | ybw |
                               # aspiration | lazy_cluster | master_tree | tree_split | mandatory_first |
                               # uidpabs | mixed
    workers: 2                 # a local cluster of this many single-threaded workers
    score_sharing: true        # root/PV splitting: refresh running jobs' bounds
    min_split_depth: 5         # a node (or a whole iteration) shallower than this is one job
                               # (master_tree: the iterations searched as one job, Jurčovič's D_0;
                               # ybw: a node at least this deep may become a split point, by default
                               # Stockfish's 4 plies, 7 with 8 threads or more)
    null_window: true          # splitting: younger brothers probed with a null window first (PVS)
    speculative: false         # root splitting: younger brothers do not wait for the eldest ...
    margin: 25                 # ... and are probed at the previous iteration's score less this;
                               # aspiration: the step of the windows around the previous score;
                               # master_tree: a PV node's younger children are probed there while
                               # its eldest is still searched
    shared_table: false        # one table in shared memory for all workers (a local cluster only;
                               # abdada needs it)
    threads: false             # the workers are search threads of one worker process (a local
                               # cluster only): a shared table is then that process's memory
    in_process: false          # the workers are search threads of this process, no Dask at all
                               # (an ensemble instance that is a parallel search; a match's game worker)
    tt_exchange: 1000          # lazy SMP: deepest entries each worker shares per iteration (0: none)
    whole_budget: false        # abdada, lazy_smp over a shared table: under a node budget every worker
                               # searches its share and the move ends when all have (false: when the
                               # first has), so the team spends its budget however its threads are
                               # scheduled: on one core time-sliced threads do not keep pace
    # lazy_cluster and master_tree (the node clock, docs/node-clock.md):
    slice: 2000                # nodes a worker searches between two boundaries (master_tree: 1000)
    exchange_depth: 4          # lazy_cluster: entries at least this deep are sent to the other workers ...
    exchange_size: 256         # ... at most this many per message, deepest first (0: no exchange);
                               # master_tree: deepest entries each worker sends the master, and the
                               # master every worker, after every iteration (default 1000)
    latency: 1                 # slices from sending a message to its delivery (>= 1)
    node_clock: false          # root_split, pv_split, dynamic_split: the workers run in this process on the
                               # node clock (players/decomposition/split_clock.py), the master tree's
                               # workers and clock; slice (default 1000) and latency apply
    # master_tree, tree_split and mandatory_first (the master tree and its policies,
    # players/decomposition/master_clock.py and tree_policies.py):
    master_depth: 2            # D_pre: plies the master expands; its leaves are the workers' jobs (1..3)
    window_reduction: false    # tree_split, mandatory_first: a running job's window narrows when its
                               # ancestors' values move (Fishburn and Finkel's Update)
    # uidpabs and mixed (the root policies, players/decomposition/root_policy.py; node clock, in this process):
    order_depth: 4             # mixed: the ordering search's depth (0: Devesa's exhaustive player, no bound);
                               # margin is their windows' half-width around the expected score
    search: {mask: MBXKPAR, hash_mb: 16, null_move: true, lmr: true, futility: true, exact: false}
    cluster: {scheduler: tcp://host:8786}   # optional: an existing Dask cluster
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from base.config import (ConfigError, Located, YamlSource, as_mapping, check_keys, check_kind, get_bool, get_int,
                         load_checked)
from evaluation.spec import CATEGORIES, EvalSpec, EvalSpecError
from players.player import COORDINATED_OVERHEAD_MS, Settings
from .options import (ALGORITHMS, MASTER_TREES, ROOT_POLICIES, LockstepConfig, MasterTreeConfig, RootPolicyConfig,
                      SearcherConfig, SplitClockConfig)

TOP_KEYS = {"kind", "name", "description", "algorithm", "workers", "score_sharing", "min_split_depth", "tt_exchange",
            "null_window", "speculative", "margin", "shared_table", "threads", "in_process", "whole_budget",
            "search", "cluster",
            "slice", "exchange_depth", "exchange_size", "latency", "master_depth", "window_reduction", "node_clock",
            "order_depth"}
LOCKSTEP_KEYS = ("slice", "exchange_depth", "exchange_size", "latency")
CLOCKED = ("lazy_cluster",) + MASTER_TREES  # the algorithms on the node clock: no Dask, no shared memory
WINDOW_REDUCTION = ("tree_split", "mandatory_first")  # the master policies whose windows may stay put
SPLIT_CLOCKED = ("root_split", "pv_split", "dynamic_split")  # on the node clock with node_clock: true
SEARCH_KEYS = {"mask", "hash_mb", "null_move", "lmr", "futility", "exact"}


@dataclass(frozen=True)
class DecompositionConfig:
    name: str
    algorithm: str = "pv_split"
    workers: int = 2
    score_sharing: bool = True
    min_split_depth: int = 5
    tt_exchange: int = 1000
    search: SearcherConfig = field(default_factory=SearcherConfig)
    scheduler: str | None = None
    source: str = ""
    null_window: bool = True
    speculative: bool = False
    margin: int = 25
    shared_table: bool = False
    threads: bool = False
    in_process: bool = False
    whole_budget: bool = False  # abdada, lazy_smp over a shared table: every worker spends its share
    lockstep: LockstepConfig | None = None  # lazy_cluster: the node clock's settings
    master_tree: MasterTreeConfig | None = None  # master_tree and its policies: settings on the node clock
    split_clock: SplitClockConfig | None = None  # root_split, pv_split, dynamic_split with node_clock: true
    root_policy: RootPolicyConfig | None = None  # uidpabs, mixed: their settings on the node clock

    def with_workers(self, workers: int) -> DecompositionConfig:
        """This file with ``workers`` workers (the node clock's settings too: they count the
        workers the clock advances)."""
        lockstep = None if self.lockstep is None else replace(self.lockstep, workers=workers)
        tree = None if self.master_tree is None else replace(self.master_tree, workers=workers)
        split = None if self.split_clock is None else replace(self.split_clock, workers=workers)
        policy = None if self.root_policy is None else replace(self.root_policy, workers=workers)
        return replace(self, workers=workers, lockstep=lockstep, master_tree=tree, split_clock=split,
                       root_policy=policy)

    def player_settings(self) -> Settings:
        """The player's settings as this file makes them: its table size, one core a worker, a
        coordinator's overhead (UCI lists them before it builds the player)."""
        return Settings(self.search.hash_mb, self.workers, COORDINATED_OVERHEAD_MS)

    def master_options(self) -> dict:
        """The keyword arguments of ``Master`` this file sets."""
        return {"score_sharing": self.score_sharing, "min_split_depth": self.min_split_depth,
                "null_window": self.null_window, "speculative": self.speculative, "margin": self.margin,
                "whole_budget": self.whole_budget}


def load_decomposition(path: str | Path | None = None, text: str | None = None, **overrides) -> DecompositionConfig:
    """Read and validate a decomposition file; ``ConfigError`` lists every problem."""
    return load_checked(path, text, "decomposition", lambda src, folder, given: decomposition_from(src, src.data,
                                                                                                   **overrides))


def decomposition_from(src: YamlSource | Located, data: Any, name: str | None = None,
                       **overrides) -> DecompositionConfig:
    """Validate a decomposition mapping: a whole file, or a part of one (the speedup
    file's ``algorithms`` items, through :class:`base.config.Located`)."""
    if not isinstance(data, dict):
        raise ConfigError([f"{src.name}: expected a mapping"])
    data = {**data, **overrides}
    check_keys(src, data, (), TOP_KEYS)
    check_kind(src, data, "decomposition")
    algorithm = data.get("algorithm")
    if algorithm not in ALGORITHMS:
        src.problem(("algorithm",), f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    workers = get_int(src, data, ("workers",), 2, 1, 512) or 2
    sharing = get_bool(src, data, ("score_sharing",), True)
    min_split = get_int(src, data, ("min_split_depth",), 5, 1, 64) or 5
    if algorithm == "ybw" and "min_split_depth" not in data:
        min_split = 0  # Stockfish's rule, by the number of threads (players.decomposition.ybw.ybw_min_split)
    exchange = get_int(src, data, ("tt_exchange",), 1000, 0) or 0
    null_window = get_bool(src, data, ("null_window",), True)
    speculative = get_bool(src, data, ("speculative",), False)
    margin = get_int(src, data, ("margin",), 25, 0, 1000)
    shared = get_bool(src, data, ("shared_table",), False)
    cluster = as_mapping(src, data.get("cluster"), ("cluster",)) or {}
    check_keys(src, cluster, ("cluster",), {"scheduler"})
    if shared and cluster.get("scheduler"):
        src.problem(("shared_table",), "a shared table needs a local cluster, not cluster.scheduler")
    threads = get_bool(src, data, ("threads",), False)
    if threads and cluster.get("scheduler"):
        src.problem(("threads",), "search threads of one process need a local cluster, not cluster.scheduler")
    in_process = get_bool(src, data, ("in_process",), False)
    if in_process and cluster.get("scheduler"):
        src.problem(("in_process",), "search threads of this process need no cluster.scheduler")
    whole_budget = get_bool(src, data, ("whole_budget",), False)
    if whole_budget and not (algorithm == "abdada" or (algorithm == "lazy_smp" and shared)):
        src.problem(("whole_budget",), f"only abdada and lazy_smp over a shared table split a node budget "
                                       f"into shares, not {algorithm!r}")
    if algorithm == "ybw" and workers > 1 and not (threads or in_process):
        src.problem(("threads",), "ybw's split points are in the memory of one process: set threads: true")
    if algorithm == "abdada" and not shared:
        src.problem(("shared_table",), "abdada defers moves through a shared table: set shared_table: true")
    if speculative and algorithm != "root_split":
        src.problem(("speculative",), f"only root_split has a speculative mode, not {algorithm!r}")
    lockstep = tree = split_clock = None
    node_clock = get_bool(src, data, ("node_clock",), False)
    if node_clock and algorithm not in SPLIT_CLOCKED:
        src.problem(("node_clock",), f"only {', '.join(SPLIT_CLOCKED)} have a node_clock mode, not {algorithm!r}"
                                     + (" (it always runs on the node clock)" if algorithm in CLOCKED else ""))
    if (algorithm in CLOCKED or node_clock) and (shared or threads):
        src.problem(("shared_table" if shared else "threads",),
                    f"{algorithm} workers share no memory: no shared_table or threads")
    if (algorithm in MASTER_TREES or node_clock) and cluster.get("scheduler"):
        src.problem(("cluster",),
                    f"{algorithm} runs its workers in this process (the node clock): no cluster.scheduler")
    if algorithm == "lazy_cluster":
        d = LockstepConfig()
        lockstep = LockstepConfig(workers, get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                                  get_int(src, data, ("exchange_depth",), d.exchange_depth, 0, 255),
                                  get_int(src, data, ("exchange_size",), d.exchange_size, 0, 1 << 20),
                                  get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency)
    elif algorithm in MASTER_TREES:
        tree = master_tree_from(src, data, workers, min_split, "min_split_depth" in data,
                                25 if margin is None else margin, str(algorithm))
    elif node_clock and algorithm in SPLIT_CLOCKED:
        d = SplitClockConfig()
        split_clock = SplitClockConfig(str(algorithm), workers, get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                                       get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency, min_split,
                                       sharing, null_window, speculative, 25 if margin is None else margin)
    for key in LOCKSTEP_KEYS:
        if key in data and algorithm not in CLOCKED and not (node_clock and key in ("slice", "latency")):
            src.problem((key,), f"only {', '.join(CLOCKED)} have a node-clock {key}"
                                + (", and root, PV and dynamic splitting with node_clock: true a slice and latency"
                                   if key in ("slice", "latency") else "") + f", not {algorithm!r}")
    if "exchange_depth" in data and algorithm in MASTER_TREES:
        src.problem(("exchange_depth",),
                    f"{algorithm} sends the deepest entries whatever their depth: no exchange_depth")
    if "master_depth" in data and algorithm not in MASTER_TREES:
        src.problem(("master_depth",), f"only {', '.join(MASTER_TREES)} have a master_depth, not {algorithm!r}")
    if "window_reduction" in data and algorithm not in WINDOW_REDUCTION:
        src.problem(("window_reduction",), f"only {' and '.join(WINDOW_REDUCTION)} have a window_reduction setting, "
                                           f"not {algorithm!r}")
    policy = root_policy_from(src, data, str(algorithm), workers, 25 if margin is None else margin, shared or threads,
                              bool(cluster.get("scheduler")))
    search = as_mapping(src, data.get("search"), ("search",)) or {}
    check_keys(src, search, ("search",), SEARCH_KEYS)
    mask = str(search.get("mask", CATEGORIES))
    try:
        EvalSpec.parse(mask)
    except EvalSpecError as exc:
        src.problem(("search", "mask"), str(exc))
    options = SearcherConfig(mask, float(search.get("hash_mb", 16)),
                            get_bool(src, search, ("search", "null_move"), True),
                            get_bool(src, search, ("search", "lmr"), True),
                            get_bool(src, search, ("search", "futility"), True),
                            get_bool(src, search, ("search", "exact"), False), defer=algorithm == "abdada")
    if src.problems:
        raise ConfigError(src.problems)
    return DecompositionConfig(name or str(data.get("name", Path(src.name).stem)), str(algorithm), workers, sharing,
                               min_split, exchange, options, cluster.get("scheduler"), src.name, null_window,
                               speculative, 25 if margin is None else margin, shared, bool(threads), bool(in_process),
                               whole_budget, lockstep, tree, split_clock, policy)


def root_policy_from(src: YamlSource | Located, data: dict, algorithm: str, workers: int, margin: int,
                     shares_memory: bool, scheduler: bool) -> RootPolicyConfig | None:
    """The root policies' settings: their workers run in this process on the node clock."""
    if "order_depth" in data and algorithm != "mixed":
        src.problem(("order_depth",), f"only mixed has an order_depth, not {algorithm!r}")
    if algorithm not in ROOT_POLICIES:
        return None
    if shares_memory:
        src.problem(("shared_table" if data.get("shared_table") else "threads",),
                    f"{algorithm} workers share no memory: no shared_table or threads")
    if scheduler:
        src.problem(("cluster",), f"{algorithm} runs its workers in this process (the node clock): "
                                  "no cluster.scheduler")
    order_depth = get_int(src, data, ("order_depth",), RootPolicyConfig().order_depth, 0, 32)
    return RootPolicyConfig(algorithm, workers, margin, RootPolicyConfig().order_depth if order_depth is None
                            else order_depth)


def master_tree_from(src: YamlSource | Located, data: dict, workers: int, min_split: int, split_given: bool,
                     margin: int, policy: str = "master_tree") -> MasterTreeConfig:
    """The master tree's settings (``policy``: the algorithm, ``.tree_policies``);
    ``min_split_depth`` is Jurčovič's D_0 and must leave the tree's leaves at least one ply."""
    d = MasterTreeConfig()
    master_depth = get_int(src, data, ("master_depth",), d.master_depth, 1, 3) or d.master_depth
    if split_given and min_split <= master_depth:
        src.problem(("min_split_depth",), f"{min_split}: the iterations searched by the tree need leaves below "
                                          f"master_depth {master_depth}, so min_split_depth must exceed it")
    return MasterTreeConfig(workers, master_depth, get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                            get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency,
                            get_int(src, data, ("exchange_size",), d.exchange_size, 0, 1 << 20),
                            max(min_split, master_depth + 1), margin, policy,
                            bool(get_bool(src, data, ("window_reduction",), False)))
