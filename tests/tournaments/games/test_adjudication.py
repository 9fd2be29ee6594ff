"""Adjudication: the thesis's proportional score at the cut, and the draw and resign rules."""
import pytest

from tournaments.games.adjudication import DrawRule, ResignRule, draw_by_rule, resigns, thesis_points


def test_thesis_adjudication_formula():
    assert thesis_points(101) == 1 and thesis_points(-101) == 0
    assert thesis_points(0) == 0.5
    assert thesis_points(50) == pytest.approx(0.75) and thesis_points(-30) == pytest.approx(0.35)
    assert thesis_points(100) == 1.0 and thesis_points(-100) == 0.0  # the boundary is proportional too
    assert thesis_points(200, pawn=300) == pytest.approx(0.5 + 200 / 600)


def test_draw_and_resign_rules():
    rule = DrawRule(moves=2, score=10, after=4)
    assert draw_by_rule([5, -5, 3, 0], 4, rule)
    assert not draw_by_rule([5, -5, 30, 0], 4, rule)
    assert not draw_by_rule([5, -5, 3, 0], 3, rule)
    r = ResignRule(moves=2, score=500)
    # The mover's own scores are every other entry, newest last.
    assert resigns([-600, 600, -700], r)
    assert not resigns([-600, 600, -400], r)


def test_a_score_not_reported_keeps_the_game_going():
    """A move without a score (an engine that sent none) proves nothing: no draw and no
    resignation on it."""
    assert not draw_by_rule([5, None, 3, 0], 4, DrawRule(moves=2, score=10, after=4))
    assert not resigns([-600, 600, None], ResignRule(moves=2, score=500))
    assert not draw_by_rule([0] * 40, 40, None) and not resigns([-900] * 9, None)  # no rule, no adjudication


def test_a_resignation_needs_enough_of_the_movers_own_scores():
    rule = ResignRule(moves=3, score=500)
    assert not resigns([-900, 0, -900, 0], rule)  # only two of its own so far
    assert resigns([-900, 0, -900, 0, -500], rule)  # -500 is at the threshold
    assert not resigns([-900, 0, -900, 0, -499], rule)
