"""Where the instances run: a ``LocalCluster`` on loopback (one single-threaded
worker process per instance by default) or an existing scheduler named in the file."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from .config import ClusterConfig


class ClusterError(RuntimeError):
    """The cluster could not be started or reached."""


@dataclass
class ClusterHandle:
    client: object
    cluster: object | None  # the LocalCluster we own, None for an external scheduler
    description: str
    dashboard: str | None

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()

    def workers(self) -> list[str]:
        """Addresses of the workers alive now, in a stable order.  A local cluster keeps
        its list current from the scheduler's stream (free to read, where asking the
        scheduler is a round trip inside a timed move)."""
        live = getattr(self.cluster, "scheduler_info", None)
        if isinstance(live, dict) and "workers" in live:
            return sorted(live["workers"])
        try:
            info = self.client.scheduler_info(n_workers=-1)
        except TypeError:  # older distributed: no n_workers argument
            info = self.client.scheduler_info()
        return sorted(info.get("workers", {}))


def open_cluster(config: ClusterConfig, n_instances: int, connect_timeout: float = 30.0) -> ClusterHandle:
    from distributed import Client, LocalCluster
    if config.scheduler:
        try:
            client = Client(config.scheduler, timeout=connect_timeout)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {config.scheduler}: {exc}") from None
        return ClusterHandle(client, None, f"scheduler {config.scheduler}", _dashboard(client))
    workers = config.workers or n_instances
    cluster = LocalCluster(n_workers=workers, threads_per_worker=config.threads_per_worker, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0",  # ephemeral port: no clashes
                           silence_logs=logging.ERROR)
    client = Client(cluster)
    return ClusterHandle(client, cluster, f"local cluster, {workers} worker process(es) on 127.0.0.1",
                         _dashboard(client) if config.dashboard else None)


def _dashboard(client) -> str | None:
    try:
        return client.dashboard_link
    except Exception:  # no dashboard (bokeh missing, or disabled on the scheduler)
        return None
