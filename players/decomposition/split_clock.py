"""The thesis's master-worker algorithms (root splitting and its variants, PV splitting,
dynamic splitting) on the node clock (``docs/node-clock.md``): the clock around a policy and
the master's desk (:mod:`.node_clock`).

Why a module of its own: :mod:`.algorithms` drives these algorithms over Dask, where 4, 8
or 16 workers on two cores only give node counts.  Here the workers are the master tree's
(:mod:`.master_worker`: one job at a time, a table of their own, ``Abort`` and ``Rewindow``
at slice boundaries, restart from the table) and the master is a *policy*
(:mod:`.split_policies`): a generator that submits jobs, changes their windows, aborts them
and yields :class:`Wait` until one of the jobs it names answers.  This module runs the
clock around it, with the master tree's conventions:

* the workers advance in slices of ``slice`` nodes; the master acts only at slice
  boundaries; a message sent at the end of slice s (a worker's answer) or at the boundary
  before slice s + 1 (the master's) is delivered at the start of slice s + ``latency``;
* a job waits in the master's queue until a worker is idle (first come, first served; a
  path goes back to the worker that searched it last if that one is idle: its table holds
  the subtree); a worker is idle from the moment the master knows its answer, or sends it
  an abort;
* T_k = the slices until the master knows the answer × ``slice``; N_k = every worker's
  nodes; messages: jobs, results (a root job's: one per iteration), aborts, new windows.

The answers the master receives are ordered by (boundary, worker): the run is a pure function
of (position, config, the workers' tables), whatever order a slice runs the workers in.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from players.position import Position

from .master_worker import MAX_DEPTH, InProcessTeam, Message, SliceReport
from .node_clock import Answer, Desk, Wait
from .options import SplitClockConfig
from .result import Messages, SlicedResult

SplitMessages = Messages  # the names the split results had
SplitClockResult = SlicedResult
from .split_policies import MasterPolicy

__all__ = ["Answer", "Desk", "SplitClockConfig", "SplitClockResult", "SplitMessages", "Wait", "run_split_clock"]


def run_split_clock(team: InProcessTeam, config: SplitClockConfig, fen: str, moves: tuple[str, ...] = (),
                    nodes: int | None = None, depth: int | None = None, searchmoves: tuple[str, ...] = (),
                    stopped: Callable[[], bool] = lambda: False,
                    order: Sequence[int] | None = None) -> SlicedResult:
    """One move: iterations until ``depth`` or until the clock reaches ``nodes`` (per worker:
    k × that in all, at most), the last completed iteration answering.  ``stopped()`` (a
    deadline) ends it at a slice boundary; ``order`` is the order the workers run in within a
    slice (tests: it changes nothing)."""
    if nodes is None and depth is None:
        raise ValueError(f"{config.algorithm} on the node clock needs a node budget per worker or a depth")
    if len(team.workers) != config.workers:
        raise ValueError(f"{config.algorithm}: {len(team.workers)} workers in the team, {config.workers} configured")
    start = time.perf_counter()
    k = config.workers
    root = Position.from_fen(fen, moves)
    desk = Desk(k, min(depth or MAX_DEPTH, MAX_DEPTH), start)
    # ValueError here: an illegal searchmove, or no legal move at all
    policy = MasterPolicy(desk, config, team.master, root, tuple(searchmoves), team.options.exact)
    team.begin(fen, moves, searchmoves)
    master = policy.iterate()
    waiting: Wait | None = next(master)
    latency = config.latency
    to_master: dict[int, list[SliceReport]] = {}
    to_workers: dict[int, dict[int, list[Message]]] = {}
    worker_nodes = [0] * k
    overruns = results = 0
    t = 0
    while True:
        desk.nodes = sum(worker_nodes)
        for report in to_master.pop(t, []):
            desk.receive(report)
        while waiting is not None and (answer := desk.take(waiting)) is not None:
            try:
                waiting = master.send(answer)
            except StopIteration:
                waiting = None
        if waiting is None:
            desk.finished = True
        else:
            desk.dispatch()
            if not desk.running and not desk.inbox:
                raise RuntimeError(f"{config.algorithm}: the master waits for jobs {sorted(waiting.jobs)} that no "
                                   f"worker searches (depth {desk.best[2]} done)")
        for w, m in desk.outbox:
            to_workers.setdefault(t + latency - 1, {}).setdefault(w, []).append(m)
        desk.outbox = []
        if desk.finished or stopped() or (nodes is not None and t * config.slice >= nodes):
            break
        budget = config.slice if nodes is None else min(config.slice, nodes - t * config.slice)
        for r in team.run_slice(to_workers.pop(t, {}), budget, order):
            worker_nodes[r.worker] += r.nodes
            overruns += r.overrun
            results += (r.result is not None) + len(r.iterations)
            if r.result is not None or r.iterations:
                to_master.setdefault(t + latency, []).append(r)
        t += 1
    master.close()
    move, score, done, line = desk.best
    c = desk.counts
    return SlicedResult(config.algorithm, move, score, done, line, sum(worker_nodes), tuple(worker_nodes),
                        Messages(c.jobs, results, c.aborts, c.windows), tuple(desk.iterations),
                        time.perf_counter() - start, slices=t, slice_nodes=config.slice, overruns=overruns)
