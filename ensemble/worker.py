"""What runs on a Dask worker: instances kept resident in the worker process for a
whole game, so each keeps its hash table warm between moves.

Instances stay resident in the worker, keyed by a name the coordinator chooses;
tasks pinned to the worker find them there.  ``stop_instances`` is sent with
``Client.run``, which runs on the worker's event loop and so reaches a search that
is busy in the worker's task thread.
"""
from __future__ import annotations

from base.cluster import Resident, worker_address
from base.errors import ConcilioError
from players.limits import Limit
from players.position import Position
from players.result import SearchResult
from players.searcher import Searcher

_INSTANCES: Resident[Searcher] = Resident()


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
    """One search from ``fen`` after ``moves`` (the game's history, so repetitions count)."""
    return _get(key).search(Position.from_fen(fen, moves), limits, margin_probe=margin_probe)


async def stop_instances(*keys: str) -> int:
    """Stop whichever of these instances live on this worker; how many did.  A coroutine,
    so that ``Client.run(..., wait=False)`` runs it on the event loop at once, and one call
    for every worker: a stop costs one message, not one per instance."""
    searchers = [s for s in map(_INSTANCES.get, keys) if s is not None]
    for searcher in searchers:
        searcher.stop()
    return len(searchers)


def new_game_instance(key: str) -> None:
    _get(key).new_game()


async def drop_instance(key: str) -> None:
    _INSTANCES.pop(key)
