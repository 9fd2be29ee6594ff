"""A parallel search with a searcher's face: ABDADA on search threads of this process over
one table.  It is what makes the two-level player: an ensemble instance that is itself a
parallel search (``threads: N`` on the instance), resident on its Dask worker like any
instance, its threads searching inside that worker."""
from __future__ import annotations

from collections.abc import Sequence

import chess

from evaluation.spec import EvalSpec
from players.limits import Limit
from players.position import Position
from players.result import SearchResult
from .config import DecompositionConfig
from .options import SearcherConfig
from .session import Session


class TeamSearcher:
    """``threads`` ABDADA search threads answering like one :class:`players.searcher.Searcher`
    (search, new_game, stop).  There is no margin probe: a parallel search's second-best
    score is not known."""

    def __init__(self, spec: EvalSpec, threads: int, hash_mb: float = 16, *, null_move: bool = True,
                 lmr: bool = True, futility: bool = True) -> None:
        self.spec = spec
        self.threads = threads
        options = SearcherConfig(spec.letters, hash_mb, null_move, lmr, futility, weights=spec.weights)
        config = DecompositionConfig(f"team-{spec.letters}", "abdada", threads, search=options, shared_table=True,
                                     in_process=True)
        self.session = Session(config).start()

    def search(self, position: Position | chess.Board | str | None, limits: Limit, info=None, *,
               searchmoves: Sequence[str] | None = None, margin_probe: bool = False,
               clear_stop: bool = True) -> SearchResult:
        board = _board(position)
        return self.session.search(board, limits, tuple(searchmoves or ()))

    def new_game(self) -> None:
        self.session.new_game()

    def stop(self) -> None:
        self.session.stop()

    def close(self) -> None:
        self.session.close()


def _board(position: Position | chess.Board | str | None) -> chess.Board:
    if position is None:
        return chess.Board()
    if isinstance(position, chess.Board):
        return position
    if isinstance(position, str):
        return chess.Board(position)
    return position.to_board()
