"""Fit of the evaluation's term values (``evaluation.params.TERMS``) on a million positions.

Recipe (seeded, reproducible; the data stays under ``runs/``, not in the repository):

1. **Positions and labels** (``positions``, ``tournaments.training.fit_positions``): Stockfish plays
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

Usage (the front door's ``concilio fit`` runs these steps)::

    concilio fit positions [--games 17000] [--out runs/fit/positions.txt]
    concilio fit terms [--positions runs/fit/positions.txt] [--apply]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np

import evaluation.params

from base.resources import data_file
from evaluation.evaluate import new_scratch
from evaluation.fitting import (LN10_400, PST_COLUMNS, mean_squared_error, pst_coefficients, term_coefficients,
                                white_scores)
from evaluation.params import DEFAULT_PARAMS, PARAM_NAMES, PAWN_VALUE
from evaluation.tables import PST
from players.core.moves import BLACK, EMPTY, OCC_WHITE, ST_SIDE, WHITE, empty_arrays
from tournaments.training.fit_positions import FitDataError, read_games

OPENINGS = data_file("openings/8moves_v3-1000.epd")
PARAMS_FILE = Path(evaluation.params.__file__).resolve()
DEFAULT_POSITIONS = Path("runs/fit/positions.txt")
TABLES_FILE = PARAMS_FILE.parent / "tables.py"
RIDGE = 1e-9  # per squared centipawn a table value moves: 20 cp on every square costs 3e-4 of error


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


@dataclass
class LinearModel:
    """White's score on every position of a set as a linear function of the term values,
    and of the piece-square values when ``tables`` is given: the evaluation is linear in
    both (up to the taper's integer division).  Measured once per set, it scores any values
    in a matrix product, so the fit and the errors before and after it share one
    measurement (a pass over a million positions takes over a minute)."""

    start: np.ndarray  # the term values the coefficients were measured at
    scores: np.ndarray  # White's score at ``start``
    coefficients: np.ndarray  # d score / d term value: positions x terms
    tables: np.ndarray | None = None  # the tables the square coefficients are read against
    squares: object = None  # scipy.sparse matrix, positions x PST_COLUMNS; None without tables

    @classmethod
    def measure(cls, data: FitSet, start: np.ndarray, tables: np.ndarray | None = None) -> LinearModel:
        scores, coefficients = term_coefficients(*data.arrays, start, *new_scratch())
        squares = None
        if tables is not None:
            from scipy.sparse import csr_matrix
            rows, columns, values = pst_coefficients(data.arrays[0])
            squares = csr_matrix((values, (rows, columns)), shape=(len(data), PST_COLUMNS))
        return cls(start, scores, coefficients, tables, squares)

    def white_scores(self, params: np.ndarray, tables: np.ndarray | None = None) -> np.ndarray:
        s = self.scores + self.coefficients @ (params - self.start).ravel()
        if tables is not None:
            s = s + self.squares @ (tables - self.tables).ravel().astype(np.float64)
        return s

    def error(self, targets: np.ndarray, params: np.ndarray, scale: float,
              tables: np.ndarray | None = None) -> float:
        """Mean squared error on win probability: how a table fit is scored before the
        tables are compiled into the engine."""
        s = self.white_scores(params, tables)
        return float(np.mean((1.0 / (1.0 + np.exp(-s * scale)) - targets) ** 2))


def fit(model: LinearModel, targets: np.ndarray, scale: float, ridge: float = RIDGE,
        log=print) -> tuple[np.ndarray, np.ndarray | None]:
    """The term values (and, where the model has tables, the piece-square tables) that
    minimise the error against ``targets`` at the logistic ``scale``, rounded to centipawns.

    A table value is held near where it starts by ``ridge`` per squared centipawn (a
    square a piece seldom stands on keeps its value), and a table's average moves into
    its piece's value afterwards: adding the same amount to every square of a table is
    the same as adding it to the piece's value, and an instance without **B** must
    still see the right material."""
    from scipy.optimize import minimize

    start, tables, coefficients, squares = model.start, model.tables, model.coefficients, model.squares
    x0 = start.astype(np.float64).ravel()
    rest = model.scores - coefficients @ x0
    k = len(x0)
    bounds = [(0.0, 0.0) if v == 0 else (0.0, None) if v > 0 else (None, 0.0) for v in x0]
    if tables is not None:
        t_start = tables.astype(np.float64).ravel()
        rest = rest - squares @ t_start
        x0 = np.concatenate([x0, t_start])
        bounds += [(None, None)] * PST_COLUMNS
    n = len(targets)

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        s = rest + coefficients @ x[:k]
        if squares is not None:
            s = s + squares @ x[k:]
        p = 1.0 / (1.0 + np.exp(-s * scale))
        residual = p - targets
        slope = (2.0 / n) * residual * p * (1.0 - p) * scale
        value = float(np.mean(residual ** 2))
        gradient = np.empty_like(x)
        gradient[:k] = slope @ coefficients
        if squares is not None:
            moved = x[k:] - x0[k:]
            value += ridge * float(moved @ moved)
            gradient[k:] = squares.T @ slope + 2.0 * ridge * moved
        return value, gradient

    log(f"{len(x0)} values on {n} positions; start error {objective(x0)[0]:.6f} (linear model)")
    result = minimize(objective, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 5000, "ftol": 1e-13, "gtol": 1e-10})
    log(f"L-BFGS-B: {result.nit} iterations, error {result.fun:.6f} (linear model, with the ridge), "
        f"{result.message}")
    params = result.x[:k].reshape(start.shape).copy()
    fitted_tables = None
    if tables is not None:
        fitted_tables = result.x[k:].reshape(tables.shape).copy()
        for phase in range(2):
            for t in range(6):
                on = slice(8, 56) if t == 0 else slice(0, 64)  # pawns never stand on ranks 1 and 8
                shift = float(np.mean(fitted_tables[phase, t, on] - tables[phase, t, on]))
                fitted_tables[phase, t, on] -= shift
                if t < 5:  # the king has no value: its average cancels between the sides
                    params[PAWN_VALUE + t, phase] += shift
            fitted_tables[phase, 0, :8] = tables[phase, 0, :8]
            fitted_tables[phase, 0, 56:] = tables[phase, 0, 56:]
        fitted_tables = np.round(fitted_tables).astype(np.int64)
    return np.round(params).astype(np.int64), fitted_tables


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


TABLE_NAMES = ("PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING")


def format_table(values: np.ndarray) -> str:
    """A table as ``tables.py`` writes it: rank 8 first, a1 stored first."""
    grid = np.asarray(values).reshape(8, 8)[::-1]
    return "\n".join(" ".join(f"{int(v):4d}" for v in row) for row in grid)


def apply_tables(tables: np.ndarray, path: Path = TABLES_FILE) -> int:
    """Write ``tables`` (phase, piece type, square) into ``evaluation/tables.py``; the
    number of values changed."""
    text = path.read_text()
    changed = 0
    for t, name in enumerate(TABLE_NAMES):
        for phase, suffix in ((0, "MG"), (1, "EG")):
            pattern = re.compile(rf'(_{name}_{suffix} = _table\(""")\n[-\d\s]+?(""")')
            text, found = pattern.subn(lambda m: f"{m.group(1)}\n{format_table(tables[phase, t])}{m.group(2)}", text)
            if found != 1:
                raise ValueError(f"{path}: no single table _{name}_{suffix}")
            changed += int((tables[phase, t] != PST[phase, t]).sum())
    path.write_text(text)
    return changed
