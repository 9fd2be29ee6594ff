"""Suite scores: each suite role a family of comparisons of its own for Holm and BH."""
import pytest

from tournaments.statistics.stats import mcnemar, proportion
from tournaments.suite.config import FULL_LABEL
from tournaments.suite.metrics import Comparison, Score, adjust_comparisons


def test_each_suite_role_is_its_own_family_of_comparisons():
    def score(suite, player, wins, losses):
        s = Score(suite, player, "majority", 500, proportion(1, 2), proportion(1, 2), 0, 0)
        test = mcnemar([True] * wins + [False] * losses, [False] * wins + [True] * losses)
        s.comparisons.append(Comparison(FULL_LABEL, test, test))
        return s
    chosen = [score("train", f"p{i}", 60, 40) for i in range(20)]  # p = 0.057 each, twenty of them
    confirmed = [score("held-out", "p0", 60, 40)]
    families = adjust_comparisons(chosen + confirmed, {"train": "choose", "held-out": "confirm"})
    assert families == {"choose": 20, "confirm": 1}
    assert confirmed[0].versus_full.p_holm == pytest.approx(confirmed[0].versus_full.p_value)  # alone
    assert chosen[0].versus_full.p_holm == pytest.approx(1.0)
