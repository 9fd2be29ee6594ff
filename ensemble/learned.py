"""The learned selection criterion: a model that ranks an ensemble's candidate moves by
the probability that each is a best move, from the features of ``ensemble.features``.

Models are fitted with cross-validation grouped by game (positions of one game are alike,
so a game's positions never sit on both sides of a split, or the model would be scored on
what it nearly saw), the better of a regularised logistic regression and gradient-boosted
trees is kept, and it is saved as plain numbers (``ensemble.model_file``) together with
its feature list, how it was chosen and the library versions it was fitted with.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

from ensemble.features import FEATURES, candidate_features
from ensemble.learned_model import LearnedModel, feature_array
from ensemble.model_file import LearnedModelError, library_versions, load_model
from ensemble.rankers import ranker_from_estimator
from ensemble.ballot import SelectionInput

__all__ = ["LearnedModel", "LearnedModelError", "chosen_share", "fit_model", "grouped_folds", "learned",
           "top_per_group"]  # LearnedModel here too: format-1 pickles name it ensemble.learned.LearnedModel

T = TypeVar("T")
FOLDS = 5


def learned(inp: SelectionInput, model: str | LearnedModel | None = None,
            allow_pickle: bool = False) -> dict[str, float]:
    """Each candidate's probability of being a best move under the trained model."""
    if model is None:
        raise LearnedModelError("learned criterion: no model (give model: FILE, or train one in the suite run)")
    ranker = model if isinstance(model, LearnedModel) else load_model(model, allow_pickle)
    rows = candidate_features(inp)
    return dict(zip(rows, ranker.rank(list(rows.values()))))


# --- fitting ----------------------------------------------------------------------------------------

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


def grouped_folds(games: Sequence[Hashable], n: int = FOLDS) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) index arrays of ``n``-fold cross-validation in which every game's items
    (``games[k]``: the game of item k) fall on one side of every fold: positions of one
    game share pieces, plans and often the best move's pattern, so a fold that trained on
    a game's other positions would score the model on what it nearly saw."""
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
    from sklearn.base import clone
    from sklearn.inspection import permutation_importance

    raw = np.asarray(rows, dtype=float)
    empty = tuple(int(i) for i in np.flatnonzero(np.isnan(raw).all(axis=0))) if len(raw) else ()
    x = feature_array(raw, empty)
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
    final = ranker_from_estimator(clone(_estimators(seed)[kind]).fit(x, y))
    model = LearnedModel(final, kind, FEATURES, trained_on, positions, n_games, len(y), cv, importances, empty,
                         library_versions())
    return model, held_out[kind].tolist()
