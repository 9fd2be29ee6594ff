"""Statistics against values worked out by hand or printed in textbooks."""
import pytest

from tournaments.stats import mcnemar, proportion


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
