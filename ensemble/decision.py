"""What the ensemble decided and why: every instance's answer (or why it has none),
every candidate's criterion value, the move played.  Plain data, so it pickles and
can be stored with a game."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from players.result import SearchResult


@dataclass(frozen=True)
class InstanceReport:
    label: str
    weights: str  # "M=1 B=2 ..." for the categories it uses
    worker: str | None
    result: SearchResult | None = None
    excluded: str | None = None  # why it has no vote on this move


@dataclass(frozen=True)
class Decision:
    move: str
    criterion: str
    fen: str
    reports: tuple[InstanceReport, ...]
    values: dict[str, float] = field(default_factory=dict)
    votes: dict[str, int] = field(default_factory=dict)
    tie_break: str | None = None
    fallback: str | None = None  # why the coordinator searched alone, if it did
    elapsed: float = 0.0

    @property
    def excluded(self) -> tuple[InstanceReport, ...]:
        return tuple(r for r in self.reports if r.excluded is not None)

    @property
    def results(self) -> tuple[SearchResult, ...]:
        return tuple(r.result for r in self.reports if r.result is not None and r.excluded is None)

    @property
    def candidates(self) -> tuple[str, ...]:
        return tuple(self.votes)

    def format(self, show_weights: bool = True) -> str:
        rows = [f"Position {self.fen}", ""]
        head = f"{'instance':24s} {'move':7s} {'score':>9s} {'depth':>5s} {'roots':>5s} {'nodes':>10s} {'time':>6s}  worker"
        rows += [head, "-" * len(head)]
        for r in self.reports:
            if r.result is not None and r.excluded is None:
                res = r.result
                rows.append(f"{r.label:24s} {res.bestmove:7s} {res.score_text():>9s} {res.depth:5d} "
                            f"{res.root_moves_searched:5d} {res.nodes:10d} {res.time:6.2f}  {r.worker or '-'}")
            else:
                rows.append(f"{r.label:24s} {'--':7s} {'':>9s} {'':>5s} {'':>5s} {'':>10s} {'':>6s}  "
                            f"{r.worker or '-'}  excluded: {r.excluded}")
        rows.append("depth: the deepest finished iteration (the thesis's D); roots: the root moves searched in the "
                    "last iteration, the interrupted one if any (N); time: seconds")
        if show_weights and any(not _unit(r.weights) for r in self.reports):
            rows.append("")
            rows += [f"weights {r.label}: {r.weights}" for r in self.reports]
        rows.append("")
        if self.fallback:
            rows.append(f"fallback: {self.fallback}")
        else:
            rows.append(f"criterion {self.criterion}")
            rows.append(f"{'candidate':10s} {'votes':>5s} {'value':>12s}")
            order = sorted(self.values, key=lambda m: (-_sortable(self.values[m]), -self.votes.get(m, 0), m))
            for m in order:
                mark = "  <- played" if m == self.move else ""
                rows.append(f"{m:10s} {self.votes.get(m, 0):5d} {_fmt(self.values[m]):>12s}{mark}")
            if self.tie_break:
                rows.append(f"tie broken by {self.tie_break}")
        rows.append(f"decided in {self.elapsed:.2f} s")
        rows.append(f"bestmove {self.move}")
        return "\n".join(rows)


def _unit(weights: str) -> bool:
    return all(part.endswith("=1") for part in weights.split())


def _sortable(value: float) -> float:
    return -1e300 if value == -math.inf else value


def _fmt(value: float) -> str:
    if value == -math.inf:
        return "-"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3f}"
