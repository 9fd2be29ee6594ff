"""The dynamic criterion: weights that follow the position (phase, closedness, material),
saved and read back, a foreign file named, and a fit that learns when to trust a category."""
import math
import random

import chess
import pytest

from ensemble.ballot import Evidence, SelectionInput
from ensemble.dynamic import CONTEXT, DynamicModelError, DynamicWeights, fit_weights, load_weights, position_context
from ensemble.selection import select
from tests.ensemble.ballots import ballot


def test_position_context_on_known_positions():
    start = position_context(chess.Board())
    assert start == [1.0, 1.0, 0.0, 0.0, 0.0]
    # a queen (phase 4/24), d4 and d5 blocked, e2 free: 2/3 closed; White Q+P against 2 P: 8 up
    board = chess.Board("4k3/8/8/3p4/3P4/8/4p3/Q3K3 w - - 0 1")
    context = position_context(board)
    assert context[1] == pytest.approx(4 / 24) and context[3] == pytest.approx(2 / 3)
    assert context[4] == pytest.approx(8 / 9)


def test_dynamic_weights_follow_the_position(tmp_path):
    theta = [[0.0] * len(CONTEXT) for _ in range(7)]
    theta[3][1] = -3.0  # K (index 3) weighs less the more pieces are on the board
    weights = DynamicWeights(theta)
    path = weights.save(tmp_path / "w.json")
    assert load_weights(path).theta == theta
    ballots = (ballot("MK", "e7e5"), ballot("MB", "c7c5"))
    # phase 1 (all pieces): K's mean log-weight with M is -1.5, so MB's vote wins
    inp = SelectionInput(ballots, Evidence(), None, chess.Board().fen())
    chosen = select("dynamic", inp, model=str(path))
    assert chosen.move == "c7c5" and chosen.values["e7e5"] == pytest.approx(math.exp(-1.5))
    # kings and pawns only: phase 0, both weigh 1, a tie that the seeded draw settles
    endgame = SelectionInput((ballot("MK", "e7e5"), ballot("MB", "e7e6")), Evidence(), None,
                             "4k3/4p3/8/8/8/8/4P3/4K3 b - - 0 1")
    assert select("dynamic", endgame, model=str(path)).values == {"e7e5": 1.0, "e7e6": 1.0}


def test_a_foreign_dynamic_file_is_named(tmp_path):
    (tmp_path / "w.json").write_text('{"format": 1, "theta": [[1]]}')
    with pytest.raises(DynamicModelError, match="w.json is not a dynamic-weights file"):
        load_weights(tmp_path / "w.json")


def test_fitting_dynamic_weights_learns_when_to_trust_a_category():
    """K-knowing voters are right in the opening (phase 1), B-knowing ones in the endgame."""
    rng = random.Random(5)
    opening, endgame = chess.Board().fen(), "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1"
    inputs, solved = [], []
    for d in range(200):
        fen = opening if d % 2 == 0 else endgame
        k_move, b_move = "a", "b"
        right = k_move if fen == opening else b_move
        if rng.random() < 0.1:
            right = b_move if right == k_move else k_move
        inputs.append(SelectionInput((ballot("MK", k_move), ballot("MB", b_move)), Evidence(), None, fen))
        solved.append({right})
    weights, chosen = fit_weights(inputs, solved, list(range(200)))
    assert weights.cv_val >= 0.85
    assert sum(m in s for m, s in zip(chosen, solved)) / 200 == pytest.approx(weights.cv_val)
    k, b, phase = 3, 1, 1
    assert weights.theta[k][phase] > weights.theta[b][phase]
