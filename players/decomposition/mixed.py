"""Devesa's "mixed" and "exhaustive" strategies for GNU Chess on Condor
(Devesa Gómez, *Ultra Deep Blue*, Universitat Autònoma de Barcelona, 2008, sections 3 and 4),
as root-splitting policies on the node clock.

**What Devesa did.**  *Exhaustive* (section 3): no iterative deepening at all; every root move
is one Condor job searched to the full depth, all submitted at once with the root's initial
window (no bound: "the second child does not know the alpha-beta values of the first"), and
the best of the answers is the move.  *Mixed* (section 4): GNU Chess's own iterative
deepening to depth 7 orders the tree (``iterateMixt``), then one search at the full depth in
which the first (free machines div 30) + 1 root moves have *their children* sent to Condor,
all at once, and the other root moves are searched on the player's machine afterwards "with
the alpha-beta bound the first batch gave", where "massive cut-offs are expected".  In both,
every job of a batch gets the same window, the root's (``RootAlpha``/``RootBeta``, GNU Chess's
aspiration window after the ordering iterations): the jobs are written out and submitted
before any answer is read, so no job ever gets the best score so far.

**Mapping here** (the root-move version of the brief; the grandchildren split is not
implemented, see ``docs/results/parallel-search.md``).  A sequential search (the engine's own iterative
deepening and aspiration) to ``order_depth`` on worker 0 orders the root moves (best first,
then the moves that were best at some iteration, then the static order) and gives the score
V; its nodes are charged to T_k.  Then one job per root move, searched to the full depth from
the root (so check extensions are the sequential search's), is handed to the next idle worker
in that order (list scheduling on the clock: the worker whose clock is lowest, the lower index
on ties), every job with Devesa's one window, (V − margin, V + margin), fixed at hand-out of
the batch.  If the best answer falls outside it, the failing moves are searched again as a
second batch once the master has every answer (from the last job's end): after a fail high
the moves that failed high in (v − 1, +INF), after a fail low every move in (−INF, best + 1),
so the root's value is exact in exact mode.  ``order_depth: 0`` is the *exhaustive* player:
no ordering search (the static order), the full window, no re-search.  Each worker keeps its
own table from job to job (a Condor job started a fresh process: tables are warmer here).

**Time**: T_k = the ordering search + the end of the last job (of the re-search batch, if
any); under a node budget N per worker (games) the clock ends at N: rounds at depths
order_depth + 1, + 2, … (each ordered by the last round's answers and windowed around its
value) run until one no longer fits, and the last complete round answers.
"""
from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from players.core.search import INF
from players.result import IterationInfo

from .master_worker import RootSearch, Team, completed, mate_confirmed
from .options import RootPolicyConfig
from .registry import ClockedSearch
from .result import ParallelResult


@dataclass(frozen=True)
class Job:
    """Search the root move ``move`` to the round's depth in (alpha, beta)."""

    move: str
    alpha: int
    beta: int


@dataclass(frozen=True)
class Scheduled:
    """A job as the clock ran it."""

    job: Job
    worker: int
    start: int
    result: RootSearch

    @property
    def end(self) -> int:
        return self.start + self.result.nodes


def list_schedule(team: Team, jobs: Sequence[Job], depth: int, free: list[int], budget: int = 0,
                  stopped: Callable[[], bool] | None = None) -> tuple[list[Scheduled], bool]:
    """Hand ``jobs`` in order to the worker idle first (``free``: each worker's clock, updated
    in place; ties to the lower index).  Returns what ran and whether every job was answered
    (a job stopped by the budget ``budget`` — the clock's end — or by ``stopped()`` ends it)."""
    idle = [(t, w) for w, t in enumerate(free)]
    heapq.heapify(idle)
    ran: list[Scheduled] = []
    for job in jobs:
        t, w = heapq.heappop(idle)
        if budget and t >= budget:
            return ran, False
        worker = team.workers[w]
        worker.restrict([job.move])
        r = worker.search(depth, job.alpha, job.beta, budget - t if budget else 0, stopped)
        ran.append(Scheduled(job, w, t, r))
        free[w] = t + r.nodes
        if r.stopped:
            return ran, False
        heapq.heappush(idle, (free[w], w))
    return ran, True


@dataclass(frozen=True)
class RoundAnswer:
    """The root's value from a round's answers (after any re-search)."""

    score: int
    move: str
    pv: tuple[str, ...]
    exact: bool
    ranking: tuple[str, ...] = ()  # the root moves by their answers, best first (ties in the round's order)
    worker: int = 0  # whose job answers


def best_of(answers: Sequence[Scheduled]) -> Scheduled:
    """The best answer; ties to the earlier job (the sequential search keeps the first)."""
    return max(reversed(answers), key=lambda s: s.result.score)


def research_jobs(answers: Sequence[Scheduled]) -> list[Job]:
    """The second batch after the round's best fell outside the window (module docstring)."""
    top = best_of(answers).result
    if top.exact or top.alpha <= -INF and top.score <= top.alpha or top.beta >= INF and top.score >= top.beta:
        return []
    if top.score >= top.beta:  # fail high: the moves that failed high, from their lower bound up
        return [Job(s.job.move, s.result.score - 1, INF) for s in answers if s.result.score >= s.result.beta]
    return [Job(s.job.move, -INF, top.score + 1) for s in answers]  # all failed low


@dataclass
class _Move:
    """What a move of the mixed strategy has done so far."""

    free: list[int]
    spent: list[int]
    messages: int = 0
    researches: int = 0
    fallbacks: int = 0


def _round(team: Team, state: _Move, order: Sequence[str], depth: int, window: tuple[int, int], budget: int,
           stopped: Callable[[], bool] | None, schedule: list) -> RoundAnswer | None:
    """One round: every root move a job at ``depth`` in ``window``, a re-search batch if the
    best fell outside it; None if the budget or a stop ended it first."""
    answers, complete = list_schedule(team, [Job(m, *window) for m in order], depth, state.free, budget, stopped)
    _account(state, answers, schedule)
    if not complete:
        return None
    again = research_jobs(answers)
    if again:
        state.researches += len(again)
        end = max(state.free)
        state.free[:] = [end] * len(state.free)  # the master knows every answer only now
        more, complete = list_schedule(team, again, depth, state.free, budget, stopped)
        _account(state, more, schedule)
        if not complete:
            return None
        settled = {s.job.move: s for s in answers}
        settled.update({s.job.move: s for s in more})
        answers = [settled[m] for m in order]
        state.fallbacks += sum(1 for s in more if not s.result.exact)
    best = best_of(answers)
    top = best.result
    ranking = tuple(s.job.move for s in sorted(answers, key=lambda s: -s.result.score))
    return RoundAnswer(top.score, top.move, top.pv, top.exact, ranking, best.worker)


def _account(state: _Move, ran: Sequence[Scheduled], schedule: list) -> None:
    for s in ran:
        state.spent[s.worker] += s.result.nodes
        state.messages += 2  # the job and its answer
        schedule.append((s.job.move, s.worker, s.start, s.end))


def run_mixed(team: Team, config: RootPolicyConfig, fen: str, moves: tuple[str, ...] = (),
              nodes: int | None = None, depth: int | None = None, stopped: Callable[[], bool] | None = None,
              searchmoves: tuple[str, ...] = (), deepening: bool | None = None) -> ParallelResult:
    """One move of the mixed strategy (``config.order_depth`` 0: the exhaustive one) on
    ``team``: to ``depth``, or ``nodes`` per worker (the clock's end), or until ``stopped()``.
    ``deepening`` (by default where no depth is given): rounds at increasing depths up to
    ``depth`` rather than Devesa's one round at ``depth`` (a deadline's search has a depth
    only as a cap)."""
    start = time.perf_counter()
    k = len(team.workers)
    orders, max_depth, budget = team.begin_root("mixed", fen, moves, nodes, depth, searchmoves)
    order = orders[0]
    state = _Move([0] * k, [0] * k)
    history: list[IterationInfo] = []
    answer = RoundAnswer(0, order[0], (order[0],), False)
    done = 0
    # The ordering search: the sequential iterative deepening on worker 0.
    order_depth = min(config.order_depth, max_depth - 1)
    guess = 0
    for d in range(1, order_depth + 1):
        r = team.workers[0].iterate(d, guess, budget - state.spent[0] if budget else 0, stopped)
        state.spent[0] += r.nodes
        if r.stopped:
            break
        guess, done = r.score, d
        answer = RoundAnswer(r.score, r.move, r.pv, True)
        history.append(completed(d, r.score, sum(state.spent), start, r.pv))
    order = team.workers[0].order()
    state.free = [state.spent[0]] * k  # the jobs go out when the ordering search is over
    schedule: list[tuple[str, int, int, int]] = []
    ordered = done > 0
    if deepening is None:
        deepening = depth is None
    first_round = max(done + 1, 1) if deepening else max_depth
    for d in range(first_round, max_depth + 1):
        if budget and min(state.free) >= budget or stopped is not None and stopped():
            break
        window = (guess - config.margin, guess + config.margin) if ordered else (-INF, INF)
        result = _round(team, state, order, d, window, budget, stopped, schedule)
        if result is None:
            break
        answer, done = result, d
        history.append(completed(d, result.score, sum(state.spent), start, result.pv))
        if mate_confirmed(result.score, d):
            break
        if config.order_depth > 0:  # the next round: ordered by this one's answers, around its value
            order, guess, ordered = result.ranking, result.score, True
        end = max(state.free)
        state.free = [end] * k  # a new round starts when the master has the last one's answer
    T = max(state.free)
    if budget:
        T = min(T, budget)
    return ParallelResult("mixed", answer.move, answer.score, done, answer.pv or (answer.move,), sum(state.spent),
                          tuple(state.spent), state.messages, tuple(history), time.perf_counter() - start, time=T,
                          worker=answer.worker, researches=state.researches, fallbacks=state.fallbacks,
                          depths=(), schedule=tuple(schedule))


def run(team: Team, options: RootPolicyConfig, s: ClockedSearch) -> ParallelResult:
    """The registry's entry: one move of a player (:class:`.registry.ClockedSearch`); with a
    depth limit its rounds go up to it (a cap), else one round at the depth given."""
    return run_mixed(team, options, s.fen, s.moves, s.nodes, s.depth, s.stopped, s.searchmoves,
                     deepening=s.limits.depth is None)
