"""Fit of the evaluation's term values (``evaluation.params.TERMS``) on a million positions.

Recipe (seeded, reproducible; the data stays under ``runs/``, not in the repository):

1. **Positions and labels** (``positions``, ``tournaments.fit_positions``): Stockfish plays
   itself at depth 6 from the 8-move book with 5% random moves; the search that picks
   each move labels its position.  Quiet positions only (not in check, the move neither
   a capture nor a promotion, no mate in sight).  17,000 games give about a million.
2. **Fit** (``terms``): minimise the mean squared error between Stockfish's win probability
   ``sigmoid(cp · ln 10 / 400)`` and the same logistic of our full evaluation.  The
   evaluation is linear in the term values (``evaluation.fitting``), so each position's
   coefficients are measured once and L-BFGS-B moves all 66 values at once on the linear
   model; the result is rounded and scored with the real evaluation.  A value keeps the
   sign it starts with (a penalty stays a penalty, a bonus a bonus) and a value that starts
   at 0 stays 0: the fit sets sizes, the design sets meanings.  Every tenth game is held
   out, by game, since positions of one game are alike.

All categories keep one scale (centipawns, one zero point) because a single fit of the
whole evaluation sets every category against the same target.

Usage (``concilio fit`` runs this module)::

    concilio fit positions [--games 17000] [--out runs/fit/positions.txt]
    concilio fit terms [--positions runs/fit/positions.txt] [--apply]
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np

from concilio.resources import data_file
from evaluation.evaluate import new_scratch
from evaluation.fitting import LN10_400, mean_squared_error, term_coefficients, white_scores
from evaluation.params import DEFAULT_PARAMS, PARAM_NAMES
from players.core.moves import BLACK, EMPTY, OCC_WHITE, ST_SIDE, WHITE, empty_arrays
from .fit_positions import FitDataError, FitDataPlan, make_positions, read_games

OPENINGS = data_file("openings/8moves_v3-1000.epd")
PARAMS_FILE = Path(__file__).resolve().parent.parent / "evaluation" / "params.py"
DEFAULT_POSITIONS = Path("runs/fit/positions.txt")


@dataclass
class FitSet:
    """Positions in the evaluation's arrays, with their targets and games."""

    arrays: tuple  # (bbs, boards, sts, hist, keys): what the fitting kernels take
    targets: np.ndarray  # win probability of White, from the label
    games: np.ndarray

    def __len__(self) -> int:
        return len(self.targets)

    def subset(self, rows: np.ndarray) -> FitSet:
        bbs, boards, sts, hist, keys = self.arrays
        return FitSet((bbs[rows], boards[rows], sts[rows], hist, keys), self.targets[rows], self.games[rows])


def _epd(fen: str) -> str:
    return fen.rsplit(" ", 2)[0]


def load_fit_set(path: Path) -> FitSet:
    """Every finished game's positions, each distinct position once (the first time it
    appears: book lines repeat across games)."""
    if not path.is_file():
        raise FitDataError(f"{path}: no positions file (make one with 'concilio fit positions')")
    seen: set[str] = set()
    fens, cps, games = [], [], []
    for seed, _, positions in read_games(path):
        for fen, cp in positions:
            key = _epd(fen)
            if key in seen:
                continue
            seen.add(key)
            fens.append(fen)
            cps.append(cp)
            games.append(seed)
    n = len(fens)
    if n == 0:
        raise FitDataError(f"{path}: no finished game with a position in it")
    bbs = np.zeros((n, 14), np.uint64)
    boards = np.full((n, 64), EMPTY, np.int8)
    sts = np.zeros((n, 8), np.int64)
    colours = ((chess.WHITE, WHITE), (chess.BLACK, BLACK))
    for i, fen in enumerate(fens):
        board = chess.Board(fen)
        for colour, c in colours:
            for piece_type in chess.PIECE_TYPES:
                code = 6 * c + piece_type - 1
                mask = board.pieces_mask(piece_type, colour)
                bbs[i, code] = mask
                for sq in chess.scan_forward(mask):
                    boards[i, sq] = code
            bbs[i, OCC_WHITE + c] = board.occupied_co[colour]
        sts[i, ST_SIDE] = WHITE if board.turn == chess.WHITE else BLACK
    _, _, _, hist, keys = empty_arrays()
    targets = 1.0 / (1.0 + np.exp(-np.asarray(cps, np.float64) * LN10_400))
    return FitSet((bbs, boards, sts, hist, keys), targets, np.asarray(games, np.int64))


def error(data: FitSet, params: np.ndarray, scale: float) -> float:
    """Mean squared error of the real evaluation with ``params`` on ``data``."""
    return float(mean_squared_error(*data.arrays, params, data.targets, scale, *new_scratch()))


def fit_scale(data: FitSet, params: np.ndarray) -> float:
    """Texel's K: the logistic scale at which ``params`` fit the targets best.  Holding it
    fixed while the values move keeps the evaluation's overall size where the search's
    margins (futility, aspiration, delta pruning) were tuned; only the values' sizes
    relative to each other change."""
    from scipy.optimize import minimize_scalar

    scores = white_scores(*data.arrays, params, *new_scratch())

    def err(k: float) -> float:
        return float(np.mean((1.0 / (1.0 + np.exp(-k * scores)) - data.targets) ** 2))

    return float(minimize_scalar(err, bounds=(0.2 * LN10_400, 5 * LN10_400), method="bounded").x)


def fit(data: FitSet, start: np.ndarray, scale: float, log=print) -> np.ndarray:
    """The term values that minimise the error on ``data`` at the logistic ``scale``,
    rounded to centipawns."""
    from scipy.optimize import minimize

    t0 = time.time()
    scores, coefficients = term_coefficients(*data.arrays, start, *new_scratch())
    x0 = start.astype(np.float64).ravel()
    rest = scores - coefficients @ x0.astype(np.float32)
    log(f"coefficients of {coefficients.shape[1]} values on {len(data)} positions in {time.time() - t0:.0f} s")
    targets = data.targets

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-(rest + coefficients @ x.astype(np.float32)) * scale))
        residual = p - targets
        slope = (2.0 / len(targets)) * residual * p * (1.0 - p) * scale
        return float(np.mean(residual ** 2)), (slope.astype(np.float32) @ coefficients).astype(np.float64)

    bounds = [(0.0, 0.0) if v == 0 else (0.0, None) if v > 0 else (None, 0.0) for v in x0]
    log(f"start error {objective(x0)[0]:.6f} (linear model)")
    result = minimize(objective, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 2000, "ftol": 1e-12, "gtol": 1e-9})
    log(f"L-BFGS-B: {result.nit} iterations, error {result.fun:.6f} (linear model), {result.message}")
    return np.round(result.x).astype(np.int64).reshape(start.shape)


def apply_params(params: np.ndarray, path: Path = PARAMS_FILE) -> int:
    """Write ``params`` into the ``TERMS`` table of ``evaluation/params.py``, keeping its
    comments; the number of values changed."""
    text = path.read_text()
    changed = 0
    for name, (mg, eg), old in zip(PARAM_NAMES, params, DEFAULT_PARAMS):
        pattern = re.compile(rf'(\("{name}", "\w", )(-?\d+), (-?\d+)(\),)')
        text, found = pattern.subn(lambda m: f"{m.group(1)}{int(mg)}, {int(eg)}{m.group(4)}", text)
        if found != 1:
            raise ValueError(f"{path}: no single TERMS line for {name}")
        changed += int(mg != old[0]) + int(eg != old[1])
    path.write_text(text)
    return changed


def _cmd_positions(args: argparse.Namespace) -> int:
    t0 = time.time()
    plan = FitDataPlan(args.out, OPENINGS, args.games, seed=args.seed, depth=args.depth, workers=args.workers)
    count = make_positions(plan)
    print(f"{args.out}: {count} positions ({time.time() - t0:.0f} s)")
    return 0


def _cmd_terms(args: argparse.Namespace) -> int:
    t0 = time.time()
    data = load_fit_set(args.positions)
    held = data.games % args.holdout == 0
    train, test = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    print(f"{len(data)} distinct positions from {len(np.unique(data.games))} games: {len(train)} to fit, "
          f"{len(test)} held out (every {args.holdout}th game) - read in {time.time() - t0:.0f} s", flush=True)
    scale = fit_scale(train, DEFAULT_PARAMS)
    print(f"logistic scale fitted to the current values: {scale / LN10_400:.3f} x ln 10 / 400 "
          f"(one of our centipawns is worth {scale / LN10_400:.3f} of Stockfish's)", flush=True)
    params = fit(train, DEFAULT_PARAMS, scale)
    gap = np.abs(white_scores(*test.arrays, params, *new_scratch())
                 - (term_coefficients(*test.arrays, DEFAULT_PARAMS, *new_scratch())[1].astype(np.float64)
                    @ (params - DEFAULT_PARAMS).ravel()
                    + white_scores(*test.arrays, DEFAULT_PARAMS, *new_scratch())))
    print(f"linear model against the real evaluation at the fitted values: mean |gap| {gap.mean():.2f} cp, "
          f"max {gap.max():.0f} cp")
    print(f"training error: {error(train, DEFAULT_PARAMS, scale):.6f} -> {error(train, params, scale):.6f}")
    print(f"held-out error: {error(test, DEFAULT_PARAMS, scale):.6f} -> {error(test, params, scale):.6f}")
    for name, old, new in zip(PARAM_NAMES, DEFAULT_PARAMS, params):
        if (old != new).any():
            print(f"  {name:24s} {tuple(int(v) for v in old)} -> {tuple(int(v) for v in new)}")
    if args.apply:
        print(f"{apply_params(params)} values written to {PARAMS_FILE}")
    print(f"done in {time.time() - t0:.0f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concilio fit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("positions", help="play and label the fit's positions (resumes)")
    p.add_argument("--games", type=int, default=17_000)
    p.add_argument("--depth", type=int, default=6, help="Stockfish's depth per move and label")
    p.add_argument("--seed", type=int, default=20261123)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=DEFAULT_POSITIONS)
    p.set_defaults(run=_cmd_positions)
    p = sub.add_parser("terms", help="fit the term values on a positions file")
    p.add_argument("--positions", type=Path, default=DEFAULT_POSITIONS)
    p.add_argument("--holdout", type=int, default=10, help="hold out every Nth game")
    p.add_argument("--apply", action="store_true", help="write the fitted values into evaluation/params.py")
    p.set_defaults(run=_cmd_terms)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
