"""The shared-memory and lazy searches on the wall clock, where every worker runs a whole
iterative deepening: lazy SMP (entries exchanged between iterations, or one shared table),
ABDADA (lazy SMP whose workers defer moves through the shared table) and Young Brothers Wait
(one job whose process holds k threads, ``.ybw``).

``players.core.shared_search`` compiles at import, so ``.ybw`` (which needs it) is imported
only where a team is built or answers: a process that never runs these does not load it.
"""
from __future__ import annotations

import time

import numpy as np

from .runner import stop_running
from .registry import WallSearch
from .result import ParallelResult
from .master_worker import completed
from .wall import Aborted, WallMaster
from .worker import IterationJob, IterationResult, SearchJob, run


def lazy_smp(master: WallMaster, fen: str, moves: tuple[str, ...], depth: int, tt_exchange: int) -> ParallelResult:
    """Every worker iterates; entries are exchanged between iterations; the first worker
    to finish the final depth answers and the others are stopped."""
    start = time.perf_counter()
    runner = master.runner
    n = runner.workers
    shared = None
    history = []
    result = None
    for d in range(1, depth + 1):
        if master.aborted or (master.node_limit is not None and master.tally.nodes >= master.node_limit):
            break
        futures = []
        for w in range(n):
            job = f"{master.key}-smp{d}-{w}"
            master.running.add(job)
            futures.append(runner.submit_to(w, run, f"{master.key}-w{w}", master.options, job,
                                            IterationJob(fen, moves, d, shared, tt_exchange), key=job))
        first = runner.first_done(futures)
        if master.aborted:
            stop_running(runner, [f"{master.key}-smp{d}-{w}" for w in range(n)])
            break
        latest = first.result()
        if master.aborted:
            break
        result = latest
        results = [result]
        if d < depth:
            results = [f.result() for f in futures]  # the exchange needs everyone's entries
        else:
            stop_running(runner, [f"{master.key}-smp{d}-{w}" for w in range(n) if futures[w] is not first])
            for f in futures:
                if f is not first:
                    f.cancel()
        for r in results:
            master.tally.add(r)
        if tt_exchange:
            parts = [r.exported for r in results if r.exported is not None]
            if parts:
                shared = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
                runner.messages += 2 * len(parts)
        master.running.clear()
        history.append(completed(d, result.score, master.tally.nodes, start, result.pv or (result.move,)))
    if result is None:
        raise Aborted()
    return ParallelResult.on_wall("lazy_smp", result.move, result.score, result.depth, result.pv, master.tally,
                                  time.perf_counter() - start, runner.messages, history)


def shared_smp(master: WallMaster, fen: str, moves: tuple[str, ...], depth: int,
               searchmoves: tuple[str, ...] = ()) -> ParallelResult:
    """Lazy SMP (and ABDADA, when the options defer) over one shared table: one job per
    worker, each the whole iterative deepening to ``depth``.  The first worker to finish
    answers and the others are stopped; a deadline stops them all and the deepest completed
    iteration answers.  Every worker's nodes are counted, the stopped ones' too.  With
    ``master.whole_budget`` a worker that has used its share of a node budget stops no one:
    the others search theirs to the end, as they would alongside it on cores of their own."""
    start = time.perf_counter()
    runner = master.runner
    n = runner.workers
    if master.aborted:
        raise Aborted()
    ids = [f"{master.key}-smp-{next(master._ids)}-w{w}" for w in range(n)]
    # A node budget is the team's: each worker gets its share.
    each = max(1, master.node_limit // n) if master.node_limit else None
    master.running.update(ids)
    job = SearchJob(fen, moves, depth, each, tuple(searchmoves))
    futures = [runner.submit_to(w, run, f"{master.key}-w{w}", master.options, ids[w], job, key=ids[w])
               for w in range(n)]
    first = runner.first_done(futures)
    if not (master.whole_budget and each is not None and first.result().depth < depth):
        stop_running(runner, [j for j, f in zip(ids, futures) if f is not first])
    results = [f.result() for f in futures]  # the stopped ones answer at once, with their nodes
    master.running.difference_update(ids)
    for r in results:
        master.tally.add(r)
    best = winner = first.result()
    if master.aborted or best.depth < depth:  # stopped by the clock or a node budget: the deepest answers
        best = max(results, key=lambda r: (r.depth, r is winner))
    if best.depth == 0:
        raise Aborted()
    return ParallelResult.on_wall("abdada" if master.options.defer else "lazy_smp", best.move, best.score,
                                  best.depth, best.pv, master.tally, time.perf_counter() - start, runner.messages,
                                  best.iterations)


def smp(master: WallMaster, s: WallSearch) -> ParallelResult:
    """The registry's entry for lazy SMP and ABDADA: over a shared table every worker searches
    from the root in one job (and the root can be restricted); without one, lazy SMP merges the
    tables between iterations."""
    if master.options.table:
        return shared_smp(master, s.fen, s.moves, s.depth, s.searchmoves)
    if s.searchmoves:
        raise ValueError(f"{s.algorithm}: the root moves can be restricted only over a shared table")
    return lazy_smp(master, s.fen, s.moves, s.depth, s.tt_exchange)


def ybw_search(master: WallMaster, s: WallSearch) -> ParallelResult:
    """``algorithm: ybw`` for a :class:`players.decomposition.algorithms.Master`: the team's
    search as one job on the runner's first slot, whose process holds the runner's k threads
    (``threads: true``: one worker process with k threads).  A deadline stops it
    (``Master.abort``) and its deepest completed iteration answers; a node budget is the
    team's.  Its split points and joins are the runner's messages."""
    start = time.perf_counter()
    runner = master.runner
    if master.aborted:
        raise Aborted()
    from .ybw import ybw_min_split
    threads = runner.workers
    job = f"{master.key}-ybw-{next(master._ids)}"
    master.running.add(job)
    team = SearchJob(s.fen, s.moves, s.depth, master.node_limit, tuple(s.searchmoves), threads,
                     ybw_min_split(master.min_split_depth, threads))
    future = runner.submit_to(0, run, master.key, master.options, job, team, key=job)
    try:
        result: IterationResult = future.result()
    finally:
        master.running.discard(job)
    tally = master.tally
    tally.nodes += result.nodes
    tally.jobs += 1
    tally.busy += result.seconds * threads * result.counts.production
    runner.messages += result.counts.messages
    if result.depth == 0:
        raise Aborted()
    return ParallelResult.on_wall("ybw", result.move, result.score, result.depth, result.pv, tally,
                                  time.perf_counter() - start, runner.messages, result.iterations)
