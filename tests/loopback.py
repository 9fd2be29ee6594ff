"""A real Dask cluster on loopback for tests: a ``dask scheduler`` and ``dask worker``
processes started here, the way a cluster of machines is used, each of which a test may
kill (a worker lost mid-match, a scheduler gone) or add to (a worker that joins late).

The workers are separate processes that import the project from the checkout (PYTHONPATH)
and compile the engine on first use; every process is killed when the cluster closes."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process: subprocess.Popen, kill: bool = False) -> None:
    """End ``process`` (SIGTERM, then SIGKILL after 10 s; at once with ``kill``)."""
    if process.poll() is None:
        process.kill() if kill else process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class Loopback:
    """A scheduler at ``address`` (no dashboard unless asked) and the workers added to it."""

    def __init__(self, logs: Path, dashboard: bool = False) -> None:
        self.logs = logs
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        self.workers: list[subprocess.Popen] = []
        board = ["--dashboard-address", f"127.0.0.1:{free_port()}"] if dashboard else ["--no-dashboard"]
        self.scheduler = self._spawn(["dask_scheduler", "--host", "127.0.0.1", "--port",
                                      self.address.rsplit(":", 1)[1], *board], "scheduler.log")

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen:
        with open(self.logs / log, "ab") as out:
            return subprocess.Popen([sys.executable, "-m", f"distributed.cli.{args[0]}", *args[1:]], cwd=ROOT,
                                    env=self.env, stdout=out, stderr=subprocess.STDOUT)

    def add_worker(self, wait: bool = True) -> subprocess.Popen:
        """One more single-threaded worker process (without a nanny: killed, it stays dead)."""
        i = len(self.workers)
        self.workers.append(self._spawn(["dask_worker", self.address, "--nthreads", "1", "--nworkers", "1",
                                         "--no-nanny", "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{i}"],
                                        f"worker{i}.log"))
        if wait:
            self.wait_for(sum(w.poll() is None for w in self.workers))
        return self.workers[-1]

    def wait_for(self, n: int) -> None:
        from distributed import Client
        with Client(self.address, timeout=START_TIMEOUT_S) as client:
            client.wait_for_workers(n, timeout=START_TIMEOUT_S)
            # The workers import the project from the checkout, not from an installed copy.
            where = client.run(lambda: __import__("base.cluster").__file__)
            assert all(Path(f).resolve().is_relative_to(ROOT) for f in where.values()), where

    def say_logs(self) -> None:
        for log in sorted(self.logs.iterdir()):
            sys.stderr.write(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}\n")

    def close(self) -> None:
        for p in [*self.workers, self.scheduler]:
            stop(p)


def loopback(logs: Path, workers: int = 2):
    """A started :class:`Loopback` with ``workers`` workers (a generator for a fixture): its
    processes' logs are shown when it fails to start."""
    cluster = Loopback(logs)
    try:
        for _ in range(workers):
            cluster.add_worker(wait=False)
        cluster.wait_for(workers)
    except BaseException:
        cluster.close()
        cluster.say_logs()
        raise
    try:
        yield cluster
    finally:
        cluster.close()
