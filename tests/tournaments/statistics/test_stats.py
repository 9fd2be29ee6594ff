"""Statistics against values worked out by hand or printed in textbooks."""
import pytest

from tournaments.statistics.stats import mcnemar, proportion


def test_wilson_interval_known_values():
    p = proportion(50, 100)
    assert (p.value, round(p.low, 4), round(p.high, 4)) == (0.5, 0.4038, 0.5962)
    p = proportion(0, 20)  # Wilson stays inside [0, 1] where the normal interval would not
    assert p.low == pytest.approx(0.0, abs=1e-12) and round(p.high, 4) == 0.1611
    p = proportion(127, 500)
    assert round(p.low, 3) == 0.218 and round(p.high, 3) == 0.294


def test_exact_mcnemar_is_a_binomial_test_on_the_discordant_pairs():
    a = [True] * 10 + [False] * 2 + [True] * 30 + [False] * 58
    b = [False] * 10 + [True] * 2 + [True] * 30 + [False] * 58
    m = mcnemar(a, b)
    assert (m.only_a, m.only_b) == (10, 2)
    assert m.p_value == pytest.approx(2 * (1 + 12 + 66) / 4096)  # 0.0386
    assert mcnemar([True, False], [True, False]).p_value == 1.0


def test_bad_counts_are_refused():
    with pytest.raises(ValueError):
        proportion(5, 3)
    with pytest.raises(ValueError):
        mcnemar([True], [True, False])


def test_holm_and_benjamini_hochberg_against_hand_computed_values():
    from tournaments.statistics.stats import benjamini_hochberg, holm
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1 -> max(0.06, 0.04) = 0.06.
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH: p*m/rank = 0.02, 0.02, 0.04, 0.04, then the running minimum from the top.
    assert benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert holm([0.6, 0.9]) == [1.0, 1.0] and holm([]) == [] and benjamini_hochberg([]) == []


def test_the_best_of_many_cells_is_not_significant_after_adjustment():
    from tournaments.statistics.stats import adjust_mcnemar, mcnemar
    # 6b with depth confidence on STS: +114/-80 is p = 0.018 alone, but one of 192 comparisons.
    best = mcnemar([True] * 114 + [False] * 80 + [True] * 300, [False] * 114 + [True] * 80 + [True] * 300)
    assert best.p_value == pytest.approx(0.0176, abs=0.001) and not best.significant
    family = adjust_mcnemar([best] + [mcnemar([True, False] * 50, [False, True] * 50)] * 191)
    assert family[0].p_holm == pytest.approx(1.0) and not family[0].significant
    assert "Holm 1.000" in family[0].format() and "*" not in family[0].format()
    strong = adjust_mcnemar([mcnemar([True] * 60, [False] * 60), best])
    assert strong[0].significant and strong[0].format().endswith(" *")


def test_mean_se_by_hand():
    from tournaments.statistics.stats import mean_se
    # 0.5, 0, 0.5, 0.25: mean 0.3125, variance over n 0.04296875, se sqrt(0.04296875 / 4)
    assert mean_se([0.5, 0, 0.5, 0.25]) == (0.3125, pytest.approx(0.1036445, rel=1e-6))
    with pytest.raises(ValueError):
        mean_se([])
