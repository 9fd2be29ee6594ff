"""Parallel aspiration (Baudet, PhD thesis, Carnegie Mellon University, 1978).

Every worker searches the whole tree from the root, each with its own window; the k
windows are disjoint and together cover (−INF, +INF), so exactly one of them holds the
fixed-depth value: its worker answers it exactly (fail-soft ``lo < v < hi``), the others
fail high or low.  The iteration is over as soon as that worker is done; the others are
stopped.  Every worker keeps its own table from iteration to iteration (no exchange).

**Window boundaries.**  The new score is most often close to the previous iteration's
``guess`` and rarely far from it, and a narrow window is searched faster than a wide one,
so the boundaries are dense around the guess and spread geometrically outwards
(:func:`boundaries`): with ``m = k − 1`` boundaries and step ``a`` (the decomposition
file's ``margin``), ``guess + {±a, ±2a, ±4a, …}`` for even ``m`` (a central window of
width 2a around the guess) and ``guess + {0, ±a, ±2a, …}`` for odd ``m`` (two workers on
the two sides of the guess).  Boundaries ``b_1 < … < b_m`` give the windows
``(−INF, b_1), (b_1 − 1, b_2), …, (b_m − 1, INF)``: window j answers exactly the integer
scores ``b_j ≤ v < b_{j+1}``, so every integer score is in exactly one window.  The outer
windows take all the scores far from the guess; the speedup is capped because the
worker with the right window still searches at least the minimal tree of its narrow
window: Baudet's (and Pinhanez's) bound near 5–6, whatever k.

**The node clock** (``docs/design/node-clock.md``).  With the runner's ``client`` None the
k workers run in this process, one after another, each on its own searcher (key
``{key}-w{i}``), and the search is measured in nodes: an iteration lasts T = the nodes of
the worker that answers exactly; a worker that needs more is stopped at T nodes (it is run
with a node limit of T), one that needs fewer is idle for the rest.  The workers do not
talk during an iteration, so the counts do not depend on how many cores run them.  To know
T before the others run, the worker whose window holds the guess runs first, then the
windows its fail-soft answer points to; a worker that ran before T was known and searched
more than T is an ``overrun`` (counted: its table holds a little more than the clock
allows).  Over Dask (a runner with a client) the k jobs run at once and the others are
stopped when the exact answer arrives (wall time; node counts then depend on timing).
"""
from __future__ import annotations

import time
from players.core.search import INF, MAX_PLY

from .registry import WallSearch
from .result import JobResult, NodeClock, ParallelResult
from .runner import stop_running
from .trees import board_after
from .master_worker import completed
from .wall import Aborted, WallMaster
from . import worker
from .worker import WindowJob


def boundaries(guess: int, k: int, step: int) -> list[int]:
    """The k − 1 boundaries between the windows of k workers (module docstring), clipped to
    the score range: fewer when the guess is near a mate score."""
    m = max(0, k - 1)
    offsets = [0] if m % 2 else []
    width = step
    while len(offsets) < m:
        offsets += [-width, width]
        width *= 2
    return sorted({min(INF - 1, max(-INF + 2, guess + o)) for o in offsets})


def windows(guess: int, k: int, step: int) -> list[tuple[int, int]]:
    """The workers' (alpha, beta) windows, lowest first: disjoint, covering every score."""
    b = boundaries(guess, k, step)
    if not b:
        return [(-INF, INF)]
    return [(-INF, b[0])] + [(b[j] - 1, b[j + 1]) for j in range(len(b) - 1)] + [(b[-1] - 1, INF)]


def holding(wins: list[tuple[int, int]], score: int) -> int:
    """The index of the window that answers ``score`` exactly."""
    return next(i for i, (lo, hi) in enumerate(wins) if lo < score < hi)


def parallel_aspiration(master: WallMaster, s: WallSearch) -> ParallelResult:
    """Iterative deepening to ``s.depth``; every iteration is one parallel-aspiration search with
    the runner's workers around the previous iteration's score (0 at depth 1)."""
    fen, moves, depth = s.fen, s.moves, s.depth
    start = time.perf_counter()
    board = board_after(fen, moves)
    if not any(board.legal_moves):
        raise ValueError(f"no legal move in {board.fen()}")
    k = master.runner.workers
    clock = NodeClock(k)
    guess, best, history = 0, None, []
    for d in range(1, min(depth, MAX_PLY - 1) + 1):
        try:
            master._check()
            if master.runner.client is None:
                with master.runner.here():  # the windows' searchers live in the runner's state:
                    # dropping the master's key there frees them (else every position kept k tables)
                    score, line = _iteration_on_clock(master, clock, fen, moves, d, guess)
            else:
                score, line = _iteration_on_dask(master, clock, fen, moves, d, guess)
        except Aborted:
            break
        guess = score
        move = line[0] if line else next(iter(board.legal_moves)).uci()
        best = (move, score, d, line or (move,))
        history.append(completed(d, score, master.tally.nodes, start, line or (move,)))
    if best is None:
        raise Aborted()
    master.runner.messages += clock.messages
    move, score, done, line = best
    return ParallelResult.on_wall("aspiration", move, score, done, line, master.tally, time.perf_counter() - start,
                                  master.runner.messages, history, clock)


def _iteration_on_clock(master: WallMaster, clock: NodeClock, fen: str, moves: tuple[str, ...], depth: int,
                        guess: int) -> tuple[int, tuple[str, ...]]:
    """One iteration on the node clock (module docstring): (score, PV)."""
    wins = windows(guess, master.runner.workers, master.margin)
    results: dict[int, JobResult] = {}

    def run(i: int, limit: int = 0) -> JobResult:
        r = worker.run(f"{master.key}-w{i}", master.options, f"{master.key}-asp{depth}-w{i}",
                WindowJob(fen, moves, depth, *wins[i], limit))
        results[i] = r
        return r

    i = holding(wins, guess)
    decider = None
    while decider is None and i not in results:
        r = run(i)
        lo, hi = wins[i]
        if lo < r.score < hi:
            decider = i
        elif r.score >= hi:  # worth at least r.score: the window holding it, or one above
            i = holding(wins, min(max(r.score, wins[i + 1][0] + 1), INF - 1)) if i + 1 < len(wins) else i
        else:  # worth at most r.score
            i = holding(wins, max(min(r.score, wins[i - 1][1] - 1), -INF + 1)) if i > 0 else i
    extra = 0
    if decider is None:  # inconsistent bounds: settle it with one full-window search on worker 0
        clock.fallbacks += 1
        T = max(r.nodes for r in results.values())
        full = worker.run(f"{master.key}-w0", master.options, f"{master.key}-asp{depth}-full",
                   WindowJob(fen, moves, depth, -INF, INF))
        score, line, extra = full.score, full.pv, full.nodes
        clock.messages += 2
    else:
        T = results[decider].nodes
        score, line = results[decider].score, results[decider].pv
    for j in range(len(wins)):
        if j not in results:
            run(j, T)
    counted = []
    for j, r in sorted(results.items()):
        if r.nodes > T and not r.stopped:
            clock.overruns += 1
        if j != decider and (r.stopped or r.nodes > T):
            clock.messages += 1  # a stop order
        counted.append(min(r.nodes, T))
        master.tally.nodes += min(r.nodes, T)
        master.tally.jobs += 1
        master.tally.busy += r.seconds
    clock.messages += 2 * len(results)  # each worker's job and its answer
    clock.time += T + extra
    clock.nodes += sum(counted) + extra
    master.tally.nodes += extra
    clock.iterations.append((depth, tuple(counted), decider))
    return score, line


def _iteration_on_dask(master: WallMaster, clock: NodeClock, fen: str, moves: tuple[str, ...], depth: int,
                       guess: int) -> tuple[int, tuple[str, ...]]:
    """One iteration with the k jobs running at once: the first exact answer ends it."""
    runner = master.runner
    wins = windows(guess, runner.workers, master.margin)
    ids = [f"{master.key}-asp{depth}-{next(master._ids)}-w{i}" for i in range(len(wins))]
    master.running.update(ids)
    futures = {runner.submit_to(i, worker.run, f"{master.key}-w{i}", master.options, ids[i],
                                WindowJob(fen, moves, depth, *wins[i], 0), key=ids[i]): i for i in range(len(wins))}
    pending = dict(futures)
    answer = None
    while pending and answer is None:
        f = runner.first_done(list(pending))
        i = pending.pop(f)
        r = f.result()
        master._check()
        if wins[i][0] < r.score < wins[i][1]:
            answer = (i, r)
    if pending:
        stop_running(runner, [ids[i] for i in pending.values()])
    for f in futures:  # the stopped ones answer at once, with their nodes
        r = f.result()
        master.tally.add(r)
    master.running.difference_update(ids)
    if answer is None:  # inconsistent bounds: one full-window search
        clock.fallbacks += 1
        f = runner.submit_to(0, worker.run, f"{master.key}-w0", master.options, f"{ids[0]}-full",
                             WindowJob(fen, moves, depth, -INF, INF, 0), key=f"{ids[0]}-full")
        r = f.result()
        master.tally.nodes += r.nodes
        return r.score, r.pv
    return answer[1].score, answer[1].pv
