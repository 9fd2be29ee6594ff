"""The learned criterion: fitting with cross-validation grouped by game, saving, loading,
playing the top-ranked candidate, and naming a bad model file."""
import random

import pytest

from base.config import ConfigError
from ensemble.ballot import Evidence, SelectionInput
from ensemble.config import load_ensemble
from ensemble.features import FEATURES
from ensemble.learned import LearnedModelError, chosen_share, fit_model
from ensemble.model_file import load_model, save_model
from ensemble.selection import select
from tests.ensemble.ballots import FEN, ballot


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
