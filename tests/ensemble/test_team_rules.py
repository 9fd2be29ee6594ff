"""The rules for large teams (issue 43) on hand-built ballots whose answer is worked out by hand:
the calibrated vote, two-stage consultation, and the calibration's fit and file."""
import json
import math

import pytest

from ensemble.ballot import Ballot, SelectionInput
from ensemble.calibration import Calibration, fit_calibration, fit_line, load_calibration, spec_key
from ensemble.selection import SelectionError, select
from evaluation.spec import EvalSpec
from players.result import SearchResult


def ballot(letters, move, score, weights=None):
    spec = EvalSpec.parse(letters, weights)
    return Ballot(f"({letters})", spec, SearchResult(move, score, None, (move,), 8, 30, 30, 8, 1000, 0.1, (), "", None))


def expected(cp):
    return 1 / (1 + 10 ** (-cp / 400))


def test_calibrated_vote_puts_an_optimistic_instance_on_the_full_scale():
    # MXK sees +300 for d2d4 but its scores are twice the full engine's: it means +150.
    model = Calibration({spec_key(EvalSpec.parse("MXK")): (0.5, 0.0)})
    ballots = [ballot("MBXKPAR", "e2e4", 200), ballot("MXK", "d2d4", 300), ballot("MBXKPAR", "g1f3", 100)]
    s = select("calibrated_vote", SelectionInput(tuple(ballots), key="p"), model=model, c=0.02)
    low = expected(100)
    assert s.values["e2e4"] == pytest.approx(expected(200) - low + 0.02)
    assert s.values["d2d4"] == pytest.approx(expected(150) - low + 0.02)
    assert s.move == "e2e4"
    # without the calibration (the identity), the optimist's +300 would win
    plain = select("calibrated_vote", SelectionInput(tuple(ballots), key="p"), model=Calibration())
    assert plain.move == "d2d4"


def test_calibrated_vote_adds_up_the_voters_of_a_move():
    model = Calibration()
    ballots = [ballot("MBXKPAR", "e2e4", 0), ballot("MB", "e2e4", 0), ballot("MX", "d2d4", 30)]
    s = select("calibrated_vote", SelectionInput(tuple(ballots), key="p"), model=model, c=0.05)
    assert s.values["e2e4"] == pytest.approx(2 * 0.05)
    assert s.values["d2d4"] == pytest.approx(expected(30) - 0.5 + 0.05)
    assert s.move == "e2e4"  # two voters at c beat one at +30 cp (0.043 + 0.05)


def test_calibrated_vote_needs_a_model():
    with pytest.raises(SelectionError, match="calibration file"):
        select("calibrated_vote", SelectionInput((ballot("MB", "e2e4", 0),), key="p"))


def test_two_stage_optimistic_within_copies_then_one_vote_per_group():
    ballots = [ballot("MBXKPAR", "e2e4", 20, {"B": 1.1}), ballot("MBXKPAR", "d2d4", 45, {"K": 0.9}),
               ballot("MBXKPAR", "e2e4", 30),            # the copies: d2d4 is the most optimistic
               ballot("MB", "c2c4", 500), ballot("MB", "c2c4", 400), ballot("MB", "e2e4", 0),  # MB: c2c4
               ballot("MXK", "g1f3", 900)]               # MXK: g1f3
    s = select("two_stage", SelectionInput(tuple(ballots), key="p"))
    assert s.values == {"e2e4": 0.0, "d2d4": 1.5, "c2c4": 1.0, "g1f3": 1.0}
    assert s.move == "d2d4"
    # two reduced groups agreeing outvote the copies
    s = select("two_stage", SelectionInput(tuple(ballots[:3] + [ballot("MXK", "c2c4", 0)] + ballots[3:5]), key="p"))
    assert s.values["c2c4"] == 2.0 and s.move == "c2c4"


def test_fit_line_recovers_a_known_line_and_leaves_decided_positions_out():
    own = [float(x) for x in range(-300, 300, 10)] + [5000.0]
    full = [0.5 * x + 20 for x in own[:-1]] + [-5000.0]  # a mate seen differently: not scale
    slope, intercept, n = fit_line(own, full)
    assert (slope, intercept, n) == (pytest.approx(0.5), pytest.approx(20), 60)
    assert fit_line([1.0] * 5, [2.0] * 5) == (1.0, 0.0, 5)  # too few: the identity


def test_calibration_file_round_trip_and_bad_file(tmp_path):
    model = fit_calibration({"MB|w=1,1,1,1,1,1,1": ([float(x) for x in range(-100, 100)],
                                                    [2.0 * x for x in range(-100, 100)])}, "test")
    path = tmp_path / "c.json"
    path.write_text(model.to_json())
    back = load_calibration(path)
    assert back.lines["MB|w=1,1,1,1,1,1,1"] == (pytest.approx(2.0), pytest.approx(0.0, abs=1e-9))
    assert back.expected(EvalSpec.parse("MB"), 100) == pytest.approx(expected(200))
    path.write_text(json.dumps({"kind": "learned"}))
    with pytest.raises(ValueError, match="not a calibration model"):
        load_calibration(path)
    assert math.isclose(Calibration().expected(EvalSpec.parse("MB"), 0), 0.5)


# --- learned routing ---------------------------------------------------------------------------

from ensemble.routing import FEATURES, RoutingGate, features, group_vote, load_gate, routed  # noqa: E402

START = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def gate(intercept):
    n = len(FEATURES)
    return RoutingGate((0.0,) * n, (1.0,) * n, (0.0,) * n, intercept)


def test_group_vote_is_stockfish_vote_without_depth():
    ballots = [ballot("MB", "e7e5", 10), ballot("MX", "d7d5", 40), ballot("MK", "e7e5", 0)]
    # lowest 0: e7e5 10+14 + 0+14 = 38, d7d5 40+14 = 54
    assert group_vote(ballots) == ("d7d5", pytest.approx(1 / 3), 40, 8)


def test_routing_features_and_the_gate_deciding():
    team = [ballot("MBXKPAR", "e7e5", 20), ballot("MBXKPAR", "e7e5", 10, {"B": 2}),
            ballot("MB", "d7d5", 90), ballot("MX", "d7d5", 70)]
    f_move, r_move, x = features(SelectionInput(tuple(team), key=START))
    assert (f_move, r_move) == ("e7e5", "d7d5")
    # full start position: phase 24/24, 16 pawns, 30 root moves; consensus 1 and 1; gap (90-20)/100; depths equal
    assert x == pytest.approx([1.0, 1.0, 30 / 40, 1.0, 1.0, 0.7, 0.0])
    to_reduced = select("routed", SelectionInput(tuple(team), key=START), model=gate(+3.0))
    to_full = select("routed", SelectionInput(tuple(team), key=START), model=gate(-3.0))
    assert (to_reduced.move, to_full.move) == ("d7d5", "e7e5")
    assert to_full.values == {"e7e5": 1.0, "d7d5": 0.5}
    agreed = [ballot("MBXKPAR", "e7e5", 20), ballot("MB", "e7e5", 90)]
    assert features(SelectionInput(tuple(agreed), key=START)) is None
    assert routed(SelectionInput(tuple(agreed), key=START), gate(5.0)) == {"e7e5": 1.0}


def test_routing_file_round_trip_and_bad_file(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(gate(0.25).to_json())
    assert load_gate(path) == gate(0.25)
    path.write_text(json.dumps({"kind": "routing", "features": ["phase"]}))
    with pytest.raises(ValueError, match="not a routing model of this version"):
        load_gate(path)
