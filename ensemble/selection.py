"""Selection criteria: which of the instances' proposed moves the ensemble plays.

One function per criterion, registered by name in ``CRITERIA``.  Each takes the
ballots (one per instance that answered) plus the evidence some criteria need and
returns every candidate's value; ``select`` then plays the highest value.  Ties are
broken by the number of votes and then by a seeded draw that depends on the seed
and the position only, so a rerun plays the same move.

The criteria are those of the thesis, four of ours (``score_weighted``,
``confidence``, and two trained ones: ``learned`` and ``dynamic``), and two controls from elsewhere that use no knowledge of the
categories: ``optimistic`` (follow the instance whose own search scored highest) and
``thread_vote`` (Stockfish's vote among its search threads).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from base.errors import ConcilioError
from evaluation.spec import CATEGORIES, FULL_MASK
from players.result import MATE_CP

from ensemble.calibration import Calibration, cached_calibration
from ensemble.routing import RoutingGate, routed
from ensemble.ballot import GENERALISED_WEIGHTS, SIMPLE_WEIGHTS, Evidence, SelectionInput, clamp_score, votes
from ensemble.dynamic import DynamicWeights
from ensemble.dynamic import dynamic as dynamic_vote
from ensemble.learned import LearnedModel
from ensemble.learned import learned as learned_rank


class SelectionError(ConcilioError, ValueError):
    """A criterion asked for something it cannot be given (unknown name, bad parameter)."""


@dataclass(frozen=True)
class Selection:
    move: str
    values: dict[str, float]
    votes: dict[str, int]
    tie_break: str | None  # None, "votes" or "draw"


@dataclass(frozen=True)
class Criterion:
    name: str
    function: Callable[..., dict[str, float]]
    params: dict[str, object]  # parameter name -> default
    needs_evidence: bool = False
    needs_search: bool = False
    needs_margin: bool = False
    doc: str = ""


# --- the criteria -------------------------------------------------------------------------

def majority(inp: SelectionInput) -> dict[str, float]:
    """Simple majority: a candidate's value is its number of votes."""
    return {m: float(v) for m, v in votes(inp.ballots).items()}


def weighted_majority(inp: SelectionInput, weights: str | Mapping[str, float] = "generalised") -> dict[str, float]:
    """Each voter weighs the mean of its categories' constant weights."""
    table = category_weights(weights)
    values: dict[str, float] = {}
    for b in inp.ballots:
        used = [table[c] for c in CATEGORIES if b.spec.uses(c)]
        values[b.move] = values.get(b.move, 0.0) + sum(used) / len(used)
    return values


def depth_confidence(inp: SelectionInput, c: float = 100) -> dict[str, float]:
    """Σ (C·D + N): majority, ties resolved by depth reached and root moves completed."""
    values: dict[str, float] = {}
    for b in inp.ballots:
        values[b.move] = values.get(b.move, 0.0) + c * b.result.depth + b.result.root_moves_searched
    return values


def local_minimax(inp: SelectionInput) -> dict[str, float]:
    """Σ f_i(P_i) − f_i(P): each voter's gain under its own evaluation."""
    ev = _evidence(inp)
    values: dict[str, float] = {}
    for i, b in enumerate(inp.ballots):
        values[b.move] = values.get(b.move, 0.0) + ev.leaf_eval[i][i] - ev.root_eval[i]
    return values


def global_minimax(inp: SelectionInput) -> dict[str, float]:
    """Σ_i Σ_j f_j(P_i) − f_j(P): each voter's gain as every instance judges it."""
    ev = _evidence(inp)
    values: dict[str, float] = {}
    for i, b in enumerate(inp.ballots):
        gain = sum(ev.leaf_eval[i][j] - ev.root_eval[j] for j in range(len(inp.ballots)))
        values[b.move] = values.get(b.move, 0.0) + gain
    return values


def posterior(inp: SelectionInput, depth: int = 3) -> dict[str, float]:
    """General posterior search: every candidate searched by the full engine."""
    return _posterior(inp, list(votes(inp.ballots)), depth)


def posterior_simplified(inp: SelectionInput, depth: int = 3) -> dict[str, float]:
    """Simplified posterior search: only the most voted candidates are searched
    (the others keep −∞ and cannot be chosen)."""
    counts = votes(inp.ballots)
    top = max(counts.values())
    values = _posterior(inp, [m for m, v in counts.items() if v == top], depth)
    return {m: values.get(m, -math.inf) for m in counts}


def deepest(inp: SelectionInput) -> dict[str, float]:
    """Only the instances that reached the greatest depth vote (for instances that
    share an evaluation and differ in search); the others' moves count −∞."""
    top = max(b.result.depth for b in inp.ballots)
    values = {m: -math.inf for m in votes(inp.ballots)}
    for b in inp.ballots:
        if b.result.depth == top:
            values[b.move] = max(values[b.move], 0.0) + 1.0
    return values


def priority_sets(inp: SelectionInput, high: Sequence[str] = ()) -> dict[str, float]:
    """The high-priority instances (labels) choose; the others only break their ties.
    A candidate nobody in the high group proposed cannot win while one group member answered."""
    high_set = {h.strip("()") for h in high}
    if not high_set:
        raise SelectionError("priority_sets: 'high' must name at least one instance label")
    in_high = [b.label.strip("()") in high_set or b.spec.letters in high_set for b in inp.ballots]
    scale = in_high.count(False) + 1  # one high vote outweighs every low vote together
    values: dict[str, float] = {m: 0.0 for m in votes(inp.ballots)}
    for b, high_voter in zip(inp.ballots, in_high):
        values[b.move] += scale if high_voter else 1.0
    if any(in_high):
        proposed = {b.move for b, high_voter in zip(inp.ballots, in_high) if high_voter}
        values = {m: (v if m in proposed else -math.inf) for m, v in values.items()}
    return values


def score_weighted(inp: SelectionInput, scale: float = 200) -> dict[str, float]:
    """Votes weighted by how much each instance's search improved on its own static
    view of the root: w = 2·σ((score − f_i(P)) / scale), so 1 at no gain, towards 2
    for a clear win found, towards 0 for a position found to be worse than it looks."""
    ev = _evidence(inp)
    values: dict[str, float] = {}
    for i, b in enumerate(inp.ballots):
        gain = clamp_score(b.result.score_cp) - ev.root_eval[i]
        values[b.move] = values.get(b.move, 0.0) + 2.0 / (1.0 + math.exp(-gain / scale))
    return values


def confidence(inp: SelectionInput, scale: float = 100) -> dict[str, float]:
    """Votes weighted by decisiveness: (½ + stability) · (1 + margin / scale), where the
    margin is how far the instance's best move beat its second best (margin probe) and
    stability the share of its last four iterations that chose the same move."""
    values: dict[str, float] = {}
    for b in inp.ballots:
        margin = b.result.margin
        if margin is None:
            margin = MATE_CP if b.result.mate is not None and b.result.mate > 0 else 0
        weight = (0.5 + b.result.stability) * (1.0 + min(max(margin, 0), 4 * scale) / scale)
        values[b.move] = values.get(b.move, 0.0) + weight
    return values


def optimistic(inp: SelectionInput) -> dict[str, float]:
    """The optimistic rule: a candidate is worth the best score any of its voters' own
    searches gave it, so the instance that thinks best of its position decides."""
    values: dict[str, float] = {}
    for b in inp.ballots:
        values[b.move] = max(values.get(b.move, -math.inf), float(clamp_score(b.result.score_cp)))
    return values


def thread_vote(inp: SelectionInput, c: float = 14) -> dict[str, float]:
    """Stockfish's vote among its threads: Σ (score − lowest score + c) × depth per move,
    so deeper and more confident searches weigh more (``c`` is Stockfish's constant)."""
    lowest = min(clamp_score(b.result.score_cp) for b in inp.ballots)
    values: dict[str, float] = {}
    for b in inp.ballots:
        weight = (clamp_score(b.result.score_cp) - lowest + c) * b.result.depth
        values[b.move] = values.get(b.move, 0.0) + weight
    return values


def calibrated_vote(inp: SelectionInput, model: object = None, c: float = 0.02) -> dict[str, float]:
    """Stockfish's vote on one scale: Σ (E − lowest E + c) per candidate, where E is each
    voter's expected score through its calibration (``ensemble.calibration``), so that a
    reduced instance's optimism does not buy it more weight than a copy of the full engine."""
    calibration = model if isinstance(model, Calibration) else cached_calibration(model)
    expected = [calibration.expected(b.spec, clamp_score(b.result.score_cp)) for b in inp.ballots]
    lowest = min(expected)
    values: dict[str, float] = {}
    for b, e in zip(inp.ballots, expected):
        values[b.move] = values.get(b.move, 0.0) + e - lowest + c
    return values


def two_stage(inp: SelectionInput) -> dict[str, float]:
    """Two-stage consultation (Yoshida and Ito): the full-knowledge instances (copies that
    differ by weights) propose the move of the most optimistic among them, since they share
    one scale; every reduced evaluation proposes its majority move; then the groups vote, one
    vote each, and the full-knowledge group's proposal wins a tie (half a vote more)."""
    full = [b for b in inp.ballots if b.spec.mask == FULL_MASK]
    groups: dict[int, list] = {}
    for b in inp.ballots:
        if b.spec.mask != FULL_MASK:
            groups.setdefault(b.spec.mask, []).append(b)
    values = {m: 0.0 for m in votes(inp.ballots)}
    if full:
        best = max(full, key=lambda b: clamp_score(b.result.score_cp))  # first of equals: the file's order
        values[best.move] += 1.5
    for members in groups.values():
        counts = votes(members)
        top = max(counts.values())
        values[next(m for m, v in counts.items() if v == top)] += 1.0
    return values


def learned(inp: SelectionInput, model: object = None, allow_pickle: bool = False) -> dict[str, float]:
    """A trained model's probability that each candidate is a best move (``ensemble.learned``)."""
    return learned_rank(inp, model, allow_pickle)  # type: ignore[arg-type]


def dynamic(inp: SelectionInput, model: object = None) -> dict[str, float]:
    """A vote whose instance weights depend on the position (``ensemble.dynamic``)."""
    return dynamic_vote(inp, model)  # type: ignore[arg-type]


CRITERIA: dict[str, Criterion] = {c.name: c for c in (
    Criterion("majority", majority, {"seed": 0}, doc="simple majority, seeded tie-break"),
    Criterion("weighted_majority", weighted_majority, {"weights": "generalised", "seed": 0},
              doc="constant category weights: 'simple', 'generalised' or a {letter: weight} map"),
    Criterion("depth_confidence", depth_confidence, {"c": 100, "seed": 0}, doc="Σ (C·D + N)"),
    Criterion("local_minimax", local_minimax, {"seed": 0}, needs_evidence=True, doc="Σ f_i(P_i) − f_i(P)"),
    Criterion("global_minimax", global_minimax, {"seed": 0}, needs_evidence=True,
              doc="Σ_i Σ_j f_j(P_i) − f_j(P)"),
    Criterion("posterior", posterior, {"depth": 3, "seed": 0}, needs_search=True,
              doc="full-engine search of every candidate"),
    Criterion("posterior_simplified", posterior_simplified, {"depth": 3, "seed": 0}, needs_search=True,
              doc="full-engine search of the most voted candidates"),
    Criterion("deepest", deepest, {"seed": 0}, doc="majority among the deepest instances"),
    Criterion("priority_sets", priority_sets, {"high": [], "seed": 0},
              doc="the 'high' instances choose, the others break ties"),
    Criterion("score_weighted", score_weighted, {"scale": 200, "seed": 0}, needs_evidence=True,
              doc="votes weighted by the search's gain over the root evaluation"),
    Criterion("optimistic", optimistic, {"seed": 0}, doc="the move of the instance whose own score is highest"),
    Criterion("thread_vote", thread_vote, {"c": 14, "seed": 0},
              doc="Stockfish's thread vote: Σ (score − min score + c) × depth"),
    Criterion("calibrated_vote", calibrated_vote, {"model": None, "c": 0.02, "seed": 0},
              doc="Stockfish's vote on expected scores: each instance's cp through its calibration "
                  "(model: FILE.json, made by concilio fit calibration)"),
    Criterion("routed", routed, {"model": None, "seed": 0},
              doc="a learned gate decides whether the reduced instances' vote or the full-knowledge copies' vote "
                  "decides, where they disagree (model: FILE.json, made by concilio fit routing)"),
    Criterion("two_stage", two_stage, {"seed": 0},
              doc="optimistic within the full-knowledge copies, then one vote per knowledge group"),
    Criterion("learned", learned, {"model": None, "allow_pickle": False, "seed": 0}, needs_evidence=True,
              doc="a trained model ranks the candidates (model: FILE.json, made by concilio suite's learn block; "
                  "allow_pickle: true reads an old joblib model you trust)"),
    Criterion("dynamic", dynamic, {"model": None, "seed": 0},
              doc="instance weights fitted as functions of phase, king danger, closed pawns, imbalance "
                  "(model: FILE.json, made by concilio suite's learn block)"),
    Criterion("confidence", confidence, {"scale": 100, "seed": 0}, needs_margin=True,
              doc="votes weighted by margin over the second move and iteration stability"),
)}


def category_weights(weights: str | Mapping[str, float]) -> dict[str, float]:
    if weights == "simple":
        return dict(SIMPLE_WEIGHTS)
    if weights == "generalised":
        return dict(GENERALISED_WEIGHTS)
    if isinstance(weights, Mapping):
        table = {}
        for c in CATEGORIES:
            value = weights.get(c, weights.get(c.lower()))
            if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SelectionError(f"weighted_majority: weight for {c} missing or not a number")
            table[c] = float(value)
        return table
    raise SelectionError(f"weighted_majority: weights {weights!r} must be 'simple', 'generalised' "
                         f"or a map of the seven categories")


def check_params(name: str, params: Mapping[str, object]) -> dict[str, object]:
    """The criterion's parameters with defaults filled in; unknown names are errors."""
    if name not in CRITERIA:
        raise SelectionError(f"unknown selection criterion {name!r}; known: {', '.join(CRITERIA)}")
    criterion = CRITERIA[name]
    unknown = sorted(set(params) - set(criterion.params))
    if unknown:
        raise SelectionError(f"{name}: unknown parameter(s) {', '.join(unknown)}; "
                             f"it takes {', '.join(criterion.params)}")
    merged = dict(criterion.params)
    merged.update(params)
    if name == "weighted_majority":
        category_weights(merged["weights"])  # type: ignore[arg-type]
    for numeric in ("c", "scale", "depth"):
        if numeric in merged:
            v = merged[numeric]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                raise SelectionError(f"{name}: {numeric} must be a positive number, got {v!r}")
    if name in ("posterior", "posterior_simplified") and not isinstance(merged["depth"], int):
        raise SelectionError(f"{name}: depth must be an integer, got {merged['depth']!r}")
    if name == "learned" and not isinstance(merged["allow_pickle"], bool):
        raise SelectionError(f"learned: allow_pickle must be true or false, got {merged['allow_pickle']!r}")
    if name in ("learned", "dynamic") and merged["model"] is not None and not isinstance(merged["model"], str):
        if not isinstance(merged["model"], (LearnedModel, DynamicWeights)):
            raise SelectionError(f"{name}: model must be a file name, got {merged['model']!r}")
    if name == "routed" and not isinstance(merged["model"], (str, RoutingGate)):
        raise SelectionError("routed: model must be a routing file (concilio fit routing writes one)")
    if name == "calibrated_vote" and not isinstance(merged["model"], (str, Calibration)):
        raise SelectionError("calibrated_vote: model must be a calibration file (concilio fit calibration writes one)")
    if name == "priority_sets":
        high = merged["high"]
        if not isinstance(high, (list, tuple)) or not high or not all(isinstance(h, str) for h in high):
            raise SelectionError("priority_sets: 'high' must be a non-empty list of instance labels")
    return merged


def select(name: str, inp: SelectionInput, **params: object) -> Selection:
    """Apply criterion ``name`` and choose: highest value, then most votes, then a seeded draw."""
    merged = check_params(name, params)
    if not inp.ballots:
        raise SelectionError("no ballots: at least one instance must have answered")
    seed = merged.pop("seed")
    values = CRITERIA[name].function(inp, **merged)
    counts = votes(inp.ballots)
    best_value = max(values.values())
    tied = [m for m in counts if values[m] == best_value]
    tie_break = None
    if len(tied) > 1:
        most = max(counts[m] for m in tied)
        by_votes = [m for m in tied if counts[m] == most]
        tie_break = "votes" if len(by_votes) < len(tied) else "draw"
        tied = by_votes
    if len(tied) > 1:
        tie_break = "draw"
        rng = random.Random(f"{seed}:{inp.key}")
        move = rng.choice(sorted(tied))
    else:
        move = tied[0]
    return Selection(move, values, counts, tie_break)


def _evidence(inp: SelectionInput) -> Evidence:
    ev = inp.evidence
    n = len(inp.ballots)
    if len(ev.root_eval) != n or len(ev.leaf_eval) != n or any(len(row) != n for row in ev.leaf_eval):
        raise SelectionError("this criterion needs the evaluations of the root and PV ends for every ballot")
    return ev


def _posterior(inp: SelectionInput, moves: list[str], depth: int) -> dict[str, float]:
    if inp.search is None:
        raise SelectionError("posterior search needs a search function")
    scores = inp.search(moves, depth)
    return {m: float(scores[m]) if m in scores else -math.inf for m in votes(inp.ballots)}
