"""Match statistics against values worked out by hand."""
import math

import pytest

from tournaments.statistics.elo import elo_from_score, los, pentanomial, score_from_elo, sprt, trinomial


def test_elo_of_a_score_and_back():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert score_from_elo(elo_from_score(0.3)) == pytest.approx(0.3)
    assert elo_from_score(1.0) == math.inf


def test_trinomial_interval_by_hand():
    # 60 wins, 20 draws, 20 losses: score 0.7, per-game variance 0.16, standard error 0.04.
    e = trinomial(60, 20, 20)
    assert e.elo == pytest.approx(147.19, abs=0.01)
    assert e.low == pytest.approx(elo_from_score(0.7 - 1.959964 * 0.04), abs=0.01)
    assert e.high == pytest.approx(elo_from_score(0.7 + 1.959964 * 0.04), abs=0.01)
    assert round(e.low) == 86 and round(e.high) == 218


def test_los_from_decisive_games():
    assert los(10, 10) == 0.5
    assert los(60, 20) == pytest.approx(0.5 * (1 + math.erf(40 / math.sqrt(160))))
    assert los(0, 0) == 0.5


def test_pentanomial_uses_pair_variance():
    # 10 pairs each 1 point (1-0 and 0-1 with the same opening): no information about strength,
    # and zero pair variance, unlike the trinomial view of the same 20 games.
    e = pentanomial([0, 0, 10, 0, 0])
    assert e.elo == 0 and e.games == 20
    e = pentanomial([1, 2, 4, 2, 1])
    # By hand: pair scores 0, 1/4, 1/2, 3/4, 1; variance (2 x 1/4 + 4 x 1/16) / 10 = 0.075,
    # se = sqrt(0.075 / 10) = 0.08660; 0.5 + 1.96 se = 0.66974 is +122.8 Elo
    assert e.score == 0.5 and e.se == pytest.approx(0.0866025, rel=1e-5)
    assert (e.low, e.high) == (pytest.approx(-122.8, abs=0.05), pytest.approx(122.8, abs=0.05))
    # Near a score of 1 the interval's top is cut (+inf); the error is still the computed one:
    # mean 0.975, variance (0.225^2 + 9 x 0.025^2) / 10 = 0.005625, se = 0.023717
    e = pentanomial([0, 0, 0, 1, 9])
    assert e.high == math.inf and e.se == pytest.approx(0.023717, rel=1e-4)
    with pytest.raises(ValueError):
        pentanomial([1, 2, 3])


def test_sprt_llr_by_hand():
    w, d, l = 600, 800, 500
    n = w + d + l
    mean = (w + d / 2) / n
    var = (w * (1 - mean) ** 2 + d * (0.5 - mean) ** 2 + l * mean ** 2) / n
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    state = sprt(w, d, l, 0, 10)
    assert state.llr == pytest.approx(n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var))
    assert state.upper == pytest.approx(math.log(0.95 / 0.05)) and state.lower == pytest.approx(-state.upper)
    assert state.decision == "H1"
    assert sprt(500, 800, 600, 0, 10).decision == "H0"
    assert sprt(10, 10, 10, 0, 10).decision is None


def test_elo_from_points_matches_trinomial_and_takes_fractions():
    from tournaments.statistics.elo import from_points
    points = [1.0] * 60 + [0.5] * 20 + [0.0] * 20
    a, b = from_points(points), trinomial(60, 20, 20)
    assert (a.elo, a.low, a.high) == pytest.approx((b.elo, b.low, b.high))
    c = from_points([0.75, 0.25, 1.0, 0.5])
    assert c.score == pytest.approx(0.625) and c.games == 4


def test_pentanomial_sprt_against_a_hand_computed_llr():
    from tournaments.statistics.elo import pentanomial_sprt
    # 100 pairs, mean 0.5, pair variance (10 x 0.25^2 + 10 x 0.25^2) / 100 = 0.0125.
    s1 = 1 / (1 + 10 ** (-5 / 400))
    state = pentanomial_sprt([0, 10, 80, 10, 0], 0, 5)
    assert state.llr == pytest.approx(100 * (s1 - 0.5) * (1 - 0.5 - s1) / (2 * 0.0125))
    assert state.llr == pytest.approx(-0.2069, abs=1e-3) and state.decision is None
    assert pentanomial_sprt([0, 0, 100, 300, 100], 0, 5).decision == "H1"
    assert pentanomial_sprt([0, 0, 0, 0, 1], 0, 5).decision is None  # one pair won: no variance, no decision
    assert pentanomial_sprt([0, 0, 30, 0, 0], 0, 5).llr == 0.0
    assert pentanomial_sprt([100, 300, 100, 0, 0], 0, 5).decision == "H0"
    with pytest.raises(ValueError):
        pentanomial_sprt([1, 2, 3], 0, 5)


def test_ladder_rating_of_one_level_is_that_pairings_elo_with_the_delta_method_interval():
    from tournaments.statistics.elo import ladder_rating
    counts = [5, 10, 20, 10, 5]  # mean 0.5, pair variance 0.075 over 50 pairs
    fit = ladder_rating([(2000, counts)])
    assert fit is not None and fit.games == 100
    assert fit.rating == pytest.approx(2000, abs=1e-6)
    se = math.sqrt(0.075 / 50) / (math.log(10) / 400 * 0.25)  # 26.91 Elo
    assert fit.high - fit.rating == pytest.approx(1.959964 * se, rel=1e-4)
    skewed = [2, 10, 20, 15, 8]
    assert ladder_rating([(2000, skewed)]).rating == pytest.approx(2000 + pentanomial(skewed).elo, abs=1e-6)


def test_ladder_rating_stays_finite_when_levels_are_swept():
    from tournaments.statistics.elo import ladder_rating
    # all won against 1900, all lost against 2300: half the points, so 2100 by symmetry
    fit = ladder_rating([(1900, [0, 0, 0, 0, 10]), (2300, [10, 0, 0, 0, 0])])
    assert fit.rating == pytest.approx(2100, abs=1e-6)
    # each level expects p = 0.7597 (200 Elo) of the winner: every pair is off by 2(1 − p) points,
    # the information is 40 games × p(1 − p); the interval is ±100 Elo
    p = 1 / (1 + 10 ** (-0.5))
    se = math.sqrt(20 * (2 * (1 - p)) ** 2) / (math.log(10) / 400 * 40 * p * (1 - p))
    assert fit.high - fit.rating == pytest.approx(1.959964 * se, rel=1e-4)
    assert fit.high - fit.rating == pytest.approx(100.2, abs=0.1)
    mirrored = ladder_rating([(1900, [1, 2, 5, 10, 12]), (2100, [12, 10, 5, 2, 1])])
    assert mirrored.rating == pytest.approx(2000, abs=1e-6)
    assert ladder_rating([(1900, [0, 0, 0, 0, 4]), (2300, [0, 0, 0, 0, 3])]) is None  # all won: no finite rating
    assert ladder_rating([(1900, [0, 0, 0, 0, 0])]) is None
