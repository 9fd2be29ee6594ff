"""The registry's entry points (``registry.Algorithm.team`` and ``run``) for the algorithms whose
drivers predate it: each wraps a driver's own signature into the registry's.  Nothing imports
this module by name but :class:`.registry.Entry`, when a player is built: reading a file loads
no engine, and no module below the registry imports it back.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import DecompositionConfig
    from .options import LockstepConfig, MasterTreeConfig, RootPolicyConfig, SplitClockConfig
    from .registry import ClockedSearch, WallSearch
    from .result import ParallelResult
    from .wall import WallMaster


def master_team(config: DecompositionConfig):
    """The master families' workers (splitting on the node clock, the master tree, the root
    policies): always in this process."""
    from .master_worker import Team
    return Team(config.search, config.workers)


def lockstep_team(config: DecompositionConfig):
    """The lazy cluster's workers: in this process one after the other (``in_process``, or a
    single worker), else on Dask workers (a local cluster of at most 2 processes, or the scheduler's)."""
    if config.in_process or (config.workers == 1 and not config.scheduler):
        from .master_worker import Team
        return Team(config.search, config.workers)
    from .lockstep_dask import DaskTeam
    return DaskTeam(config.search, config.workers, min(config.workers, 2), config.scheduler)


def split_clock(team, options: SplitClockConfig, s: ClockedSearch):
    from .split_clock import run_split_clock
    return run_split_clock(team, options, s.fen, s.moves, s.nodes, s.depth, s.searchmoves, s.stopped)


def master_tree(team, options: MasterTreeConfig, s: ClockedSearch):
    from .master_clock import run_master_tree
    return run_master_tree(team, options, s.fen, s.moves, s.nodes, s.depth, s.searchmoves, s.stopped)


def uidpabs(team, options: RootPolicyConfig, s: ClockedSearch):
    from .uidpabs import run_uidpabs
    return run_uidpabs(team, options, s.fen, s.moves, s.nodes, s.depth, s.stopped, s.searchmoves)


def mixed(team, options: RootPolicyConfig, s: ClockedSearch):
    """Devesa's strategies: rounds up to a depth limit as a cap, or one round at a fixed depth."""
    from .mixed import run_mixed
    return run_mixed(team, options, s.fen, s.moves, s.nodes, s.depth, s.stopped, s.searchmoves,
                     deepening=s.limits.depth is None)


def lockstep(team, options: LockstepConfig, s: ClockedSearch):
    from .lockstep import run_lockstep
    return run_lockstep(team, options, s.fen, s.moves, s.nodes, s.depth, s.stopped, s.searchmoves)


def smp(master: WallMaster, s: WallSearch) -> ParallelResult:
    """Lazy SMP and ABDADA: over a shared table every worker searches from the root in one job
    (and the root can be restricted); without one, lazy SMP merges the tables between iterations."""
    from .smp import lazy_smp, shared_smp
    if master.options.table:
        return shared_smp(master, s.fen, s.moves, s.depth, s.searchmoves)
    if s.searchmoves:
        raise ValueError(f"{s.algorithm}: the root moves can be restricted only over a shared table")
    return lazy_smp(master, s.fen, s.moves, s.depth, s.tt_exchange)


def ybw(master: WallMaster, s: WallSearch) -> ParallelResult:
    from .smp import ybw_search
    return ybw_search(master, s.fen, s.moves, s.depth, s.searchmoves)


def aspiration(master: WallMaster, s: WallSearch) -> ParallelResult:
    from .aspiration import parallel_aspiration
    return parallel_aspiration(master, s.fen, s.moves, s.depth)


def splitting(master: WallMaster, s: WallSearch) -> ParallelResult:
    from .algorithms import splitting as drive
    return drive(master, s.algorithm, s.fen, s.moves, s.depth)
