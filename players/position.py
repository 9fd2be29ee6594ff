"""``Position``: the Python face of the core's position arrays.

Converts to and from python-chess ``Board`` and FEN (python-chess does every
parse), validates what it is given, and keeps the game's key history so that
repetitions across the moves that led here are seen by the search.
"""
from __future__ import annotations

from typing import Sequence

import chess
import numpy as np

from base.errors import ConcilioError
from players.core.movegen import generate_moves, play_moves
from players.core.moves import (BLACK, EMPTY, MAX_HISTORY, MAX_MOVES, ST_CASTLE, ST_EP, ST_FULLMOVE, ST_HALFMOVE,
                         ST_PLY, ST_SIDE, WHITE, empty_arrays, move_to_uci)
from players.core.position import compute_key, put_piece, unmake_move


class InvalidPositionError(ConcilioError, ValueError):
    """A FEN that cannot be parsed or describes an illegal position."""


_STATUS_REASONS = [
    (chess.STATUS_NO_WHITE_KING, "white has no king"),
    (chess.STATUS_NO_BLACK_KING, "black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "too many kings"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "more than 8 white pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "more than 8 black pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "pawns on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "more than 16 white pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "more than 16 black pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling rights without king and rook on their squares"),
    (chess.STATUS_INVALID_EP_SQUARE, "invalid en-passant square"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_RACE_CHECK, "race check"),
    (chess.STATUS_RACE_OVER, "race over"),
    (chess.STATUS_RACE_MATERIAL, "race material"),
    (chess.STATUS_TOO_MANY_CHECKERS, "the side to move is attacked by too many pieces"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "impossible check"),
]


def validate_board(board: chess.Board, label: str | None = None) -> None:
    """Raise ``InvalidPositionError`` naming the FEN and every reason it is illegal."""
    status = board.status()
    if status == chess.STATUS_VALID:
        return
    # python-chess flags "impossible check" for some positions that arise in real games
    # (a discovered double check); only reasons that break the engine are fatal.
    fatal = status & ~(chess.STATUS_IMPOSSIBLE_CHECK | chess.STATUS_TOO_MANY_CHECKERS
                       | chess.STATUS_INVALID_EP_SQUARE | chess.STATUS_BAD_CASTLING_RIGHTS)
    if not fatal:
        return
    reasons = [text for flag, text in _STATUS_REASONS if fatal & flag]
    raise InvalidPositionError(f"illegal position {label or board.fen()!r}: {', '.join(reasons)}")


def parse_fen(fen: str) -> chess.Board:
    """A python-chess board for ``fen``, or ``InvalidPositionError`` saying why not."""
    try:
        board = chess.Board(fen.strip())
    except ValueError as exc:
        raise InvalidPositionError(f"invalid FEN {fen!r}: {exc}") from None
    validate_board(board, fen)
    return board


_FILES, _RANKS = "abcdefgh", "12345678"
_PROMOTIONS = {"": 0, "n": 1, "b": 2, "r": 3, "q": 4}  # the promotion bits of a packed move


def _packed(uci: str) -> int:
    """The from, to and promotion bits of a packed move spelt ``uci`` (-1, which no move
    matches, for a spelling that is not a move)."""
    if len(uci) not in (4, 5) or uci[0] not in _FILES or uci[2] not in _FILES \
            or uci[1] not in _RANKS or uci[3] not in _RANKS or uci[4:] not in _PROMOTIONS:
        return -1
    fr = _FILES.index(uci[0]) + 8 * _RANKS.index(uci[1])
    to = _FILES.index(uci[2]) + 8 * _RANKS.index(uci[3])
    return fr | (to << 6) | (_PROMOTIONS[uci[4:]] << 12)


class Position:
    """A chess position with its game history, held in the core's arrays."""

    __slots__ = ("arrays", "root_fen", "moves")

    def __init__(self, board: chess.Board | None = None) -> None:
        board = chess.Board() if board is None else board
        root = board.root()
        validate_board(root)
        self.arrays = _arrays_from_board(root)
        self.root_fen = root.fen()
        self.moves: list[str] = []
        self.push_ucis([move.uci() for move in board.move_stack])

    @classmethod
    def from_fen(cls, fen: str = chess.STARTING_FEN, moves: list[str] | tuple[str, ...] = ()) -> "Position":
        """Position after ``moves`` (UCI) from ``fen``; the way positions travel between processes."""
        pos = cls(parse_fen(fen))
        pos.push_ucis(list(moves))
        return pos

    def copy(self) -> "Position":
        other = Position.__new__(Position)
        other.arrays = tuple(a.copy() for a in self.arrays)
        other.root_fen = self.root_fen
        other.moves = list(self.moves)
        return other

    @property
    def turn(self) -> bool:
        """``chess.WHITE`` (True) or ``chess.BLACK``."""
        return self.arrays[2][ST_SIDE] == WHITE

    @property
    def key(self) -> int:
        return int(self.arrays[4][self.arrays[2][ST_PLY]])

    def legal_move_codes(self) -> np.ndarray:
        out = np.empty(MAX_MOVES, np.int64)
        n = generate_moves(self.arrays, out, False)
        return out[:n].copy()

    def legal_moves(self) -> list[str]:
        return [move_to_uci(int(m)) for m in self.legal_move_codes()]

    def push_uci(self, uci: str) -> None:
        """Play a UCI move; ``ValueError`` if it is not legal here."""
        self.push_ucis([uci])

    def push_ucis(self, ucis: Sequence[str]) -> None:
        """Play UCI moves in order; ``ValueError`` naming the first that is not legal, with
        the moves before it played."""
        if self.arrays[2][ST_PLY] + len(ucis) >= MAX_HISTORY - 256:
            raise ValueError("game too long for the position history")
        wanted = np.array([_packed(uci) for uci in ucis], np.int64)
        played = play_moves(self.arrays, wanted)
        self.moves.extend(ucis[:played])
        if played < len(ucis):
            raise ValueError(f"illegal move {ucis[played]!r} in {self.fen()!r}")

    def pop(self) -> str:
        unmake_move(self.arrays)
        return self.moves.pop()

    def to_board(self) -> chess.Board:
        board = chess.Board(self.root_fen)
        for uci in self.moves:
            board.push_uci(uci)
        return board

    def fen(self) -> str:
        return _fen_from_arrays(self.arrays)

    def __repr__(self) -> str:
        return f"Position({self.fen()!r})"


def _arrays_from_board(board: chess.Board):
    arrays = empty_arrays()
    bb, board_arr, st, hist, keys = arrays
    for sq, piece in board.piece_map().items():
        colour = WHITE if piece.color == chess.WHITE else BLACK
        put_piece(bb, board_arr, colour * 6 + piece.piece_type - 1, sq)
    st[ST_SIDE] = WHITE if board.turn == chess.WHITE else BLACK
    rights = 0
    for flag, sq in ((1, chess.H1), (2, chess.A1), (4, chess.H8), (8, chess.A8)):
        if board.castling_rights & chess.BB_SQUARES[sq]:
            rights |= flag
    st[ST_CASTLE] = rights
    # The Polyglot rule: keep the ep square only if a pawn could capture there.
    ep = board.ep_square if board.ep_square is not None and board.has_pseudo_legal_en_passant() else -1
    st[ST_EP] = ep
    st[ST_HALFMOVE] = board.halfmove_clock
    st[ST_FULLMOVE] = board.fullmove_number
    st[ST_PLY] = 0
    keys[0] = compute_key(arrays)
    return arrays


def _fen_from_arrays(arrays) -> str:
    bb, board_arr, st, hist, keys = arrays
    board = chess.Board(None)
    for sq in range(64):
        p = int(board_arr[sq])
        if p != EMPTY:
            board.set_piece_at(sq, chess.Piece(p % 6 + 1, chess.WHITE if p < 6 else chess.BLACK))
    board.turn = chess.WHITE if st[ST_SIDE] == WHITE else chess.BLACK
    fen_castle = "".join(c for flag, c in ((1, "K"), (2, "Q"), (4, "k"), (8, "q")) if st[ST_CASTLE] & flag) or "-"
    board.set_castling_fen(fen_castle)
    board.ep_square = int(st[ST_EP]) if st[ST_EP] >= 0 else None
    board.halfmove_clock = int(st[ST_HALFMOVE])
    ply = int(st[ST_PLY])
    root_black = (int(st[ST_SIDE]) ^ (ply % 2)) == BLACK
    board.fullmove_number = int(st[ST_FULLMOVE]) + ((ply + 1) // 2 if root_black else ply // 2)
    return board.fen()
