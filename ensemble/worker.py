"""What runs on a Dask worker: instances kept resident in the worker process for a
whole game, so each keeps its hash table warm between moves.

The coordinator sends these jobs through its runner (``base.runner.dask``) to the slot
that holds the instance; the instances live in the runner's state on that worker, which
stops their searches when the runner or the worker closes.  ``stop_instances`` is sent as
a runner signal, which runs on the worker's event loop and so reaches a search that is
busy in the slot's thread.  So does ``instance_progress``: each search keeps its last
completed iteration where the coordinator can read it while the search goes on.
"""
from __future__ import annotations

from base.cluster import worker_address
from base.errors import ConcilioError
from base.runner import Resident
from players.limits import Limit
from players.position import Position
from players.result import IterationInfo, SearchResult
from players.searcher import Searcher

_INSTANCES: Resident[Searcher] = Resident("ensemble.instances")  # stopped and closed with the runner
_PROGRESS: Resident[IterationInfo] = Resident("ensemble.progress")  # each search's last completed iteration


class InstanceMissing(ConcilioError, RuntimeError):
    """The worker does not hold this instance (it was restarted, or never had it)."""


def create_instance(key: str, instance) -> str:
    """Build the instance's searcher here and load its compiled code (one tiny search),
    so that the first real move does not pay for it.  Returns the worker's address."""
    searcher = instance.make_searcher()
    searcher.search(None, Limit(depth=1))
    searcher.new_game()
    _INSTANCES.put(key, searcher)
    return worker_address()


def _get(key: str):
    searcher = _INSTANCES.get(key)
    if searcher is None:
        raise InstanceMissing(f"instance {key} is not on worker {worker_address()}")
    return searcher


def search_instance(key: str, fen: str, moves: tuple[str, ...], limits: Limit,
                    margin_probe: bool = False) -> SearchResult:
    """One search from ``fen`` after ``moves`` (the game's history, so repetitions count),
    its iterations kept for ``instance_progress`` as they complete."""
    searcher = _get(key)
    _PROGRESS.pop(key)  # the last move's iterations say nothing about this one
    return searcher.search(Position.from_fen(fen, moves), limits, lambda it: _PROGRESS.put(key, it),
                           margin_probe=margin_probe)


async def stop_instances(*keys: str) -> int:
    """Stop whichever of these instances live on this worker; how many did.  A coroutine,
    so that a runner's signal runs it on the event loop at once, and one call for every
    worker: a stop costs one message, not one per instance."""
    searchers = [s for s in map(_INSTANCES.get, keys) if s is not None]
    for searcher in searchers:
        searcher.stop()
    return len(searchers)


async def instance_progress(*keys: str) -> dict[str, IterationInfo]:
    """The last completed iteration of whichever of these instances live here and have
    completed one in their current search (a coroutine, like ``stop_instances``)."""
    return {key: info for key in keys if (info := _PROGRESS.get(key)) is not None}


def new_game_instance(key: str) -> None:
    _get(key).new_game()

