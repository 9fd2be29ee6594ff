"""Decomposition files (``configs/decomposition/*.yaml``)::

    name: pv-split
    algorithm: pv_split        # root_split | peer | pv_split | dynamic_split | lazy_smp | abdada | ybw |
                               # aspiration | lazy_cluster | master_tree | tree_split | mandatory_first |
                               # uidpabs | mixed | fresh_cluster (.registry: one row each)
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
    # lazy_cluster and master_tree (the node clock, docs/design/node-clock.md):
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
    # uidpabs and mixed (the root policies, players/decomposition/uidpabs.py and mixed.py; node clock, in this process):
    order_depth: 4             # mixed: the ordering search's depth (0: Devesa's exhaustive player, no bound);
                               # margin is their windows' half-width around the expected score
    # fresh_cluster (issue 58: fresh deep entries exchanged while the workers search, never restarted;
    # players/decomposition/fresh_cluster.py on the node clock, fresh_realtime.py in real time):
    batch: 1000                # nodes between two checkpoints, where the workers exchange (node clock)
    threshold: 4               # entries stored at least this deep are sent (Stockfish: depth > 3);
                               # adaptive: Texel's rule, from 4, up when an outbox overflows, down when
                               # a send leaves it less than half full
    buffer: 16                 # outbox entries: the deepest stored since the last send (1..256)
    topology: ring             # ring (each worker forwards what it was delivered) | all
    latency: 1000              # nodes from a send to the receiver's store (node clock; >= 1 on a ring)
    carry: true                # a move's last deep stores go out in the next move's first round
    realtime: false            # true: the workers search at once on Dask workers (a local cluster, or
                               # cluster.scheduler's), exchanging through the runner's channel ...
    interval_ms: 5             # ... each taking its outbox this often (or once it is full) ...
    delay_ms: 0                # ... every message held this long (an injected delay)
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
from . import registry
from .options import Common, Options, SearcherConfig, SplitClockConfig

COMMON_KEYS = {"kind", "name", "description", "algorithm", "workers", "shared_table", "threads", "in_process",
               "search", "cluster"}
SWITCHES = ("speculative", "whole_budget", "node_clock")  # refused only when switched on
SEARCH_KEYS = {"mask", "hash_mb", "null_move", "lmr", "futility", "exact"}
# How a key is refused for an algorithm that does not have it: ``{owners}`` are the algorithms
# whose options accept it (``{sliced}``: those sliced on the node clock alone), ``{has}``
# agrees with them; a key not listed gets ``only {owners} {has} a {key}``.
REFUSALS = {
    "speculative": "only {owners} {has} a speculative mode",
    "whole_budget": "only abdada and lazy_smp over a shared table split a node budget into shares",
    "node_clock": "only {owners} {has} a node_clock mode",
    "slice": "only {sliced} have a node-clock slice, and root, PV and dynamic splitting with node_clock: true a "
             "slice and latency",
    "latency": "only {sliced} have a node-clock latency, and root, PV and dynamic splitting with node_clock: true a "
               "slice and latency",
    "exchange_depth": "only {sliced} have a node-clock exchange_depth",
    "exchange_size": "only {sliced} have a node-clock exchange_size",
    "master_depth": "only {owners} {has} a master_depth",
    "window_reduction": "only {owners_and} {has} a window_reduction setting",
    "order_depth": "only {owners} {has} an order_depth",
}


def _all_keys() -> set[str]:
    """Every key some algorithm accepts: the others are unknown to all."""
    return COMMON_KEYS | {k for r in registry.ROWS for k in r.options.KEYS + getattr(r.options, "NODE_KEYS", ())}


@dataclass(frozen=True)
class DecompositionConfig:
    """A decomposition file: the common keys, the master's keys (``algorithms.Master``'s keyword
    arguments) and the algorithm's own ``options`` (:mod:`.options`, one class per registry row)."""

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
    options: Options | None = None  # the algorithm's own (.registry): None for the wall clock's master

    @property
    def row(self) -> registry.Algorithm:
        return registry.row(self.algorithm)

    @property
    def clock(self) -> str:
        """What runs it: ``wall`` (a master on a runner, or real workers) or ``node`` (the node clock)."""
        return "wall" if self.options is None else self.options.clock

    def with_workers(self, workers: int) -> DecompositionConfig:
        """This file with ``workers`` workers (the node clock's settings too: they count the
        workers the clock advances)."""
        return replace(self, workers=workers,
                       options=None if self.options is None else self.options.with_workers(workers))

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
    file's ``algorithms`` items, through :class:`base.config.Located`).  The common keys
    first, then the algorithm's row: its options read and check their own keys, and every
    other key is refused by name."""
    if not isinstance(data, dict):
        raise ConfigError([f"{src.name}: expected a mapping"])
    data = {**data, **overrides}
    check_keys(src, data, (), _all_keys())
    check_kind(src, data, "decomposition")
    algorithm = data.get("algorithm")
    row = registry.row(algorithm) if algorithm in registry.names() else None
    if row is None:
        src.problem(("algorithm",), f"unknown algorithm {algorithm!r}; known: {', '.join(registry.names())}")
    workers = get_int(src, data, ("workers",), 2, 1, 512) or 2
    sharing = get_bool(src, data, ("score_sharing",), True)
    min_split = get_int(src, data, ("min_split_depth",), 5, 1, 64) or 5
    if row is not None and "min_split_depth" not in data:
        min_split = row.options.MIN_SPLIT_DEPTH
    exchange = get_int(src, data, ("tt_exchange",), 1000, 0) or 0
    null_window = get_bool(src, data, ("null_window",), True)
    speculative = get_bool(src, data, ("speculative",), False)
    margin = get_int(src, data, ("margin",), 25, 0, 1000)
    margin = 25 if margin is None else margin
    shared = get_bool(src, data, ("shared_table",), False)
    cluster = as_mapping(src, data.get("cluster"), ("cluster",)) or {}
    check_keys(src, cluster, ("cluster",), {"scheduler"})
    scheduler = cluster.get("scheduler")
    if shared and scheduler:
        src.problem(("shared_table",), "a shared table needs a local cluster, not cluster.scheduler")
    threads = get_bool(src, data, ("threads",), False)
    if threads and scheduler:
        src.problem(("threads",), "search threads of one process need a local cluster, not cluster.scheduler")
    in_process = get_bool(src, data, ("in_process",), False)
    if in_process and scheduler:
        src.problem(("in_process",), "search threads of this process need no cluster.scheduler")
    whole_budget = get_bool(src, data, ("whole_budget",), False)
    node_clock = get_bool(src, data, ("node_clock",), False)
    common = Common(str(algorithm), workers, shared, bool(threads), bool(in_process), scheduler, node_clock,
                    min_split, "min_split_depth" in data, sharing, null_window, speculative, margin)
    options = None
    if row is not None:
        if row.shared_memory == "threads" and workers > 1 and not (threads or in_process):
            src.problem(("threads",), f"{row.name}'s split points are in the memory of one process: set threads: true")
        if row.shared_memory == "required" and not shared:
            src.problem(("shared_table",), f"{row.name} defers moves through a shared table: set shared_table: true")
        _refuse_others(src, data, row, common, {"speculative": speculative, "whole_budget": whole_budget,
                                                "node_clock": node_clock})
        options = row.options.read(src, data, common)
        on_node = node_clock or (options is not None and options.clock == "node")
        if (on_node or row.shared_memory == "never") and (shared or threads):
            src.problem(("shared_table" if shared else "threads",),
                        f"{algorithm} workers share no memory: no shared_table or threads")
        if on_node and row.in_this_process and scheduler:
            src.problem(("cluster",), f"{algorithm} runs its workers in this process (the node clock): "
                                      "no cluster.scheduler")
    search = as_mapping(src, data.get("search"), ("search",)) or {}
    check_keys(src, search, ("search",), SEARCH_KEYS)
    mask = str(search.get("mask", CATEGORIES))
    try:
        EvalSpec.parse(mask)
    except EvalSpecError as exc:
        src.problem(("search", "mask"), str(exc))
    searcher = SearcherConfig(mask, float(search.get("hash_mb", 16)),
                              get_bool(src, search, ("search", "null_move"), True),
                              get_bool(src, search, ("search", "lmr"), True),
                              get_bool(src, search, ("search", "futility"), True),
                              get_bool(src, search, ("search", "exact"), False),
                              defer=row is not None and row.defer)
    if src.problems:
        raise ConfigError(src.problems)
    return DecompositionConfig(name or str(data.get("name", Path(src.name).stem)), str(algorithm), workers, sharing,
                               min_split, exchange, searcher, scheduler, src.name, null_window,
                               speculative, margin, shared, bool(threads), bool(in_process),
                               whole_budget, options)


def _refuse_others(src: YamlSource | Located, data: dict, row: registry.Algorithm, common: Common,
                   switches: dict[str, bool]) -> None:
    """Name every key of another algorithm's options that ``row``'s do not accept (a switch
    only when it is on: any file may say ``speculative: false``)."""
    for key in data:
        if key in COMMON_KEYS or row.options.accepts(key, common) or (key in SWITCHES and not switches[key]):
            continue
        if common.node_clock and key in SplitClockConfig.NODE_KEYS:
            continue  # node_clock itself is refused: its slice and latency are not refused twice
        owners = registry.names(lambda r: key in r.options.KEYS)
        if not owners and key not in REFUSALS:
            continue  # no algorithm's: an unknown key, named so already
        sliced = registry.names(lambda r: r.clocks == (registry.NODE,) and r.node_regime == "sliced")
        template = REFUSALS.get(key, "only {owners} {has} a {key}")
        text = template.format(owners=", ".join(owners), owners_and=" and ".join(owners), sliced=", ".join(sliced),
                               has="has" if len(owners) == 1 else "have", key=key)
        always = key == "node_clock" and row.name in sliced
        src.problem((key,), f"{text}, not {row.name!r}" + (" (it always runs on the node clock)" if always else ""))
