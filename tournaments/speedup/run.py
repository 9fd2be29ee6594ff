"""``concilio speedup CONFIG``: the thesis's measurements of parallel search.

The sequential search and every algorithm search each position at a fixed depth,
from fresh tables.  Per algorithm and worker count: T (seconds), N (nodes),
S = T1/Tn, E = S/n, SO = Nn/N1 − 1, VR = N/T, S_vr = VRn/VR1, the production factor
(share of the workers' time spent searching), messages, and how many answers equal
the sequential search's score.  With more workers than cores only N and SO mean
anything (the workers share the cores): those rows are marked "nodes only".  The
time-based rows of more than one worker are compared with a second sequential run
made just before them, since a shared machine's speed drifts over minutes.

    name: speedup
    positions: data:suites/bratko-kopec.epd   # data: is the packaged data; other paths are relative to this file
    depth: 6
    workers: [1, 2]            # time-based rows
    node_workers: [4, 8]       # oversubscribed: node-based rows (SO)
    clock_workers: [1, 2, 4, 8, 16]   # node-clock rows (``.nodes``) of the algorithms that have them
                                      # (aspiration, master_tree, fresh_cluster; splitting with
                                      # node_clock: true)
    search: {exact: true, null_move: false, lmr: false, futility: false}
    algorithms:
      - {name: root-split, algorithm: root_split, score_sharing: false}
      - {name: pv-split+sharing, algorithm: pv_split}
"""
from __future__ import annotations

import csv
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from base.cluster import ClusterError, Remote
from base.config import ConfigError, Located, YamlSource, load_checked
from base.runner import Runner
from base.resources import resolve_data_reference
from players.decomposition.algorithms import Master, ParallelResult, iterate
from players.decomposition.config import DecompositionConfig, decomposition_from
from players.decomposition.options import SearcherConfig
from players.decomposition.runner import drop_prefix, latency, new_table, open_runner, release_table
from players.limits import Limit
from tournaments.records.epd import read_suite

from .nodes import MAX_CLOCK_WORKERS, NodeRow, clock_only, markdown_table, run_node_clock


@dataclass
class Row:
    algorithm: str
    workers: int
    time_based: bool
    T: float
    N: int
    S: float
    E: float
    SO: float
    VR: float
    S_vr: float
    production: float
    messages: int
    agree: int
    positions: int


def load_speedup(path: str | Path) -> tuple[dict, list[DecompositionConfig]]:
    """Read and validate a speedup file: its settings and the decomposition variants it compares."""
    return load_checked(path, None, "decomposition", _parse)


def _parse(src: YamlSource, folder: Path, given: str) -> tuple[dict, list[DecompositionConfig]] | None:
    p = Path(src.name)
    data = src.data
    if not isinstance(data, dict) or "algorithms" not in data:
        raise ConfigError([f"{p}: expected a mapping with 'algorithms'"])
    search = data.get("search", {}) or {}
    variants = []
    for i, item in enumerate(data["algorithms"]):
        if not isinstance(item, dict):
            src.problem(("algorithms", i), "expected a mapping (name, algorithm, options)")
            continue
        fields = {k: v for k, v in item.items() if k != "name"}
        name = str(item.get("name", item.get("algorithm")))
        try:  # every variant searches with the file's search options
            variants.append(decomposition_from(Located(src, ("algorithms", i)), {**fields, "search": search}, name))
        except ConfigError:
            pass  # the problems stay in src: all of them are raised together below
    if src.problems:
        raise ConfigError(src.problems)
    clock_workers = data.get("clock_workers", []) or []
    if not isinstance(clock_workers, list) or not all(isinstance(k, int) and 1 <= k <= MAX_CLOCK_WORKERS
                                                      for k in clock_workers):
        raise ConfigError([f"{p}: clock_workers: expected a list of worker counts from 1 to {MAX_CLOCK_WORKERS}"])
    named = str(data.get("positions", "data:suites/bratko-kopec.epd"))
    positions = resolve_data_reference(named, folder)
    if positions is None:
        raise ConfigError([f"{p}: positions: no such file: {named}"])
    settings = {"positions": positions, "depth": int(data.get("depth", 6)), "workers": list(data.get("workers", [1, 2])),
                "node_workers": list(data.get("node_workers", [4, 8])),
                "clock_workers": list(clock_workers), "limit": data.get("limit"),
                "search": search, "name": data.get("name", p.stem)}
    return settings, variants


def run_speedup(settings: dict, variants: list[DecompositionConfig], out=print,
                remote: Remote | None = None) -> list[Row | NodeRow]:
    """The time-based (and oversubscribed) rows, then the node-clock rows (``.nodes``).  With
    ``remote`` each parallel search's n workers are n threads of that scheduler's workers (the
    sequential reference and the node-clock rows run here)."""
    if remote is not None:
        _check_remote(variants, remote)
    suite = read_suite(settings["positions"], labelled=False)  # the positions, not their answers
    fens = [p.fen for p in suite.positions][: settings["limit"] or None]
    depth = settings["depth"]
    reference: SearcherConfig = replace(variants[0].search, defer=False, table="")
    t1, n1, seq_scores = sequential_reference(reference, fens, depth)
    vr1 = n1 / t1
    out(f"sequential: T {t1:.2f} s  N {n1}  VR {vr1:,.0f} nodes/s  ({len(fens)} positions, depth {depth})")
    rows: list[Row] = []
    cores = len(os.sched_getaffinity(0))
    counts = sorted(set(settings["workers"]) | set(settings["node_workers"]))
    for n in counts:
        # One runner per kind of worker the variants ask for: processes, or threads of one process.
        runners: dict[bool, object] = {}
        try:
            for threads in sorted({v.threads for v in variants}) if n > 1 else [False]:
                runners[threads] = runner = open_runner(n, threads=threads) if remote is None or n <= 1 else \
                    _on_scheduler(remote, n, out)
                if n > 1:
                    job_rt, bcast = latency(runner)
                    kind = "threads of one process" if threads else "workers"
                    out(f"{n} {kind}: job round trip {1000 * job_rt:.1f} ms, bound broadcast {1000 * bcast:.1f} ms")
            if 1 < n <= cores:
                # A shared machine's speed drifts by 10-20 % over minutes: time-based rows are compared
                # with a sequential run made just before them (the idle cluster waits meanwhile).
                t1, _, _ = sequential_reference(reference, fens, depth)
                vr1 = n1 / t1
                out(f"sequential again: T {t1:.2f} s  VR {vr1:,.0f} nodes/s  (the reference of the {n}-worker rows)")
            for v in (v for v in variants if not clock_only(v)):
                runner = runners[v.threads and n > 1]
                T = N = busy = 0.0
                agree = messages = 0
                for i, fen in enumerate(fens):
                    runner.messages = 0
                    r, seconds = timed_search(runner, v, v.search, fen, depth, f"{v.name}-{n}-{i}-{time.time_ns()}",
                                              f"concilio-{os.getpid()}-{i}-{n}")
                    T += seconds
                    N += r.tally.nodes
                    busy += r.tally.busy
                    messages += r.messages
                    agree += r.score == seq_scores[i]
                S = t1 / T
                row = Row(v.name, n, n <= cores, T, int(N), S, S / n, N / n1 - 1, N / T, (N / T) / vr1,
                          busy / (T * n), messages, agree, len(fens))
                rows.append(row)
                out(format_row(row))
        finally:
            for runner in runners.values():
                runner.close()
    if settings.get("clock_workers"):
        out(f"node clock: sequential N_1 {n1}; T_k in nodes (docs/design/node-clock.md)")
        clock_rows = run_node_clock(settings, variants, fens, n1, seq_scores, out)
        for line in markdown_table(clock_rows):
            out(line)
        return rows + clock_rows
    return rows


def _check_remote(variants: list[DecompositionConfig], remote: Remote) -> None:
    """Variants whose workers must share this machine's memory cannot search on a scheduler."""
    here = [v.name for v in variants if (v.shared_table or v.threads) and not clock_only(v)]
    if here:
        raise ConfigError([f"{', '.join(here)}: a shared table or the threads of one process need the workers on "
                           f"this machine, not on the scheduler {remote.scheduler}"])


def _on_scheduler(remote: Remote, n: int, out) -> Runner:
    """n slots on the scheduler's workers, once n threads have joined; each loads the search first."""
    from base.runner.dask import START_TIMEOUT_S, DaskRunner
    from players.decomposition.worker import warm
    runner = DaskRunner.start(None, remote.scheduler, warm=warm, min_workers=1, wanted=n, slots=n, tell=out)
    deadline = time.monotonic() + START_TIMEOUT_S
    while len(runner.live()) < n and time.monotonic() < deadline:  # a worker that joins meanwhile gets its slots
        time.sleep(0.5)
    if len(runner.live()) < n:
        runner.close()
        raise ClusterError(f"the scheduler {remote.scheduler} has {runner.workers} worker thread(s), {n} wanted")
    out(f"{n} workers on the Dask cluster at {remote.scheduler}")
    return runner


def timed_search(runner, variant: DecompositionConfig, options: SearcherConfig, fen: str, depth: int, key: str,
                 table: str) -> tuple[ParallelResult, float]:
    """One position searched by one algorithm, and the seconds it took: a fresh shared table
    (named ``table``) when the variant asks, as the sequential search has a fresh one; the
    workers' searchers and the table are freed afterwards, outside the timing."""
    if variant.shared_table:
        options = replace(options, table=new_table(runner, table, options.hash_mb))
    try:
        master = Master(runner, options, key, **variant.master_options())
        started = time.perf_counter()
        result = iterate(master, variant.algorithm, fen, (), depth, variant.tt_exchange)
        seconds = time.perf_counter() - started
    finally:  # after a Ctrl-C too: a shared table's name would outlive the run in /dev/shm
        drop_prefix(runner, key)
        if options.table:
            release_table(runner, options.table)
    return result, seconds


def sequential_reference(options: SearcherConfig, fens: list[str], depth: int) -> tuple[float, int, list[int]]:
    """T1, N1 and the scores of the sequential search: one searcher, a fresh table per position."""
    scores, t1, n1 = [], 0.0, 0
    for fen in fens:
        searcher = options.make_searcher()
        started = time.perf_counter()
        r = searcher.search(fen, Limit(depth=depth))
        t1 += time.perf_counter() - started
        n1 += r.nodes
        scores.append(r.score_cp)
    return t1, n1, scores


HEAD = f"{'algorithm':24s} {'n':>2s} {'T s':>7s} {'N':>10s} {'S':>5s} {'E':>5s} {'SO':>6s} {'VR':>9s} " \
       f"{'S_vr':>5s} {'prod':>5s} {'msgs':>6s} {'=seq':>6s}"


def format_row(r: Row) -> str:
    mark = "" if r.time_based else "  (nodes only: more workers than cores)"
    return (f"{r.algorithm:24s} {r.workers:2d} {r.T:7.2f} {r.N:10d} {r.S:5.2f} {r.E:5.2f} {r.SO:6.3f} "
            f"{r.VR:9,.0f} {r.S_vr:5.2f} {r.production:5.2f} {r.messages:6d} {r.agree:3d}/{r.positions}{mark}")


def write_csv(rows: list[Row | NodeRow], path: Path) -> None:
    """The time-based rows to ``path``, the node-clock rows (if any) beside it, ``<stem>-nodes.csv``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for kind, where in ((Row, path), (NodeRow, path.with_name(f"{path.stem}-nodes{path.suffix}"))):
        chosen = [r for r in rows if isinstance(r, kind)]
        if kind is NodeRow and not chosen:
            continue
        with where.open("w", newline="") as handle:
            w = csv.writer(handle)
            w.writerow(list(kind.__dataclass_fields__))
            for r in chosen:
                w.writerow([getattr(r, f) for f in kind.__dataclass_fields__])
