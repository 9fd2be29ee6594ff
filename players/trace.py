"""Evaluation trace, like Stockfish's ``eval`` command: every category's White term,
Black term and weighted net, the game phase, and the total the search would see."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from players.core.moves import ST_SIDE, WHITE
from players.position import Position
from evaluation.evaluate import evaluate, game_phase, new_scratch
from evaluation.params import DEFAULT_PARAMS
from evaluation.spec import CATEGORIES, CATEGORY_NAMES, EvalSpec
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
