"""One interface for everything that can sit at the board: a single instance, an
ensemble, the decomposition player, an external engine.

UCI, ``concilio play`` and matches drive any :class:`Player` the same way: a new game,
a move under :class:`MoveLimits` (a fixed budget, or the mover's clock, which the one
:class:`TimeManager` turns into a budget), ``stop`` from another thread, ``close``.
The answer is a :class:`Played` move with its search result and its report.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import chess

from players.clock import DEFAULT_OVERHEAD_MS, TimeManager
from players.result import MATE_CP, IterationInfo, SearchLimits, SearchResult
from players.searcher import Searcher
from players.speed import default_speed_table

InfoCallback = Callable[[IterationInfo], None]
COORDINATED_OVERHEAD_MS = 150  # players that coordinate Dask workers: submission, transport, selection


@dataclass(frozen=True)
class MoveLimits:
    """What one move may spend: a fixed budget (``nodes``, ``depth``, ``movetime`` in ms),
    or the mover's ``clock`` (seconds) with its increment.  ``infinite``: until ``stop``."""

    nodes: int | None = None
    depth: int | None = None
    movetime: int | None = None
    clock: float | None = None
    increment: float = 0.0
    opponent_clock: float | None = None
    moves_to_go: int | None = None
    infinite: bool = False
    searchmoves: tuple[str, ...] = ()
    equal_time: bool = False  # ``nodes`` are the full engine's on one core: each player scales them (players.speed)

    def search_limits(self, overhead_ms: float = DEFAULT_OVERHEAD_MS) -> SearchLimits:
        """The budget of this move's search; a clock becomes a soft and a hard time here, and nothing
        at all (or ``infinite``) becomes a search as deep as the searcher goes."""
        if self.clock is not None and not self.infinite:
            return TimeManager.limits(self.clock * 1000, self.increment * 1000, self.moves_to_go, overhead_ms)
        if self.nodes is None and self.depth is None and self.movetime is None:
            return SearchLimits(depth=127)
        return SearchLimits(depth=self.depth, nodes=self.nodes, movetime=self.movetime)


@dataclass
class Played:
    """A player's move and what stands behind it.  ``result`` is the search that chose the
    move where it is ours (for an ensemble: the chosen instance's); ``report`` holds lines
    a front end shows as they are (an ensemble's votes); ``error`` is set when there is no
    legal move to play (the game runner scores it as a forfeit)."""

    move: str | None
    score: int | None = None  # centipawns from the mover's view, mates as ±MATE_CP
    depth: int | None = None
    seconds: float = 0.0
    nodes: int | None = None  # all the nodes this move cost, where several searches made it
    note: str = ""  # a short summary for a PGN comment (e.g. the votes)
    report: tuple[str, ...] = field(default=())
    error: str | None = None
    result: SearchResult | None = None

    @classmethod
    def of(cls, result: SearchResult | None, move: str, seconds: float, nodes: int | None = None, note: str = "",
           report: tuple[str, ...] = ()) -> Played:
        """A move our own search (or the search behind an ensemble's choice) stands behind."""
        return cls(move, None if result is None else centipawns(result), None if result is None else result.depth,
                   seconds, nodes, note, report, None, result)


def centipawns(result: SearchResult) -> int:
    """A search result's score for comparisons and adjudication: mates count ±MATE_CP."""
    if result.mate is None:
        return result.score_cp
    return MATE_CP if result.mate > 0 else -MATE_CP


class Player(Protocol):
    """What UCI, ``concilio play`` and matches need of a player."""

    name: str
    overhead_ms: int  # the default kept back from a clock allocation

    def new_game(self) -> None: ...

    def play(self, board: chess.Board, limits: MoveLimits, info: InfoCallback | None = None) -> Played: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class InstancePlayer:
    """One engine instance (the full engine, or a subset of the categories) as a player."""

    def __init__(self, searcher: Searcher, name: str = "") -> None:
        self.overhead_ms = DEFAULT_OVERHEAD_MS
        self.searcher = searcher
        self.name = name or f"instance ({searcher.spec.letters})"

    def new_game(self) -> None:
        self.searcher.new_game()

    def warm_up(self) -> None:
        """Numba loads each compiled function on its first call: pay that now (at UCI
        ``isready``), not inside the first timed move."""
        self.searcher.search(chess.Board(), SearchLimits(depth=3))
        self.searcher.new_game()

    def play(self, board: chess.Board, limits: MoveLimits, info: InfoCallback | None = None) -> Played:
        start = time.perf_counter()
        search_limits = limits.search_limits(self.overhead_ms)
        if limits.equal_time and search_limits.nodes:
            search_limits = SearchLimits(nodes=default_speed_table().instance_nodes(self.searcher.spec,
                                                                                   search_limits.nodes))
        result = self.searcher.search(board, search_limits, info=info, searchmoves=limits.searchmoves or None)
        return Played.of(result, result.bestmove, time.perf_counter() - start, result.nodes)

    def stop(self) -> None:
        self.searcher.stop()

    def close(self) -> None:
        pass
