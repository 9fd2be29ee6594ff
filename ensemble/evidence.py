"""Static evaluations the score-based selection criteria need: every instance's view
of the root and of the end of every ballot's principal variation.

Values are from the root side's point of view, so a gain f(P_i) − f(P) is positive
when the PV leads somewhere better for the side to move.  A PV that ends in mate
counts ±``MATE_CP``; one that cannot be replayed is cut at its first illegal move.
"""
from __future__ import annotations

from typing import Sequence

import chess

from evaluation.evaluate import evaluate, new_scratch
from evaluation.params import DEFAULT_PARAMS
from evaluation.spec import EvalSpec
from players.position import Position
from .selection import MATE_CP, Ballot, Evidence


def static_value(board: chess.Board, spec: EvalSpec, root_turn: chess.Color) -> int:
    """``spec``'s static evaluation of ``board`` from ``root_turn``'s point of view."""
    if board.is_checkmate():
        value = -MATE_CP
    elif board.is_stalemate() or board.is_insufficient_material():
        value = 0
    else:
        terms, attacks, counts = new_scratch()
        pos = Position(chess.Board(board.fen()))
        value = int(evaluate(pos.arrays, spec.mask, spec.weight_array(), DEFAULT_PARAMS, terms, attacks, counts))
    return value if board.turn == root_turn else -value


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


def gather_evidence(root: chess.Board, ballots: Sequence[Ballot]) -> Evidence:
    specs = [b.spec for b in ballots]
    root_eval = tuple(static_value(root, s, root.turn) for s in specs)
    leaf_eval = []
    for b in ballots:
        end = pv_end(root, b.result.pv or (b.move,))
        leaf_eval.append(tuple(static_value(end, s, root.turn) for s in specs))
    return Evidence(root_eval, tuple(leaf_eval))
