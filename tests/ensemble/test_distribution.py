"""Distribution criteria against the thesis's instance table, and the rules they
promise where the thesis gives no table."""
from collections import Counter

import pytest

from ensemble.distribution import DistributionError, distribute, player_notation
from tests.ensemble.thesis_table import THESIS_TABLE

CRITERION = {"a": "minimal", "b": "balanced", "c": "unbalanced", "d": "incremental"}


@pytest.mark.parametrize("label", sorted(THESIS_TABLE))
def test_criteria_generate_the_thesis_table(label):
    n, letter = int(label[0]), label[1]
    assert player_notation(distribute(CRITERION[letter], n)) == THESIS_TABLE[label]


@pytest.mark.parametrize("n", [2, 7, 8, 10])
def test_balanced_beyond_the_table_keeps_its_rule(n):
    specs = distribute("balanced", n)
    sets = [s.letters[1:] for s in specs]
    assert all(s.uses("M") for s in specs)
    assert {len(s) for s in sets} == {3}
    counts = Counter(c for s in sets for c in s)
    assert max(counts.values()) - min(counts.values()) <= 1
    # The extra appearances go to the more important categories.
    order = "BXKPAR"
    assert [counts[c] for c in order] == sorted((counts[c] for c in order), reverse=True)
    assert len(set(sets)) == len(sets)


def test_balanced_with_another_order_relabels_the_design():
    # Same positional design, categories taken in the new order of importance.
    assert player_notation(distribute("minimal", 3, order="MPAB")) == "(MP)(MA)(MB)"
    assert player_notation(distribute("incremental", 3, order="MRKB")) == "(MR)(MKR)(MBKR)"
    assert len(distribute("balanced", 4, order="MRAPKXB")) == 4


def test_emphasis_keeps_every_category_and_doubles_the_focal_ones():
    specs = distribute("emphasis", 3, factor=2.0, focus="balanced")
    assert all(s.mask == 127 for s in specs)
    weights = [dict(zip("MBXKPAR", s.weights)) for s in specs]
    assert weights[0] == {"M": 1, "B": 2, "X": 2, "K": 1, "P": 2, "A": 1, "R": 1}  # focal (MBXP)
    assert weights[2] == {"M": 1, "B": 1, "X": 2, "K": 2, "P": 1, "A": 2, "R": 1}  # focal (MXKA)


def test_masks_and_weights_combine():
    specs = distribute("minimal", 2, weights=[1, 1.5, 1, 1, 1, 1, 1])
    assert [s.letters for s in specs] == ["MB", "MX"]
    assert specs[0].weights[1] == 1.5


def test_random_weights_are_seeded_and_leave_material_alone():
    a = distribute("random_weights", 4, seed=7, sigma=0.3)
    b = distribute("random_weights", 4, seed=7, sigma=0.3)
    c = distribute("random_weights", 4, seed=8, sigma=0.3)
    assert a == b and a != c
    assert all(s.weights[0] == 1.0 for s in a)
    assert len({s.weights for s in a}) == 4


def test_random_masks_are_seeded_distinct_and_keep_m():
    a = distribute("random", 6, seed=3)
    assert a == distribute("random", 6, seed=3)
    assert len({s.mask for s in a}) == 6 and all(s.uses("M") for s in a)


@pytest.mark.parametrize("criterion,n,order,message", [
    ("minimal", 7, "MBXKPAR", "out of range"),
    ("incremental", 0, "MBXKPAR", "out of range"),
    ("balanced", 1, "MBXKPAR", "out of range"),
    ("minimal", 3, "MBXQ", "unknown category"),
    ("minimal", 3, "MBB", "repeated"),
    ("majority", 3, "MBXKPAR", "unknown distribution criterion"),
])
def test_impossible_requests_are_named(criterion, n, order, message):
    with pytest.raises(DistributionError, match=message):
        distribute(criterion, n, order)


def test_unbalanced_general_rule():
    for n in range(2, 9):
        sets = [s.letters for s in distribute("unbalanced", n)]
        assert sets.count("MBXKPAR") == 1
        singles = [s for s in sets if len(s) == 2]
        assert len(singles) == (n + 1) // 2
        assert all(len(s) == 6 for s in sets if s not in singles and s != "MBXKPAR")
