"""The root policies' entry point: one move of UIDPABS (:mod:`.uidpabs`) or of Devesa's mixed
or exhaustive strategy (:mod:`.mixed`) on the node clock (``docs/design/node-clock.md``), chosen
by the config's algorithm.

Both policies split the root's moves among workers that then search without talking to each
other until they answer, so no slices are needed: a worker's search is a deterministic
function of (position, its table, its share of the root, its window), the k workers run one
after another in this process, and the parallel time is read off their node counts (T_k).

A worker (:class:`.master_worker.Worker`, begun by :meth:`.master_worker.Team.begin_root`) is a
plain :class:`players.searcher.Searcher` with a table of its own, kept from search to search and
move to move (no shared memory).  One call of its ``search`` is one search of *its* root moves (a
subset of the root's, in its order) to a depth in a window, with at most ``limit`` nodes: the
sequential root search (``search_root``) over fewer moves, so every move's value, check
extension included, is the one the sequential search gives it.
"""
from __future__ import annotations

from collections.abc import Callable

from .mixed import run_mixed
from .master_worker import Team
from .options import RootPolicyConfig
from .result import ParallelResult
from .uidpabs import run_uidpabs


def run_root_policy(team: Team, config: RootPolicyConfig, fen: str, moves: tuple[str, ...] = (),
                    nodes: int | None = None, depth: int | None = None, stopped: Callable[[], bool] | None = None,
                    searchmoves: tuple[str, ...] = (), deepening: bool | None = None) -> ParallelResult:
    """One move: to ``depth``, or ``nodes`` per worker on the clock, or until ``stopped()``;
    ``deepening``: mixed's rounds go up to ``depth`` (a cap) instead of one round at it
    (UIDPABS always deepens)."""
    if config.algorithm == "uidpabs":
        return run_uidpabs(team, config, fen, moves, nodes, depth, stopped, searchmoves)
    return run_mixed(team, config, fen, moves, nodes, depth, stopped, searchmoves, deepening)
