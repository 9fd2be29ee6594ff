"""What a search returns: small values that pickle cleanly, because they cross process
boundaries (Dask workers, the suite store).  What it is asked for is a
:class:`players.limits.Limit`."""
from __future__ import annotations

from dataclasses import dataclass, field

MATE_CP = 10_000  # a mate counts as this many centipawns wherever scores are compared or added


@dataclass(frozen=True)
class IterationInfo:
    """One completed iteration of iterative deepening (what a UCI ``info`` line says)."""

    depth: int
    seldepth: int | None  # None where the search does not know it (parallel jobs)
    score_cp: int
    mate: int | None
    nodes: int
    time: float
    pv: tuple[str, ...]
    multipv: int | None = None  # this line's rank where a search reports several (UCI's MultiPV)

    @property
    def move(self) -> str:
        return self.pv[0] if self.pv else "0000"

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0

    def score_text(self) -> str:
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.score_cp}"

    def uci(self) -> str:
        """The UCI ``info`` line of this iteration (``concilio search`` prints the same)."""
        seldepth = "" if self.seldepth is None else f" seldepth {self.seldepth}"
        multipv = "" if self.multipv is None else f" multipv {self.multipv}"
        return (f"info depth {self.depth}{seldepth}{multipv} score {self.score_text()} nodes {self.nodes} "
                f"nps {self.nps} time {int(self.time * 1000)} pv {' '.join(self.pv)}")


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    ``score_cp`` is from the side to move's point of view; a mate is also given as
    ``mate`` (moves, positive when the side to move mates) and ``score_cp`` is then
    ±(32000 − plies) so scores still sort.  ``depth`` is the deepest completed
    iteration (the thesis's D) and ``root_moves_searched`` the root moves fully
    searched in the last, possibly interrupted, iteration (N).
    """

    bestmove: str
    score_cp: int
    mate: int | None
    pv: tuple[str, ...]
    depth: int
    root_moves_searched: int
    root_moves: int
    seldepth: int | None  # None where the search does not know it (parallel jobs)
    nodes: int
    time: float
    iterations: tuple[IterationInfo, ...] = field(default=())
    fen: str = ""
    second_score: int | None = None  # best score of the other root moves (margin probe), capped

    @property
    def margin(self) -> int | None:
        """How far the best move beat the rest (at most the probe's cap); None if not probed."""
        return None if self.second_score is None else self.score_cp - self.second_score

    @property
    def stability(self) -> float:
        """Share of the last four completed iterations that chose the final move."""
        recent = self.iterations[-4:]
        if not recent:
            return 0.0
        return sum(it.move == self.bestmove for it in recent) / len(recent)

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0

    def score_text(self) -> str:
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.score_cp}"

    def summary(self, nodes: int | None = None, seconds: float | None = None) -> IterationInfo:
        """This search as its deepest iteration, for a closing UCI ``info`` line; ``nodes``
        and ``seconds`` may count more than this search (every instance of an ensemble)."""
        return IterationInfo(self.depth, self.seldepth, self.score_cp, self.mate,
                             self.nodes if nodes is None else nodes, self.time if seconds is None else seconds,
                             self.pv)
