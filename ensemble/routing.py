"""Learned routing for teams that mix full-knowledge copies with reduced instances.

Why: ranking every candidate (the ``learned`` criterion) asks a model for more than the
training set can teach it; most of the time the team agrees and nothing needs deciding.
Routing asks one question, only when the two groups disagree: does the reduced instances'
vote or the full-knowledge copies' vote decide here?  Each group decides inside itself by
Stockfish's vote; a logistic gate reads the position (material phase, pawns, mobility) and
the team's agreement (each group's consensus, the groups' score gap and depth gap) and routes.
Features come from the ballots and the FEN alone, so the gate costs nothing at play time.

The model is plain JSON numbers (``concilio fit routing`` writes it)::

    {"kind": "routing", "features": [...], "mean": [...], "scale": [...], "coef": [...],
     "intercept": b, "threshold": 0.5, "fitted_on": "..."}
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluation.spec import FULL_MASK

from ensemble.ballot import Ballot, SelectionInput, clamp_score
from ensemble.model_cache import cached_model

FEATURES = ("phase", "pawns", "root_moves", "full_consensus", "reduced_consensus", "score_gap", "depth_gap")
PIECE_PHASE = {"n": 1, "b": 1, "r": 2, "q": 4}  # the usual game-phase weights: 24 at the start


def group_vote(ballots: Sequence[Ballot], c: float = 14) -> tuple[str, float, int, int]:
    """A group's move by Stockfish's vote (score − lowest + c, no depth factor), with its share
    of the group's votes, the best score among its voters and their deepest depth."""
    lowest = min(clamp_score(b.result.score_cp) for b in ballots)
    weight: dict[str, float] = {}
    count: dict[str, int] = {}
    for b in ballots:
        weight[b.move] = weight.get(b.move, 0.0) + clamp_score(b.result.score_cp) - lowest + c
        count[b.move] = count.get(b.move, 0) + 1
    move = max(weight, key=lambda m: weight[m])  # first of equals: the team's order
    voters = [b for b in ballots if b.move == move]
    return (move, count[move] / len(ballots), max(clamp_score(b.result.score_cp) for b in voters),
            max(b.result.depth for b in voters))


def split_groups(ballots: Sequence[Ballot]) -> tuple[list[Ballot], list[Ballot]]:
    """(full-knowledge instances, reduced instances)."""
    return [b for b in ballots if b.spec.mask == FULL_MASK], [b for b in ballots if b.spec.mask != FULL_MASK]


def features(inp: SelectionInput) -> tuple[str, str, list[float]] | None:
    """(full group's move, reduced group's move, the gate's features), or None where the groups
    agree or one is missing (nothing to route)."""
    full, reduced = split_groups(inp.ballots)
    if not full or not reduced:
        return None
    f_move, f_share, f_score, f_depth = group_vote(full)
    r_move, r_share, r_score, r_depth = group_vote(reduced)
    if f_move == r_move:
        return None
    board = inp.key.split(" ")[0] if inp.key else ""
    phase = sum(PIECE_PHASE.get(ch.lower(), 0) for ch in board) / 24.0
    pawns = sum(ch in "pP" for ch in board) / 16.0
    root = max(b.result.root_moves for b in inp.ballots) / 40.0
    gap = max(-10.0, min(10.0, (r_score - f_score) / 100.0))
    return f_move, r_move, [phase, pawns, root, f_share, r_share, gap, float(r_depth - f_depth)]


@dataclass(frozen=True)
class RoutingGate:
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float = 0.5
    fitted_on: str = ""

    def p_reduced(self, x: Sequence[float]) -> float:
        """The probability that the reduced instances' move is the better one."""
        z = self.intercept + sum(w * (v - m) / s for w, v, m, s in zip(self.coef, x, self.mean, self.scale))
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    def to_json(self) -> str:
        return json.dumps({"kind": "routing", "features": list(FEATURES), "mean": list(self.mean),
                           "scale": list(self.scale), "coef": list(self.coef), "intercept": self.intercept,
                           "threshold": self.threshold, "fitted_on": self.fitted_on}, indent=1)


def load_gate(path: str | Path) -> RoutingGate:
    """Read a routing model; anything else raises ``ValueError`` naming the file."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a routing model ({exc})") from None
    n = len(FEATURES)
    if not isinstance(data, dict) or data.get("kind") != "routing" or data.get("features") != list(FEATURES):
        raise ValueError(f"{path}: not a routing model of this version (kind: routing, features {list(FEATURES)})")
    try:
        vectors = [tuple(float(v) for v in data[k]) for k in ("mean", "scale", "coef")]
        intercept, threshold = float(data["intercept"]), float(data.get("threshold", 0.5))
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{path}: routing model without numeric mean, scale, coef, intercept") from None
    if any(len(v) != n for v in vectors) or any(s <= 0 for s in vectors[1]):
        raise ValueError(f"{path}: routing model vectors must hold {n} numbers (scales > 0)")
    return RoutingGate(*vectors, intercept, threshold, str(data.get("fitted_on", "")))


def cached_gate(name: object) -> RoutingGate:
    """The gate a criterion names (a path or ``data:models/...``), read once per process."""
    if isinstance(name, RoutingGate):
        return name
    return cached_model(name, "routed", "concilio fit routing", load_gate)


def routed(inp: SelectionInput, model: object = None) -> dict[str, float]:
    """Where the groups agree, their move; else the group the gate routes to decides (its move
    1, the other group's ½, every other candidate 0)."""
    values = {b.move: 0.0 for b in inp.ballots}
    routed_input = features(inp)
    if routed_input is None:
        full, reduced = split_groups(inp.ballots)
        values[group_vote(full or reduced)[0]] = 1.0
        return values
    f_move, r_move, x = routed_input
    gate = cached_gate(model)
    chosen, other = (r_move, f_move) if gate.p_reduced(x) > gate.threshold else (f_move, r_move)
    values[chosen], values[other] = 1.0, 0.5
    return values
