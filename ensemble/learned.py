"""The learned selection criterion: a model that ranks an ensemble's candidate moves by
the probability that each is a best move, from the features of ``ensemble.features``.

Models are fitted with cross-validation grouped by game (positions of one game are alike,
so a game's positions never sit on both sides of a split, or the model would be scored on
what it nearly saw), the better of a regularised logistic regression and gradient-boosted
trees is kept, and it is saved with joblib together with its feature list and how it was
chosen.  A model
file is a pickle: load only files you made or trust.
"""
from __future__ import annotations

import functools
import math
import threading
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from concilio.errors import ConcilioError

from .features import FEATURES, candidate_features
from .selection import SelectionInput

MODEL_FORMAT = 1
T = TypeVar("T")
FOLDS = 5


class LearnedModelError(ConcilioError, ValueError):
    """A model file that cannot be used (missing, not a Concilio model, other features)."""


@dataclass
class LearnedModel:
    """A fitted ranker and what a reader needs to trust it."""

    estimator: object
    kind: str  # "logistic" or "trees"
    features: tuple[str, ...] = FEATURES
    trained_on: str = ""  # which suites and players
    positions: int = 0
    games: int = 0  # the cross-validation's groups: no game sits on both sides of a fold
    rows: int = 0
    cv: dict[str, dict[str, float]] = field(default_factory=dict)  # kind -> {"val": ..., "val_sd": ...}
    importances: list[tuple[str, float]] = field(default_factory=list)  # permutation importance, largest first
    empty: tuple[int, ...] = ()  # features never known in training (no margin probe, say): read as 0
    format: int = MODEL_FORMAT

    def rank(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """Probability of being a best move, per row.

        On one OpenMP thread: a decision ranks a handful of candidates, and every core already
        runs a search worker, so scikit-learn's parallel tree prediction only adds the pool's
        hand-offs (25.7 ms per call against 2.6 ms on a loaded 2-core machine)."""
        with _one_openmp_thread():
            return [float(p) for p in self.estimator.predict_proba(_matrix(rows, self.empty))[:, 1]]

    def save(self, path: str | Path) -> Path:
        import joblib
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        joblib.dump(self, path, compress=3)
        return path


_LOADED: dict[str, LearnedModel] = {}
_LOCK = threading.Lock()
_THREADS_LOCK = threading.Lock()  # the OpenMP thread count is process-wide: one limit at a time


@functools.cache
def _controller():
    """One threadpoolctl controller per process: making one scans the loaded libraries (9 ms)."""
    from threadpoolctl import ThreadpoolController
    return ThreadpoolController()


@contextmanager
def _one_openmp_thread() -> Iterator[None]:
    with _THREADS_LOCK, _controller().limit(limits=1, user_api="openmp"):
        yield


def load_model(path: str | Path) -> LearnedModel:
    """A saved model, once per process (the criterion runs on every move)."""
    key = str(Path(path).resolve())
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
    import joblib
    try:
        model = joblib.load(key)
    except FileNotFoundError:
        raise LearnedModelError(f"learned criterion: no model file {path}") from None
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means the same to the user
        raise LearnedModelError(f"learned criterion: {path} is not a readable model ({exc})") from None
    if not isinstance(model, LearnedModel) or model.format != MODEL_FORMAT:
        raise LearnedModelError(f"learned criterion: {path} is not a Concilio model of format {MODEL_FORMAT}")
    if tuple(model.features) != FEATURES:
        raise LearnedModelError(f"learned criterion: {path} was trained on other features; retrain it")
    with _LOCK:
        _LOADED[key] = model
    return model


def learned(inp: SelectionInput, model: str | LearnedModel | None = None) -> dict[str, float]:
    """Each candidate's probability of being a best move under the trained model."""
    if model is None:
        raise LearnedModelError("learned criterion: no model (give model: FILE, or train one in the suite run)")
    ranker = model if isinstance(model, LearnedModel) else load_model(model)
    rows = candidate_features(inp)
    return dict(zip(rows, ranker.rank(list(rows.values()))))


# --- fitting ----------------------------------------------------------------------------------------

def _matrix(rows: Sequence[Sequence[float]], empty: Sequence[int]):
    """Rows as a float array, features that were never known in training set to 0: the
    tree learner cannot bin a column of NaN only, and a constant teaches it nothing."""
    import numpy as np
    x = np.asarray(rows, dtype=float)
    if len(empty) and len(x):
        x[:, list(empty)] = 0.0
    return x


def _estimators(seed: int) -> dict[str, object]:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return {
        "logistic": make_pipeline(SimpleImputer(strategy="median", add_indicator=True), StandardScaler(),
                                  LogisticRegression(C=0.1, max_iter=2000)),
        "trees": HistGradientBoostingClassifier(learning_rate=0.05, max_iter=300, max_leaf_nodes=15,
                                                min_samples_leaf=40, l2_regularization=1.0, random_state=seed),
    }


def top_per_group(scores: Sequence[float], groups: Sequence[int], items: Sequence[T]) -> dict[int, T]:
    """Each group's item with the highest score (the first on a tie): what a ranking plays."""
    best: dict[int, tuple[float, T]] = {}
    for score, group, item in zip(scores, groups, items):
        if group not in best or score > best[group][0]:
            best[group] = (score, item)
    return {group: item for group, (_, item) in best.items()}


def chosen_share(probabilities: Sequence[float], groups: Sequence[int], solved: Sequence[bool]) -> float:
    """Val of a ranking: the share of groups (decisions) whose top-ranked candidate solves."""
    top = top_per_group(probabilities, groups, solved)
    return sum(top.values()) / len(top) if top else math.nan


def grouped_folds(games: Sequence[Hashable], n: int = FOLDS) -> list:
    """(train, test) index arrays of ``n``-fold cross-validation in which every game's items
    (``games[k]``: the game of item k) fall on one side of every fold: positions of one
    game share pieces, plans and often the best move's pattern, so a fold that trained on
    a game's other positions would score the model on what it nearly saw."""
    import numpy as np
    from sklearn.model_selection import GroupKFold
    labels = np.asarray([str(g) for g in games])
    return list(GroupKFold(n_splits=n).split(np.zeros(len(labels)), groups=labels))


def fit_model(rows: Sequence[Sequence[float]], groups: Sequence[int], solved: Sequence[bool],
              games: Sequence[Hashable], *, positions: int = 0, trained_on: str = "",
              seed: int = 0) -> tuple[LearnedModel, list[float]]:
    """Choose between the estimators by Val under cross-validation grouped by game
    (``games[k]``: the game of row k's position; ``groups[k]``: its decision, one position
    and one ensemble), refit the chosen one on everything, and measure which features
    it relies on (permutation importance on a held-out fold).  ``positions``: how many
    positions the rows come from, for the record.

    Also returns every row's held-out rank: the chosen estimator's probability from the
    fold that did not see the row's game, the honest score on the training data."""
    import numpy as np
    from sklearn.base import clone
    from sklearn.inspection import permutation_importance

    raw = np.asarray(rows, dtype=float)
    empty = tuple(int(i) for i in np.flatnonzero(np.isnan(raw).all(axis=0))) if len(raw) else ()
    x = _matrix(raw, empty)
    y = np.asarray(solved, dtype=int)
    g = np.asarray(groups)
    n_games = len({str(game) for game in games})
    if n_games < FOLDS or y.min() == y.max():
        raise LearnedModelError(f"learned criterion: too little to learn from ({n_games} games, "
                                f"{int(y.sum())} of {len(y)} candidates solve)")
    folds = grouped_folds(games)
    cv: dict[str, dict[str, float]] = {}
    held_out: dict[str, np.ndarray] = {}
    for kind, estimator in _estimators(seed).items():
        vals = []
        held_out[kind] = np.zeros(len(y))
        for train, test in folds:
            fitted = clone(estimator).fit(x[train], y[train])
            held_out[kind][test] = fitted.predict_proba(x[test])[:, 1]
            vals.append(chosen_share(held_out[kind][test], g[test], y[test]))
        cv[kind] = {"val": float(np.mean(vals)), "val_sd": float(np.std(vals))}
    kind = max(cv, key=lambda k: cv[k]["val"])
    train, test = folds[0]
    probe = clone(_estimators(seed)[kind]).fit(x[train], y[train])
    imp = permutation_importance(probe, x[test], y[test], scoring="roc_auc", n_repeats=5, random_state=seed)
    importances = sorted(zip(FEATURES, (float(v) for v in imp.importances_mean)), key=lambda fv: -fv[1])
    final = clone(_estimators(seed)[kind]).fit(x, y)
    model = LearnedModel(final, kind, FEATURES, trained_on, positions, n_games, len(y), cv, importances, empty)
    return model, held_out[kind].tolist()

