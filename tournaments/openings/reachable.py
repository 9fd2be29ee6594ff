"""A cheap necessary condition for one position to follow another in a game.

Replaying a game to see whether a position really came from an opening costs an engine
search per ply; this test costs a few bit counts.  It cannot prove a position came from a
start, but a position that fails it cannot have: the check catches an opening recorded
for the wrong game (``tournaments.training.provenance`` runs it on every annotated line).
"""
from __future__ import annotations

import chess
import numpy as np

IMPOSSIBLE = 1_000  # beyond any pawn's trip: a pairing that uses one does not exist
PROMOTED = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def moves_by(colour: chess.Color, first: chess.Color, plies: int) -> int:
    """How many of ``plies`` half-moves ``colour`` makes when ``first`` moves first."""
    return (plies + 1) // 2 if colour == first else plies // 2


def pawn_squares(board: chess.Board, colour: chess.Color) -> list[tuple[int, int]]:
    """The side's pawns as (file, rank counted from its own side: 0 = its back rank)."""
    return [(chess.square_file(sq), chess.square_rank(sq) if colour == chess.WHITE else 7 - chess.square_rank(sq))
            for sq in board.pieces(chess.PAWN, colour)]


def pawn_trip(start: tuple[int, int], end: tuple[int, int]) -> tuple[int, int] | None:
    """(fewest moves, captures) for a pawn to go from ``start`` to ``end``: one rank a
    move, two on its first, and a capture per file changed; None if it cannot."""
    files, ranks = abs(end[0] - start[0]), end[1] - start[1]
    if files > ranks:
        return None
    double = start[1] == 1 and ranks - files >= 2
    return ranks - double, files


def fewest_pawn_moves(before: list[tuple[int, int]], after: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Lower bounds on (moves, captures) a side's pawns need to go from ``before`` to
    ``after``, each pawn of ``after`` being a distinct pawn of ``before`` that only went
    forward (the others were captured or promoted); None if no such pairing exists."""
    if not after:
        return 0, 0
    if len(after) > len(before):
        return None
    from scipy.optimize import linear_sum_assignment
    trips = [[pawn_trip(b, a) for b in before] for a in after]
    bounds = []
    for part in (0, 1):
        cost = np.array([[IMPOSSIBLE if t is None else t[part] for t in row] for row in trips])
        rows, cols = linear_sum_assignment(cost)
        total = int(cost[rows, cols].sum())
        if total >= IMPOSSIBLE:
            return None
        bounds.append(total)
    return bounds[0], bounds[1]


def cannot_follow(start: chess.Board, later: chess.Board, plies: int) -> str | None:
    """Why ``later`` cannot be ``plies`` half-moves after ``start`` in a legal game, or
    None when these necessary conditions hold:

    * after 0 plies it is the same position; the side to move alternates with each ply;
    * castling rights are never regained;
    * a side's losses take a capture each, one per move of the other side;
    * a side's pawns never increase, and each piece beyond its starting count needs a
      promotion, which uses up a pawn;
    * each pawn of ``later`` is a distinct pawn of ``start`` that only went forward, at
      most one file per rank (by captures); pairing them so, the pawns need no more moves
      than the side made (one rank a move, two on a pawn's first) and no more captures
      than the other side lost pieces.
    """
    if plies < 0:
        return f"a negative ply ({plies})"
    if plies == 0:
        return None if start.epd() == later.epd() else "at ply 0 it is not the start position"
    if later.turn != (start.turn if plies % 2 == 0 else not start.turn):
        return f"the wrong side is to move at ply {plies}"
    if later.castling_rights & ~start.castling_rights:
        return "a castling right was regained"
    for colour in chess.COLORS:
        side = chess.COLOR_NAMES[colour]
        lost = chess.popcount(start.occupied_co[colour]) - chess.popcount(later.occupied_co[colour])
        if lost > moves_by(not colour, start.turn, plies):
            return f"{side} lost {lost} pieces in {moves_by(not colour, start.turn, plies)} moves of the other side"
        before, after = pawn_squares(start, colour), pawn_squares(later, colour)
        if len(after) > len(before):
            return f"{side} has more pawns than it started with"
        promoted = sum(max(0, len(later.pieces(t, colour)) - len(start.pieces(t, colour))) for t in PROMOTED)
        if promoted > len(before) - len(after):
            return f"{side} has {promoted} promoted pieces but lost only {len(before) - len(after)} pawns"
        trips = fewest_pawn_moves(before, after)
        if trips is None:
            return f"{side}'s pawns cannot have come from the start's (none moves back or sideways)"
        moves, captures = trips
        if moves > moves_by(colour, start.turn, plies):
            return f"{side}'s pawns need {moves} moves, more than its {moves_by(colour, start.turn, plies)}"
        taken = chess.popcount(start.occupied_co[not colour]) - chess.popcount(later.occupied_co[not colour])
        if captures > taken:
            return f"{side}'s pawns need {captures} captures, but the other side lost {taken} pieces"
    return None
