"""The root policies' entry point: one move of UIDPABS (:mod:`.uidpabs`) or of Devesa's mixed
or exhaustive strategy (:mod:`.mixed`) on the node clock, chosen by the config's algorithm."""
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
