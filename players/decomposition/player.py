"""The decomposition player: the workers search one tree; the answer is a
``SearchResult`` like any searcher's, so tournaments and UCI use it unchanged."""
from __future__ import annotations

import threading
import time
import uuid
from dataclasses import replace

import chess

from players.result import IterationInfo, SearchLimits, SearchResult
from players.searcher import mate_in_moves
from . import jobs
from .algorithms import Aborted, Master, iterate
from .config import DecompositionConfig
from .runner import DaskRunner, InlineRunner


class DecompositionPlayer:
    def __init__(self, config: DecompositionConfig, runner=None) -> None:
        self.config = config
        self._runner = runner
        self._own = runner is None
        self._game = uuid.uuid4().hex[:8]
        self._move = 0
        self._table = ""  # the game's shared table, with ``shared_table: true``
        self.master: Master | None = None

    def start(self) -> "DecompositionPlayer":
        if self._runner is None:
            self._runner = DaskRunner(self.config.workers, self.config.scheduler, threads=self.config.threads) \
                if self.config.workers > 1 or self.config.scheduler else InlineRunner()
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
            drop_all(self._runner, self._game)
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

    def _release_table(self) -> None:
        """Free the game's shared table (after its searchers are dropped)."""
        if self._table:
            self._runner.release_table(self._table)
            self._table = ""

    def stop(self) -> None:
        if self.master is not None:
            self.master.abort()

    def search(self, board: chess.Board, limits: SearchLimits) -> SearchResult:
        """Iterative deepening over the workers within ``limits``; a deadline or node limit
        ends the search and the last completed iteration answers."""
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
                             self.config.tt_exchange)
        except Aborted:
            legal = next(iter(board.legal_moves)).uci()
            return SearchResult(legal, 0, None, (legal,), 0, 0, board.legal_moves.count(), 0, master.tally.nodes,
                                time.perf_counter() - start, (), board.fen())
        finally:
            if timer is not None:
                timer.cancel()
        iterations = tuple(IterationInfo(d, d, s, None, 0, 0.0, (m,)) for d, s, m in result.iterations)
        return SearchResult(result.move, result.score, mate_in_moves(result.score), result.pv or (result.move,),
                            result.depth,
                            board.legal_moves.count(), board.legal_moves.count(), result.depth,
                            result.tally.nodes, time.perf_counter() - start, iterations, board.fen())

    def close(self) -> None:
        if self._runner is not None and self._table:
            drop_all(self._runner, self._game)
            self._release_table()
        if self._own and self._runner is not None:
            self._runner.close()
        self._runner = None


def drop_all(runner, prefix: str) -> None:
    """Free the tables a finished search left on the workers."""
    if isinstance(runner, DaskRunner):
        runner.client.run(jobs.drop_prefix, prefix)
    else:
        jobs.drop_prefix_sync(prefix)
