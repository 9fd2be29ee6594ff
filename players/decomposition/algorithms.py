"""Parallel alpha-beta algorithms, master side.

* ``root_split``: the root's moves are jobs; the eldest is searched first (it sets the
  bound), the others are handed to idle workers with the best score so far as their
  bound; ``score_sharing`` also lowers a running job's bound when the master learns a
  better move.  Every iteration of the iterative deepening reorders the root: the best
  move first, then the moves that improved the score.  After the eldest, the younger
  brothers are probed with a null window (``null_window``); with ``speculative`` they do
  not wait for the eldest at all (``split_speculative``).
* ``peer``: root splitting without a coordinator: the workers take root moves from a shared
  counter (the agenda, a Dask variable under a Dask lock) and publish a better score in a
  shared variable under a Dask lock; every job starts from the shared best, and with
  ``score_sharing`` a watcher thread keeps a running job's bound fresh.  The eldest root move
  is still searched first, alone.
* ``pv_split``: walk down the previous iteration's principal variation; at every PV
  node search the PV child first (recursively), then split the node's other children
  among the workers, from the bottom up to the root.
* ``dynamic_split``: PV splitting, and when the agenda runs dry (fewer siblings left than
  idle workers) the next sibling is not handed out whole: the master splits it too (its
  eldest child first, then the others in parallel), so idle workers help with the big
  subtree instead of waiting for it — DPVSplit's subcontracting, decided at hand-out time.
* ``lazy_smp``: every worker runs the whole iterative deepening; workers share no memory,
  so after every iteration the master merges the deepest table entries of all workers
  and hands them back (``tt_exchange`` entries each; 0 turns the exchange off).  With a
  shared table (``shared_table``) there is nothing to exchange: every worker runs its
  iterative deepening in one job over the one table, and the first to finish answers.
* ``abdada``: lazy SMP over the shared table, where a worker puts off a younger brother
  that another worker is searching at that moment (ABDADA's deferral, Weill 1996, in
  Kerrigan's simplified form; ``players.core.shared_search``): the workers spread over the
  siblings instead of racing down the same subtree.
* ``ybw``: Young Brothers Wait with split points in shared memory, as Stockfish 6 does it: the
  whole search is one job whose process runs it on k threads (``.ybw``,
  ``players.threads.ybw_search``); a node whose eldest child is searched shares its other moves
  with idle threads through a split point.

The node clock's algorithms are not driven from here but by their own modules, each
described there and in ``docs/design/decomposition.md``'s table: the lazy clusters
(:mod:`.lockstep`, :mod:`.fresh_cluster`), the master tree and its policies
(:mod:`.master_clock`, :mod:`.tree_policies`), UIDPABS (:mod:`.uidpabs`), Devesa's mixed and
exhaustive players (:mod:`.mixed`).  Parallel aspiration (:mod:`.aspiration`) runs from here on
both clocks.

``root_split``, ``pv_split``, ``lazy_smp``, ``abdada`` and ``ybw`` are what a decomposition player
is configured with (``configs/decomposition/``).  ``peer`` and ``dynamic_split`` are kept on purpose as
experiment variants: they are the thesis's peer cooperation and dynamic subcontracting
(DPVSplit), rows of its speedup table that ``concilio speedup speedup``
(``configs/decomposition/speedup.yaml``) reproduces beside the others, and
``docs/results/parallel-search.md`` reports them.  No player config uses them, and none should
without a new measurement: they lost to root splitting with null-window probes there.

The splitting algorithms (root, speculative, PV and dynamic splitting, peer) are one policy,
:mod:`.split_policies`, which the node clock drives too; here the wall clock's driver
(:mod:`.wall`) runs it.  ``Master.split`` and ``Master.peer`` drive one step of it, for the
tests that call them directly.
Scores are fail-soft negamax values; a job answers for the position after its path,
``ply`` plies below the root, so mate distances agree with the sequential search.
"""
from __future__ import annotations

import time

import chess

from players.core.search import MAX_PLY
from .registry import ALGORITHMS, WALL, WallSearch, names, row
from .result import ParallelResult
from .options import SplitClockConfig
from .split_policies import Splitting
from .trees import BoardTree, board_after, child_depth
from .wall import Aborted, WallDriver, WallMaster

__all__ = ["Aborted", "Master", "ParallelResult", "iterate"]

class Master(WallMaster):
    """The splitting algorithms' master on the wall clock: root, speculative, PV and dynamic
    splitting and peer cooperation, the policy of :mod:`.split_policies` driven over the runner."""

    def policy(self, fen: str, moves: tuple[str, ...], algorithm: str = "root_split", ply: int = 0,
               depth: int = MAX_PLY - 1, start: float | None = None) -> tuple[WallDriver, Splitting]:
        """The splitting policy for the position after ``moves``, and the driver that runs it."""
        driver = WallDriver(self, fen, moves, ply, depth, start)
        options = SplitClockConfig(algorithm, self.runner.workers, min_split_depth=self.min_split_depth,
                                   score_sharing=self.score_sharing, null_window=self.null_window,
                                   speculative=self.speculative, margin=self.margin)
        policy = Splitting(driver, options, BoardTree(fen, moves))
        policy.dynamic = self.dynamic
        policy.root_nodes = self.root_nodes
        return driver, policy

    def _drive(self, fen: str, path: tuple[str, ...], ply: int, step) -> tuple:
        driver, policy = self.policy(fen, path, ply=ply)
        try:
            return driver.drive(step(policy))
        finally:
            self.root_nodes = policy.root_nodes

    # --- one step of the policy (the tests call these) -----------------------------------------------
    def split(self, fen: str, path: tuple[str, ...], board: chess.Board, depth: int, ply: int, alpha: int,
              beta: int, children: list[str], first: tuple[int, tuple[str, ...]] | None = None) -> tuple:
        """:meth:`.split_policies.Splitting.split` at the node after ``path``: (value, best child,
        PV, the children that raised the score)."""
        kids = [(m, child_depth(board, m, depth)) for m in children]
        return self._drive(fen, path, ply, lambda p: p.split((), depth, ply, alpha, beta, kids, first))

    def peer(self, fen: str, moves: tuple[str, ...], depth: int, order: list[str]) -> tuple:
        """:meth:`.split_policies.Splitting.peer` at the root: the eldest, then the others."""
        board = board_after(fen, moves)
        kids = [(m, child_depth(board, m, depth)) for m in order]
        return self._drive(fen, moves, 0, lambda p: p.peer(depth, kids))


def splitting(master: Master, s: WallSearch) -> ParallelResult:
    """Iterative deepening of a splitting algorithm: the policy's iterations until ``s.depth``, or
    until an abort discards the iteration under way and the last completed one answers."""
    algorithm, fen, moves, depth = s.algorithm, s.fen, s.moves, s.depth
    start = time.perf_counter()
    if algorithm in ("pv_split", "dynamic_split"):
        master.dynamic = algorithm == "dynamic_split"
    driver, policy = master.policy(fen, moves, algorithm, depth=depth, start=start)
    try:
        driver.drive(policy.iterate())
    except Aborted:
        pass
    master.root_nodes = policy.root_nodes
    move, score, done, pv = policy.best
    return ParallelResult.on_wall(algorithm, move, score, done, pv, master.tally, time.perf_counter() - start,
                                  master.runner.messages, driver.history)


def iterate(master: WallMaster, algorithm: str, fen: str, moves: tuple[str, ...], depth: int,
            tt_exchange: int = 1000, searchmoves: tuple[str, ...] = ()) -> ParallelResult:
    """Iterative deepening to ``depth`` with the chosen algorithm, by its registry row's ``wall``
    entry.  ``master.abort()`` (a deadline) or ``master.node_limit`` ends it early: the
    interrupted iteration is discarded and the last completed one answers.  ``searchmoves``
    restricts the root to those moves (the cascade's second phase), where the row allows it."""
    try:
        found = row(algorithm)
    except KeyError:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}") from None
    if found.wall is None:
        where = found.run.module if found.run else "its own module"
        raise ValueError(f"{algorithm} runs on the node clock (players.decomposition.{where}), not through a Master")
    if searchmoves and WALL not in found.searchmoves:
        raise ValueError(f"{algorithm}: only {', '.join(names(lambda r: WALL in r.searchmoves))} "
                         "can restrict the root moves")
    return found.wall.load()(master, WallSearch(algorithm, fen, moves, depth, searchmoves, tt_exchange))
