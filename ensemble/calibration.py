"""Putting every instance's score on one scale, for votes over large teams.

Why: a reduced instance scores positions on its own scale (an instance without king safety
sees less danger; a reweighted copy counts a category twice), so "the highest score" and
Stockfish's vote (score − lowest + c) compare numbers that do not mean the same thing.  A
calibration maps each instance's centipawns to the full engine's centipawns on the same
positions (a least-squares line fitted on training positions, per instance), and from there
to an expected score by the Elo logistic ``1 / (1 + 10^(-cp / scale))``.  An instance the
model does not know keeps its own centipawns (the identity line): the model only helps.

The model is plain JSON numbers (``fit_calibration`` writes it from paired scores; the front
door's ``concilio fit calibration`` reads a suite store)::

    {"kind": "calibration", "scale": 400, "fitted_on": "...",
     "instances": {"MBXP|w=1,1,1,1,1,1,1": [slope, intercept, positions], ...}}
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ensemble.model_cache import cached_model
from evaluation.spec import EvalSpec

CLIP_CP = 1000  # positions where either side saw more than this are decided: they say nothing of the scale


def spec_key(spec: EvalSpec) -> str:
    """An instance's evaluation, as the calibration (and the suite store's keys) name it."""
    return f"{spec.letters}|w={','.join(f'{w:g}' for w in spec.weights)}"


@dataclass(frozen=True)
class Calibration:
    lines: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # spec key -> (slope, intercept)
    scale: float = 400.0  # centipawns of the full engine per factor 10 in the odds
    fitted_on: str = ""
    positions: Mapping[str, int] = field(default_factory=dict)

    def full_cp(self, spec: EvalSpec, cp: float) -> float:
        """The full engine's centipawns for this instance's ``cp``."""
        slope, intercept = self.lines.get(spec_key(spec), (1.0, 0.0))
        return slope * cp + intercept

    def expected(self, spec: EvalSpec, cp: float) -> float:
        """The expected score (0..1) this instance's ``cp`` stands for."""
        x = max(-40.0, min(40.0, self.full_cp(spec, cp) / self.scale))
        return 1.0 / (1.0 + 10.0 ** (-x))

    def to_json(self) -> str:
        return json.dumps({"kind": "calibration", "scale": self.scale, "fitted_on": self.fitted_on,
                           "instances": {k: [a, b, self.positions.get(k, 0)] for k, (a, b) in self.lines.items()}},
                          indent=1)


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration model; a file that is not one raises ``ValueError`` naming it."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a calibration model ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != "calibration" or not isinstance(data.get("instances"), dict):
        raise ValueError(f"{path}: not a calibration model (expected kind: calibration and instances)")
    lines, counts = {}, {}
    for key, value in data["instances"].items():
        if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, (int, float)) for v in value)):
            raise ValueError(f"{path}: instances.{key}: expected [slope, intercept, positions]")
        lines[key] = (float(value[0]), float(value[1]))
        counts[key] = int(value[2])
    scale = data.get("scale", 400.0)
    if not isinstance(scale, (int, float)) or scale <= 0:
        raise ValueError(f"{path}: scale must be a positive number")
    return Calibration(lines, float(scale), str(data.get("fitted_on", "")), counts)


def fit_line(own: Sequence[float], full: Sequence[float]) -> tuple[float, float, int]:
    """Least-squares ``full ≈ slope · own + intercept`` over the pairs neither side saw as decided;
    the identity where fewer than 20 pairs remain (or the instance's scores do not vary)."""
    x, y = np.asarray(own, float), np.asarray(full, float)
    keep = (np.abs(x) <= CLIP_CP) & (np.abs(y) <= CLIP_CP)
    x, y = x[keep], y[keep]
    if x.size < 20 or float(np.var(x)) == 0.0:
        return 1.0, 0.0, int(x.size)
    slope, intercept = np.polyfit(x, y, 1)
    if not (math.isfinite(slope) and math.isfinite(intercept)) or slope <= 0:
        return 1.0, 0.0, int(x.size)
    return float(slope), float(intercept), int(x.size)


def fit_calibration(pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]], fitted_on: str,
                    scale: float = 400.0) -> Calibration:
    """One line per instance from ``pairs[key] = (its scores, the full engine's scores)`` on the
    same positions, from the side to move's view."""
    lines, counts = {}, {}
    for key, (own, full) in pairs.items():
        slope, intercept, n = fit_line(own, full)
        lines[key] = (slope, intercept)
        counts[key] = n
    return Calibration(lines, scale, fitted_on, counts)



def cached_calibration(name: object) -> Calibration:
    """The model a criterion names (a path, or ``data:models/...``), read once per process."""
    return cached_model(name, "calibrated_vote", "concilio fit calibration", load_calibration)
