"""The decomposition player: the workers search one tree; the answer is a
``SearchResult`` like any searcher's, so tournaments and UCI use it unchanged."""
from __future__ import annotations

import threading
import time
import uuid
from dataclasses import replace

import chess

from players.player import COORDINATED_OVERHEAD_MS, InfoCallback, MoveLimits, Played
from players.result import SearchLimits, SearchResult
from players.searcher import mate_in_moves
from .algorithms import Aborted, Master, iterate
from .config import DecompositionConfig
from .runner import DaskRunner, InlineRunner, ThreadRunner


class DecompositionPlayer:
    """The workers search one tree (a :class:`players.player.Player`)."""

    overhead_ms = COORDINATED_OVERHEAD_MS

    def __init__(self, config: DecompositionConfig, runner=None) -> None:
        self.config = config
        self.name = f"decomposition {config.name} ({config.algorithm}, {config.workers} workers)"
        self._runner = runner
        self._own = runner is None
        self._game = uuid.uuid4().hex[:8]
        self._move = 0
        self._table = ""  # the game's shared table, with ``shared_table: true``
        self.master: Master | None = None

    def start(self) -> "DecompositionPlayer":
        if self._runner is None:
            if self.config.in_process and self.config.workers > 1:
                self._runner = ThreadRunner(self.config.workers)
            elif self.config.workers > 1 or self.config.scheduler:
                self._runner = DaskRunner(self.config.workers, self.config.scheduler, threads=self.config.threads)
            else:
                self._runner = InlineRunner()
            self._options()
        return self

    def __enter__(self) -> "DecompositionPlayer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def runner(self):
        return self._runner

    def new_game(self) -> None:
        if self._runner is not None:
            self._runner.drop_prefix(self._game)
            self._release_table()
        self._game = uuid.uuid4().hex[:8]  # fresh tables: a new key on every worker
        if self._runner is not None:
            self._options()  # the game's shared table now (tens of MB zeroed), not inside the first timed move

    def _options(self):
        """The search options, with the game's shared table (created on the first move)."""
        if not self.config.shared_table:
            return self.config.search
        if not self._table:
            self._table = self._runner.new_table(f"concilio-{self._game}", self.config.search.hash_mb)
        return replace(self.config.search, table=self._table)

    @property
    def table(self) -> str:
        """The name of this game's shared table ("" without ``shared_table``)."""
        return self._table

    def _release_table(self) -> None:
        """Free the game's shared table (after its searchers are dropped)."""
        if self._table:
            self._runner.release_table(self._table)
            self._table = ""

    def stop(self) -> None:
        if self.master is not None:
            self.master.abort()

    def search(self, board: chess.Board, limits: SearchLimits, searchmoves: tuple[str, ...] = ()) -> SearchResult:
        """Iterative deepening over the workers within ``limits``; a deadline or node limit
        ends the search and the last completed iteration answers.  ``searchmoves``
        restricts the root (abdada and shared-table lazy SMP only)."""
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
                            root_moves=n_root, seldepth=None, nodes=result.tally.nodes,
                            time=time.perf_counter() - start, iterations=tuple(result.iterations), fen=board.fen())

    def team_nodes(self, nodes: int) -> int:
        """The team's nodes in the time the full engine searches ``nodes`` on one core."""
        from players.speed import default_speed_table
        return default_speed_table().team_nodes(self.config.algorithm, self.config.workers, nodes)

    def play(self, board: chess.Board, limits: MoveLimits, info: InfoCallback | None = None) -> Played:
        """A move as a :class:`players.player.Player`: the search's iterations reach ``info``
        once the move is decided (the workers report them only then)."""
        start = time.perf_counter()
        search_limits = limits.search_limits(self.overhead_ms).fixed()
        if search_limits.depth == 127:
            search_limits = SearchLimits(depth=64)  # until stop: deeper than any search gets
        if limits.equal_time and search_limits.nodes:
            search_limits = SearchLimits(nodes=self.team_nodes(search_limits.nodes))
        result = self.search(board, search_limits, limits.searchmoves)
        if info is not None:
            for it in result.iterations:
                info(it)
        return Played.of(result, result.bestmove, time.perf_counter() - start, result.nodes)

    def close(self) -> None:
        if self._runner is not None and self._table:
            self._runner.drop_prefix(self._game)
            self._release_table()
        if self._own and self._runner is not None:
            self._runner.close()
        self._runner = None
