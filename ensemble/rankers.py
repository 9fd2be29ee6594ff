"""The learned criterion's rankers as plain numbers: a logistic regression (imputation,
scaling, coefficients) and gradient-boosted trees (split features, thresholds, children,
leaf values), each predicting with numpy alone.

A model file then holds only numbers and names, so loading one runs no code from the
file (a pickle would run whatever it holds), and the arithmetic is scikit-learn's own,
operation for operation, so a converted model ranks exactly as the fitted one did.
``ranker_from_estimator`` turns the two fitted scikit-learn estimators into rankers;
``ranker_from_data`` rebuilds one from its file's numbers, checking every field.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np
from scipy.special import expit

from base.errors import ConcilioError


class RankerDataError(ConcilioError, ValueError):
    """A ranker's numbers that are missing, of the wrong shape, or inconsistent."""


class Ranker(Protocol):
    kind: str

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(best move) per row of ``x`` (rows x features, NaN for unknown)."""

    def to_data(self) -> dict[str, Any]:
        """The ranker as JSON-ready numbers."""


class LogisticRanker:
    """SimpleImputer (median, with missing indicators) -> StandardScaler -> LogisticRegression."""

    kind = "logistic"

    def __init__(self, coef: np.ndarray, intercept: float, impute: np.ndarray | None = None,
                 indicators: np.ndarray | None = None, mean: np.ndarray | None = None,
                 scale: np.ndarray | None = None) -> None:
        self.coef = np.asarray(coef, dtype=float).reshape(1, -1)
        self.intercept = np.asarray([intercept], dtype=float)
        self.impute = None if impute is None else np.asarray(impute, dtype=float)
        self.indicators = np.asarray([] if indicators is None else indicators, dtype=np.intp)
        self.mean = None if mean is None else np.asarray(mean, dtype=float)
        self.scale = None if scale is None else np.asarray(scale, dtype=float)

    def probability(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self.impute is not None:
            missing = np.isnan(x)
            flags = missing[:, self.indicators].astype(float)
            x = np.where(missing, self.impute, x)
            x = np.hstack([x, flags])
        if self.scale is not None:
            x = (x - self.mean) / self.scale
        return expit((x @ self.coef.T + self.intercept).ravel())

    def to_data(self) -> dict[str, Any]:
        return {"coef": self.coef.ravel().tolist(), "intercept": float(self.intercept[0]),
                "impute": None if self.impute is None else self.impute.tolist(),
                "indicators": self.indicators.tolist(),
                "mean": None if self.mean is None else self.mean.tolist(),
                "scale": None if self.scale is None else self.scale.tolist()}


TREE_FIELDS = ("feature", "threshold", "missing_left", "left", "right", "value")


class TreesRanker:
    """Binary gradient-boosted trees: sigmoid(baseline + the leaf value of every tree).

    Each tree is a list of nodes; node i is a leaf when ``feature[i]`` is -1, else it sends a
    row left when its feature is <= ``threshold[i]`` (or, for NaN, when ``missing_left[i]``);
    a threshold of None is +infinity (a split of unknown values from known ones), which
    JSON cannot write.
    All trees walk together, one level per step; leaf values are added tree by tree in
    order, as scikit-learn adds them, so the sums round the same way."""

    kind = "trees"

    def __init__(self, baseline: float, trees: list[Mapping[str, list]]) -> None:
        self.baseline = float(baseline)
        self.trees = [{k: list(t[k]) for k in TREE_FIELDS} for t in trees]
        sizes = [len(t["feature"]) for t in self.trees]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        flat = {k: np.concatenate([np.asarray(t[k], dtype=float) for t in self.trees]) for k in TREE_FIELDS
                if k != "threshold"}
        flat["threshold"] = np.asarray([np.inf if v is None else v for t in self.trees for v in t["threshold"]])
        self.roots = offsets
        self.feature = flat["feature"].astype(np.intp)
        self.threshold = flat["threshold"].astype(float)
        self.missing_left = flat["missing_left"].astype(bool)
        shift = np.repeat(offsets, sizes)
        self.left = flat["left"].astype(np.intp) + shift
        self.right = flat["right"].astype(np.intp) + shift
        self.value = flat["value"].astype(float)
        self.leaf = self.feature < 0
        self.depth = max(_depth(t) for t in self.trees)

    def probability(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        node = np.repeat(self.roots[:, None], len(x), axis=1)
        rows = np.arange(len(x))[None, :]
        for _ in range(self.depth):
            leaf = self.leaf[node]
            v = x[rows, np.where(leaf, 0, self.feature[node])]
            left = np.where(np.isnan(v), self.missing_left[node], v <= self.threshold[node])
            node = np.where(leaf, node, np.where(left, self.left[node], self.right[node]))
        terms = np.vstack([np.full((1, len(x)), self.baseline), self.value[node]])
        return expit(np.cumsum(terms, axis=0)[-1])

    def to_data(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "trees": self.trees}


def _depth(tree: Mapping[str, list]) -> int:
    """Levels below the root; children always come after their parent (checked on load)."""
    depth = [0] * len(tree["feature"])
    for i, f in enumerate(tree["feature"]):
        if f >= 0:
            depth[tree["left"][i]] = depth[tree["right"][i]] = depth[i] + 1
    return max(depth)


# --- from fitted scikit-learn estimators --------------------------------------------------------------

def ranker_from_estimator(estimator: object) -> Ranker:
    """The numbers of a fitted logistic pipeline or HistGradientBoostingClassifier."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import Pipeline
    if isinstance(estimator, HistGradientBoostingClassifier):
        return _trees_from(estimator)
    if isinstance(estimator, Pipeline):
        return _logistic_from(estimator)
    raise RankerDataError(f"cannot store a {type(estimator).__name__} as plain data "
                          "(known: a logistic pipeline, HistGradientBoostingClassifier)")


def _logistic_from(pipeline: object) -> LogisticRanker:
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    steps = [step for _, step in pipeline.steps]  # type: ignore[attr-defined]
    model = steps.pop()
    imputer = steps.pop(0) if steps and isinstance(steps[0], SimpleImputer) else None
    scaler = steps.pop(0) if steps and isinstance(steps[0], StandardScaler) else None
    if steps or not isinstance(model, LogisticRegression) or model.coef_.shape[0] != 1:
        raise RankerDataError("a logistic ranker is [SimpleImputer] -> [StandardScaler] -> binary LogisticRegression")
    impute = indicators = None
    if imputer is not None:
        if np.isnan(imputer.statistics_).any() or imputer.strategy not in ("median", "mean"):
            raise RankerDataError("the imputer dropped a feature that was never known, or is not median/mean")
        impute = imputer.statistics_
        indicators = imputer.indicator_.features_ if imputer.add_indicator else np.array([], dtype=np.intp)
    mean = scale = None
    if scaler is not None:
        n = model.coef_.shape[1]
        mean = scaler.mean_ if scaler.with_mean else np.zeros(n)
        scale = scaler.scale_ if scaler.with_std else np.ones(n)
    return LogisticRanker(model.coef_, float(model.intercept_[0]), impute, indicators, mean, scale)


def _trees_from(estimator: object) -> TreesRanker:
    predictors = estimator._predictors  # type: ignore[attr-defined]
    if estimator.n_trees_per_iteration_ != 1 or estimator.is_categorical_ is not None:  # type: ignore[attr-defined]
        raise RankerDataError("only binary trees over numeric features can be stored as plain data")
    trees = []
    for (predictor,) in predictors:
        nodes = predictor.nodes
        leaf = nodes["is_leaf"].astype(bool)
        trees.append({
            "feature": np.where(leaf, -1, nodes["feature_idx"]).tolist(),
            "threshold": [None if v == np.inf else v for v in np.where(leaf, 0.0, nodes["num_threshold"]).tolist()],
            "missing_left": np.where(leaf, 0, nodes["missing_go_to_left"]).tolist(),
            "left": np.where(leaf, 0, nodes["left"]).tolist(),
            "right": np.where(leaf, 0, nodes["right"]).tolist(),
            "value": np.where(leaf, nodes["value"], 0.0).tolist(),
        })
    return TreesRanker(float(np.ravel(estimator._baseline_prediction)[0]), trees)  # type: ignore[attr-defined]


# --- from a file's numbers ----------------------------------------------------------------------------

def ranker_from_data(kind: str, data: Any, n_features: int) -> Ranker:
    """A ranker rebuilt from its stored numbers; ``RankerDataError`` names what is wrong."""
    if not isinstance(data, Mapping):
        raise RankerDataError("'ranker' must be a mapping of numbers")
    if kind == "logistic":
        return _logistic_data(data, n_features)
    if kind == "trees":
        return _trees_data(data, n_features)
    raise RankerDataError(f"unknown ranker kind {kind!r} (known: logistic, trees)")


def _field(data: Mapping[str, Any], name: str, where: str = "ranker") -> Any:
    if name not in data:
        raise RankerDataError(f"{where} has no field {name!r}")
    return data[name]


def _numbers(value: Any, name: str, length: int | None = None, integer: bool = False) -> np.ndarray:
    ok = isinstance(value, list) and all(isinstance(v, int if integer else (int, float)) and not isinstance(v, bool)
                                         for v in value)
    if not ok or (length is not None and len(value) != length):
        size = f" of {length}" if length is not None else ""
        raise RankerDataError(f"{name} must be a list{size} {'integers' if integer else 'numbers'}")
    array = np.asarray(value, dtype=np.intp if integer else float)
    if not integer and not np.isfinite(array).all():
        raise RankerDataError(f"{name} holds a number that is not finite")
    return array


def _logistic_data(data: Mapping[str, Any], n_features: int) -> LogisticRanker:
    impute, indicators = _field(data, "impute"), _field(data, "indicators")
    width = n_features
    if impute is not None:
        impute = _numbers(impute, "ranker.impute", n_features)
        indicators = _numbers(indicators, "ranker.indicators", integer=True)
        if ((indicators < 0) | (indicators >= n_features)).any():
            raise RankerDataError("ranker.indicators names a feature that does not exist")
        width += len(indicators)
    mean, scale = _field(data, "mean"), _field(data, "scale")
    if (mean is None) != (scale is None):
        raise RankerDataError("ranker.mean and ranker.scale come together or not at all")
    if mean is not None:
        mean, scale = _numbers(mean, "ranker.mean", width), _numbers(scale, "ranker.scale", width)
    coef = _numbers(_field(data, "coef"), "ranker.coef", width)
    intercept = _field(data, "intercept")
    if not isinstance(intercept, (int, float)) or isinstance(intercept, bool):
        raise RankerDataError("ranker.intercept must be a number")
    return LogisticRanker(coef, float(intercept), impute, indicators, mean, scale)


def _trees_data(data: Mapping[str, Any], n_features: int) -> TreesRanker:
    baseline, trees = _field(data, "baseline"), _field(data, "trees")
    if not isinstance(baseline, (int, float)) or isinstance(baseline, bool):
        raise RankerDataError("ranker.baseline must be a number")
    if not isinstance(trees, list) or not trees:
        raise RankerDataError("ranker.trees must be a non-empty list")
    for t, tree in enumerate(trees):
        where = f"ranker.trees[{t}]"
        if not isinstance(tree, Mapping):
            raise RankerDataError(f"{where} must be a mapping")
        feature = _field(tree, "feature", where)
        if not isinstance(feature, list) or not feature:
            raise RankerDataError(f"{where}.feature must be a non-empty list")
        n = len(feature)
        arrays = {k: _numbers(_field(tree, k, where), f"{where}.{k}", n, integer=k != "value")
                  for k in TREE_FIELDS if k != "threshold"}
        thresholds = _field(tree, "threshold", where)
        _numbers([0.0 if v is None else v for v in thresholds] if isinstance(thresholds, list) else thresholds,
                 f"{where}.threshold", n)
        split = arrays["feature"] >= 0
        index = np.arange(n)
        if (arrays["feature"] >= n_features).any():
            raise RankerDataError(f"{where} splits on a feature that does not exist")
        for side in ("left", "right"):
            child = arrays[side][split]
            if ((child <= index[split]) | (child >= n)).any():
                raise RankerDataError(f"{where}.{side} points outside the tree or back up it")
    return TreesRanker(float(baseline), trees)
