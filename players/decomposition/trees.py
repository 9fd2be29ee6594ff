"""The tree a splitting master walks: a node's children, each with the depth the sequential
search gives it (one ply less, one more when the move gives check), in the order they are
handed out.

Why two: the wall clock's masters have always ordered moves with python-chess (MVV-LVA, then
promotions and checks), the node clock's with the engine (hash move, then its usual order),
which also sees the draws the search sees.  Each clock lends its own to the one splitting
policy (:mod:`.split_policies`); making them one would change the wall clock's job order
(the plan's step 11, measured separately).
"""
from __future__ import annotations

from typing import Protocol

import chess

from players.core.moves import ST_HALFMOVE, move_to_uci
from players.core.position import in_check, insufficient_material, make_move, repetition_count, unmake_move
from players.position import Position
from players.searcher import Searcher

Children = list[tuple[str, int]]  # (move, the child's depth)

ORDER_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


class Tree(Protocol):
    def root_children(self) -> Children:
        """The root's children at depth 0 (-1, or 0 for a check); ValueError without any."""

    def children(self, path: tuple[str, ...], depth: int) -> Children | None:
        """The children of the node after ``path``; None or empty where it is not split."""


def board_after(fen: str, moves: tuple[str, ...]) -> chess.Board:
    board = chess.Board(fen)
    for m in moves:
        board.push_uci(m)
    return board


def child_depth(board: chess.Board, move: str, depth: int) -> int:
    """The sequential search's rule: one ply less, one more when the move gives check."""
    return depth - 1 + (1 if board.gives_check(chess.Move.from_uci(move)) else 0)


def ordered_moves(board: chess.Board) -> list[str]:
    """Captures by MVV-LVA, then promotions and checks, then the rest."""
    def key(move: chess.Move) -> tuple:
        victim = board.piece_type_at(move.to_square) if board.is_capture(move) else None
        attacker = board.piece_type_at(move.from_square)
        capture = ORDER_VALUE.get(victim, 1) * 10 - ORDER_VALUE.get(attacker, 0) if board.is_capture(move) else -100
        return (-capture, -(move.promotion or 0), -int(board.gives_check(move)), move.uci())
    return [m.uci() for m in sorted(board.legal_moves, key=key)]


class BoardTree:
    """The wall clock's tree: python-chess's moves in :func:`ordered_moves`'s order."""

    def __init__(self, fen: str, moves: tuple[str, ...]) -> None:
        self.fen = fen
        self.moves = tuple(moves)

    def root_children(self) -> Children:
        board = board_after(self.fen, self.moves)
        order = ordered_moves(board)
        if not order:
            raise ValueError(f"no legal move in {board.fen()}")
        return [(m, child_depth(board, m, 0)) for m in order]

    def children(self, path: tuple[str, ...], depth: int) -> Children:
        board = board_after(self.fen, self.moves + tuple(path))
        return [(m, child_depth(board, m, depth)) for m in ordered_moves(board)]


class EngineTree:
    """The node clock's tree: the engine's moves and order (the master's searcher, which never
    searches), None at a draw the search sees at the node."""

    def __init__(self, engine: Searcher, root: Position, searchmoves: tuple[str, ...], exact: bool) -> None:
        self.engine = engine
        self.root = root
        self.searchmoves = searchmoves
        self.exact = exact

    def _children_of(self, pos: Position, depth: int, codes) -> Children:
        arrays = pos.arrays
        out = []
        for code in codes:
            make_move(arrays, int(code))
            checks = bool(in_check(arrays))
            unmake_move(arrays)
            out.append((move_to_uci(int(code)), depth - 1 + (1 if checks else 0)))
        return out

    def root_children(self) -> Children:
        codes, n = self.engine._root_moves(self.root, self.searchmoves or None)  # ValueError: an illegal one
        if n == 0:
            raise ValueError(f"no legal move in {self.root.fen()}")
        return self._children_of(self.root, 0, codes[:n])

    def children(self, path: tuple[str, ...], depth: int) -> Children | None:
        """None where the node is not split: no legal move, or a draw the search sees at the
        node (dead material; the fifty-move rule or a repetition outside the exact mode)."""
        pos = self.root.copy()
        pos.push_ucis(path)
        arrays = pos.arrays
        if insufficient_material(arrays[0]) or (not self.exact and (arrays[2][ST_HALFMOVE] >= 100
                                                                    or repetition_count(arrays) > 0)):
            return None
        codes, n = self.engine._root_moves(pos, None)
        return self._children_of(pos, depth, codes[:n]) or None
