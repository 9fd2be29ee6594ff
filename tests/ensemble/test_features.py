"""Features of candidate moves on a hand-built decision: every value worked out by hand,
and evidence not known read as NaN, not zero."""
import math

import pytest

from ensemble.ballot import Evidence, SelectionInput
from ensemble.features import FEATURES, candidate_features
from tests.ensemble.ballots import FEN, ballot


def col(rows, move, name):
    return rows[move][FEATURES.index(name)]


def test_features_of_a_hand_built_decision():
    ballots = (ballot("MBXKPAR", "d8h4", score=300, depth=9, n=20), ballot("MB", "e7e5", score=20, depth=10),
               ballot("MX", "e7e5", score=40, depth=8, n=10))
    # nets are White minus Black; Black to move, so a PV end with M net -300 is +3 pawns for Black.
    evidence = Evidence(root_eval=(0, 0, 0), leaf_eval=((300, 300, 300), (10, 20, 0), (40, 0, 40)),
                        root_nets=(0, 10, 0, 0, 0, 0, 0),
                        leaf_nets=((-300, 10, 0, 0, 0, 0, 0), (0, -10, 0, 0, 0, 0, 0), (0, 10, -40, 0, 0, 0, 0)))
    rows = candidate_features(SelectionInput(ballots, evidence, None, FEN))
    assert list(rows) == ["d8h4", "e7e5"] and all(len(r) == len(FEATURES) for r in rows.values())
    assert col(rows, "e7e5", "votes") == 2 and col(rows, "e7e5", "vote_share") == 2 / 3
    assert col(rows, "e7e5", "is_plurality") == 1 and col(rows, "d8h4", "is_plurality") == 0
    assert col(rows, "d8h4", "depth_max_rel") == -1 and col(rows, "e7e5", "depth_mean_rel") == -1
    assert col(rows, "e7e5", "root_done_mean") == pytest.approx((20 / 20 + 10 / 20) / 2)
    assert col(rows, "d8h4", "score_max") == 3.0 and col(rows, "e7e5", "score_rel_best") == -2.6
    assert col(rows, "e7e5", "gain_mean") == pytest.approx(0.3)
    assert col(rows, "d8h4", "global_gain") == 3.0 and col(rows, "e7e5", "local_gain") == pytest.approx(0.3)
    assert col(rows, "d8h4", "pv_M") == 3.0  # Black's view
    assert col(rows, "e7e5", "pv_B") == pytest.approx(0.1) and col(rows, "e7e5", "pv_X") == pytest.approx(0.2)
    assert col(rows, "e7e5", "knows_K") == 0 and col(rows, "d8h4", "knows_K") == 1
    assert col(rows, "e7e5", "categories_known") == 3  # M, B, X
    assert col(rows, "d8h4", "full_agrees") == 1 and col(rows, "e7e5", "full_agrees") == 0
    assert col(rows, "d8h4", "check") == 1 and col(rows, "d8h4", "moves_queen") == 1
    assert col(rows, "e7e5", "check") == 0 and col(rows, "e7e5", "moves_pawn") == 1
    assert col(rows, "e7e5", "phase") == 1.0
    # thread vote: lowest score 20; weights (300-20+14)*9, (0+14)*10, (20+14)*8
    total = 294 * 9 + 14 * 10 + 34 * 8
    assert col(rows, "d8h4", "thread_vote_share") == pytest.approx(294 * 9 / total)


def test_unknown_evidence_is_nan_not_zero():
    rows = candidate_features(SelectionInput((ballot("MB", "e7e5"), ballot("MX", "c7c5")), Evidence(), None, FEN))
    assert math.isnan(col(rows, "e7e5", "global_gain")) and math.isnan(col(rows, "e7e5", "pv_M"))
    assert math.isnan(col(rows, "e7e5", "margin_max")) and math.isnan(col(rows, "c7c5", "full_agrees"))
