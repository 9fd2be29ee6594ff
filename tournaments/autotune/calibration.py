"""Fitting a team's calibration (``ensemble.calibration``) on an auto-tune file's training
positions: every pool instance's stored score against the full engine's on the same position,
on the tune split only, so that the held-out games and every suite stay unread."""
from __future__ import annotations

import sys

from ensemble.calibration import Calibration, fit_calibration, spec_key
from ensemble.config import InstanceConfig
from evaluation.spec import FULL_ENGINE
from tournaments.autotune.config import AutotuneConfig
from tournaments.autotune.run import train_splits
from tournaments.suite.config import FULL_LABEL, instance_key
from tournaments.suite.store import SearchStore


def fit_team_calibration(config: AutotuneConfig, warn=lambda line: print(line, file=sys.stderr)) -> Calibration:
    """One line per pool instance from the store's searches (``concilio autotune`` makes them)."""
    tune, _ = train_splits(config, warn)
    fens = [p.fen for p in tune]
    full = InstanceConfig.of(FULL_LABEL, FULL_ENGINE)
    with SearchStore(config.store) as store:
        reference = store.searches(instance_key(full), config.budget_key)
        pairs: dict[str, tuple[list[float], list[float]]] = {}
        for inst in config.pool:
            own = store.searches(instance_key(inst), config.budget_key)
            both = [f for f in fens if f in own and f in reference]
            if not both:
                warn(f"{inst.label}: no search shared with the full engine on the tune split; left out")
                continue
            pairs[spec_key(inst.spec)] = ([own[f].result.score_cp for f in both],
                                          [reference[f].result.score_cp for f in both])
    return fit_calibration(pairs, f"{config.source}: tune split ({len(fens)} positions of {config.train.path.name}), "
                                  f"{config.budget_key}")
