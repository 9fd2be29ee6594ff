"""Piece codes, state-array layout and the packed move encoding shared by the core.

A position is the tuple ``(bb, board, st, hist, keys)`` of plain NumPy arrays:

* ``bb``    uint64[14]: one bitboard per piece (``colour * 6 + type``), then the
  occupancy of white (12) and black (13);
* ``board`` int8[64]: the piece on each square, ``EMPTY`` (-1) if none;
* ``st``    int64[ST_SIZE]: side to move, castling rights, en-passant square,
  half-move clock, game ply, full-move number of the root;
* ``hist``  int64[MAX_HISTORY, 5]: what ``unmake_move`` needs per ply;
* ``keys``  uint64[MAX_HISTORY + 1]: the Zobrist key after every ply, for
  repetition detection (``keys[st[ST_PLY]]`` is the current key).

A move is an int: from (bits 0-5), to (6-11), promotion piece type (12-14, 0 if
none) and a flag (15-16).  Move 0 is "no move"; a1a1 can never be legal.
"""
import numpy as np
from numba import njit, types

WHITE, BLACK = 0, 1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5
EMPTY = -1
OCC_WHITE, OCC_BLACK = 12, 13

ST_SIDE, ST_CASTLE, ST_EP, ST_HALFMOVE, ST_PLY, ST_FULLMOVE = 0, 1, 2, 3, 4, 5
ST_SIZE = 8

CASTLE_WK, CASTLE_WQ, CASTLE_BK, CASTLE_BQ = 1, 2, 4, 8

H_MOVE, H_CAPTURED, H_CASTLE, H_EP, H_HALFMOVE = 0, 1, 2, 3, 4
H_SIZE = 5
MAX_HISTORY = 2048

FLAG_NORMAL, FLAG_EN_PASSANT, FLAG_CASTLE, FLAG_DOUBLE_PUSH = 0, 1, 2, 3
NO_MOVE = 0
MAX_MOVES = 256

PIECE_SYMBOLS = "PNBRQKpnbrqk"

# Numba type of the position tuple.  Recursive jitted functions (perft, the search)
# are compiled eagerly with explicit signatures built from it: numba's cache
# cannot reload a lazily typed recursive function (numba issue #6061 segfaults).
POSITION_TYPE = types.Tuple((
    types.Array(types.uint64, 1, "C"),
    types.Array(types.int8, 1, "C"),
    types.Array(types.int64, 1, "C"),
    types.Array(types.int64, 2, "C"),
    types.Array(types.uint64, 1, "C"),
))


@njit(cache=True, inline="always")
def encode_move(fr, to, promo, flag):
    return fr | (to << 6) | (promo << 12) | (flag << 15)


@njit(cache=True, inline="always")
def move_from(m):
    return m & 63


@njit(cache=True, inline="always")
def move_to(m):
    return (m >> 6) & 63


@njit(cache=True, inline="always")
def move_promo(m):
    return (m >> 12) & 7


@njit(cache=True, inline="always")
def move_flag(m):
    return (m >> 15) & 3


def move_to_uci(m: int) -> str:
    """UCI text of a packed move (``0000`` for no move, as UCI spells the null move)."""
    if m == NO_MOVE:
        return "0000"
    fr, to, promo = m & 63, (m >> 6) & 63, (m >> 12) & 7
    text = "abcdefgh"[fr % 8] + str(fr // 8 + 1) + "abcdefgh"[to % 8] + str(to // 8 + 1)
    if promo:
        text += "pnbrqk"[promo]
    return text


def empty_arrays():
    """Fresh, zeroed arrays for one position."""
    bb = np.zeros(14, np.uint64)
    board = np.full(64, EMPTY, np.int8)
    st = np.zeros(ST_SIZE, np.int64)
    hist = np.zeros((MAX_HISTORY, H_SIZE), np.int64)
    keys = np.zeros(MAX_HISTORY + 1, np.uint64)
    return bb, board, st, hist, keys
