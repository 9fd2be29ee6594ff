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
``data/calibration/speed.json``; a file of one's own can replace it.  The file names the
engine (``base.fingerprint``), bench signature, commit and processor it was measured
with: speeds change with the search, the evaluation and the processor, so a table from other
code is reported once per process when first read (a warning: the budgets still work).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from base.errors import ConcilioError
from base.fingerprint import engine_fingerprint
from evaluation.spec import EvalSpec
from players.limits import Limit


log = logging.getLogger("concilio.speed")


class SpeedTableError(ConcilioError, ValueError):
    """A speed the table does not hold, or a table that cannot be read."""


@dataclass(frozen=True)
class SpeedTable:
    masks: dict[int, float]  # mask -> nodes per second relative to the full engine (one core each)
    teams: dict[str, float] = field(default_factory=dict)  # "abdada/2" -> team nps relative to one full core
    measured: str = ""  # how, where and when, for people
    engine: str | None = None  # base.fingerprint of the code measured; None in tables from before it was kept
    bench: int | None = None  # that code's bench signature (players.bench at its default depth)
    commit: str | None = None  # git describe of the checkout, None outside one
    processor: str | None = None  # the CPU's model name
    date: str | None = None  # ISO date and time of the measurement

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

    def speed(self, spec: EvalSpec | None = None, algorithm: str = "abdada", workers: int = 1,
              cores_share: float = 1.0) -> float:
        """Nodes per second relative to the full engine on one core, of a search with ``spec``'s
        evaluation (None: the team's own, measured as a whole) on ``workers`` threads of
        ``algorithm``, given ``cores_share`` of the cores it needs (at most all of them)."""
        return (1.0 if spec is None else self.instance(spec)) * self.team(algorithm, workers) * min(1.0, cores_share)

    def to_json(self) -> str:
        return json.dumps({"measured": self.measured, "engine": self.engine, "bench": self.bench,
                           "commit": self.commit, "processor": self.processor, "date": self.date,
                           "masks": {str(k): v for k, v in sorted(self.masks.items())}, "teams": self.teams}, indent=1)


def _optional(data: dict[str, Any], key: str, kind: Callable[[Any], Any]) -> Any:
    """A provenance field, absent from tables measured before it was kept."""
    value = data.get(key)
    return None if value is None else kind(value)


def _shipped() -> Path:
    from base.resources import data_file
    return data_file("calibration/speed.json")


def load_speed_table(path: str | Path | None = None) -> SpeedTable:
    """The shipped table (``data/calibration/speed.json``), or the file given."""
    path = _shipped() if path is None else path
    try:
        data = json.loads(Path(path).read_text())
        return SpeedTable({int(k): float(v) for k, v in data["masks"].items()},
                          {str(k): float(v) for k, v in data.get("teams", {}).items()}, str(data.get("measured", "")),
                          engine=_optional(data, "engine", str), bench=_optional(data, "bench", int),
                          commit=_optional(data, "commit", str), processor=_optional(data, "processor", str),
                          date=_optional(data, "date", str))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SpeedTableError(f"{path}: not a speed table ({exc})") from None


def other_engine(table: SpeedTable, source: str | Path) -> str | None:
    """Why ``table``'s speeds may not be this installation's, or None when it names this
    engine: a change to the search or the evaluation changes each mask's speed, and the
    budgets would then be equal time for the code measured, not for this one."""
    now = engine_fingerprint()
    if table.engine == now:
        return None
    measured = f"engine {table.engine}" if table.engine else "an unknown engine (the file names none)"
    return (f"{source}: speeds measured with {measured}, and this installation's search and evaluation are engine "
            f"{now} (base.fingerprint); equal-time budgets use them all the same. Rerun concilio speed-table "
            "to measure this engine.")


_DEFAULT: SpeedTable | None = None


def default_speed_table() -> SpeedTable:
    """The shipped table, read once per process: so its engine is checked, and a mismatch
    warned, once per process too."""
    global _DEFAULT
    if _DEFAULT is None:
        path = _shipped()
        table = load_speed_table(path)
        warning = other_engine(table, path)
        if warning:
            log.warning(warning)
        _DEFAULT = table
    return _DEFAULT


def equal_time(limit: Limit, spec: EvalSpec | None = None, *, algorithm: str = "abdada", workers: int = 1,
               cores_share: float = 1.0) -> Limit:
    """The one place where a time-equivalent node budget is made: a limit marked ``equal_time``
    (its nodes the full engine's on one core) becomes the nodes this search does in that time,
    ``nodes × speed`` (:meth:`SpeedTable.speed`, the shipped table).  Every player calls it with
    what it is: an instance its ``spec``; a decomposition team its ``algorithm`` and ``workers``;
    an ensemble each instance, with its threads and its share of the cores.  Any other limit is
    returned as it is (and the table is not read)."""
    if not limit.equal_time or limit.nodes is None:
        return limit
    speed = default_speed_table().speed(spec, algorithm, workers, cores_share)
    return replace(limit, nodes=max(1, round(limit.nodes * speed)), equal_time=False)
