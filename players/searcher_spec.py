"""How a searcher is built, as plain data: what it knows (the categories and their weights), its
table's size and how it searches.  An ensemble's instance, a decomposition's worker and the
job a worker is sent all carry one, and :meth:`SearcherSpec.build` is the one place that turns
it into a :class:`players.searcher.Searcher`.

Why data rather than a searcher: a spec travels (to a Dask worker, in a job) and is read from
files; building loads the compiled engine, which on an empty numba cache compiles for a
minute, so nothing here imports it until ``build`` is called."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from evaluation.spec import CATEGORIES, EvalSpec

if TYPE_CHECKING:
    from players.searcher import Searcher

DEFAULT_ASPIRATION = 30  # centipawns: the first window around the previous iteration's score


@dataclass(frozen=True)
class SearcherSpec:
    """One searcher's recipe (the fields' order is the positional one callers rely on)."""

    mask: str = CATEGORIES
    hash_mb: float = 16
    null_move: bool = True
    lmr: bool = True
    futility: bool = True
    exact: bool = False  # fixed-depth minimax: parallel and sequential answers must agree
    weights: tuple[float, ...] | None = None  # the categories' weights (default 1)
    aspiration: int = DEFAULT_ASPIRATION
    depth_cap: int | None = None  # no iteration deeper than this (an instance's directing knowledge)

    @classmethod
    def of(cls, spec: EvalSpec, hash_mb: float = 16, **options) -> SearcherSpec:
        """The recipe of a searcher that knows what ``spec`` says."""
        return cls(spec.letters, hash_mb, weights=spec.weights, **options)

    @property
    def eval_spec(self) -> EvalSpec:
        return EvalSpec.parse(self.mask, self.weights)

    def build(self) -> Searcher:
        """A plain searcher with a table of its own."""
        from players.searcher import Searcher
        return Searcher(self.eval_spec, self.hash_mb, null_move=self.null_move, lmr=self.lmr, futility=self.futility,
                        aspiration=self.aspiration, depth_cap=self.depth_cap, exact=self.exact)
