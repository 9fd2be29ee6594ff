"""How a game that does not reach its natural end is scored.

The thesis cut games at 100 half-moves and scored them by the full engine's
evaluation of the final position from the player's side, one pawn (``pawn`` = 100)
as the unit: above +1 pawn a win, below −1 pawn a loss, in between the proportional
``0.5 + score / (2·pawn)``.  Standard adjudications (draw when both sides' scores
stay near zero, resign when one side's stays hopeless) shorten real matches.
"""
from __future__ import annotations

from dataclasses import dataclass


def thesis_points(score_cp: float, pawn: float = 100.0) -> float:
    """Points for the side whose evaluation ``score_cp`` is (0, 1 or in between)."""
    if score_cp > pawn:
        return 1.0
    if score_cp < -pawn:
        return 0.0
    return 0.5 + score_cp / (2.0 * pawn)


@dataclass(frozen=True)
class DrawRule:
    """Adjudicate a draw after ``after`` half-moves once the last ``moves`` scores of both
    sides were all within ±``score`` centipawns."""

    moves: int = 10
    score: int = 10
    after: int = 40


@dataclass(frozen=True)
class ResignRule:
    """A side resigns when its own last ``moves`` scores were all below −``score``."""

    moves: int = 3
    score: int = 600


def draw_by_rule(scores: list[int | None], ply: int, rule: DrawRule | None) -> bool:
    """``scores`` are every half-move's reported score, each from its mover's view."""
    if rule is None or ply < rule.after or len(scores) < 2 * rule.moves:
        return False
    recent = scores[-2 * rule.moves:]
    return all(s is not None and abs(s) <= rule.score for s in recent)


def resigns(scores: list[int | None], rule: ResignRule | None) -> bool:
    """Whether the side that just moved resigns (its last ``moves`` scores hopeless)."""
    if rule is None or len(scores) < 2 * rule.moves - 1:
        return False
    own = scores[::-1][::2][:rule.moves]
    return len(own) == rule.moves and all(s is not None and s <= -rule.score for s in own)
