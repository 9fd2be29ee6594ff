"""Decomposition files (``configs/decomposition/*.yaml``)::

    name: pv-split
    algorithm: pv_split        # root_split | peer | pv_split | dynamic_split | lazy_smp | abdada | aspiration | lazy_cluster
    workers: 2                 # a local cluster of this many single-threaded workers
    score_sharing: true        # root/PV splitting: refresh running jobs' bounds
    min_split_depth: 5         # a node (or a whole iteration) shallower than this is one job
    null_window: true          # splitting: younger brothers probed with a null window first (PVS)
    speculative: false         # root splitting: younger brothers do not wait for the eldest ...
    margin: 25                 # ... and are probed at the previous iteration's score less this;
                               # aspiration: the step of the windows around the previous score
    shared_table: false        # one table in shared memory for all workers (a local cluster only;
                               # abdada needs it)
    threads: false             # the workers are search threads of one worker process (a local
                               # cluster only): a shared table is then that process's memory
    in_process: false          # the workers are search threads of this process, no Dask at all
                               # (an ensemble instance that is a parallel search; a match's game worker)
    tt_exchange: 1000          # lazy SMP: deepest entries each worker shares per iteration (0: none)
    # lazy_cluster only (lockstep mode, players/decomposition/lockstep.py):
    slice: 2000                # nodes a worker searches between two exchanges
    exchange_depth: 4          # entries at least this deep are sent to the other workers ...
    exchange_size: 256         # ... at most this many per message, deepest first (0: no exchange)
    latency: 1                 # slices from sending to storing in the receivers' tables (>= 1)
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
from .algorithms import ALGORITHMS
from .jobs import SearcherConfig
from .lockstep import LockstepConfig

TOP_KEYS = {"kind", "name", "description", "algorithm", "workers", "score_sharing", "min_split_depth", "tt_exchange",
            "null_window", "speculative", "margin", "shared_table", "threads", "in_process", "search", "cluster",
            "slice", "exchange_depth", "exchange_size", "latency"}
LOCKSTEP_KEYS = ("slice", "exchange_depth", "exchange_size", "latency")
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
    lockstep: LockstepConfig | None = None  # lazy_cluster: the node clock's settings

    def with_workers(self, workers: int) -> DecompositionConfig:
        """This file with ``workers`` workers (the lockstep settings too: they count the workers
        the node clock advances)."""
        lockstep = None if self.lockstep is None else replace(self.lockstep, workers=workers)
        return replace(self, workers=workers, lockstep=lockstep)

    def master_options(self) -> dict:
        """The keyword arguments of ``Master`` this file sets."""
        return {"score_sharing": self.score_sharing, "min_split_depth": self.min_split_depth,
                "null_window": self.null_window, "speculative": self.speculative, "margin": self.margin}


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
    if algorithm == "abdada" and not shared:
        src.problem(("shared_table",), "abdada defers moves through a shared table: set shared_table: true")
    if speculative and algorithm != "root_split":
        src.problem(("speculative",), f"only root_split has a speculative mode, not {algorithm!r}")
    lockstep = None
    if algorithm == "lazy_cluster":
        if shared or threads:
            src.problem(("shared_table" if shared else "threads",),
                        "lazy_cluster workers share no memory: no shared_table or threads")
        d = LockstepConfig()
        lockstep = LockstepConfig(workers, get_int(src, data, ("slice",), d.slice, 1) or d.slice,
                                  get_int(src, data, ("exchange_depth",), d.exchange_depth, 0, 255),
                                  get_int(src, data, ("exchange_size",), d.exchange_size, 0, 1 << 20),
                                  get_int(src, data, ("latency",), d.latency, 1, 1000) or d.latency)
    else:
        for key in LOCKSTEP_KEYS:
            if key in data:
                src.problem((key,), f"only lazy_cluster has a lockstep {key}, not {algorithm!r}")
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
                               lockstep)
