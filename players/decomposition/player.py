"""The decomposition player: the workers search one tree; the answer is a
``SearchResult`` like any searcher's, so tournaments and UCI use it unchanged.  The
searching itself is a :class:`.session.Session`; this module gives it a player's face."""
from __future__ import annotations

import time
from dataclasses import replace

import chess

from base.runner import Runner
from players.limits import Limit, LimitLike, as_limit
from players.player import BasePlayer, InfoCallback, Played, Settings
from players.result import SearchResult
from players.speed import equal_time
from .config import DecompositionConfig


class DecompositionPlayer(BasePlayer):
    """The workers search one tree (a :class:`players.player.Player`)."""

    kind = "decomposition"

    def __init__(self, config: DecompositionConfig, runner: Runner | None = None, name: str = "") -> None:
        super().__init__(name or f"decomposition {config.name} ({config.algorithm}, {config.workers} workers)",
                         config.player_settings())
        from .session import Session  # the search: reading a file and naming its player load no engine
        self.session = Session(config, runner)

    @property
    def config(self) -> DecompositionConfig:
        return self.session.config

    @property
    def clocked(self) -> bool:
        """On the node clock: every worker a machine of its own (``Session.clocked``)."""
        return self.session.clocked

    @property
    def table(self) -> str:
        """The name of this game's shared table ("" without ``shared_table``)."""
        return self.session.table

    def _start(self) -> None:
        self.session.start()

    def _configured(self, old: Settings) -> None:
        """The searchers' table and the number of workers, from the next start on."""
        new = self._settings
        config = self.session.config
        self.session.config = replace(config.with_workers(new.threads),
                                      search=replace(config.search, hash_mb=float(new.hash_mb or 16)))

    def describe(self) -> str:
        c = self.config
        return (f"{self.name}: {c.algorithm} on {c.workers} {self.session.where}, evaluation {c.search.mask}, hash "
                f"{c.search.hash_mb:g} MB{', one shared table' if c.shared_table else ''}")

    def new_game(self) -> None:
        self.start()
        self.session.new_game()

    def stop(self) -> None:
        self.session.stop()

    def search(self, board: chess.Board, limits: Limit, searchmoves: tuple[str, ...] = ()) -> SearchResult:
        """``Session.search``: iterative deepening over the workers within ``limits``."""
        return self.session.search(board, limits, searchmoves)

    def play(self, board: chess.Board, limit: LimitLike, info: InfoCallback | None = None) -> Played:
        """A move as a :class:`players.player.Player`: the search's iterations reach ``info``
        once the move is decided (the workers report them only then)."""
        limit = as_limit(limit)
        self.start()
        start = time.perf_counter()
        search_limit = equal_time(limit.for_move(board.turn, self._settings.move_overhead_ms).fixed(),
                                  algorithm=self.config.algorithm,
                                  # on the node clock: every worker a machine of its own at full speed, N nodes each
                                  workers=1 if self.clocked else self.config.workers)
        result = self.search(board, search_limit, search_limit.searchmoves)
        if info is not None:
            for it in result.iterations:
                info(it)
        report = (self.session.last.metrics(),) if self.clocked else ()  # UCI: info string
        return Played.of(result, result.bestmove, time.perf_counter() - start, result.nodes, report=report)

    def close(self) -> None:
        self.session.close()
        self._started = False
