"""UIDPABS, Newborn's unsynchronised iteratively deepening parallel alpha-beta search
(Newborn 1988), on the node clock.

As the Italian thesis on GnuChess and Linda describes it (section 4.2.5.6, after
PVSplit; its source is Newborn 1988, [New88]):

1. in the first two iterations every processor does the same search, to order the root
   moves; the value of the second iteration is the centre of the window of the later ones;
2. the root moves are shared out evenly among the processors;
3. every processor runs an iterative deepening of its own on the tree of its moves alone,
   starting from the window of step 1, independently even across iterations (one may be in
   its sixth iteration while another is still in its fifth);
4. a search that fails has its window shifted up (fail high) or down (fail low) and is
   searched again; if it fails again, it is searched with a window sure to hold the value;
5. the search ends at a time limit.

**Mapping.**  Step 1: every worker searches the whole root to depths 1 and 2 (the same
search, so the clock counts it once and N_k k times).  Step 2: the thesis says "evenly" and
no more; the moves are dealt round-robin in worker 0's order after depth 2 (the hash move,
i.e. the depth-2 best, then the searcher's static order), so every worker gets a share of
the likely-good moves: move i goes to worker i mod k; workers beyond the moves stay idle.
Step 3: every iteration d >= 3 of a worker starts in (V − margin, V + margin), V the
depth-2 value.  Step 4: a fail high at v goes on in (v − 1, v − 1 + 2·margin), a fail low
at v in (v + 1 − 2·margin, v + 1), the same width shifted; a second failure on the same side
goes to (v − 1, +INF) or (−INF, v + 1); a contradiction (a selective search's instability)
ends in one full-window search (a ``fallback``).  So every completed iteration gives the
exact value of the worker's best move at that depth.

**The answer** (the thesis does not say how the moves of workers at different depths are
compared; Newborn's paper is not among the seeds): each worker's last completed iteration
is its answer, and the best score answers, whatever its depth, because a move's value is
known only to the worker that owns it; ties go to the deeper iteration, then to the lower
worker (the better-ordered moves).  At a fixed depth d every worker reaches d, so the
answer is the best of the exact values of all root moves: the sequential score in exact
mode.  **Time**: T_k = the shared depths 1-2 + the slowest worker's own nodes; under a node
budget N each worker searches at most N nodes in all (the clock ends at N).
"""
from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from players.core.search import INF
from players.result import IterationInfo

from .master_worker import RootSearch, Team, Worker, completed, mate_confirmed
from .options import RootPolicyConfig
from .registry import ClockedSearch
from .result import ParallelResult

SHARED_DEPTH = 2  # the iterations every worker searches on the whole root (step 1)


def deal(order: Sequence[str], k: int) -> list[tuple[str, ...]]:
    """Step 2: the root moves dealt round-robin in ``order`` to k workers."""
    return [tuple(order[w::k]) for w in range(k)]


@dataclass(frozen=True)
class WorkerAnswer:
    """One worker's last completed iteration (depth 0: none)."""

    worker: int
    depth: int
    score: int
    move: str
    pv: tuple[str, ...]


def choose(answers: Sequence[WorkerAnswer]) -> WorkerAnswer:
    """The best score over the workers' last completed iterations, whatever their depths;
    ties to the deeper, then to the lower worker (module docstring)."""
    done = [a for a in answers if a.depth > 0] or list(answers)
    return max(done, key=lambda a: (a.score, a.depth, -a.worker))


@dataclass
class _Iteration:
    """What a worker spent on one iteration and what it found."""

    search: RootSearch | None  # the exact search (None: stopped)
    nodes: int
    researches: int
    fallback: bool


def iterate_once(worker: Worker, depth: int, centre: int, margin: int, limit: int,
                 stopped: Callable[[], bool] | None = None) -> _Iteration:
    """One iteration of a worker on its moves, windows as in step 4 (module docstring),
    at most ``limit`` nodes in all (0: none)."""
    lo, hi = max(-INF, centre - margin), min(INF, centre + margin)
    nodes = researches = 0
    failed = {"high": 0, "low": 0}
    while True:
        left = 0 if limit == 0 else limit - nodes
        if limit and left <= 0:
            return _Iteration(None, nodes, researches, False)
        r = worker.search(depth, lo, hi, left, stopped)
        nodes += r.nodes
        if r.stopped:
            return _Iteration(None, nodes, researches, False)
        if r.exact or (lo <= -INF and r.score <= lo) or (hi >= INF and r.score >= hi):
            return _Iteration(r, nodes, researches, bool(failed["high"] and failed["low"]))
        researches += 1
        side = "high" if r.score >= hi else "low"
        other = "low" if side == "high" else "high"
        if failed[other]:  # it failed on both sides: unstable, settle it with the full window
            failed["low"] = failed["high"] = 1
            lo, hi = -INF, INF
            continue
        failed[side] += 1
        v = r.score
        if side == "high":
            lo, hi = v - 1, (v - 1 + 2 * margin if failed["high"] == 1 else INF)
        else:
            lo, hi = (v + 1 - 2 * margin if failed["low"] == 1 else -INF), v + 1
        lo, hi = max(-INF, lo), min(INF, hi)


def run_uidpabs(team: Team, config: RootPolicyConfig, fen: str, moves: tuple[str, ...] = (),
                nodes: int | None = None, depth: int | None = None, stopped: Callable[[], bool] | None = None,
                searchmoves: tuple[str, ...] = ()) -> ParallelResult:
    """One move of UIDPABS on ``team``: to ``depth``, or ``nodes`` per worker (the clock's
    nodes), or until ``stopped()``.  ``searchmoves`` restrict the root before it is dealt."""
    start = time.perf_counter()
    k = len(team.workers)
    orders, max_depth, budget = team.begin_root("uidpabs", fen, moves, nodes, depth, searchmoves)
    # Step 1: the same shallow iterations on every worker (the clock counts them once).
    shared_nodes = [0] * k
    shared: list[WorkerAnswer] = []
    history: list[IterationInfo] = []
    researches = fallbacks = 0
    for w, worker in enumerate(team.workers):
        answer = WorkerAnswer(w, 0, 0, orders[w][0], (orders[w][0],))
        for d in range(1, min(SHARED_DEPTH, max_depth) + 1):
            it = iterate_once(worker, d, 0, INF, budget - shared_nodes[w] if budget else 0, stopped)
            shared_nodes[w] += it.nodes
            if it.search is None:
                break
            answer = WorkerAnswer(w, d, it.search.score, it.search.move, it.search.pv)
            if w == 0:
                history.append(completed(d, answer.score, shared_nodes[0], start, answer.pv))
        shared.append(answer)
    clock = max(shared_nodes)
    first = shared[0]
    own_nodes = [0] * k
    answers = list(shared)
    worker_history: dict[int, list[IterationInfo]] = {w: [] for w in range(k)}
    shares = deal(team.workers[0].order(), k)
    if first.depth == SHARED_DEPTH and max_depth > SHARED_DEPTH:
        # Steps 2-4: every worker deepens its own moves alone.  They never talk, so the order
        # they run in changes nothing but what a wall-clock deadline leaves them: the worker
        # whose clock is lowest runs its next iteration, as if they all ran at once.
        limits = [budget - shared_nodes[w] if budget else 0 for w in range(k)]
        ready = [(shared_nodes[w], w, SHARED_DEPTH + 1) for w in range(k)
                 if shares[w] and not (budget and limits[w] <= 0)]
        for _, w, _ in ready:
            team.workers[w].restrict(shares[w])
            if w > 0:  # worker 0's depth-2 answer stands for its moves (it holds the depth-2 best)
                answers[w] = WorkerAnswer(w, 0, 0, shares[w][0], (shares[w][0],))
        heapq.heapify(ready)
        while ready:
            _, w, d = heapq.heappop(ready)
            it = iterate_once(team.workers[w], d, first.score, config.margin,
                              limits[w] - own_nodes[w] if budget else 0, stopped)
            own_nodes[w] += it.nodes
            researches += it.researches
            fallbacks += it.fallback
            if it.search is None:
                continue  # its budget is spent, or the move's time: this iteration does not count
            r = it.search
            answers[w] = WorkerAnswer(w, d, r.score, r.move, r.pv)
            worker_history[w].append(completed(d, r.score, shared_nodes[w] + own_nodes[w], start, r.pv))
            if d < max_depth and not mate_confirmed(r.score, d) and not (budget and own_nodes[w] >= limits[w]):
                heapq.heappush(ready, (shared_nodes[w] + own_nodes[w], w, d + 1))
    dealt = [a for w, a in enumerate(answers) if shares[w] or w == 0]
    best = choose(dealt)
    spent = [shared_nodes[w] + own_nodes[w] for w in range(k)]
    T = clock + max(own_nodes)
    if budget:
        T = min(T, budget)
    active = sum(1 for s in shares if s)
    messages = 2 * active if max_depth > SHARED_DEPTH else 0  # each worker's share and its answer
    iterations = tuple(history) + tuple(worker_history.get(best.worker, ()))
    return ParallelResult("uidpabs", best.move, best.score, best.depth, best.pv or (best.move,), sum(spent),
                          tuple(spent), messages, iterations, time.perf_counter() - start, time=T,
                          worker=best.worker, researches=researches, fallbacks=fallbacks,
                          depths=tuple(a.depth for a in answers), schedule=())


def run(team: Team, options: RootPolicyConfig, s: ClockedSearch) -> ParallelResult:
    """The registry's entry: one move of a player (:class:`.registry.ClockedSearch`)."""
    return run_uidpabs(team, options, s.fen, s.moves, s.nodes, s.depth, s.stopped, s.searchmoves)
