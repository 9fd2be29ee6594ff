"""Learned-criterion model files are plain numbers: a saved model ranks as the fitted one
did, a pickle is read only with allow_pickle (and never run without it), and a tampered
file is refused with the field that is wrong."""
import json
import os

import joblib
import numpy as np
import pytest

from concilio.cli import main
from base.config import ConfigError
from base.errors import ConcilioError
from ensemble.config import load_ensemble
from ensemble.features import FEATURES
from ensemble.learned import _estimators
from ensemble.learned_model import LearnedModel
from ensemble.model_file import LearnedModelError, read_model, save_model
from ensemble.rankers import ranker_from_estimator
from ensemble.selection import SelectionError, check_params


@pytest.fixture(scope="module")
def data():
    """Rows where three features decide and two of them are often unknown (NaN), so that
    the imputer's indicators and the trees' missing-value branches both matter."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(800, len(FEATURES)))
    y = (x[:, 0] + 0.8 * np.nan_to_num(x[:, 1]) - 0.5 * x[:, 2] + rng.normal(0, 0.5, 800) > 0).astype(int)
    x[rng.random(800) < 0.3, 1] = np.nan
    x[rng.random(800) < 0.2, 5] = np.nan
    y[np.isnan(x[:, 5])] = 1  # unknown feature 5 says something: its indicator must carry it
    return x, y


@pytest.fixture(scope="module")
def fitted(data):
    x, y = data
    return {kind: estimator.fit(x, y) for kind, estimator in _estimators(0).items()}


def model_of(estimator, kind):
    return LearnedModel(ranker_from_estimator(estimator), kind, versions={"scikit-learn": "x", "numpy": "y"})


@pytest.mark.parametrize("kind", ["logistic", "trees"])
def test_a_saved_and_loaded_model_ranks_exactly_as_the_fitted_one(tmp_path, data, fitted, kind):
    x, _ = data
    expected = fitted[kind].predict_proba(x)[:, 1]
    path = save_model(model_of(fitted[kind], kind), tmp_path / "m.json")
    loaded = read_model(path)
    got = np.asarray(loaded.rank(x))
    assert np.array_equal(got, expected)  # bit for bit, NaN rows included
    decisions = np.arange(len(x)) // 4  # four candidates per decision: the same one on top in each
    assert all(np.argmax(got[decisions == d]) == np.argmax(expected[decisions == d]) for d in range(len(x) // 4))
    assert loaded.kind == kind and loaded.versions == {"scikit-learn": "x", "numpy": "y"}
    assert json.loads(path.read_text())["ranker"]  # plain JSON numbers, nothing else


def old_format_pickle(path, estimator):
    """A format-1 model as Concilio wrote them before: a joblib pickle of LearnedModel."""
    old = LearnedModel.__new__(LearnedModel)
    old.__dict__.update(estimator=estimator, kind="trees", features=FEATURES, trained_on="old", positions=3,
                        rows=800, cv={"trees": {"val": 0.5, "val_sd": 0.0}}, importances=[], empty=(), format=1)
    joblib.dump(old, path)
    return path


def test_a_pickle_needs_allow_pickle_and_then_ranks_as_before(tmp_path, data, fitted, capsys):
    x, _ = data
    old_format_pickle(tmp_path / "m.joblib", fitted["trees"])
    config = tmp_path / "e.yaml"
    config.write_text("instances: [{mask: MB}, {mask: MX}]\nselection: {criterion: learned, model: m.joblib}\n")
    with pytest.raises(ConfigError) as refused:
        load_ensemble(config)
    message = str(refused.value)
    assert f"{config}:2: selection.model:" in message and str(tmp_path / "m.joblib") in message
    assert "allow_pickle: true" in message and "run whatever code" in message
    assert isinstance(refused.value, ConcilioError)
    assert main(["play", str(config)]) == 2  # the command names it and exits 2, before any search
    assert "allow_pickle: true" in capsys.readouterr().err

    config.write_text("instances: [{mask: MB}, {mask: MX}]\n"
                      "selection: {criterion: learned, model: m.joblib, allow_pickle: true}\n")
    assert load_ensemble(config).selection.params["allow_pickle"] is True
    model = read_model(tmp_path / "m.joblib", allow_pickle=True)
    assert model.trained_on == "old" and np.array_equal(model.rank(x), fitted["trees"].predict_proba(x)[:, 1])
    with pytest.raises(SelectionError, match="allow_pickle must be true or false"):
        check_params("learned", {"model": "m.joblib", "allow_pickle": "yes"})


def test_without_the_flag_a_pickle_is_never_run(tmp_path):
    class Payload:  # unpickling this makes a folder: any code would run the same way
        def __reduce__(self):
            return os.mkdir, (str(tmp_path / "ran"),)

    joblib.dump(Payload(), tmp_path / "evil.json")
    with pytest.raises(LearnedModelError, match="allow_pickle: true"):
        read_model(tmp_path / "evil.json")
    assert not (tmp_path / "ran").exists()
    with pytest.raises(LearnedModelError, match="not a Concilio model pickle"):
        read_model(tmp_path / "evil.json", allow_pickle=True)  # the flag trusts the file: it runs
    assert (tmp_path / "ran").exists()


def tamper_field(data):
    del data["ranker"]


def tamper_tree_field(data):
    del data["ranker"]["trees"][3]["feature"]


def tamper_child(data):
    data["ranker"]["trees"][0]["left"][0] = 0  # the root's left child is the root: a loop


def tamper_threshold(data):
    data["ranker"]["trees"][1]["threshold"][0] = float("nan")


def tamper_leaves(data):
    data["ranker"]["trees"][2]["value"].pop()


def tamper_feature(data):
    data["ranker"]["trees"][0]["feature"][0] = len(FEATURES)


def tamper_names(data):
    data["features"][0] = "something_else"


@pytest.mark.parametrize("tamper, reason", [
    (tamper_field, "missing field.s. ranker"),
    (tamper_tree_field, r"trees\[3\] has no field 'feature'"),
    (tamper_child, r"trees\[0\].left points outside the tree or back up it"),
    (tamper_threshold, r"trees\[1\].threshold holds a number that is not finite"),
    (tamper_leaves, r"trees\[2\].value must be a list of \d+ numbers"),
    (tamper_feature, r"trees\[0\] splits on a feature that does not exist"),
    (tamper_names, "trained on other features"),
])
def test_a_tampered_model_file_is_refused(tmp_path, fitted, tamper, reason):
    path = save_model(model_of(fitted["trees"], "trees"), tmp_path / "m.json")
    read_model(path)  # untouched, it loads
    data = json.loads(path.read_text())
    tamper(data)
    path.write_text(json.dumps(data))
    with pytest.raises(LearnedModelError, match=reason):
        read_model(path)


def test_a_tampered_logistic_model_is_refused(tmp_path, fitted):
    path = save_model(model_of(fitted["logistic"], "logistic"), tmp_path / "m.json")
    data = json.loads(path.read_text())
    data["ranker"]["coef"] = data["ranker"]["coef"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(LearnedModelError, match=r"ranker.coef must be a list of \d+ numbers"):
        read_model(path)
