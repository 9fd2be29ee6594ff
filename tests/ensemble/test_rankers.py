"""The learned criterion's rankers as plain numbers: probabilities worked out by hand for a
logistic regression and for boosted trees, the stored numbers read back to the same
ranker, and numbers that cannot be a ranker refused with the field named."""
import math

import numpy as np
import pytest

from ensemble.rankers import LogisticRanker, RankerDataError, TreesRanker, ranker_from_data


def sigmoid(z):
    return 1 / (1 + math.exp(-z))


NAN = float("nan")
# tree 1: feature 0 <= 0.5 (NaN goes left) -> -1, else +2; tree 2: feature 1 <= +inf (any known value
# goes left, NaN right) -> then feature 0 <= 2 -> 0.25 / 0.75, NaN -> -0.5
TREES = [
    {"feature": [0, -1, -1], "threshold": [0.5, 0, 0], "missing_left": [1, 0, 0], "left": [1, 0, 0],
     "right": [2, 0, 0], "value": [0.0, -1.0, 2.0]},
    {"feature": [1, 0, -1, -1, -1], "threshold": [None, 2.0, 0, 0, 0], "missing_left": [0, 1, 0, 0, 0],
     "left": [1, 2, 0, 0, 0], "right": [4, 3, 0, 0, 0], "value": [0.0, 0.0, 0.25, 0.75, -0.5]},
]


def test_a_logistic_ranker_imputes_flags_scales_and_weighs():
    plain = LogisticRanker([1.0, -2.0], 0.5)
    assert plain.probability(np.array([[1.0, 1.0]]))[0] == pytest.approx(sigmoid(1 - 2 + 0.5))
    # the median 3 fills feature 1, its missing flag is a third column; then (x - mean) / scale
    full = LogisticRanker([1.0, 1.0, 4.0], -1.0, impute=[0.0, 3.0], indicators=[1], mean=[0.0, 1.0, 0.0],
                          scale=[1.0, 2.0, 1.0])
    assert full.probability(np.array([[2.0, NAN]]))[0] == pytest.approx(sigmoid(2 + (3 - 1) / 2 + 4 - 1))
    assert full.probability(np.array([[2.0, 5.0]]))[0] == pytest.approx(sigmoid(2 + (5 - 1) / 2 + 0 - 1))


def test_boosted_trees_add_a_leaf_of_every_tree_to_the_baseline():
    ranker = TreesRanker(0.1, TREES)
    rows = np.array([[0.2, 7.0], [0.9, 7.0], [3.0, 1.0], [NAN, NAN]])
    expected = [0.1 - 1 + 0.25, 0.1 + 2 + 0.25, 0.1 + 2 + 0.75, 0.1 - 1 - 0.5]
    assert ranker.probability(rows) == pytest.approx([sigmoid(z) for z in expected])


def test_stored_numbers_read_back_to_the_same_ranker():
    rows = np.array([[0.2, NAN], [4.0, 1.0]])
    for ranker in (TreesRanker(0.1, TREES), LogisticRanker([1.0, 1.0, 4.0], -1.0, [0.0, 3.0], [1],
                                                           [0.0, 1.0, 0.0], [1.0, 2.0, 1.0])):
        again = ranker_from_data(ranker.kind, ranker.to_data(), n_features=2)
        assert (again.probability(rows) == ranker.probability(rows)).all()


@pytest.mark.parametrize("kind, data, message", [
    ("trees", {"baseline": 0.0, "trees": [dict(TREES[0], left=[0, 0, 0])]}, r"trees\[0\]\.left points outside"),
    ("trees", {"baseline": 0.0, "trees": [dict(TREES[0], feature=[5, -1, -1])]}, "a feature that does not exist"),
    ("trees", {"baseline": True, "trees": TREES}, "ranker.baseline must be a number"),
    ("logistic", {"coef": [1.0], "intercept": 0.0, "impute": None, "indicators": [], "mean": None,
                  "scale": None}, r"ranker.coef must be a list of 2 numbers"),
    ("logistic", {"coef": [1.0, 2.0], "intercept": 0.0, "impute": None, "indicators": [], "mean": [0.0, 0.0],
                  "scale": None}, "come together or not at all"),
    ("forest", {}, "unknown ranker kind 'forest'"),
])
def test_numbers_that_cannot_be_a_ranker_are_refused(kind, data, message):
    with pytest.raises(RankerDataError, match=message):
        ranker_from_data(kind, data, n_features=2)
