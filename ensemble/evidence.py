"""Static evaluations the score-based selection criteria need: every instance's view
of the root and of the end of every ballot's principal variation.

Values are from the root side's point of view, so a gain f(P_i) − f(P) is positive
when the PV leads somewhere better for the side to move.  A PV that ends in mate
counts ±``MATE_CP``; one that cannot be replayed is cut at its first illegal move.

A position is evaluated once, category by category (``players.trace.PositionTerms``);
any instance's value follows from its mask and weights.  That is also what the suite
store keeps for every PV end.
"""
from __future__ import annotations

from collections.abc import Sequence

import chess

from evaluation.spec import EvalSpec
from players.trace import PositionTerms, position_terms

from ensemble.ballot import Ballot, Evidence


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
