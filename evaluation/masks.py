"""Bitboard masks and small tables the evaluation terms look up (built once, in NumPy)."""
import numpy as np

from players.core.bitboard import FILES, KING_ATTACKS, bishop_attacks, rook_attacks


def _bit(sq: int) -> np.uint64:
    return np.uint64(1) << np.uint64(sq)


ADJACENT_FILES = np.zeros(8, np.uint64)
for _f in range(8):
    if _f > 0:
        ADJACENT_FILES[_f] |= FILES[_f - 1]
    if _f < 7:
        ADJACENT_FILES[_f] |= FILES[_f + 1]

# FORWARD_FILE[colour, sq]: squares ahead of sq on its file, from colour's point of view.
# PASSED_SPAN[colour, sq]: the same on the file and both neighbours (no enemy pawn there = passed).
# SHELTER[colour, sq]: the two ranks in front of a king on sq, on its file and both neighbours.
FORWARD_FILE = np.zeros((2, 64), np.uint64)
PASSED_SPAN = np.zeros((2, 64), np.uint64)
SHELTER = np.zeros((2, 64), np.uint64)
for _sq in range(64):
    _r, _f = divmod(_sq, 8)
    for _colour, _step in ((0, 1), (1, -1)):
        _rr = _r + _step
        _ahead = 0
        while 0 <= _rr < 8:
            for _ff in (_f - 1, _f, _f + 1):
                if 0 <= _ff < 8:
                    PASSED_SPAN[_colour, _sq] |= _bit(_rr * 8 + _ff)
                    if _ahead < 2:
                        SHELTER[_colour, _sq] |= _bit(_rr * 8 + _ff)
            FORWARD_FILE[_colour, _sq] |= _bit(_rr * 8 + _f)
            _rr += _step
            _ahead += 1

# King zone: the king's square and its neighbours.
KING_ZONE = np.array([KING_ATTACKS[s] | _bit(s) for s in range(64)], np.uint64)

DISTANCE = np.zeros((64, 64), np.int64)  # Chebyshev (king steps)
for _a in range(64):
    for _b in range(64):
        DISTANCE[_a, _b] = max(abs(_a // 8 - _b // 8), abs(_a % 8 - _b % 8))

# The lines a bishop or rook on s sees on an empty board: whatever is not on them can be
# neither pinned nor x-rayed by it.
BISHOP_LINES = np.array([bishop_attacks(s, np.uint64(0)) for s in range(64)], np.uint64)
ROOK_LINES = np.array([rook_attacks(s, np.uint64(0)) for s in range(64)], np.uint64)

# WITHIN[s, d]: the squares at most d king steps from s (the nearest pawn in a few tests, not a loop).
_BITS = np.uint64(1) << np.arange(64, dtype=np.uint64)
WITHIN = np.stack([np.bitwise_or.reduce(np.where(DISTANCE <= _d, _BITS, np.uint64(0)), axis=1) for _d in range(8)],
                  axis=1)

# Distance from the centre (0 on d4/e4/d5/e5, 3 in the corners), for driving a bare king.
CENTRE_DISTANCE = np.array([max(3 - min(s // 8, 7 - s // 8), 3 - min(s % 8, 7 - s % 8)) for s in range(64)],
                           np.int64)

# Passed-pawn bonus factor by relative rank (rank 2 = index 1 ... rank 7 = index 6), in quarters.
PASSED_RANK_FACTOR = np.array([0, 1, 1, 2, 4, 7, 11, 0], np.int64)

CENTRE_FILES = FILES[3] | FILES[4]
