"""The lazy cluster's Dask adapter: the lockstep workers of :mod:`.lockstep` kept on Dask
worker processes (one long-lived :class:`~.lockstep.LockstepWorker` per search worker, search
worker w in slot w mod P of the runner, one slot per process), each slice one job sent to its
worker's slot.  It has the interface of :class:`~.lockstep.InProcess` (``begin``,
``run_slice``, ``new_game``, ``close``), so :func:`~.lockstep.run_lockstep` drives either the
same way and the answers are identical.

The Dask in the lazy cluster is the runner's (``base.runner.dask``): the workers live in its
state on each process, and closing it lets them go."""
from __future__ import annotations

import uuid

from base.cluster import Cluster
from .options import LockstepConfig, SearcherConfig
from .lockstep import SliceReport, remote_begin, remote_new_game, remote_slice


class DaskLockstep:
    """``workers`` lockstep workers on ``processes`` Dask worker processes (a local cluster,
    or the one at ``scheduler``; or the ``cluster`` given, which the caller closes)."""

    def __init__(self, options: SearcherConfig, workers: int, processes: int | None = None,
                 scheduler: str | None = None, cluster: Cluster | None = None) -> None:
        from base.runner.dask import DaskRunner
        self.options = options
        self.n = workers
        self.runner = (DaskRunner.start(processes or min(workers, 2), scheduler) if cluster is None
                       else DaskRunner(cluster))
        slots = self.runner.live()
        if not slots:
            self.runner.close()
            raise RuntimeError(f"no Dask workers in {self.runner.cluster.description}")
        self.homes = [slots[w % len(slots)] for w in range(workers)]  # the slot of each search worker
        self.prefix = f"lazy-{uuid.uuid4().hex[:8]}-"

    def _key(self, w: int) -> str:
        return f"{self.prefix}{w}"

    def begin(self, fen: str, moves: tuple[str, ...], depth: int | None, nodes: int | None,
              searchmoves: tuple[str, ...] = ()) -> None:
        jobs = [self.runner.submit_to(self.homes[w], remote_begin, self._key(w), w, self.options, fen, moves, depth,
                                      nodes, searchmoves) for w in range(self.n)]
        for job in jobs:
            job.result()

    def run_slice(self, active: list[int], delivered: dict[int, tuple], config: LockstepConfig) -> list[SliceReport]:
        from .lockstep import EMPTY
        jobs = [self.runner.submit_to(self.homes[w], remote_slice, self._key(w), delivered.get(w, EMPTY),
                                      config.slice, config.exchange_depth, config.exchange_size) for w in active]
        return [job.result() for job in jobs]

    def new_game(self) -> None:
        self.runner.everywhere(remote_new_game, self.prefix)

    def close(self) -> None:
        """Close the runner: its plugin's teardown drops the workers on every process (and a
        cluster of its own closes)."""
        self.runner.close()
