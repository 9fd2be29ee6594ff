"""The decomposition's algorithms, one row each: its options class, how it runs (the clocks,
the node clock's regime, its need of shared memory, where its root can be restricted) and the
entry points that run it.  A new algorithm is one module and one row here.

How a file's algorithm runs follows from its options (:mod:`.options`): an algorithm whose
options class answers None (the thesis's algorithms on the wall clock) is driven by
``algorithms.iterate`` on a runner; one that answers options runs on its row's ``team``
through its row's ``run``.  Both are named, not imported, so that reading a file loads no
engine: ``Entry.load`` imports them when a player is built.

An algorithm's module gives its entry points with these signatures (a row names them as
``"module:function"``):

* ``team(config: DecompositionConfig)`` -> the workers, kept for a game: ``new_game()``,
  ``close()`` (and ``stop()`` if a stop order must reach them other than through ``stopped``);
* ``run(team, options, search: ClockedSearch)`` -> one move's result: ``move``, ``score``,
  ``depth``, ``pv``, ``nodes``, ``iterations`` and ``metrics()`` (the line the player logs);
* ``wall(master, search: WallSearch)`` -> one move's iterative deepening on the wall clock,
  driven from a master over a runner (``algorithms.iterate``), a ``ParallelResult``.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable

from players.limits import Limit
from .options import (FreshClusterOptions, LockstepConfig, MasterTreeConfig, OrderDepthOptions, Options,
                      RootPolicyConfig, RootSplitOptions, SmpOptions, SplitClockConfig, WallOptions,
                      WindowReductionOptions, YbwOptions)

WALL, NODE = "wall", "node"


@dataclass(frozen=True)
class Entry:
    """A function named by its module in this package, imported when first called for."""

    module: str
    name: str

    def load(self) -> Callable[..., Any]:
        return getattr(import_module(f"{__package__}.{self.module}"), self.name)


@dataclass(frozen=True)
class ClockedSearch:
    """One move for a team (``run``): the game, the budget per worker, the checks."""

    fen: str  # the game's first position
    moves: tuple[str, ...]  # its moves so far
    nodes: int | None  # per worker
    depth: int | None  # None only with a node budget
    searchmoves: tuple[str, ...]
    stopped: Callable[[], bool]  # a deadline or a stop order, checked where the algorithm can stop
    limits: Limit  # as the caller gave them (a real-time team reads its movetime)


@dataclass(frozen=True)
class WallSearch:
    """One move's iterative deepening from a master (``wall``)."""

    algorithm: str
    fen: str
    moves: tuple[str, ...]
    depth: int
    searchmoves: tuple[str, ...] = ()
    tt_exchange: int = 1000  # lazy SMP without a shared table: entries merged after every iteration


@dataclass(frozen=True)
class Algorithm:
    """One algorithm's row."""

    name: str
    options: type[Options]  # reads and checks its keys; its answer (or None) says what runs it
    clocks: tuple[str, ...]  # where it can run: the wall clock (real workers), the node clock
    node_regime: str | None  # "sliced" (workers talk at slice boundaries) | "event" (jobs run to their end) |
    # "checkpoints" (workers meet every batch of nodes, never restarted) | None (wall clock only)
    shared_memory: str  # "never" | "optional" | "required" (a shared table) | "threads" (one process's memory)
    searchmoves: tuple[str, ...] = ()  # the clocks on which the root can be restricted
    team: Entry | None = None  # makes the workers of a run with options
    run: Entry | None = None  # searches one move on them
    in_this_process: bool = True  # on the node clock its workers are this process's (else Dask may hold them)
    defer: bool = False  # its searchers put off moves another worker searches (ABDADA)
    node_master: bool = False  # on the node clock it is its wall clock's master on a runner without a client
    # (no options of its own: the node clock counts what the master's jobs search)
    wall: Entry | None = None  # its iterative deepening from a master on a runner (None: not driven so)

    def shares_table(self, shared_table: bool) -> bool:
        """Whether its workers search over one shared table: always if it needs one (ABDADA); if
        it may have one (lazy SMP), when the file's ``shared_table`` asks for it."""
        return self.shared_memory == "required" or (self.shared_memory == "optional" and shared_table)


def _entry(where: str | None) -> Entry | None:
    """``"module:function"`` as an :class:`Entry`."""
    return Entry(*where.split(":")) if where else None


def _row(name: str, options: type[Options], clocks: tuple[str, ...], regime: str | None, memory: str,
         searchmoves: tuple[str, ...] = (), team: str | None = None, run: str | None = None,
         wall: str | None = None, **more) -> Algorithm:
    """A row whose team, run and wall are named ``"module:function"``."""
    return Algorithm(name, options, clocks, regime, memory, searchmoves, _entry(team), _entry(run),
                     wall=_entry(wall), **more)


_SPLIT = dict(team="master_worker:team", run="split_clock:run", wall="algorithms:splitting")
_TREE = dict(team="master_worker:team", run="master_clock:run")

ROWS: tuple[Algorithm, ...] = (
    _row("root_split", RootSplitOptions, (WALL, NODE), "sliced", "optional", (NODE,), **_SPLIT),
    _row("peer", WallOptions, (WALL,), None, "optional", wall="algorithms:splitting"),
    _row("pv_split", SplitClockConfig, (WALL, NODE), "sliced", "optional", (NODE,), **_SPLIT),
    _row("dynamic_split", SplitClockConfig, (WALL, NODE), "sliced", "optional", (NODE,), **_SPLIT),
    _row("lazy_smp", SmpOptions, (WALL,), None, "optional", (WALL,), wall="smp:smp"),  # searchmoves: shared table only
    _row("abdada", SmpOptions, (WALL,), None, "required", (WALL,), wall="smp:smp", defer=True),
    _row("ybw", YbwOptions, (WALL,), None, "threads", (WALL,), wall="smp:ybw_search"),
    _row("aspiration", WallOptions, (WALL, NODE), "event", "optional", wall="aspiration:parallel_aspiration",
         node_master=True),
    _row("lazy_cluster", LockstepConfig, (NODE,), "sliced", "never", (NODE,), "lockstep:team", "lockstep:run",
         in_this_process=False),
    _row("master_tree", MasterTreeConfig, (NODE,), "sliced", "never", (NODE,), **_TREE),
    _row("tree_split", WindowReductionOptions, (NODE,), "sliced", "never", (NODE,), **_TREE),
    _row("mandatory_first", WindowReductionOptions, (NODE,), "sliced", "never", (NODE,), **_TREE),
    _row("uidpabs", RootPolicyConfig, (NODE,), "event", "never", (NODE,), team="master_worker:team",
         run="uidpabs:run"),
    _row("mixed", OrderDepthOptions, (NODE,), "event", "never", (NODE,), team="master_worker:team",
         run="mixed:run"),
    _row("fresh_cluster", FreshClusterOptions, (NODE, WALL), "checkpoints", "never", (NODE, WALL),
         "fresh_realtime:team", "fresh_realtime:run"),
)
_BY_NAME = {row.name: row for row in ROWS}


def row(name: str) -> Algorithm:
    """The row of algorithm ``name`` (``KeyError`` for an unknown one)."""
    return _BY_NAME[name]


def names(where: Callable[[Algorithm], bool] = lambda row: True) -> tuple[str, ...]:
    """The algorithms' names, in the rows' order, of the rows ``where`` holds for."""
    return tuple(r.name for r in ROWS if where(r))


ALGORITHMS = names()
