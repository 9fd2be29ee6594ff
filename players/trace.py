"""The evaluation category by category.

:func:`trace`, like Stockfish's ``eval`` command: every category's White term, Black term
and weighted net, the game phase, and the total the search would see.

:func:`position_terms`, the static evaluation of a python-chess board: the seven unweighted
category nets once (``PositionTerms``), from which any instance's value follows by its
mask and weights, as the jitted evaluation combines them, and a finished game's result
instead of an evaluation.  Game adjudication, the score-based selection criteria and the
suite store value positions this way.
"""
from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np

from players.core.moves import ST_SIDE, WHITE
from players.position import Position
from players.result import MATE_CP
from evaluation.evaluate import evaluate, game_phase, new_scratch
from evaluation.params import DEFAULT_PARAMS
from evaluation.spec import CATEGORIES, CATEGORY_NAMES, FULL_ENGINE, EvalSpec
from evaluation.tables import PHASE_MAX


@dataclass(frozen=True)
class CategoryTrace:
    letter: str
    enabled: bool
    white: int
    black: int
    weight: float
    net: int  # weighted, from White's point of view


@dataclass(frozen=True)
class EvalTrace:
    fen: str
    spec: EvalSpec
    phase: int
    categories: tuple[CategoryTrace, ...]
    total: int  # from the side to move's point of view, what the search uses
    white_to_move: bool

    @property
    def total_white(self) -> int:
        return self.total if self.white_to_move else -self.total

    def format(self) -> str:
        rows = [f"Evaluation of {self.fen}",
                f"Instance {self.spec}",
                "",
                f"{'category':40s} {'White':>7s} {'Black':>7s} {'weight':>7s} {'net':>7s}",
                "-" * 72]
        for c in self.categories:
            label = f"{c.letter} {CATEGORY_NAMES[c.letter]}"
            if c.enabled:
                rows.append(f"{label:40s} {c.white:7d} {c.black:7d} {c.weight:7.2f} {c.net:7d}")
            else:
                rows.append(f"{label:40s} {'--':>7s} {'--':>7s} {'':>7s} {'(off)':>7s}")
        rows.append("-" * 72)
        rows.append(f"{'Sum of nets (White)':40s} {'':7s} {'':7s} {'':7s} {self.total_white:7d}")
        stage = "opening" if self.phase >= 20 else "endgame" if self.phase <= 5 else "middlegame"
        rows.append(f"Stage: phase {self.phase}/{PHASE_MAX} ({stage}; 24 = all pieces on, 0 = pawns and kings)")
        side = "white" if self.white_to_move else "black"
        rows.append(f"Total: {self.total} cp (side to move, {side})")
        return "\n".join(rows)


def trace(position: Position, spec: EvalSpec, params: np.ndarray = DEFAULT_PARAMS) -> EvalTrace:
    terms, attacks, counts = new_scratch()
    weights = spec.weight_array()
    total = int(evaluate(position.arrays, spec.mask, weights, params, terms, attacks, counts))
    cats = []
    for i, letter in enumerate(CATEGORIES):
        on = spec.uses(letter)
        white, black = int(terms[i, 0]), int(terms[i, 1])
        net = int(np.round(weights[i] * (white - black))) if on else 0
        cats.append(CategoryTrace(letter, on, white, black, spec.weights[i], net))
    return EvalTrace(position.fen(), spec, int(game_phase(position.arrays[0])), tuple(cats), total,
                     bool(position.arrays[2][ST_SIDE] == WHITE))


@dataclass(frozen=True)
class PositionTerms:
    """Unweighted category nets (White minus Black, centipawns) of a position, and the
    outcome when the game is over there: +1 White has mated, −1 Black has, 0 draw."""

    nets: tuple[int, ...]
    result: int | None = None

    def value(self, spec: EvalSpec, root_turn: chess.Color) -> int:
        """``spec``'s evaluation from ``root_turn``'s point of view."""
        if self.result is not None:
            white = self.result * MATE_CP
        else:
            white = sum(int(round(w * net)) for w, net, on in
                        zip(spec.weights, self.nets, (spec.uses(c) for c in CATEGORIES)) if on)
        return white if root_turn == chess.WHITE else -white


def position_terms(board: chess.Board) -> PositionTerms:
    """The full evaluation's category nets of ``board``, or its outcome where the game is
    over (checkmate, stalemate, insufficient material)."""
    if board.is_checkmate():
        return PositionTerms((0,) * 7, -1 if board.turn == chess.WHITE else 1)
    if board.is_stalemate() or board.is_insufficient_material():
        return PositionTerms((0,) * 7, 0)
    t = trace(Position(chess.Board(board.fen())), FULL_ENGINE)
    return PositionTerms(tuple(c.white - c.black for c in t.categories))


def static_value(board: chess.Board, spec: EvalSpec, root_turn: chess.Color) -> int:
    """``spec``'s static evaluation of ``board`` from ``root_turn``'s point of view."""
    return position_terms(board).value(spec, root_turn)
