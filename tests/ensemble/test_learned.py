"""Features of candidate moves on a hand-built decision, and the learned criterion:
fitting with cross-validation grouped by game, saving, loading, and naming a bad model file."""
import math
import random

import chess
import pytest

from base.config import ConfigError
from ensemble.config import load_ensemble
from ensemble.features import FEATURES, candidate_features
from ensemble.learned import LearnedModelError, chosen_share, fit_model, grouped_folds
from ensemble.model_file import load_model, save_model
from ensemble.ballot import Ballot, Evidence, SelectionInput
from ensemble.selection import select
from evaluation.spec import EvalSpec
from players.result import SearchResult

# Black to move; e7e5 is quiet, d8h4 gives check (after f2f3 g2g4 the queen mates), c7c5 quiet.
FEN = "rnbqkbnr/pppppppp/8/8/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"


def ballot(letters, move, score=0, depth=8, n=20):
    return Ballot(f"({letters})", EvalSpec.parse(letters),
                  SearchResult(move, score, None, (move,), depth, n, 20, depth, 1000, 0.1, (), FEN, None))


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


def synthetic(n_positions=300, seed=3):
    """Two to three candidates per decision; the solving one has the largest gain_max
    in 90% of decisions (so a good ranker reaches about 0.9), votes are noise."""
    rng = random.Random(seed)
    rows, groups, solved, positions = [], [], [], []
    gain, votes = FEATURES.index("gain_max"), FEATURES.index("votes")
    for g in range(n_positions):
        k = rng.choice((2, 3))
        winner = rng.randrange(k)
        informative = rng.random() < 0.9
        for c in range(k):
            row = [0.0] * len(FEATURES)
            row[votes] = rng.randint(1, 3)
            row[gain] = (2.0 if c == winner else 0.0) if informative else rng.random()
            rows.append(row)
            groups.append(g)
            solved.append(c == winner)
            positions.append(g)
    return rows, groups, solved, positions


def test_fit_finds_the_informative_feature_and_cross_validates_by_game(tmp_path):
    rows, groups, solved, positions = synthetic()
    model, held_out = fit_model(rows, groups, solved, positions, trained_on="synthetic")
    assert set(model.cv) == {"logistic", "trees"}
    assert 0.85 <= model.cv[model.kind]["val"] <= 1.0
    assert model.importances[0][0] == "gain_max"
    assert len(held_out) == len(rows)
    assert chosen_share(held_out, groups, solved) == pytest.approx(model.cv[model.kind]["val"], abs=0.05)
    # features never known in training (all NaN there) are read as 0, not refused
    assert FEATURES.index("margin_max") not in model.empty
    path = save_model(model, tmp_path / "m.json")
    loaded = load_model(path)
    assert loaded.kind == model.kind and loaded.rank(rows[:3]) == pytest.approx(model.rank(rows[:3]))


def test_the_learned_criterion_plays_the_top_ranked_candidate(tmp_path):
    rows, groups, solved, positions = synthetic()
    model, _ = fit_model(rows, groups, solved, positions)
    path = save_model(model, tmp_path / "m.json")
    # e7e5 has more votes; c7c5's voter gained 2 pawns over its own root view
    ballots = (ballot("MB", "e7e5", score=0), ballot("MX", "e7e5", score=0), ballot("MK", "c7c5", score=200))
    evidence = Evidence((0, 0, 0), ((0,) * 3,) * 3, (0,) * 7, ((0,) * 7,) * 3)
    inp = SelectionInput(ballots, evidence, None, FEN)
    assert select("majority", inp).move == "e7e5"
    chosen = select("learned", inp, model=str(path))
    assert chosen.move == "c7c5" and chosen.values["c7c5"] > chosen.values["e7e5"]


def test_too_little_to_learn_from_is_named():
    rows, groups, solved, positions = synthetic(3)
    with pytest.raises(LearnedModelError, match="too little to learn from"):
        fit_model(rows, groups, solved, positions)


def test_an_ensemble_file_names_a_missing_or_foreign_model(tmp_path):
    text = "instances: [{mask: MB}, {mask: MX}]\nselection: {criterion: learned, model: nowhere.json}\n"
    with pytest.raises(ConfigError, match=r"<text>:2: selection.model: no such model file: nowhere.json"):
        load_ensemble(text=text)
    (tmp_path / "bad.json").write_text('{"format": 2, "kind": "trees"}')
    path = tmp_path / "e.yaml"
    path.write_text(text.replace("nowhere.json", "bad.json"))
    with pytest.raises(ConfigError, match="bad.json is not a Concilio model file: missing field"):
        load_ensemble(path)
    path.write_text("instances: [{mask: MB}, {mask: MX}]\nselection: {criterion: learned}\n")
    with pytest.raises(ConfigError, match="needs model: FILE"):
        load_ensemble(path)


def test_an_ensemble_file_finds_its_model_beside_it(tmp_path):
    rows, groups, solved, positions = synthetic()
    save_model(fit_model(rows, groups, solved, positions)[0], tmp_path / "m.json")
    path = tmp_path / "e.yaml"
    path.write_text("instances: [{mask: MB}, {mask: MX}]\nselection: {criterion: learned, model: m.json}\n")
    config = load_ensemble(path)
    assert config.selection.params["model"] == str(tmp_path / "m.json")


# --- the dynamic criterion ----------------------------------------------------------------------

def test_position_context_on_known_positions():
    from ensemble.dynamic import position_context
    start = position_context(chess.Board())
    assert start == [1.0, 1.0, 0.0, 0.0, 0.0]
    # a queen (phase 4/24), d4 and d5 blocked, e2 free: 2/3 closed; White Q+P against 2 P: 8 up
    board = chess.Board("4k3/8/8/3p4/3P4/8/4p3/Q3K3 w - - 0 1")
    context = position_context(board)
    assert context[1] == pytest.approx(4 / 24) and context[3] == pytest.approx(2 / 3)
    assert context[4] == pytest.approx(8 / 9)


def test_dynamic_weights_follow_the_position(tmp_path):
    from ensemble.dynamic import CONTEXT, DynamicWeights, load_weights
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
    from ensemble.dynamic import DynamicModelError, load_weights
    (tmp_path / "w.json").write_text('{"format": 1, "theta": [[1]]}')
    with pytest.raises(DynamicModelError, match="w.json is not a dynamic-weights file"):
        load_weights(tmp_path / "w.json")


def test_fitting_dynamic_weights_learns_when_to_trust_a_category():
    """K-knowing voters are right in the opening (phase 1), B-knowing ones in the endgame."""
    from ensemble.dynamic import fit_weights
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
