"""``concilio fit``: fit the evaluation's term values (``positions`` plays and labels them,
``terms`` fits them) or a team's calibration or routing gate."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from concilio.commands.inputs import progress
from concilio.commands.parsing import command, steps

# Defaults the parser shows, kept here rather than imported: tournaments.training.fit loads
# the compiled engine.  tests/concilio/test_cli.py holds each equal to its owner's constant.
FIT_POSITIONS = Path("runs/fit/positions.txt")  # tournaments.training.fit.DEFAULT_POSITIONS
FIT_RIDGE = 1e-9  # tournaments.training.fit.RIDGE


def fit_doc() -> str:
    """The fit's recipe, from the module that holds it, as plain text for ``concilio fit -h``:
    reStructuredText's markup (``literal``, **bold**, ``::``) dropped."""
    from tournaments.training import fit
    text = (fit.__doc__ or "").replace("``", "").replace("**", "").replace("::", ":")
    return text.strip()


def add_parser(sub) -> None:
    p = command(sub, "fit", "fit the evaluation's term values ('positions' plays and labels them, "
                            "'terms' fits them) or a team's calibration", "concilio fit terms --tables --apply",
                description=fit_doc)
    step = steps(p)
    q = command(step, "positions", "play and label the fit's positions (resumes)",
                "concilio fit positions --games 21000")
    q.add_argument("--games", type=int, default=17_000, help="Stockfish self-play games")
    q.add_argument("--depth", type=int, default=6, help="Stockfish's depth per move and label")
    q.add_argument("--seed", type=int, default=20261123, help="seeds the openings and the random moves")
    q.add_argument("--workers", type=int, default=2, help="Dask workers")
    q.add_argument("--out", type=Path, default=FIT_POSITIONS, help="the positions file (appended to)")
    q = command(step, "terms", "fit the term values on a positions file", "concilio fit terms --tables --apply")
    q.add_argument("--positions", type=Path, default=FIT_POSITIONS, help="what fit positions wrote")
    q.add_argument("--holdout", type=int, default=10, help="hold out every Nth game")
    q.add_argument("--tables", action="store_true", help="fit the piece-square tables too")
    q.add_argument("--ridge", type=float, default=FIT_RIDGE, help="cost of a table value's squared move (per cp²)")
    q.add_argument("--apply", action="store_true",
                   help="write the fitted values into evaluation/params.py (and tables.py)")
    q = command(step, "calibration", "put a team's scores on one scale: each pool instance's centipawns "
                "against the full engine's, on an auto-tune file's tune split (for calibrated_vote)",
                "concilio fit calibration scaling-h --out data/models/calibration-20k.json")
    q.add_argument("config", help="auto-tune file, or a name in configs/tuning (its pool, store and tune split)")
    q.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    q = command(step, "routing", "fit a team's routing gate (reduced instances or full-knowledge copies "
                "decide) on an auto-tune file's tune split, for the routed criterion",
                "concilio fit routing scaling-d-4 --tuning scaling-d --out runs/routing-d4.json")
    q.add_argument("team", help="the ensemble file (or name) whose gate this is")
    q.add_argument("--tuning", required=True, help="auto-tune file: its training set, split, store and budget")
    q.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return {"positions": positions, "terms": terms, "calibration": calibration, "routing": routing}[args.step](args)


def positions(args: argparse.Namespace) -> int:
    """Play and label the fit's positions (resumes)."""
    from tournaments.training.fit import OPENINGS
    from tournaments.training.fit_positions import FitDataPlan, make_positions
    t0 = time.time()
    plan = FitDataPlan(args.out, OPENINGS, args.games, seed=args.seed, depth=args.depth, workers=args.workers)
    count = make_positions(plan, progress=progress(args))
    print(f"{args.out}: {count} positions ({time.time() - t0:.0f} s)")
    return 0


def calibration(args: argparse.Namespace) -> int:
    """Fit each pool instance's line onto the full engine's scale and write the model."""
    from tournaments.autotune.calibration import fit_team_calibration
    from tournaments.autotune.config import load_autotune
    model = fit_team_calibration(load_autotune(args.config))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(model.to_json() + "\n")
    for key, (slope, intercept) in sorted(model.lines.items()):
        print(f"{key:40s} full cp = {slope:6.3f} x own {intercept:+7.1f}  ({model.positions.get(key, 0)} positions)")
    print(f"{len(model.lines)} instances; {model.fitted_on}; written {args.out}")
    return 0


def routing(args: argparse.Namespace) -> int:
    """Fit a team's routing gate and say what it is worth on the held-out games."""
    from ensemble.config import load_ensemble
    from tournaments.autotune.config import load_autotune
    from tournaments.autotune.routing import fit_routing
    fit = fit_routing(load_autotune(args.tuning), load_ensemble(args.team))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(fit.gate.to_json() + "\n")
    print(f"{fit.examples} disagreements on the tune split (reduced group better in {100 * fit.base_rate:.0f}%); "
          f"cross-validated accuracy {100 * fit.cv_accuracy:.1f}% (grouped by game)")
    print(f"held-out games, {fit.held_positions} positions, mean points: "
          + ", ".join(f"{k} {v:.4f}" for k, v in fit.held_out.items()))
    print(f"written {args.out}")
    return 0


def terms(args: argparse.Namespace) -> int:
    """Fit the term values (and with --tables the piece-square tables) on a positions file."""
    import numpy as np

    from evaluation.evaluate import new_scratch
    from evaluation.fitting import LN10_400, white_scores
    from evaluation.params import DEFAULT_PARAMS, PARAM_NAMES
    from evaluation.tables import PST
    from tournaments.training.fit import (PARAMS_FILE, TABLES_FILE, LinearModel, apply_params, apply_tables, error,
                                          fit, fit_scale, load_fit_set)
    t0 = time.time()
    data = load_fit_set(args.positions)
    held = data.games % args.holdout == 0
    train, test = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    print(f"{len(data)} distinct positions from {len(np.unique(data.games))} games: {len(train)} to fit, "
          f"{len(test)} held out (every {args.holdout}th game) - read in {time.time() - t0:.0f} s", flush=True)
    scale = fit_scale(train, DEFAULT_PARAMS)
    print(f"logistic scale fitted to the current values: {scale / LN10_400:.3f} x ln 10 / 400 "
          f"(one of our centipawns is worth {scale / LN10_400:.3f} of Stockfish's)", flush=True)
    tables0 = PST if args.tables else None
    t1 = time.time()
    model = LinearModel.measure(train, DEFAULT_PARAMS, tables0)
    held_model = LinearModel.measure(test, DEFAULT_PARAMS, tables0)
    print(f"coefficients measured in {time.time() - t1:.0f} s", flush=True)
    params, tables = fit(model, train.targets, scale, ridge=args.ridge)
    if tables is None:
        gap = np.abs(white_scores(*test.arrays, params, *new_scratch()) - held_model.white_scores(params))
        print(f"linear model against the real evaluation at the fitted values: mean |gap| {gap.mean():.2f} cp, "
              f"max {gap.max():.0f} cp")
        print(f"training error: {error(train, DEFAULT_PARAMS, scale):.6f} -> {error(train, params, scale):.6f}")
        print(f"held-out error: {error(test, DEFAULT_PARAMS, scale):.6f} -> {error(test, params, scale):.6f}")
    else:  # new tables are compiled into the engine only once written: score by the linear model
        for name, part, part_model in (("training", train, model), ("held-out", test, held_model)):
            print(f"{name} error (linear model): {error(part, DEFAULT_PARAMS, scale):.6f} -> "
                  f"{part_model.error(part.targets, params, scale, tables):.6f}")
    for name, old, new in zip(PARAM_NAMES, DEFAULT_PARAMS, params):
        if (old != new).any():
            print(f"  {name:24s} {tuple(int(v) for v in old)} -> {tuple(int(v) for v in new)}")
    if tables is not None:
        moved = np.abs(tables - tables0)
        print(f"piece-square values: mean |change| {moved.mean():.1f} cp, largest {moved.max()} cp")
    if args.apply:
        print(f"{apply_params(params)} values written to {PARAMS_FILE}")
        if tables is not None:
            print(f"{apply_tables(tables)} piece-square values written to {TABLES_FILE}")
    print(f"done in {time.time() - t0:.0f} s")
    return 0
