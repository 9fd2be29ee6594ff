"""Dask clusters for every part of Concilio: a local one on loopback, or an existing
scheduler's workers.

* :func:`open_cluster` starts a ``LocalCluster`` on loopback (worker processes, a quiet
  housekeeping schedule, the dashboard on an ephemeral loopback port) or connects to an
  existing scheduler.  Work reaches the workers through a runner (``base.runner``), never
  through the client directly.
* :class:`Remote` is an experiment's choice of an existing scheduler (``--scheduler``, or
  a file's ``cluster:`` section, :func:`read_remote`), checked where it is given.
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

from base.config import FieldPath, YamlSource, as_mapping, check_keys, get_int
from base.errors import ConcilioError
from base.interrupts import deaf_children, held_signals
from base.logs import worker_log_level
from base.spawning import leave_if_reimported, script_hint

# Dask's own housekeeping, slowed down for a local cluster whose workers search flat out: the
# profiler samples every thread 100 times a second, the event loops tick 50 times a second,
# and memory and system monitors poll; with these settings an idle 2-worker cluster costs
# about a seventh of the CPU it would, time the searches on the same cores get back.
QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "2s",
}
WORKERS_ASKED_EVERY_S = 1.0  # how stale an existing scheduler's list of workers may be
SCHEDULER_ADDRESS = re.compile(r"^(tcp|tls|ws|wss)://[^\s:/]+:\d{1,5}$")
REMOTE_KEYS = {"scheduler", "slots"}


class ClusterError(ConcilioError, RuntimeError):
    """The cluster could not be started or reached."""


@dataclass(frozen=True)
class Remote:
    """An existing Dask scheduler an experiment's units of work (games, searches) run on:
    one at a time in every thread of its workers, those that join later too, or in at most
    ``slots`` of them.  Under node budgets a unit's result does not depend on where it ran."""

    scheduler: str
    slots: int | None = None

    def capped(self, slots: int | None) -> Remote:
        """The same scheduler at most ``slots`` at once (None or 0: as before): the command
        line's ``--concurrency`` / ``--workers`` beats the file."""
        return Remote(self.scheduler, slots) if slots else self


def remote(address: str, given_as: str = "--scheduler", slots: int | None = None) -> Remote:
    """``address`` checked (``tcp://host:port``): a wrong one is one clear line (exit 2), not
    a connection that times out later."""
    if not isinstance(address, str) or not SCHEDULER_ADDRESS.match(address):
        raise ClusterError(f"{given_as} {address!r} is not a Dask scheduler address: give tcp://host:port, "
                           "e.g. tcp://10.0.0.5:8786")
    return Remote(address, slots or None)


def read_remote(src: YamlSource, data: dict, path: FieldPath = ("cluster",)) -> Remote | None:
    """An experiment file's ``cluster: {scheduler: tcp://host:port, slots: N}`` (``slots``:
    at most that many units at once; without it, every worker thread); None without one."""
    section = as_mapping(src, data.get(path[-1]), path)
    if section is None:
        return None
    check_keys(src, section, path, REMOTE_KEYS)
    address = section.get("scheduler")
    slots = get_int(src, section, path + ("slots",), None, 1, 100_000)
    if not isinstance(address, str) or not SCHEDULER_ADDRESS.match(address):
        src.problem(path + ("scheduler",), f"{address!r} is not a scheduler address like tcp://host:8786")
        return None
    return Remote(address, slots)


@dataclass
class Cluster:
    """A Dask client and, for a local cluster, the cluster it owns."""

    client: Any
    local: Any | None  # the LocalCluster we started; None for an existing scheduler
    description: str
    dashboard: str | None
    _asked: tuple[float, dict[str, int]] | None = field(default=None, repr=False)  # when, and what the scheduler said

    def workers(self) -> list[str]:
        """Addresses of the workers alive now, in a stable order.  A local cluster keeps
        its list current from the scheduler's stream (free to read, where asking the
        scheduler is a round trip inside a timed move)."""
        return sorted(self.worker_threads())

    def worker_threads(self) -> dict[str, int]:
        """The threads of each worker alive now, by address.  An existing scheduler is asked
        at most every ``WORKERS_ASKED_EVERY_S``: a runner looks at every job it sends, and a
        round trip to the scheduler each time would cost more than the job's own (a worker
        lost meanwhile fails its jobs at once; one that joined is seen within the second)."""
        live = getattr(self.local, "scheduler_info", None)
        if isinstance(live, dict) and "workers" in live:
            return {address: int(w.get("nthreads", 1)) for address, w in live.get("workers", {}).items()}
        now = time.monotonic()
        if self._asked is None or now - self._asked[0] >= WORKERS_ASKED_EVERY_S:
            live = self.client.scheduler_info(n_workers=-1)
            self._asked = (now, {address: int(w.get("nthreads", 1)) for address, w in live.get("workers", {}).items()})
        return dict(self._asked[1])

    def close(self) -> None:
        """Close the client and our workers; a Ctrl-C meanwhile waits until they are closed
        (a second Ctrl-C must not leave a half-closed cluster and its processes behind).  What
        was in flight (a search's actor calls, after a Ctrl-C) fails on the workers closing;
        Dask's errors about it are not shown: there is nothing left to act on."""
        from distributed.utils import silence_logging_cmgr
        with held_signals(), silence_logging_cmgr(logging.CRITICAL):
            try:
                self.client.close()
            finally:
                if self.local is not None:
                    self.local.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_cluster(workers: int = 2, scheduler: str | None = None, threads_per_worker: int = 1,
                 dashboard: bool = True, connect_timeout: float | None = None) -> Cluster:
    """A local cluster of ``workers`` processes on 127.0.0.1, or the scheduler at
    ``scheduler`` (``tcp://host:port``) with whatever workers it has.

    ``connect_timeout`` bounds both the first connection and the wait for a lost scheduler
    to come back; by default it is Dask's ``distributed.comm.timeouts.connect`` (30 s unless
    the user's Dask config or ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT`` says otherwise)."""
    leave_if_reimported()
    import dask
    from distributed import Client, LocalCluster
    if scheduler:
        try:
            client = Client(scheduler, **({} if connect_timeout is None else {"timeout": connect_timeout}))
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        except ValueError as exc:  # an address Dask cannot parse ("missing port number")
            raise ClusterError(f"{scheduler!r} is not a Dask scheduler address ({exc}): give tcp://host:port") from None
        return Cluster(client, None, f"scheduler {scheduler}", _dashboard(client) if dashboard else None)
    from multiprocessing import resource_tracker
    threads = f", {threads_per_worker} threads each" if threads_per_worker > 1 else ""
    # Started before the signals are blocked: starting it unblocks them in the starting thread
    # (CPython 3.11), and Dask's event loop would start it with the first worker.
    resource_tracker.ensure_running()
    cluster = None
    try:
        # Workers deaf to Ctrl-C (it reaches the whole process group): the caller closes them
        # when it stops, and a signal during the start is raised once the cluster is whole.
        with held_signals():
            with dask.config.set(QUIET), deaf_children():
                try:
                    local = LocalCluster(n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
                                         host="127.0.0.1", dashboard_address="127.0.0.1:0",  # ephemeral port
                                         silence_logs=worker_log_level())
                except RuntimeError as exc:  # a worker process died while starting ("Nanny failed to start")
                    raise ClusterError(f"the local Dask workers did not start ({exc}){script_hint()}") from None
                client = Client(local, direct_to_workers=True)  # jobs go straight to their worker, not through the scheduler
            cluster = Cluster(client, local, f"local cluster, {workers} worker process(es){threads} on 127.0.0.1",
                              _dashboard(client) if dashboard else None)
    except BaseException:
        if cluster is not None:
            cluster.close()
        raise
    return cluster


def _dashboard(client) -> str | None:
    """The dashboard's address; None when the scheduler serves none (``dask scheduler
    --no-dashboard``, or bokeh missing), where Dask would still name its default port."""
    import socket
    from urllib.parse import urlsplit
    try:
        link = client.dashboard_link
        where = urlsplit(link)
        socket.create_connection((where.hostname, where.port or 80), timeout=1.0).close()
        return link
    except Exception:  # noqa: BLE001 - no dashboard
        return None


def worker_address() -> str:
    """The address of the Dask worker running this code; ``inline`` outside a worker."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return "inline"
