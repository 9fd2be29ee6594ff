"""Ballots: votes counted per candidate in order of first appearance, scores clamped to a
mate, and the thesis's two weight tables in the order of the categories."""
from ensemble.ballot import GENERALISED_WEIGHTS, SIMPLE_WEIGHTS, clamp_score, votes
from evaluation.spec import CATEGORIES
from players.result import MATE_CP
from tests.ensemble.ballots import ballot


def test_votes_count_each_candidate_in_order_of_first_appearance():
    ballots = [ballot("MB", "e7e5"), ballot("MX", "d8h4"), ballot("MK", "e7e5"), ballot("MP", "c7c5")]
    counted = votes(ballots)
    assert counted == {"e7e5": 2, "d8h4": 1, "c7c5": 1} and list(counted) == ["e7e5", "d8h4", "c7c5"]
    assert votes([]) == {}


def test_scores_are_clamped_to_a_mate():
    assert clamp_score(31_995) == MATE_CP and clamp_score(-31_995) == -MATE_CP and clamp_score(250) == 250


def test_the_weight_tables_rank_the_categories_in_the_thesis_s_order():
    for table in (SIMPLE_WEIGHTS, GENERALISED_WEIGHTS):
        assert list(table) == list(CATEGORIES)
        assert all(table[a] > table[b] for a, b in zip(CATEGORIES, CATEGORIES[1:]))
    # the simple weights differ by the generalised ones plus a constant
    assert {SIMPLE_WEIGHTS[c] - GENERALISED_WEIGHTS[c] for c in CATEGORIES} == {100}
