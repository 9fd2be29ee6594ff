"""The one Dask layer: local clusters and schedulers."""
import signal
import socket

import pytest

from base.cluster import ClusterError, open_cluster, worker_address


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:"):
        open_cluster(scheduler=f"tcp://127.0.0.1:{_free_port()}", connect_timeout=2)


def _where() -> str:
    return worker_address()


def _blocked() -> set[int]:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def test_a_local_cluster_lists_its_workers_on_loopback_and_runs_tasks_there():
    with open_cluster(2, dashboard=False) as cluster:
        workers = cluster.workers()
        assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
        assert cluster.client.submit(_where, workers=[workers[1]], pure=False).result() == workers[1]
        assert cluster.dashboard is None and "2 worker process(es)" in cluster.description
        # Deaf to Ctrl-C, which reaches the whole process group: the caller closes them.
        stop = {signal.SIGINT, signal.SIGTERM}
        assert all(stop <= blocked for blocked in cluster.client.run(_blocked).values())
        assert stop <= cluster.client.submit(_blocked, pure=False).result()  # and their task threads
    assert not {signal.SIGINT, signal.SIGTERM} & _blocked()  # this process listens
    assert worker_address() == "inline"
