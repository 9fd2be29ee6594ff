"""How the master talks to its workers: submit a job, wait for the first to finish,
share a bound with running jobs, cancel work a cut-off made useless — on Dask, or
inline (every job run at once in this process: the sequential reference and the
test harness).  Messages are counted, the thesis's communication measure."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

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
    workers = 1

    def __init__(self) -> None:
        self.messages = 0

    def submit(self, fn: Callable, *args, key: str = "") -> Done:
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


class DaskRunner:
    """Jobs on a Dask cluster: one job at a time per single-threaded worker."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, client=None) -> None:
        from distributed import Client, LocalCluster
        self.cluster = None
        if client is not None:
            self.client = client
        elif scheduler:
            self.client = Client(scheduler, timeout=30)
        else:
            self.cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                        silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        addresses = sorted(self.client.scheduler_info().get("workers", {}))
        self.workers = len(addresses) or (workers or 1)
        self.messages = 0
        # Every worker loads the compiled search now, not during the first timed job.
        warmups = [self.client.submit(jobs.warm, pure=False, workers=[a], allow_other_workers=False)
                   for a in addresses]
        for f in warmups:
            f.result(timeout=600)

    def submit(self, fn: Callable, *args, key: str = ""):
        self.messages += 2  # the job out, the result back
        return self.client.submit(fn, *args, pure=False, key=key or None)

    def submit_to(self, index: int, fn: Callable, *args, key: str = ""):
        """A job for one particular worker (lazy SMP: each keeps its own table)."""
        addresses = sorted(self.client.scheduler_info().get("workers", {}))
        if not addresses:  # a worker being restarted: wait for the cluster to be whole again
            self.client.wait_for_workers(self.workers, timeout=120)
            addresses = sorted(self.client.scheduler_info().get("workers", {}))
        self.messages += 2
        return self.client.submit(fn, *args, pure=False, key=key or None,
                                  workers=[addresses[index % len(addresses)]], allow_other_workers=False)

    def first_done(self, futures: list):
        from distributed import wait
        done = wait(futures, return_when="FIRST_COMPLETED").done
        return next(f for f in futures if f in done)

    def share(self, betas: dict[str, int]) -> None:
        if betas:
            self.messages += self.workers
            self.client.run(jobs.share_beta, betas, wait=False)

    def stop(self, job_ids: list[str]) -> None:
        if job_ids:
            self.messages += self.workers
            self.client.run(jobs.stop_jobs, job_ids, wait=False)

    def latency(self, repeats: int = 30) -> tuple[float, float]:
        """Mean seconds of a job round trip (submit a no-op, get its result) and of a bound
        broadcast to every worker (``Client.run``, waited for): the price of one message."""
        start = time.perf_counter()
        for i in range(repeats):
            self.client.submit(jobs.noop, i, pure=False).result()
        job = (time.perf_counter() - start) / repeats
        start = time.perf_counter()
        for _ in range(repeats):
            self.client.run(jobs.share_beta, {})
        broadcast = (time.perf_counter() - start) / repeats
        return job, broadcast

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
