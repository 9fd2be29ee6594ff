"""A team's calibration fitted from an auto-tune store: one line per pool instance, on the tune
split only, readable by the calibrated vote, which the tune can then choose."""
import numpy as np
import pytest

from ensemble.calibration import load_calibration, spec_key
from ensemble.config import load_ensemble
from evaluation.spec import EvalSpec
from tests.tournaments.autotune.tune_files import tiny_set, write_config
from tournaments.autotune.calibration import fit_team_calibration
from tournaments.autotune.config import load_autotune
from tournaments.autotune.run import run_autotune, split_held_out
from tournaments.records.epd import read_suite
from tournaments.suite.config import instance_key
from tournaments.suite.store import SearchStore


def test_fitted_lines_match_the_stored_scores_on_the_tune_split(data_dir, tmp_path):
    train = tiny_set(data_dir, tmp_path, n=40)
    config = load_autotune(write_config(tmp_path, train))
    run_autotune(config, progress=False)
    model = fit_team_calibration(config)
    tune, _ = split_held_out(read_suite(train).positions, 0.25, 3)
    assert set(model.lines) == {spec_key(EvalSpec.parse(m)) for m in ("MBXKPAR", "MB", "MBX")}
    assert model.lines[spec_key(EvalSpec.parse("MBXKPAR"))] == (pytest.approx(1.0), pytest.approx(0.0, abs=1e-6))
    with SearchStore(config.store) as store:
        own = store.searches(instance_key(config.pool[1]), config.budget_key)
        full = store.searches(instance_key(config.pool[0]), config.budget_key)
    pairs = [(own[p.fen].result.score_cp, full[p.fen].result.score_cp) for p in tune
             if abs(own[p.fen].result.score_cp) <= 1000 and abs(full[p.fen].result.score_cp) <= 1000]
    assert model.positions[spec_key(config.pool[1].spec)] == len(pairs)
    if len(pairs) >= 20:
        slope, intercept = np.polyfit(*zip(*pairs), 1)
        assert model.lines[spec_key(config.pool[1].spec)] == (pytest.approx(slope), pytest.approx(intercept))
    path = tmp_path / "calibration.json"
    path.write_text(model.to_json())
    back = load_calibration(path)
    assert back.positions == model.positions
    for key, (slope, intercept) in model.lines.items():
        assert back.lines[key] == (pytest.approx(slope), pytest.approx(intercept))
    # the calibrated vote is a criterion the tune can choose, and the written ensemble names its model
    text = open(config.source).read()
    again = load_autotune(text=text.replace("criteria: [majority, depth_confidence]",
                                            f"criteria: [{{criterion: calibrated_vote, model: {path}}}]"))
    outcome = run_autotune(again, progress=False)
    assert outcome.tuned.criterion.name == "calibrated_vote"
    tuned = load_ensemble(again.out)
    assert tuned.selection.criterion == "calibrated_vote" and tuned.selection.params["model"] == str(path)


def test_a_gate_needs_disagreements_to_learn_from(data_dir, tmp_path):
    from ensemble.config import load_ensemble
    from tournaments.autotune.routing import fit_routing
    train = tiny_set(data_dir, tmp_path, n=16)
    config = load_autotune(write_config(tmp_path, train))
    run_autotune(config, progress=False)
    team = tmp_path / "team.yaml"
    team.write_text("name: team\ninstances: [{mask: MBXKPAR}, {mask: MB}, {mask: MBX}]\n"
                    "selection: {criterion: thread_vote}\nbudget: {nodes: 300}\n")
    with pytest.raises(ValueError, match="too few to fit a gate"):
        fit_routing(config, load_ensemble(team))
