"""Fitting a team's routing gate (``ensemble.routing``) on an auto-tune file's training split.

The examples are the tune split's positions where the team's two groups (full-knowledge
copies, reduced instances) disagree; the target is whether the reduced group's move earns more
points than the copies' (ties carry no lesson and are left out).  The regularisation is chosen
by cross-validation grouped by game, so no game sits on both sides of a fold; the held-out
games of the split (whole openings) then say what routing is worth against each group alone
and against the team's plain vote.  No suite is read."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from statistics import mean

import numpy as np

from ensemble.ballot import SelectionInput
from ensemble.config import EnsembleConfig
from ensemble.routing import FEATURES, RoutingGate, features, routed
from ensemble.selection import select
from tournaments.autotune.config import AutotuneConfig
from tournaments.autotune.run import position_value, train_splits
from tournaments.records.epd import Suite
from tournaments.suite.config import PlayerSpec
from tournaments.suite.metrics import StoreView
from tournaments.suite.store import SearchStore

C_GRID = (0.01, 0.1, 1.0, 10.0)


@dataclass(frozen=True)
class RoutingFit:
    gate: RoutingGate
    examples: int  # tune positions where the groups disagree and their moves earn different points
    cv_accuracy: float  # of the chosen regularisation, grouped by game
    base_rate: float  # share of examples where the reduced group's move is the better one
    held_out: dict[str, float]  # mean points on the held-out games: routed, full group, reduced group, team vote
    held_positions: int


def _examples(view: StoreView, team: PlayerSpec, positions, objective: str):
    kept, ballots, _ = view.decisions(team, Suite("", "", positions, []))
    rows, targets, games = [], [], []
    for p, b in zip(kept, ballots):
        found = features(SelectionInput(b, key=p.fen))
        if found is None:
            continue
        f_move, r_move, x = found
        f_value, r_value = position_value(p, f_move, objective), position_value(p, r_move, objective)
        if f_value != r_value:
            rows.append(x)
            targets.append(int(r_value > f_value))
            games.append(p.game)
    return kept, ballots, np.array(rows, float).reshape(-1, len(FEATURES)), np.array(targets), games


def fit_routing(config: AutotuneConfig, team: EnsembleConfig,
                warn=lambda line: print(line, file=sys.stderr)) -> RoutingFit:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_score
    tune, held = train_splits(config, warn)
    player = PlayerSpec(team.name, tuple(team.instances))
    with SearchStore(config.store) as store:
        view = StoreView(store, config.budget_key)
        _, _, x, y, games = _examples(view, player, tune, config.objective)
        if len(y) < 20 or y.min() == y.max():
            raise ValueError(f"{team.name}: {len(y)} tune positions where its groups disagree and differ in points: "
                             "too few to fit a gate")
        mu, sd = x.mean(axis=0), x.std(axis=0)
        sd[sd == 0] = 1.0
        z = (x - mu) / sd
        folds = GroupKFold(n_splits=min(5, len(set(games))))
        scored = [(cross_val_score(LogisticRegression(C=c), z, y, groups=games, cv=folds).mean(), c) for c in C_GRID]
        accuracy, c = max(scored)
        model = LogisticRegression(C=c).fit(z, y)
        gate = RoutingGate(tuple(mu), tuple(sd), tuple(float(w) for w in model.coef_[0]), float(model.intercept_[0]),
                           0.5, f"{config.source}: tune split of {config.train.path.name}, {len(y)} disagreements, "
                                f"C={c:g}, {config.budget_key}; team {team.name}")
        kept, ballots, *_ = _examples(view, player, held, config.objective)
    values: dict[str, list[float]] = {"routed": [], "full group": [], "reduced group": [], "team vote": []}
    for p, b in zip(kept, ballots):
        inp = SelectionInput(b, key=p.fen)
        found = features(inp)
        full_move = reduced_move = None
        if found is not None:
            full_move, reduced_move, _ = found
        plain = select("thread_vote", inp).move
        values["routed"].append(position_value(p, max(routed(inp, gate).items(), key=lambda kv: kv[1])[0],
                                               config.objective))
        values["full group"].append(position_value(p, full_move or plain, config.objective))
        values["reduced group"].append(position_value(p, reduced_move or plain, config.objective))
        values["team vote"].append(position_value(p, plain, config.objective))
    return RoutingFit(gate, len(y), float(accuracy), float(y.mean()),
                      {k: mean(v) if v else 0.0 for k, v in values.items()}, len(kept))
