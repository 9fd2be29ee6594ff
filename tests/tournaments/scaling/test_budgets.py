"""Sweeps at two budgets side by side: the best point of each way, and the gap between the best
decomposition without shared memory and the best ensemble, checked by hand."""
import math

import pytest

from base.config import ConfigError
from tournaments.scaling.budgets import best_by_way, gaps, milliseconds, table
from tournaments.scaling.config import load_sweep
from tests.tournaments.scaling.points import TEXT, point
from tournaments.statistics.elo import elo_from_score


def test_the_best_of_each_way_and_the_gap_with_its_interval():
    sweep = load_sweep(text=TEXT.format(name="small", nodes=10_000))
    points = [point("F", 0.9), point("L", 0.55), point("N", 0.60), point("C", 0.58, se=0.03, games=100),
              point("X", 0.99)]
    best = best_by_way(sweep, points)
    assert {way: b.arm for (k, way), b in best.items()} == {"ceiling": "F", "message_passing": "N",
                                                            "ensemble": "C"}  # X has no way: left out
    [gap] = gaps([sweep], [points])
    assert gap.elo == pytest.approx(elo_from_score(0.60) - elo_from_score(0.58))
    # Standard errors in Elo by hand: se × 400 / (ln 10 × s (1 − s)).
    se_n = 0.02 * 400 / (math.log(10) * 0.60 * 0.40)
    se_c = 0.03 * 400 / (math.log(10) * 0.58 * 0.42)
    assert gap.half_width == pytest.approx(1.959964 * math.hypot(se_n, se_c), rel=1e-4)
    assert not gap.ensemble.finished and gap.decomposition.finished


def test_the_table_names_each_budget_in_milliseconds_and_marks_a_running_point():
    small = load_sweep(text=TEXT.format(name="small", nodes=10_000))
    large = load_sweep(text=TEXT.format(name="large", nodes=100_000))
    lines = table([small, large], [[point("N", 0.6), point("C", 0.58)], [point("C", 0.55, games=54, played=55)]], nps=2e6)
    rows = [line for line in lines if line.startswith("| 1")]
    assert rows[0].startswith("| 10,000 (5 ms) | 4 |") and rows[0].endswith(" |") and "—" in rows[0]
    assert "+14 [" in rows[0]  # 70.4 - 56.1 Elo: N over C
    assert rows[1].startswith("| 100,000 (50 ms) | 4 |") and "55 games so far" in rows[1]  # as the point's table counts
    assert rows[1].endswith("| — |")  # no decomposition at the larger budget yet: no gap
    assert milliseconds(100_000, 2e6) == 50.0


def test_an_unknown_way_is_named_with_its_field():
    with pytest.raises(ConfigError) as error:
        load_sweep(text=TEXT.format(name="bad", nodes=1000).replace("way: ensemble", "way: teamwork"))
    assert "arms.C.way" in str(error.value) and "teamwork" in str(error.value)


def test_the_gap_is_taken_opening_by_opening_when_both_points_carry_their_openings():
    from dataclasses import replace
    n = replace(point("N", 0.75), pairs=tuple(enumerate([1, 0.5, 0.75, 0.75])))
    c = replace(point("C", 0.5), pairs=tuple(enumerate([0.75, 0.5, 0.5, 0.25])))
    [gap] = gaps([load_sweep(text=TEXT.format(name="small", nodes=10_000))], [[n, c]])
    # By hand: Elo slopes 400 / (ln 10 s (1 - s)) = 926.49 at 0.75 and 694.87 at 0.5; per opening
    # 926.49 a - 694.87 b = 405.34, 115.81, 347.44, 521.15: variance 21795.1 over 4 openings,
    # half width 1.96 x sqrt(21795.1 / 4) = 144.68 (the two points' own errors would say otherwise)
    assert gap.half_width == pytest.approx(144.68, abs=0.01)
    assert gap.elo == pytest.approx(elo_from_score(0.75))
