"""The thesis's master-worker algorithms (root splitting and its variants, PV splitting,
dynamic splitting) on the node clock (``docs/design/node-clock.md``): the clock around a policy and
the master's desk (:mod:`.node_clock`).

Why a module of its own: :mod:`.algorithms` drives these algorithms over Dask, where 4, 8
or 16 workers on two cores only give node counts.  Here the workers are the master tree's
(:mod:`.master_worker`: one job at a time, a table of their own, ``Abort`` and ``Rewindow``
at slice boundaries, restart from the table) and the master is a *policy*
(:mod:`.split_policies`): a generator that submits jobs, changes their windows, aborts them
and yields :class:`Wait` until one of the jobs it names answers.  This module runs it on the
sliced clock (:func:`.node_clock.run_slices`), with the master tree's conventions (slices,
latency, T_k and N_k as :mod:`.master_clock` states them; messages: jobs, results, aborts, new
windows).  A job waits in the master's queue until a worker is idle (first come, first served;
a path goes back to the worker that searched it last if that one is idle: its table holds the
subtree); a worker is idle from the moment the master knows its answer, or sends it an abort.

The answers the master receives are ordered by (boundary, worker): the run is a pure function
of (position, config, the workers' tables), whatever order a slice runs the workers in.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from players.position import Position

from .master_worker import MAX_DEPTH, Message, SliceReport, Team
from .node_clock import Answer, Desk, Wait, run_slices
from .options import SplitClockConfig
from .registry import ClockedSearch
from .result import Messages, ParallelResult

from .split_policies import MasterPolicy

__all__ = ["Answer", "Desk", "SplitClockConfig", "Wait", "run_split_clock"]


class _Split:
    """The splitting master at a boundary: the answers that arrived to the policy, one at a
    time until it waits for one that has not, then its jobs to the idle workers."""

    active = None  # every worker runs every slice

    def __init__(self, desk: Desk, policy: MasterPolicy, algorithm: str) -> None:
        self.desk = desk
        self.algorithm = algorithm
        self.policy = policy.iterate()
        self.waiting: Wait | None = next(self.policy)
        self.results = 0  # results and root iterations the workers sent

    @property
    def finished(self) -> bool:
        return self.desk.finished

    def sends(self, report: SliceReport) -> bool:
        self.results += (report.result is not None) + len(report.iterations)
        return report.result is not None or bool(report.iterations)

    def boundary(self, reports: Sequence[SliceReport], nodes: int) -> list[tuple[int, Message]]:
        desk = self.desk
        desk.nodes = nodes
        for report in reports:
            desk.receive(report)
        while self.waiting is not None and (answer := desk.take(self.waiting)) is not None:
            try:
                self.waiting = self.policy.send(answer)
            except StopIteration:
                self.waiting = None
        if self.waiting is None:
            desk.finished = True
        else:
            desk.dispatch()
            if not desk.running and not desk.inbox:
                raise RuntimeError(f"{self.algorithm}: the master waits for jobs {sorted(self.waiting.jobs)} that no "
                                   f"worker searches (depth {desk.best[2]} done)")
        out, desk.outbox = desk.outbox, []
        return out


def run_split_clock(team: Team, config: SplitClockConfig, fen: str, moves: tuple[str, ...] = (),
                    nodes: int | None = None, depth: int | None = None, searchmoves: tuple[str, ...] = (),
                    stopped: Callable[[], bool] = lambda: False,
                    order: Sequence[int] | None = None) -> ParallelResult:
    """One move of root, PV or dynamic splitting, its budget and its end as the master tree's
    (:func:`.master_clock.run_master_tree`)."""
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
    split = _Split(desk, policy, config.algorithm)
    t, worker_nodes, overruns = run_slices(team, split, k, config.slice, config.latency, nodes, stopped, order)
    split.policy.close()
    move, score, done, line = desk.best
    c = desk.counts
    return ParallelResult(config.algorithm, move, score, done, line, sum(worker_nodes), tuple(worker_nodes),
                          Messages(c.jobs, split.results, c.aborts, c.windows), tuple(desk.iterations),
                          time.perf_counter() - start, slices=t, slice_nodes=config.slice, overruns=overruns)


def run(team: Team, options: SplitClockConfig, s: ClockedSearch) -> ParallelResult:
    """The registry's entry: one move of a player (:class:`.registry.ClockedSearch`)."""
    return run_split_clock(team, options, s.fen, s.moves, s.nodes, s.depth, s.searchmoves, s.stopped)
