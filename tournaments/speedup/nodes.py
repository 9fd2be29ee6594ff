"""Node-clock rows of ``concilio speedup`` (``docs/design/node-clock.md``): algorithms whose
workers are independent within an iteration run their k workers one after another in this
process and report a :class:`players.decomposition.result.NodeClock`, so that 2, 4, 8
or 16 workers can be measured on two cores.  Time is counted in nodes:

* T_k = the clock's nodes until the answer (the iterations' sum); T_1 = N_1, the
  sequential search's nodes;
* S = N_1 / T_k, E = S / k, SO = N_k / N_1 − 1 (N_k: the nodes all workers searched until
  they were stopped), production factor = N_k / (k × T_k), messages (jobs, answers, stops);
* S_own = T_1' / T_k against the same algorithm with one worker (for parallel aspiration:
  plain full-window alpha-beta with iterative deepening, Baudet's baseline), where the
  file's ``clock_workers`` include 1.

Jurčovič's master tree (``master_tree``, and its other policies ``tree_split`` and
``mandatory_first``) is driven slice by slice (``players.decomposition.
master_clock``): its T_k is the slices until the master knows the answer × the slice's nodes,
its messages are jobs, results, aborts, new windows and table messages, and its overruns
are jobs run past a slice (``players.decomposition.master_worker``).  Every position starts
from fresh tables, the workers' and the master's.

Root splitting (and its variants), PV splitting and dynamic splitting have node-clock rows
where the file's item says ``node_clock: true`` (and then only those: the item *is* the
clocked algorithm): the same workers and clock as the master tree, the thesis's master as a
policy (``players.decomposition.split_clock``, ``.split_policies``); messages are jobs,
results, aborts and new windows (score sharing).

The root policies (``uidpabs``, Devesa's ``mixed``; ``players.decomposition.uidpabs``, ``.mixed``) run
their workers one after another without slices: T_k is read off the workers' node counts
(UIDPABS: the shared iterations 1-2 + the slowest worker's own nodes; mixed: the ordering
search + the end of the last list-scheduled job), messages are jobs and answers, and
``fallbacks`` count re-searches after a window failed.

The fresh lazy cluster (``fresh_cluster``; ``players.decomposition.fresh_cluster``) runs its
k workers as threads of this process, never restarted, meeting every ``batch`` nodes: T_k is
the checkpoint at which every worker was done (the vote needs every answer), messages are its
exchange's, and with one worker N is the plain searcher's nodes to the depth.

The speedup file's ``clock_workers`` (up to 16) name these rows; ``node_workers`` are another
thing: real Dask workers oversubscribing the cores, of which only N and SO mean anything.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from base.runner import InlineRunner
from players.decomposition.algorithms import Master, iterate
from players.decomposition.config import DecompositionConfig
from players.decomposition.registry import NODE, ClockedSearch
from players.decomposition.result import NodeClock
from players.decomposition.runner import drop_prefix
from players.limits import Limit

MAX_CLOCK_WORKERS = 16


def on_clock(variant: DecompositionConfig) -> bool:
    """Whether the variant has node-clock rows: it runs on the node clock (its options say so),
    or its row's wall-clock master does on a runner without a client (parallel aspiration)."""
    return variant.clock == NODE or variant.row.node_master


def clock_only(variant: DecompositionConfig) -> bool:
    """Whether the variant has node-clock rows only (no time-based or oversubscribed ones): its
    options run it on the node clock, where no wall-clock master can."""
    return variant.clock == NODE


@dataclass
class NodeRow:
    algorithm: str
    workers: int
    T: int  # nodes until the answer (the node clock)
    N: int  # nodes all workers searched
    S: float
    E: float
    SO: float
    production: float
    messages: int
    agree: int
    positions: int
    S_own: float | None = None  # against the same algorithm with one worker
    overruns: int = 0
    fallbacks: int = 0
    seconds: float = 0.0  # real time of the in-process run (all workers one after another)


def node_row(algorithm: str, k: int, n1: int, clocks: list[NodeClock], agree: int, seconds: float = 0.0,
             own_t1: int | None = None) -> NodeRow:
    """The thesis's metrics with nodes for seconds, summed over the positions' clocks."""
    T = sum(c.time for c in clocks)
    N = sum(c.nodes for c in clocks)
    S = n1 / T
    return NodeRow(algorithm, k, T, N, S, S / k, N / n1 - 1, N / (k * T), sum(c.messages for c in clocks), agree,
                   len(clocks), None if own_t1 is None else own_t1 / T, sum(c.overruns for c in clocks),
                   sum(c.fallbacks for c in clocks), seconds)


def run_node_clock(settings: dict, variants: list[DecompositionConfig], fens: list[str], n1: int,
                   seq_scores: list[int], out=print) -> list[NodeRow]:
    """The node-clock rows: every clock algorithm at every ``clock_workers`` count."""
    rows: list[NodeRow] = []
    own: dict[str, int] = {}
    for v in (v for v in variants if on_clock(v)):
        for k in settings.get("clock_workers", []):
            runner = InlineRunner()
            runner.workers = k  # k workers, run one after another in this process
            clocks, agree = [], 0
            started = time.perf_counter()
            for i, fen in enumerate(fens):
                if v.row.node_master:  # the wall clock's master, its runner without a client
                    key = f"{v.name}-clock{k}-{i}-{time.time_ns()}"
                    try:
                        master = Master(runner, v.search, key, **v.master_options())
                        r = iterate(master, v.algorithm, fen, (), settings["depth"], v.tt_exchange)
                    finally:
                        drop_prefix(runner, key)
                    score, clock = r.score, r.clock
                else:
                    score, clock = node_clock(v, k, fen, settings["depth"])
                clocks.append(clock)
                agree += score == seq_scores[i]
            if k == 1:
                own[v.name] = sum(c.time for c in clocks)
            row = node_row(v.name, k, n1, clocks, agree, time.perf_counter() - started, own.get(v.name))
            rows.append(row)
            out(format_node_row(row))
    return rows


def node_clock(variant: DecompositionConfig, k: int, fen: str, depth: int) -> tuple[int, NodeClock]:
    """One position searched to ``depth`` on ``k`` node-clock workers from fresh tables, the
    master's too, through the algorithm's registry row (its ``team`` in this process, its
    ``run``): its score and its clock (``ParallelResult.clock``).  The options are their
    fixed-depth form (``Options.for_fixed_depth``: the lazy cluster runs an iteration that
    restarted four times to its end, as an exact search's table carries little progress from
    one restart to the next)."""
    v = replace(variant.with_workers(k), in_process=True)
    found = v.row
    team = found.team.load()(v)
    search = ClockedSearch(fen, (), None, depth, (), lambda: False, Limit(depth=depth))
    try:
        r = found.run.load()(team, v.options.for_fixed_depth(), search)
    finally:
        team.close()
    return r.score, r.clock


NODE_HEAD = f"{'algorithm (node clock)':24s} {'k':>2s} {'T nodes':>10s} {'N':>10s} {'S':>5s} {'E':>5s} " \
            f"{'SO':>6s} {'prod':>5s} {'S_own':>5s} {'msgs':>6s} {'=seq':>6s}"


def format_node_row(r: NodeRow) -> str:
    own = "    -" if r.S_own is None else f"{r.S_own:5.2f}"
    notes = (f"  ({r.overruns} overruns)" if r.overruns else "") + (f"  ({r.fallbacks} fallbacks)" if r.fallbacks
                                                                     else "")
    return (f"{r.algorithm:24s} {r.workers:2d} {r.T:10d} {r.N:10d} {r.S:5.2f} {r.E:5.2f} {r.SO:6.3f} "
            f"{r.production:5.2f} {own} {r.messages:6d} {r.agree:3d}/{r.positions}{notes}")


def markdown_table(rows: list[NodeRow]) -> list[str]:
    """The rows as a Markdown table (``docs/results/parallel-search.md``)."""
    head = "| algorithm | k | T_k (nodes) | N_k | S = N_1/T_k | E | SO | production | S_own | messages | = seq |"
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        own = "–" if r.S_own is None else f"{r.S_own:.2f}"
        lines.append(f"| {r.algorithm} | {r.workers} | {r.T:,} | {r.N:,} | {r.S:.2f} | {r.E:.2f} | {r.SO:.3f} | "
                     f"{r.production:.2f} | {own} | {r.messages:,} | {r.agree}/{r.positions} |")
    return lines
