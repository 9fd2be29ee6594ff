"""How the master talks to its workers: through a :class:`base.runner.Runner` (submit a job,
wait for the first to finish), plus the decomposition's own messages built on the runner's
signals: share a bound with running jobs, stop work a cut-off made useless, create and
release a game's shared table, drop a game's searchers.  Messages are counted, the thesis's
communication measure.

On Dask (``base.runner.dask``) each worker thread is a slot, a long-lived actor: a job
travels from the master straight to the worker and back (about 2 ms on a local cluster),
where a task submitted through the scheduler takes several times that — most of a small
job's time.  A slot runs one search at a time in its own thread; bounds and stop orders
reach it on the worker's event loop while that search runs.

With ``threads`` the workers are search threads of one Dask worker process (one slot
each), as the threads of one engine: a shared table is then that process's own memory,
which gets huge pages where shared memory between processes often does not (a search
over a table without them runs about a tenth slower, ``docs/results/parallel-search.md``).
``in_process`` puts them on threads of this very process (``base.runner.ThreadRunner``):
the team of an ensemble instance that already lives on a Dask worker."""
from __future__ import annotations

import time

from base.runner import InlineRunner, Runner, ThreadRunner
from . import tables, worker


def open_runner(workers: int, scheduler: str | None = None, *, threads: bool = False,
                in_process: bool = False) -> Runner:
    """The runner a decomposition config asks for: ``workers`` threads of this process
    (``in_process``), Dask workers (search threads of one worker process with ``threads``),
    or, for one worker, this process alone.  Every Dask slot loads the compiled search
    before the first job (``worker.warm``)."""
    if in_process and workers > 1:
        return ThreadRunner(workers, name="team")
    if workers <= 1 and not scheduler:
        return InlineRunner()
    if threads and scheduler:
        raise ValueError("search threads of one process need a local cluster, not a scheduler's workers")
    from base.runner.dask import DaskRunner
    if threads:
        return DaskRunner.start(1, threads_per_worker=workers, warm=worker.warm)
    return DaskRunner.start(workers, scheduler, warm=worker.warm, min_workers=workers)


def share_bounds(runner: Runner, betas: dict[str, int]) -> None:
    """Lower the bound of these running jobs (score sharing): one message per worker process."""
    if betas:
        runner.signal(worker.share_beta, betas)


def stop_running(runner: Runner, job_ids: list[str]) -> None:
    """Stop these jobs (a cut-off made them useless, or the move's time is up)."""
    if job_ids:
        runner.signal(worker.stop_jobs, list(job_ids))


def new_table(runner: Runner, name: str, size_mb: float) -> str:
    """A transposition table every slot searches with, by name: the memory of the one
    process whose threads search (threads of a worker, of this process, or inline), or
    shared memory made here for the workers of this machine."""
    if runner.processes == 1:
        runner.everywhere(worker.create_local_table, name, size_mb)
        return name
    if not runner.local:
        raise ValueError("a shared table needs the workers on this machine (a local cluster)")
    with runner.here():  # made and kept by this process until released; the workers attach by name
        tables.shared_table(name, size_mb)
    return name


def release_table(runner: Runner, name: str) -> None:
    """Detach every worker from a table (after its searchers are dropped) and free it."""
    runner.everywhere(worker.release_table, name)
    with runner.here():
        tables.release_shared_table(name, unlink=True)


def drop_prefix(runner: Runner, prefix: str) -> None:
    """Free the searchers (and their tables) of the jobs whose keys start with ``prefix``."""
    runner.everywhere(worker.drop_prefix, prefix)


def latency(runner: Runner, repeats: int = 30) -> tuple[float, float]:
    """Mean seconds of a job round trip (a no-op job, its result back) and of a bound
    broadcast to every worker, waited for: the price of one message."""
    messages = runner.messages
    start = time.perf_counter()
    for i in range(repeats):
        runner.submit_to(i, worker.noop, i).result()
    job = (time.perf_counter() - start) / repeats
    start = time.perf_counter()
    for _ in range(repeats):
        runner.everywhere(worker.share_beta, {})
    broadcast = (time.perf_counter() - start) / repeats
    runner.messages = messages
    return job, broadcast
