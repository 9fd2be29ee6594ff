"""The ballots an ensemble's selection criteria count: one instance's answer (``Ballot``),
the evidence beyond it (``Evidence``) and what a criterion is given (``SelectionInput``),
plus the small helpers both the criteria (``ensemble.selection``) and the trained
criteria's features (``ensemble.features``, ``ensemble.learned``, ``ensemble.dynamic``)
read.  Its own module so that those import it, not ``selection``, and ``selection``
can import them without a cycle.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from evaluation.spec import EvalSpec
from players.result import MATE_CP, SearchResult

SIMPLE_WEIGHTS = {"M": 130, "B": 121, "X": 115, "K": 110, "P": 106, "A": 103, "R": 101}
GENERALISED_WEIGHTS = {"M": 30, "B": 21, "X": 15, "K": 10, "P": 6, "A": 3, "R": 1}


@dataclass(frozen=True)
class Ballot:
    """One instance's answer: who it is and what its search returned."""

    label: str
    spec: EvalSpec
    result: SearchResult

    @property
    def move(self) -> str:
        return self.result.bestmove


@dataclass(frozen=True)
class Evidence:
    """What the score-based criteria need beyond the ballots, from the root side's view.

    ``root_eval[j]`` is f_j(P), instance j's static evaluation of the root;
    ``leaf_eval[i][j]`` is f_j(P_i), instance j's evaluation of the end of ballot i's PV.
    ``root_nets`` and ``leaf_nets[i]`` are the unweighted category nets (White minus
    Black, in ``CATEGORIES`` order) of the root and of ballot i's PV end, which the
    learned criterion reads category by category.
    """

    root_eval: tuple[int, ...] = ()
    leaf_eval: tuple[tuple[int, ...], ...] = ()
    root_nets: tuple[int, ...] = ()
    leaf_nets: tuple[tuple[int, ...], ...] = ()


CandidateSearch = Callable[[Sequence[str], int], Mapping[str, int]]


@dataclass(frozen=True)
class SelectionInput:
    ballots: tuple[Ballot, ...]
    evidence: Evidence = field(default_factory=Evidence)
    search: CandidateSearch | None = None  # full-engine search of given root moves (posterior)
    key: str = ""  # the position (FEN); with the seed it fixes the tie-break draw


def votes(ballots: Sequence[Ballot]) -> dict[str, int]:
    """Votes per candidate, in order of first appearance."""
    return dict(Counter(b.move for b in ballots))


def clamp_score(score: int) -> int:
    return max(-MATE_CP, min(MATE_CP, score))
