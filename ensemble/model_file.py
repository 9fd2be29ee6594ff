"""Learned-criterion model files: JSON numbers that load without running anything.

A config that names ``model: FILE`` must not become a way to run code, and unpickling
runs whatever the pickle holds.  So a model is written as JSON (its ranker's numbers,
``ensemble.rankers``, with its features, how it was chosen and the library versions it
was trained with) and read back field by field.  A joblib/pickle file (the format before
this one) is read only when the config says ``allow_pickle: true`` next to ``model:``,
and is turned into the same plain ranker on the way in.
"""
from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from base.errors import ConcilioError

from ensemble.features import FEATURES
from ensemble.learned_model import MODEL_FORMAT, LearnedModel
from ensemble.rankers import RankerDataError, ranker_from_data, ranker_from_estimator

FIELDS = ("format", "kind", "features", "empty", "trained_on", "positions", "games", "rows", "cv",
          "importances", "versions", "ranker")


class LearnedModelError(ConcilioError, ValueError):
    """A model file that cannot be used (missing, not a Concilio model, other features, a pickle)."""


def library_versions() -> dict[str, str]:
    """The versions a model is fitted with, kept in its file for whoever reads it later."""
    import numpy
    import sklearn
    return {"scikit-learn": sklearn.__version__, "numpy": numpy.__version__}


def save_model(model: LearnedModel, path: str | Path) -> Path:
    """Write ``model`` as JSON: top-level fields one per line, each tree on its own line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": MODEL_FORMAT, "kind": model.kind, "features": list(model.features),
            "empty": list(model.empty), "trained_on": model.trained_on, "positions": model.positions,
            "games": model.games, "rows": model.rows, "cv": model.cv,
            "importances": [list(fv) for fv in model.importances], "versions": model.versions,
            "ranker": model.ranker.to_data()}
    path.write_text(_layout(data) + "\n")
    return path


def _layout(value: Any, depth: int = 0) -> str:
    """JSON with mappings of the first two levels and lists of mappings split over lines."""
    pad = " " * (depth + 1)
    if isinstance(value, Mapping) and depth < 2:
        items = [f"{pad}{json.dumps(k)}: {_layout(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        return "[\n" + ",\n".join(pad + json.dumps(v, allow_nan=False) for v in value) + "\n" + " " * depth + "]"
    return json.dumps(value, allow_nan=False)


_LOADED: dict[tuple[str, bool], LearnedModel] = {}
_LOCK = threading.Lock()


def load_model(path: str | Path, allow_pickle: bool = False) -> LearnedModel:
    """A saved model, once per process (the criterion runs on every move)."""
    key = (str(Path(path).resolve()), bool(allow_pickle))
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
    model = read_model(path, allow_pickle)
    with _LOCK:
        _LOADED[key] = model
    return model


def read_model(path: str | Path, allow_pickle: bool = False) -> LearnedModel:
    """The model in ``path``: JSON always; a joblib pickle only with ``allow_pickle``."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise LearnedModelError(f"learned criterion: no model file {path}") from None
    except OSError as exc:
        raise LearnedModelError(f"learned criterion: cannot read {path} ({exc.strerror or exc})") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        if not allow_pickle:
            raise LearnedModelError(
                f"learned criterion: {path} is not a plain-data model (JSON: {exc}). If it is a joblib or "
                "pickle model, loading it would run whatever code the file holds, so Concilio reads one only "
                "with allow_pickle: true next to model: in the config's criterion (selection) block; set it "
                "only for a file you trust") from None
        model = _from_pickle(path)
    else:
        model = _from_json(path, data)
    if tuple(model.features) != FEATURES:
        raise LearnedModelError(f"learned criterion: {path} was trained on other features; retrain it")
    return model


def _from_json(path: str | Path, data: Any) -> LearnedModel:
    def bad(reason: str) -> LearnedModelError:
        return LearnedModelError(f"learned criterion: {path} is not a Concilio model file: {reason}")

    if not isinstance(data, dict):
        raise bad("expected a JSON object")
    missing = [f for f in FIELDS if f not in data]
    if missing:
        raise bad(f"missing field(s) {', '.join(missing)}")
    if data["format"] != MODEL_FORMAT:
        raise bad(f"format {data['format']!r}, not {MODEL_FORMAT}")
    features = data["features"]
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise bad("features must be a list of names")
    empty = data["empty"]
    if not isinstance(empty, list) or not all(isinstance(i, int) and 0 <= i < len(features) for i in empty):
        raise bad("empty must list feature indices")
    for name in ("positions", "games", "rows"):
        if not isinstance(data[name], int):
            raise bad(f"{name} must be an integer")
    if not isinstance(data["versions"], dict) or not isinstance(data["cv"], dict):
        raise bad("versions and cv must be objects")
    try:
        ranker = ranker_from_data(data["kind"], data["ranker"], len(features))
        importances = [(str(name), float(value)) for name, value in data["importances"]]
    except RankerDataError as exc:
        raise bad(str(exc)) from None
    except (TypeError, ValueError):
        raise bad("importances must be [name, value] pairs") from None
    return LearnedModel(ranker, data["kind"], tuple(features), str(data["trained_on"]), data["positions"],
                        data["games"], data["rows"], data["cv"], importances, tuple(empty),
                        {str(k): str(v) for k, v in data["versions"].items()})


def _from_pickle(path: str | Path) -> LearnedModel:
    """A format-1 model (a joblib pickle of ``LearnedModel`` holding a scikit-learn estimator),
    the caller having said it trusts the file; its estimator becomes a plain ranker."""
    import joblib
    versions = library_versions()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            old = joblib.load(path)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means the same to the user
        raise LearnedModelError(f"learned criterion: {path} is not a readable model ({exc})") from None
    state = vars(old) if isinstance(old, LearnedModel) else {}
    if state.get("format") != 1 or "estimator" not in state:
        raise LearnedModelError(f"learned criterion: {path} is not a Concilio model pickle of format 1")
    try:
        ranker = ranker_from_estimator(state["estimator"])
    except (RankerDataError, AttributeError) as exc:
        raise LearnedModelError(f"learned criterion: {path}: its estimator cannot be read ({exc})") from None
    for warning in caught:  # scikit-learn names the version that pickled an estimator when it differs
        versions["scikit-learn"] = getattr(warning.message, "original_sklearn_version", versions["scikit-learn"])
    return LearnedModel(ranker, state["kind"], tuple(state["features"]), state["trained_on"], state["positions"],
                        0, state["rows"], dict(state["cv"]), list(state["importances"]), tuple(state["empty"]),
                        versions)
