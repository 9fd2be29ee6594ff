"""How the master talks to its workers: submit a job, wait for the first to finish,
share a bound with running jobs, cancel work a cut-off made useless — on Dask, or
inline (every job run at once in this process: the sequential reference and the
test harness).  Messages are counted, the thesis's communication measure.

On Dask, jobs go to one :class:`SearchActor` per worker: an actor call travels from
the master straight to the worker and back (about 2 ms on a local cluster), where a
task submitted through the scheduler takes several times that — most of a small job's time.  The
actor runs one search at a time in its own thread; bounds and stop orders reach it
on the worker's event loop while that search runs.

With ``threads`` the workers are search threads of one Dask worker process (one actor
each), as the threads of one engine: a shared table is then that process's own memory,
which gets huge pages where shared memory between processes often does not (a search
over a table without them runs about a tenth slower, ``docs/decomposition.md``)."""
from __future__ import annotations

import pickle
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from base.cluster import open_cluster
from . import jobs


@dataclass(eq=False)
class Done:
    """A finished inline job, shaped like a Dask future for the algorithms."""

    value: Any
    key: str = ""

    def result(self) -> Any:
        return self.value

    def done(self) -> bool:
        return True

    def cancel(self) -> None:
        pass


class InlineRunner:
    """Every job runs at once in this process (a :class:`base.cluster.Runner`)."""

    workers = 1
    client = None  # no Dask: algorithms that need its shared variables take their inline path

    def __init__(self) -> None:
        self.messages = 0

    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None) -> Done:
        return Done(fn(*args), key)

    def submit_to(self, index: int, fn: Callable, *args, key: str = "") -> Done:
        return Done(fn(*args), key)

    def first_done(self, futures: list) -> Any:
        return futures[0]

    def share(self, betas: dict[str, int]) -> None:
        pass

    def stop(self, job_ids: list[str]) -> None:
        pass

    def close(self) -> None:
        pass

    def new_table(self, name: str, size_mb: float) -> str:
        """The jobs run in this process: the table is its own memory (huge pages), not shared."""
        from .tables import local_table
        local_table(name, size_mb)
        return name

    def release_table(self, name: str) -> None:
        from .tables import release_shared_table
        release_shared_table(name, unlink=True)

    def drop_prefix(self, prefix: str) -> None:
        """Free the searchers (and their tables) of the jobs whose keys start with ``prefix``."""
        jobs.drop_prefix_sync(prefix)


class ThreadRunner:
    """Jobs on search threads of this very process, no Dask (a :class:`base.cluster.Runner`):
    the team of an ensemble instance that is itself a parallel search (it already lives on a
    Dask worker), or of a player inside a match's game worker.  The search releases the GIL,
    so the threads search at the same time; a shared table is this process's memory."""

    client = None

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers
        self.messages = 0
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="concilio-team")
        self._next = 0

    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None):
        self._next += 1
        return self.submit_to(self._next, fn, *args, key=key)

    def submit_to(self, index: int, fn: Callable, *args, key: str = ""):
        self.messages += 2
        return self._pool.submit(fn, *args)

    def first_done(self, futures: list):
        from concurrent.futures import FIRST_COMPLETED, wait
        done, _ = wait(futures, return_when=FIRST_COMPLETED)
        return next(f for f in futures if f in done)

    def share(self, betas: dict[str, int]) -> None:
        if betas:
            self.messages += 1
            _run(jobs.share_beta(betas))

    def stop(self, job_ids: list[str]) -> None:
        if job_ids:
            self.messages += 1
            _run(jobs.stop_jobs(job_ids))

    def new_table(self, name: str, size_mb: float) -> str:
        jobs.create_local_table(name, size_mb)
        return name

    def release_table(self, name: str) -> None:
        _run(jobs.release_table(name))

    def drop_prefix(self, prefix: str) -> None:
        jobs.drop_prefix_sync(prefix)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _run(coroutine) -> Any:
    """Run one of the workers' signal coroutines here (they only take a lock and set flags)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("a signal coroutine awaited something")  # pragma: no cover - they never do


class SearchActor:
    """The worker end of the message layer (a Dask actor, one per worker or search thread)."""

    def call(self, payload: bytes) -> bytes:
        """Run a job in the worker's actor thread (one at a time per actor).  The job and its
        answer travel pickled as one bytes object: Dask serializes each argument of an
        actor call on its own, at a cost in the master's CPU on every job (``docs/decomposition.md``
        measures the master's share)."""
        fn, args = pickle.loads(payload)
        return pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)

    async def signal(self, fn: Callable, *args) -> Any:
        """Run a coroutine on the worker's event loop: reaches a job while it searches."""
        return await fn(*args)


class ActorCall:
    """A job sent to an actor, shaped like a Dask future for the algorithms: a thread
    waits for the answer and wakes whoever waits in ``DaskRunner.first_done``."""

    def __init__(self, runner: "DaskRunner", index: int, fn: Callable, args: tuple, key: str) -> None:
        self.key = key
        self.index = index
        self._runner = runner
        self._value: Any = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._future = runner.actors[index].call(pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL))
        threading.Thread(target=self._wait, daemon=True, name=f"actor-call-{key}").start()

    def _wait(self) -> None:
        try:
            self._value = pickle.loads(self._future.result())
        except BaseException as exc:  # noqa: BLE001 - handed to whoever asks for the result
            self._error = exc
        with self._runner.finished:
            self._runner.load[self.index] -= 1
            self._done.set()
            self._runner.finished.notify_all()

    def done(self) -> bool:
        return self._done.is_set()

    def result(self, timeout: float | None = None) -> Any:
        if not self._done.wait(timeout):
            raise TimeoutError(f"job {self.key} did not answer within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self) -> None:
        """A running actor call cannot be withdrawn: ``DaskRunner.stop`` stops its search."""


def widen_actor_threads(threads: int, dask_worker=None) -> int:
    """Give a worker process one actor thread per search thread: Dask runs every actor of a
    worker in one shared thread, and the actors of a threaded runner must search at the same
    time (each still runs one job at a time: the master sends it no more)."""
    old = dask_worker.executors["actor"]
    dask_worker.executors["actor"] = ThreadPoolExecutor(threads, thread_name_prefix="concilio-search")
    old.shutdown(wait=False)
    return threads


class DaskRunner:
    """Jobs on a Dask cluster, through one :class:`SearchActor` per single-threaded worker,
    or (``threads``, a local cluster only) per search thread of one worker process
    (a :class:`base.cluster.Runner`)."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, client=None,
                 threads: bool = False) -> None:
        self.cluster = None  # the cluster this runner started and closes
        self.threads = threads
        if threads and (client is not None or scheduler):
            raise ValueError("search threads of one process need a local cluster, not a scheduler's workers")
        if client is not None:
            self.client = client
        else:
            n = workers or 2
            self.cluster = open_cluster(1 if threads else n, scheduler, threads_per_worker=n if threads else 1,
                                        dashboard=False)
            self.client = self.cluster.client
        if workers and not self.client.scheduler_info().get("workers"):
            self.client.wait_for_workers(1 if threads else workers, timeout=120)
        self.addresses = sorted(self.client.scheduler_info().get("workers", {}))
        # The worker process of each actor: one per worker, or all on the one with threads.
        places = [self.addresses[0]] * (workers or 2) if threads else self.addresses
        if threads:
            self.client.run(widen_actor_threads, len(places))
        self.workers = len(places) or (workers or 1)
        self.messages = 0
        self.finished = threading.Condition()
        self.load = [0] * len(places)  # jobs sent to each actor and not answered yet
        self.homes: dict[Hashable, int] = {}  # where each subtree was searched last
        self.actors = [self.client.submit(SearchActor, actor=True, workers=[a], allow_other_workers=False,
                                          pure=False).result(timeout=120) for a in places]
        # Bounds and stop orders go to each worker process once (any of its actors will do).
        self.signal_actors = [self.actors[places.index(a)] for a in dict.fromkeys(places)]
        # Every worker loads the compiled search now, not during the first timed job.
        for call in [self.submit_to(i, jobs.warm) for i in range(len(self.actors))]:
            call.result(timeout=600)
        self.messages = 0

    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None) -> ActorCall:
        """A job for an idle worker: the one that had the job with the same ``home`` before
        (the same subtree one iteration shallower: its table holds the hash moves for it)
        if that one is idle, else the least busy."""
        with self.finished:
            index = min(range(len(self.actors)), key=lambda i: self.load[i])
            preferred = self.homes.get(home) if home is not None else None
            if preferred is not None and self.load[preferred] <= self.load[index]:
                index = preferred
            if home is not None:
                if len(self.homes) > 100_000:  # a long match: forget old positions
                    self.homes.clear()
                self.homes[home] = index
        return self.submit_to(index, fn, *args, key=key)

    def submit_to(self, index: int, fn: Callable, *args, key: str = "") -> ActorCall:
        """A job for one particular worker (lazy SMP: each keeps its own table)."""
        index %= len(self.actors)
        self.messages += 2  # the job out, the result back
        with self.finished:
            self.load[index] += 1
        return ActorCall(self, index, fn, args, key or f"job-{time.perf_counter_ns()}")

    def first_done(self, futures: list):
        with self.finished:
            while True:
                for f in futures:
                    if f.done():
                        return f
                self.finished.wait()

    def _signal_all(self, fn: Callable, *args, wait: bool = False) -> None:
        self.messages += len(self.signal_actors)
        calls = [actor.signal(fn, *args) for actor in self.signal_actors]
        if wait:
            for c in calls:
                c.result()

    def share(self, betas: dict[str, int]) -> None:
        if betas:
            self._signal_all(jobs.share_beta, betas)

    def stop(self, job_ids: list[str]) -> None:
        if job_ids:
            self._signal_all(jobs.stop_jobs, job_ids)

    def latency(self, repeats: int = 30) -> tuple[float, float]:
        """Mean seconds of a job round trip (a no-op job, its result back) and of a bound
        broadcast to every worker, waited for: the price of one message."""
        messages = self.messages
        start = time.perf_counter()
        for i in range(repeats):
            self.submit_to(i, jobs.noop, i).result()
        job = (time.perf_counter() - start) / repeats
        start = time.perf_counter()
        for _ in range(repeats):
            self._signal_all(jobs.share_beta, {}, wait=True)
        broadcast = (time.perf_counter() - start) / repeats
        self.messages = messages
        return job, broadcast

    def new_table(self, name: str, size_mb: float) -> str:
        """A table in shared memory for this machine's workers (a local cluster only: workers
        elsewhere cannot map this machine's memory), or in the memory of the one worker
        process whose threads search (``threads``)."""
        if self.cluster is None or self.cluster.local is None:
            raise ValueError("a shared table needs the workers on this machine (a local cluster)")
        if self.threads:
            self.client.run(jobs.create_local_table, name, size_mb)
            return name
        from .tables import shared_table
        shared_table(name, size_mb)
        return name

    def release_table(self, name: str) -> None:
        from .tables import release_shared_table
        self.client.run(jobs.release_table, name)
        release_shared_table(name, unlink=True)

    def drop_prefix(self, prefix: str) -> None:
        """Free the searchers (and their tables) of the jobs whose keys start with ``prefix``."""
        self.client.run(jobs.drop_prefix, prefix)

    def close(self) -> None:
        self.actors = self.signal_actors = []
        if self.cluster is not None:
            self.cluster.close()
        else:
            self.client.close()
