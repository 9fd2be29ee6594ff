"""The pool search of auto-tuned distributions, on objectives whose optimum is known."""
from itertools import combinations

import pytest

from ensemble.autotune import greedy_with_swaps


def test_additive_objective_takes_the_best_members_and_the_best_size():
    gains = [0.1, 0.5, -0.2, 0.4, 0.3, -0.1]
    result = greedy_with_swaps(6, lambda m: sum(gains[i] for i in m), min_size=1, max_size=5)
    assert set(result.best) == {0, 1, 3, 4}  # every positive gain, no negative one
    assert result.value == pytest.approx(1.3)
    assert [len(result.by_size[k][0]) for k in sorted(result.by_size)] == [1, 2, 3, 4, 5]


def test_swaps_reach_the_pair_that_greedy_misses():
    # Greedy takes 0 (the best single) and then the best partner of 0; the best pair is (1, 2).
    single = {0: 5.0, 1: 4.0, 2: 4.0}
    pair = {(0, 1): 5.5, (0, 2): 5.2, (1, 2): 7.0}

    def value(members):
        return single[members[0]] if len(members) == 1 else pair[members]

    greedy_only = greedy_with_swaps(3, value, min_size=2, max_size=2, swap_passes=0)
    assert greedy_only.best == (0, 1)
    result = greedy_with_swaps(3, value, min_size=2, max_size=2)
    assert result.best == (1, 2) and result.value == 7.0
    assert result.steps[-1].action == "swap 0 -> 2"
    assert result.evaluations == 6  # 3 singles and 3 pairs, each judged once


def test_a_tie_keeps_the_smaller_set_and_the_earlier_candidate():
    result = greedy_with_swaps(4, lambda m: 1.0, min_size=2, max_size=4)
    assert result.best == (0, 1)


def test_small_pools_match_brute_force():
    weights = [[0, 3, -2, 1, 4], [3, 0, 5, -1, 0], [-2, 5, 0, 2, -3], [1, -1, 2, 0, 1], [4, 0, -3, 1, 0]]

    def value(members):  # pairwise interactions: not additive, so greedy alone can be wrong
        return sum(weights[a][b] for a, b in combinations(members, 2)) - 0.5 * len(members)

    best = max((value(c), c) for k in (2, 3) for c in combinations(range(5), k))
    result = greedy_with_swaps(5, value, min_size=2, max_size=3)
    assert result.value == best[0]


def test_sizes_out_of_range_are_refused():
    with pytest.raises(ValueError, match="min_size"):
        greedy_with_swaps(3, lambda m: 0.0, min_size=3, max_size=2)
    with pytest.raises(ValueError, match="pool size"):
        greedy_with_swaps(3, lambda m: 0.0, min_size=1, max_size=4)
