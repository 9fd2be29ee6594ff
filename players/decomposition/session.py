"""One decomposition's searching, without a player's face: the runner or the algorithm's team
and their lifetime, the game's key and shared table, and one search: the wall clock's
``iterate`` for an algorithm with no options of its own, else its registry row's ``run`` on
its row's ``team`` (:mod:`.registry`).

Why apart from :mod:`.player`: ``players.player`` builds a parallel instance on this core
(through :mod:`.team`), and the player wraps it; with the core here, nothing under
``players.player`` imports it back.
"""
from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import replace

import chess

from base.runner import Runner
from base.spawning import leave_if_reimported
from players.limits import Limit
from players.result import SearchResult
from players.searcher import mate_in_moves
from .algorithms import Aborted, Master, iterate
from .config import DecompositionConfig
from .registry import ClockedSearch
from .runner import drop_prefix, new_table, open_runner, release_table

LOG = logging.getLogger(__name__)


class Session:
    """The searching core of a decomposition player (module docstring): ``start``, ``search``,
    ``new_game``, ``stop``, ``close``."""

    def __init__(self, config: DecompositionConfig, runner: Runner | None = None) -> None:
        self.config = config
        self._runner = runner
        self._own = runner is None
        self._game = uuid.uuid4().hex[:8]
        self._move = 0
        self._table = ""  # the game's shared table, with ``shared_table: true``
        self.master: Master | None = None
        self.last = None  # on a team: the last move's result (its metrics)
        self._team = None  # the row's workers (``registry.Algorithm.team``)
        self._stopped = False

    @property
    def clocked(self) -> bool:
        """On its row's team (the node clock's algorithms, the real-time cluster): every worker a
        machine of its own, with a node budget each, and the move's metrics kept in ``last``."""
        return self.config.options is not None

    def start(self) -> Session:
        """Open the runner or the team, once (again after ``close``)."""
        leave_if_reimported()  # a Dask worker re-running a script without a main guard: see base.spawning
        if self.clocked:
            if self._team is None:
                self._open_team()
            return self
        if self._runner is None:
            self._runner = open_runner(self.config.workers, self.config.scheduler, threads=self.config.threads,
                                       in_process=self.config.in_process)
            self._options()
        return self

    def _open_team(self) -> None:
        """The row's workers (``registry.Algorithm.team``)."""
        self._team = self.config.row.team.load()(self.config)

    @property
    def where(self) -> str:
        """Where the workers run, in words."""
        c = self.config
        return ("threads of this process" if c.in_process or (c.clock == "node" and c.row.in_this_process)
                else f"Dask workers at {c.scheduler}" if c.scheduler else "local Dask workers")

    @property
    def runner(self) -> Runner | None:
        return self._runner

    def new_game(self) -> None:
        """Fresh tables: the team's, or a new game key on every worker (the old one's searchers dropped)."""
        self.start()
        if self.clocked:
            self._team.new_game()
            return
        if self._runner is not None:
            drop_prefix(self._runner, self._game)
            self._release_table()
        self._game = uuid.uuid4().hex[:8]  # fresh tables: a new key on every worker
        if self._runner is not None:
            self._options()  # the game's shared table now (tens of MB zeroed), not inside the first timed move

    def _options(self):
        """The search options, with the game's shared table (created on the first move)."""
        if not self.config.shared_table:
            return self.config.search
        if not self._table:
            self._table = new_table(self._runner, f"concilio-{self._game}", self.config.search.hash_mb)
        return replace(self.config.search, table=self._table)

    @property
    def table(self) -> str:
        """The name of this game's shared table ("" without ``shared_table``)."""
        return self._table

    def _release_table(self) -> None:
        """Free the game's shared table (after its searchers are dropped)."""
        if self._table:
            release_table(self._runner, self._table)
            self._table = ""

    def stop(self) -> None:
        self._stopped = True
        if self.master is not None:
            self.master.abort()
        stop = getattr(self._team, "stop", None)  # a team that cannot wait for ``stopped`` (real time)
        if stop is not None:
            stop()

    def search(self, board: chess.Board, limits: Limit, searchmoves: tuple[str, ...] = ()) -> SearchResult:
        """Iterative deepening over the workers within ``limits``; a deadline or node limit
        ends the search and the last completed iteration answers.  ``searchmoves``
        restricts the root (where the row's ``searchmoves`` say)."""
        if self.clocked:
            return self._clocked(board, limits, searchmoves)
        start = time.perf_counter()
        root = board.root()
        moves = tuple(m.uci() for m in board.move_stack)
        self._move += 1
        # One key per game keeps each worker's table warm from move to move.
        master = Master(self._runner, self._options(), f"{self._game}", first_job=self._move * 1_000_000,
                        **self.config.master_options())
        master.node_limit = limits.nodes
        self.master = master
        timer = None
        if limits.movetime is not None:
            timer = threading.Timer(limits.movetime / 1000.0, master.abort)
            timer.daemon = True
            timer.start()
        try:
            result = iterate(master, self.config.algorithm, root.fen(), moves, limits.depth or 64,
                             self.config.tt_exchange, tuple(searchmoves))
        except Aborted:  # not even the first iteration completed: any allowed move, searched by no one
            legal = searchmoves[0] if searchmoves else next(iter(board.legal_moves)).uci()
            return SearchResult(bestmove=legal, score_cp=0, mate=None, pv=(legal,), depth=0, root_moves_searched=0,
                                root_moves=board.legal_moves.count(), seldepth=None, nodes=master.tally.nodes,
                                time=time.perf_counter() - start, fen=board.fen())
        finally:
            if timer is not None:
                timer.cancel()
        n_root = len(searchmoves) or board.legal_moves.count()
        return SearchResult(bestmove=result.move, score_cp=result.score, mate=mate_in_moves(result.score),
                            pv=result.pv or (result.move,), depth=result.depth,
                            root_moves_searched=n_root,  # the answering iteration was completed: every root move
                            root_moves=n_root, seldepth=None, nodes=result.nodes,
                            time=time.perf_counter() - start, iterations=tuple(result.iterations), fen=board.fen())

    def _clocked(self, board: chess.Board, limits: Limit, searchmoves: tuple[str, ...]) -> SearchResult:
        """A search on the row's team (``registry.Algorithm.run``): ``limits.nodes`` per worker,
        or its depth (8 plies where neither nor a deadline is given), a deadline or stop order
        checked where the algorithm can stop (the node clock: at slice boundaries); the move's
        metrics kept in ``last`` and logged."""
        start = time.perf_counter()
        moves = tuple(m.uci() for m in board.move_stack)
        depth = limits.depth
        if limits.nodes is None and depth is None:
            depth = 64 if limits.movetime is not None else 8
        deadline = None if limits.movetime is None else start + limits.movetime / 1000.0
        self._stopped = False
        stopped = lambda: self._stopped or (deadline is not None and time.perf_counter() >= deadline)  # noqa: E731
        search = ClockedSearch(board.root().fen(), moves, limits.nodes, depth, tuple(searchmoves), stopped, limits)
        r = self.config.row.run.load()(self._team, self.config.options, search)
        self.last = r
        LOG.info("%s: %s", board.fen(), r.metrics())
        n_root = len(searchmoves) or board.legal_moves.count()
        return SearchResult(bestmove=r.move, score_cp=r.score, mate=mate_in_moves(r.score), pv=r.pv or (r.move,),
                            depth=r.depth, root_moves_searched=n_root, root_moves=n_root, seldepth=None,
                            nodes=r.nodes, time=time.perf_counter() - start, iterations=r.iterations,
                            fen=board.fen())

    def close(self) -> None:
        """Drop the game's searchers and table; close the runner if this session opened it, and the team."""
        if self._runner is not None and self._table:
            drop_prefix(self._runner, self._game)
            self._release_table()
        if self._own and self._runner is not None:
            self._runner.close()
        self._runner = None
        if self._team is not None:
            self._team.close()
            self._team = None
