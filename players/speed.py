"""Time-equivalent node budgets: how many nodes each kind of player searches in the time
the full engine searches N on one core.

Why: comparing ways of using several cores at *equal time* on a shared, noisy machine
makes every game depend on the machine's load.  Node budgets are exact and repeatable;
scaled by measured speeds they stand for equal time.  ``N`` is the full engine's nodes
on one core in the move's time; then

* an instance gets ``N × speed(mask)`` (a reduced evaluation is cheaper, so it searches
  more nodes in the same time);
* an ensemble's instance gets ``N × speed(mask) × min(1, cores / n)`` (n instances on
  ``cores`` workers share them);
* a parallel search on w workers gets ``N × team(algorithm, w)`` for the whole team
  (w cores less what sharing a table costs).

The table is measured by ``concilio speed-table`` (interleaved rounds against the full
engine in the same process, so machine load cancels in the ratios) and shipped as
``data/calibration/speed.json``; a file of one's own can replace it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from concilio.errors import ConcilioError
from evaluation.spec import EvalSpec


class SpeedTableError(ConcilioError, ValueError):
    """A speed the table does not hold, or a table that cannot be read."""


@dataclass(frozen=True)
class SpeedTable:
    masks: dict[int, float]  # mask -> nodes per second relative to the full engine (one core each)
    teams: dict[str, float] = field(default_factory=dict)  # "abdada/2" -> team nps relative to one full core
    measured: str = ""  # how, where and when

    def instance(self, spec: EvalSpec) -> float:
        try:
            return self.masks[spec.mask]
        except KeyError:
            raise SpeedTableError(f"no measured speed for mask {spec.letters} ({spec.mask}); "
                                  "run concilio speed-table") from None

    def team(self, algorithm: str, workers: int) -> float:
        if workers == 1:
            return 1.0
        key = f"{algorithm}/{workers}"
        if key not in self.teams:
            raise SpeedTableError(f"no measured team speed for {key} (have: {', '.join(self.teams) or 'none'}); "
                                  "run concilio speed-table")
        return self.teams[key]

    def instance_nodes(self, spec: EvalSpec, nodes: int, cores_share: float = 1.0) -> int:
        return max(1, round(nodes * self.instance(spec) * min(1.0, cores_share)))

    def team_nodes(self, algorithm: str, workers: int, nodes: int) -> int:
        return max(1, round(nodes * self.team(algorithm, workers)))

    def to_json(self) -> str:
        return json.dumps({"measured": self.measured, "masks": {str(k): v for k, v in sorted(self.masks.items())},
                           "teams": self.teams}, indent=1)


def load_speed_table(path: str | Path | None = None) -> SpeedTable:
    """The shipped table (``data/calibration/speed.json``), or the file given."""
    if path is None:
        from concilio.resources import data_file
        path = data_file("calibration/speed.json")
    try:
        data = json.loads(Path(path).read_text())
        return SpeedTable({int(k): float(v) for k, v in data["masks"].items()},
                          {str(k): float(v) for k, v in data.get("teams", {}).items()}, str(data.get("measured", "")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SpeedTableError(f"{path}: not a speed table ({exc})") from None


_DEFAULT: SpeedTable | None = None


def default_speed_table() -> SpeedTable:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_speed_table()
    return _DEFAULT
