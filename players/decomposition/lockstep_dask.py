"""The lazy cluster's Dask adapter: the lockstep workers of :mod:`.lockstep` kept on Dask
worker processes (one long-lived :class:`~.lockstep.LockstepWorker` per search worker, search
worker w on process w mod P), each slice one task pinned to its worker's process.  It has the
interface of :class:`~.lockstep.InProcess` (``begin``, ``run_slice``, ``new_game``, ``close``),
so :func:`~.lockstep.run_lockstep` drives either the same way and the answers are identical.

All the Dask in the lazy cluster is here (``base.cluster``'s ``open_cluster``; ``submit`` with
``workers=[address]``), so that moving it to another runner touches this file only."""
from __future__ import annotations

import contextlib
import uuid

from base.cluster import open_cluster
from .jobs import SearcherConfig
from .lockstep import LockstepConfig, SliceReport, remote_begin, remote_drop, remote_new_game, remote_slice


class DaskLockstep:
    """``workers`` lockstep workers on ``processes`` Dask worker processes (a local cluster,
    or the one at ``scheduler``; or the ``cluster`` given, which the caller closes)."""

    def __init__(self, options: SearcherConfig, workers: int, processes: int | None = None,
                 scheduler: str | None = None, cluster=None) -> None:
        self.options = options
        self.n = workers
        self._own = cluster is None
        self.cluster = cluster or open_cluster(processes or min(workers, 2), scheduler, dashboard=False)
        self.client = self.cluster.client
        addresses = self.cluster.workers()
        if not addresses:
            raise RuntimeError(f"no Dask workers in {self.cluster.description}")
        self.homes = [addresses[w % len(addresses)] for w in range(workers)]
        self.prefix = f"lazy-{uuid.uuid4().hex[:8]}-"

    def _key(self, w: int) -> str:
        return f"{self.prefix}{w}"

    def _on(self, w: int, fn, *args):
        return self.client.submit(fn, *args, workers=[self.homes[w]], allow_other_workers=False, pure=False)

    def begin(self, fen: str, moves: tuple[str, ...], depth: int | None, nodes: int | None) -> None:
        futures = [self._on(w, remote_begin, self._key(w), w, self.options, fen, moves, depth, nodes)
                   for w in range(self.n)]
        for f in futures:
            f.result()

    def run_slice(self, active: list[int], delivered: dict[int, tuple], config: LockstepConfig) -> list[SliceReport]:
        from .lockstep import EMPTY
        futures = [self._on(w, remote_slice, self._key(w), delivered.get(w, EMPTY), config.slice,
                            config.exchange_depth, config.exchange_size) for w in active]
        return [f.result() for f in futures]

    def new_game(self) -> None:
        self.client.run(remote_new_game, self.prefix)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # workers already gone hold nothing
            self.client.run(remote_drop, self.prefix)
        if self._own:
            self.cluster.close()
