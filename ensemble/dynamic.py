"""The dynamic criterion: a weighted vote whose instance weights depend on the position.

Each category c has a log-weight that is linear in a few facts about the root position
(``CONTEXT``: game phase, king danger, how closed the pawns are, material imbalance);
an instance's weight is exp of the mean log-weight of its categories, and a candidate is
worth the sum of its voters' weights.  So "trust K-knowing instances more when a king is
in danger" is one number the fit can find, where the thesis's weighted majority has
one constant weight per category for every position.

The weights are fitted on a training set by maximum likelihood of a proportional choice
(a candidate is chosen with probability value / total value; the likelihood is that of
choosing a best move), with an L2 penalty, and saved as JSON: a plain, safe file.
"""
from __future__ import annotations

import json
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

import chess

from base.errors import ConcilioError
from evaluation.spec import CATEGORIES

from ensemble.features import game_phase
from ensemble.learned import grouped_folds, top_per_group
from ensemble.ballot import SelectionInput

CONTEXT = ("bias", "phase", "king_danger", "closed", "imbalance")
FORMAT = 1


class DynamicModelError(ConcilioError, ValueError):
    """A dynamic-weights file that cannot be used."""


def position_context(board: chess.Board) -> list[float]:
    """The facts the weights depend on, each roughly in [0, 1]: 1 (bias); phase (1 with
    all pieces, 0 with kings and pawns); king danger (enemy pieces attacking the squares
    around the more exposed king, /8); closed (share of pawns blocked by a pawn in front);
    imbalance (material difference in pawns, /9, capped at 1)."""
    phase = game_phase(board)
    danger = 0
    for colour in chess.COLORS:
        king = board.king(colour)
        if king is None:
            continue
        ring = chess.SquareSet(chess.BB_KING_ATTACKS[king]) | chess.SquareSet.from_square(king)
        danger = max(danger, sum(len(board.attackers(not colour, sq)) for sq in ring))
    pawns = board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK)
    blocked = 0
    for sq in pawns:
        ahead = sq + (8 if board.color_at(sq) == chess.WHITE else -8)
        if 0 <= ahead < 64 and board.piece_type_at(ahead) == chess.PAWN:
            blocked += 1
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    material = sum(v * (len(board.pieces(p, chess.WHITE)) - len(board.pieces(p, chess.BLACK)))
                   for p, v in values.items())
    return [1.0, phase, min(danger, 8) / 8, blocked / len(pawns) if pawns else 0.0, min(abs(material), 9) / 9]


@dataclass
class DynamicWeights:
    """theta[c][k]: category c's log-weight per unit of context fact k."""

    theta: list[list[float]]
    trained_on: str = ""
    cv_val: float = math.nan
    format: int = FORMAT

    def instance_weight(self, categories: Sequence[str], context: Sequence[float]) -> float:
        logs = [sum(t * x for t, x in zip(self.theta[CATEGORIES.index(c)], context)) for c in categories]
        return math.exp(sum(logs) / len(logs))

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"format": self.format, "context": CONTEXT, "categories": CATEGORIES,
                                    "theta": self.theta, "trained_on": self.trained_on, "cv_val": self.cv_val},
                                   indent=1))
        return path

    def describe(self) -> list[tuple[str, list[float]]]:
        return [(c, [round(t, 3) for t in row]) for c, row in zip(CATEGORIES, self.theta)]


def load_weights(path: str | Path) -> DynamicWeights:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise DynamicModelError(f"dynamic criterion: no weights file {path}") from None
    except (OSError, ValueError) as exc:
        raise DynamicModelError(f"dynamic criterion: {path} is not readable JSON ({exc})") from None
    theta = data.get("theta") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("format") != FORMAT or tuple(data.get("context", ())) != CONTEXT
            or not isinstance(theta, list) or len(theta) != 7
            or not all(isinstance(r, list) and len(r) == len(CONTEXT) for r in theta)):
        raise DynamicModelError(f"dynamic criterion: {path} is not a dynamic-weights file of format {FORMAT} "
                                f"over {', '.join(CONTEXT)}")
    return DynamicWeights([[float(t) for t in row] for row in theta], str(data.get("trained_on", "")),
                          float(data.get("cv_val", math.nan)))


_LOADED: dict[str, DynamicWeights] = {}


def dynamic(inp: SelectionInput, model: str | DynamicWeights | None = None) -> dict[str, float]:
    """Σ over a candidate's voters of their position-dependent weights."""
    if model is None:
        raise DynamicModelError("dynamic criterion: no weights (give model: FILE.json, or train them in a suite run)")
    if isinstance(model, DynamicWeights):
        weights = model
    else:
        weights = _LOADED.get(str(model)) or _LOADED.setdefault(str(model), load_weights(model))
    context = position_context(chess.Board(inp.key))
    values: dict[str, float] = {}
    for b in inp.ballots:
        used = [c for c in CATEGORIES if b.spec.uses(c)]
        values[b.move] = values.get(b.move, 0.0) + weights.instance_weight(used, context)
    return values


# --- fitting ----------------------------------------------------------------------------------------

def fit_weights(inputs: Sequence[SelectionInput], solved: Sequence[set[str]], games: Sequence[Hashable], *,
                penalty: float = 1.0, trained_on: str = "") -> tuple[DynamicWeights, list[str]]:
    """Fit theta on the decisions (``solved[d]``: decision d's best moves among its
    candidates; ``games[d]``: the game of its position); decisions where every or no
    candidate solves carry no information and are left out.  Returns the weights fitted
    on everything, and each decision's move chosen by weights fitted on the folds that did
    not see its game (5-fold, grouped by game as the learned criterion is)."""
    import numpy as np
    from scipy.optimize import minimize

    masks, contexts, ballot_dec, ballot_cand, cand_dec, cand_solved, cand_moves = [], [], [], [], [], [], []
    for d, (inp, best) in enumerate(zip(inputs, solved)):
        contexts.append(position_context(chess.Board(inp.key)))
        index: dict[str, int] = {}
        for b in inp.ballots:
            if b.move not in index:
                index[b.move] = len(cand_dec)
                cand_dec.append(d)
                cand_solved.append(b.move in best)
                cand_moves.append(b.move)
            used = [float(b.spec.uses(c)) for c in CATEGORIES]
            masks.append([u / sum(used) for u in used])
            ballot_dec.append(d)
            ballot_cand.append(index[b.move])
    m, f = np.asarray(masks), np.asarray(contexts)
    bd, bc, cd = np.asarray(ballot_dec), np.asarray(ballot_cand), np.asarray(cand_dec)
    cs = np.asarray(cand_solved, dtype=float)
    n_dec = len(inputs)
    informative = np.zeros(n_dec, bool)
    some = np.bincount(cd, weights=cs, minlength=n_dec)
    count = np.bincount(cd, minlength=n_dec)
    informative[(some > 0) & (some < count)] = True

    def values(theta: np.ndarray) -> np.ndarray:
        logw = np.einsum("bc,ck,bk->b", m, theta.reshape(7, len(CONTEXT)), f[bd])
        return np.bincount(bc, weights=np.exp(np.clip(logw, -30, 30)), minlength=len(cd))

    def loss(theta: np.ndarray, decisions: np.ndarray) -> float:
        v = values(theta)
        total = np.bincount(cd, weights=v, minlength=n_dec)
        good = np.bincount(cd, weights=v * cs, minlength=n_dec)
        use = decisions & informative
        return float(-np.log(good[use] / total[use] + 1e-12).sum() / max(1, use.sum())
                     + penalty * (theta ** 2).sum() / max(1, use.sum()))

    def fit(decisions: np.ndarray) -> np.ndarray:
        return minimize(loss, np.zeros(7 * len(CONTEXT)), args=(decisions,), method="L-BFGS-B").x

    def choose(theta: np.ndarray) -> list[str]:
        top = top_per_group(values(theta).tolist(), cand_dec, cand_moves)
        return [top[d] for d in range(n_dec)]

    chosen: list[str] = [""] * n_dec
    for train, test in grouped_folds(games):
        mask = np.zeros(n_dec, bool)
        mask[train] = True
        fold_moves = choose(fit(mask))
        for d in test:
            chosen[d] = fold_moves[d]
    cv_val = sum(move in best for move, best in zip(chosen, solved)) / n_dec
    theta = fit(np.ones(n_dec, bool))
    return DynamicWeights(theta.reshape(7, len(CONTEXT)).tolist(), trained_on, cv_val), chosen
