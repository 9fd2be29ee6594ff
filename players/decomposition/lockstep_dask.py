"""The node clock's team on Dask: the workers of :class:`.master_worker.Team` kept on Dask
worker processes (one long-lived :class:`~.master_worker.Worker` per search worker, search
worker w in slot w mod P of the runner, one slot per process), each worker's slice one job
sent to its slot.  It has the team's interface (``begin``, ``run_slice``, ``new_game``,
``close``), so a node-clock driver (the lazy cluster's :func:`~.lockstep.run_lockstep`) drives
either the same way and the answers are identical.

The Dask is the runner's (``base.runner.dask``): the workers live in its state on each
process, and closing it lets them go."""
from __future__ import annotations

import uuid
from collections.abc import Sequence

from base.runner import Resident
from .master_worker import Message, SliceReport, Worker
from .options import SearcherConfig

# One long-lived worker per (team, search worker) in the worker process, resident in the state
# of the team's runner; each slice is a job sent to the runner's slot on that process.
_WORKERS: Resident = Resident("decomposition.lockstep")


def remote_begin(key: str, index: int, options: SearcherConfig, fen: str, moves: tuple[str, ...],
                 searchmoves: tuple[str, ...] = ()) -> tuple[str, ...]:
    return _WORKERS.get_or_create(key, lambda: Worker(index, options, key)).begin(fen, moves, searchmoves)


def remote_slice(key: str, delivered: Sequence[Message], budget: int) -> SliceReport:
    worker = _WORKERS.get(key)
    if worker is None:
        raise RuntimeError(f"node-clock worker {key} is not on this Dask worker (restarted?)")
    return worker.run_slice(delivered, budget)


def remote_new_game(prefix: str) -> None:
    """A new game for this process's workers of one team: tables, history and killers
    cleared, as :meth:`.master_worker.Team.new_game` does (the workers themselves are kept)."""
    for worker in _WORKERS:
        if worker.key.startswith(prefix):
            worker.new_game()


class DaskTeam:
    """``workers`` node-clock workers on ``processes`` Dask worker processes (a local cluster,
    or the one at ``scheduler``)."""

    def __init__(self, options: SearcherConfig, workers: int, processes: int | None = None,
                 scheduler: str | None = None) -> None:
        from base.runner.dask import DaskRunner
        self.options = options
        self.n = workers
        self.runner = DaskRunner.start(processes or min(workers, 2), scheduler)
        slots = self.runner.live()
        if not slots:
            self.runner.close()
            raise RuntimeError(f"no Dask workers in {self.runner.cluster.description}")
        self.homes = [slots[w % len(slots)] for w in range(workers)]  # the slot of each search worker
        self.prefix = f"lazy-{uuid.uuid4().hex[:8]}-"

    def _key(self, w: int) -> str:
        return f"{self.prefix}{w}"

    def begin(self, fen: str, moves: tuple[str, ...], searchmoves: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        """A new move on every worker: their root moves in their order."""
        jobs = [self.runner.submit_to(self.homes[w], remote_begin, self._key(w), w, self.options, fen, moves,
                                      searchmoves) for w in range(self.n)]
        return [job.result() for job in jobs]

    def run_slice(self, delivered: dict[int, list[Message]], budget: int,
                  order: Sequence[int] | None = None) -> list[SliceReport]:
        """One slice of the workers in ``order`` (default: all), at once; their reports by worker."""
        ran = sorted(order if order is not None else range(self.n))
        jobs = [self.runner.submit_to(self.homes[w], remote_slice, self._key(w), delivered.get(w, ()), budget)
                for w in ran]
        return [job.result() for job in jobs]

    def new_game(self) -> None:
        self.runner.everywhere(remote_new_game, self.prefix)

    def close(self) -> None:
        """Close the runner: its plugin's teardown drops the workers on every process (and a
        cluster of its own closes)."""
        self.runner.close()

