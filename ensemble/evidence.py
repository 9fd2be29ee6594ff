"""Static evaluations the score-based selection criteria need: every instance's view
of the root and of the end of every ballot's principal variation.

Values are from the root side's point of view, so a gain f(P_i) − f(P) is positive
when the PV leads somewhere better for the side to move.  A PV that ends in mate
counts ±``MATE_CP``; one that cannot be replayed is cut at its first illegal move.

A position is evaluated once, category by category (``PositionTerms``); any
instance's value follows from its mask and weights, exactly as the jitted evaluation
combines them.  That is also what the suite store keeps for every PV end.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

from evaluation.spec import CATEGORIES, FULL_ENGINE, EvalSpec
from players.trace import trace
from players.position import Position
from players.result import MATE_CP

from ensemble.ballot import Ballot, Evidence


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
    if board.is_checkmate():
        return PositionTerms((0,) * 7, -1 if board.turn == chess.WHITE else 1)
    if board.is_stalemate() or board.is_insufficient_material():
        return PositionTerms((0,) * 7, 0)
    t = trace(Position(chess.Board(board.fen())), FULL_ENGINE)
    return PositionTerms(tuple(c.white - c.black for c in t.categories))


def static_value(board: chess.Board, spec: EvalSpec, root_turn: chess.Color) -> int:
    """``spec``'s static evaluation of ``board`` from ``root_turn``'s point of view."""
    return position_terms(board).value(spec, root_turn)


def pv_end(root: chess.Board, pv: Sequence[str]) -> chess.Board:
    board = root.copy(stack=False)
    for uci in pv:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            break
        if move not in board.legal_moves:
            break
        board.push(move)
    return board


def evidence_from_terms(root: PositionTerms, leaves: Sequence[PositionTerms], specs: Sequence[EvalSpec],
                        root_turn: chess.Color) -> Evidence:
    return Evidence(tuple(root.value(s, root_turn) for s in specs),
                    tuple(tuple(leaf.value(s, root_turn) for s in specs) for leaf in leaves),
                    root.nets, tuple(leaf.nets for leaf in leaves))


def gather_evidence(root: chess.Board, ballots: Sequence[Ballot]) -> Evidence:
    leaves = [position_terms(pv_end(root, b.result.pv or (b.move,))) for b in ballots]
    return evidence_from_terms(position_terms(root), leaves, [b.spec for b in ballots], root.turn)
