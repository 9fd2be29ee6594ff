"""A trained learned criterion: its plain-data ranker and what a reader needs to trust it
(what it was trained on, how it was chosen, with which library versions)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ensemble.features import FEATURES
from ensemble.rankers import Ranker

MODEL_FORMAT = 2  # 1: a joblib pickle of this class; 2: JSON numbers (ensemble.model_file)


@dataclass
class LearnedModel:
    ranker: Ranker
    kind: str  # "logistic" or "trees"
    features: tuple[str, ...] = FEATURES
    trained_on: str = ""  # which suites and players
    positions: int = 0
    games: int = 0  # the cross-validation's groups: no game sits on both sides of a fold
    rows: int = 0
    cv: dict[str, dict[str, float]] = field(default_factory=dict)  # kind -> {"val": ..., "val_sd": ...}
    importances: list[tuple[str, float]] = field(default_factory=list)  # permutation importance, largest first
    empty: tuple[int, ...] = ()  # features never known in training (no margin probe, say): read as 0
    versions: dict[str, str] = field(default_factory=dict)  # library -> version it was trained with
    format: int = MODEL_FORMAT

    def rank(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """Probability of being a best move, per row (numpy only: no scikit-learn, no OpenMP pool)."""
        return [float(p) for p in self.ranker.probability(feature_array(rows, self.empty))]


def feature_array(rows: Sequence[Sequence[float]], empty: Sequence[int]) -> np.ndarray:
    """Rows as a float array, features that were never known in training set to 0: the
    tree learner cannot bin a column of NaN only, and a constant teaches it nothing."""
    x = np.asarray(rows, dtype=float)
    if len(empty) and len(x):
        x[:, list(empty)] = 0.0
    return x
