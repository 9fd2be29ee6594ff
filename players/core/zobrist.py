"""Zobrist keys: the Polyglot random numbers, so that our key of a position equals
``chess.polyglot.zobrist_hash`` of it (python-chess is then the oracle in tests and
opening books could be probed directly)."""
import numpy as np
from chess.polyglot import POLYGLOT_RANDOM_ARRAY

_RANDOM = np.array(POLYGLOT_RANDOM_ARRAY, dtype=np.uint64)

# Polyglot orders pieces black pawn, white pawn, black knight, ...; ours are colour * 6 + type.
ZOBRIST_PIECE = np.zeros((12, 64), np.uint64)
for _colour in range(2):
    for _ptype in range(6):
        _kind = 2 * _ptype + (1 - _colour)
        ZOBRIST_PIECE[_colour * 6 + _ptype] = _RANDOM[64 * _kind: 64 * _kind + 64]

# One key per combination of the four castling bits (K=1, Q=2, k=4, q=8).
ZOBRIST_CASTLE = np.zeros(16, np.uint64)
for _rights in range(16):
    for _i in range(4):
        if _rights & (1 << _i):
            ZOBRIST_CASTLE[_rights] ^= _RANDOM[768 + _i]

ZOBRIST_EP_FILE = _RANDOM[772:780].copy()
ZOBRIST_WHITE_TO_MOVE = _RANDOM[780]
