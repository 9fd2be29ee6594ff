"""Term values of the evaluation, as data.

Tables are written as a person reads a board (rank 8 at the top) from White's
point of view and stored a1 = 0; Black reads them through ``sq ^ 56``.  Every value
is a (middlegame, endgame) pair blended by the game phase.  Scalar terms (piece
values, bonuses, penalties) are in ``params.py``.  Both are fitted by ``concilio fit
terms`` (``--tables`` for these, which it rewrites in place: keep the layout).  The
tables started as the "simplified evaluation" tables and the thesis's knight
space-control map.
"""
import numpy as np

# Phase weight of each piece type: 24 with all minor and major pieces on the board.
PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0], np.int64)
PHASE_MAX = 24


def _table(rows: str) -> np.ndarray:
    values = [int(v) for v in rows.replace(",", " ").split()]
    assert len(values) == 64
    grid = np.array(values, np.int64).reshape(8, 8)[::-1]  # rank 1 first
    return grid.reshape(64).copy()


_PAWN_MG = _table("""
   0    0    0    0    0    0    0    0
  50   50   50   50   50   50   50   50
  10   10   20   30   30   20   10   10
   5    5   10   25   25   10    5    5
   0    0    0   20   20    0    0    0
   5   -5  -10    0    0  -10   -5    5
   5   10   10  -20  -20   10   10    5
   0    0    0    0    0    0    0    0""")

_PAWN_EG = _table("""
   0    0    0    0    0    0    0    0
  80   80   80   80   80   80   80   80
  50   50   50   50   50   50   50   50
  30   30   30   30   30   30   30   30
  15   15   15   15   15   15   15   15
   5    5    5    5    5    5    5    5
   0    0    0    0    0    0    0    0
   0    0    0    0    0    0    0    0""")

_KNIGHT_MG = _table("""
 -16  -12   -8   -6   -6   -8  -12  -16
 -12   -8    0    4    4    0   -8  -12
  -8    0    8   12   12    8    0   -8
  -6    4   12   16   16   12    4   -6
  -6    4   12   16   16   12    4   -6
  -8    0    8   12   12    8    0   -8
 -12   -8    0    4    4    0   -8  -12
 -16  -12   -8   -6   -6   -8  -12  -16""")

_KNIGHT_EG = _table("""
 -16  -12   -8   -6   -6   -8  -12  -16
 -12   -8    0    4    4    0   -8  -12
  -8    0    8   12   12    8    0   -8
  -6    4   12   16   16   12    4   -6
  -6    4   12   16   16   12    4   -6
  -8    0    8   12   12    8    0   -8
 -12   -8    0    4    4    0   -8  -12
 -16  -12   -8   -6   -6   -8  -12  -16""")

_BISHOP_MG = _table("""
 -20  -10  -10  -10  -10  -10  -10  -20
 -10    0    0    0    0    0    0  -10
 -10    0    5   10   10    5    0  -10
 -10    5    5   10   10    5    5  -10
 -10    0   10   10   10   10    0  -10
 -10   10   10   10   10   10   10  -10
 -10    5    0    0    0    0    5  -10
 -20  -10  -10  -10  -10  -10  -10  -20""")

_BISHOP_EG = _table("""
 -20  -10  -10  -10  -10  -10  -10  -20
 -10    0    0    0    0    0    0  -10
 -10    0    5   10   10    5    0  -10
 -10    5    5   10   10    5    5  -10
 -10    0   10   10   10   10    0  -10
 -10   10   10   10   10   10   10  -10
 -10    5    0    0    0    0    5  -10
 -20  -10  -10  -10  -10  -10  -10  -20""")

_ROOK_MG = _table("""
   0    0    0    0    0    0    0    0
   5   10   10   10   10   10   10    5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
   0    0    0    5    5    0    0    0""")

_ROOK_EG = _table("""
   0    0    0    0    0    0    0    0
   5   10   10   10   10   10   10    5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
  -5    0    0    0    0    0    0   -5
   0    0    0    5    5    0    0    0""")

_QUEEN_MG = _table("""
 -20  -10  -10   -5   -5  -10  -10  -20
 -10    0    0    0    0    0    0  -10
 -10    0    5    5    5    5    0  -10
  -5    0    5    5    5    5    0   -5
   0    0    5    5    5    5    0   -5
 -10    5    5    5    5    5    0  -10
 -10    0    5    0    0    0    0  -10
 -20  -10  -10   -5   -5  -10  -10  -20""")

_QUEEN_EG = _table("""
 -20  -10  -10   -5   -5  -10  -10  -20
 -10    0    0    0    0    0    0  -10
 -10    0    5    5    5    5    0  -10
  -5    0    5    5    5    5    0   -5
   0    0    5    5    5    5    0   -5
 -10    5    5    5    5    5    0  -10
 -10    0    5    0    0    0    0  -10
 -20  -10  -10   -5   -5  -10  -10  -20""")

_KING_MG = _table("""
 -30  -40  -40  -50  -50  -40  -40  -30
 -30  -40  -40  -50  -50  -40  -40  -30
 -30  -40  -40  -50  -50  -40  -40  -30
 -30  -40  -40  -50  -50  -40  -40  -30
 -20  -30  -30  -40  -40  -30  -30  -20
 -10  -20  -20  -20  -20  -20  -20  -10
  20   20    0    0    0    0   20   20
  20   30   10    0    0   10   30   20""")

_KING_EG = _table("""
 -50  -40  -30  -20  -20  -30  -40  -50
 -30  -20  -10    0    0  -10  -20  -30
 -30  -10   20   30   30   20  -10  -30
 -30  -10   30   40   40   30  -10  -30
 -30  -10   30   40   40   30  -10  -30
 -30  -10   20   30   30   20  -10  -30
 -30  -30    0    0    0    0  -30  -30
 -50  -30  -30  -30  -30  -30  -30  -50""")

# PST[phase, piece type, square]: phase 0 middlegame, 1 endgame.
PST = np.zeros((2, 6, 64), np.int64)
PST[0] = [_PAWN_MG, _KNIGHT_MG, _BISHOP_MG, _ROOK_MG, _QUEEN_MG, _KING_MG]
PST[1] = [_PAWN_EG, _KNIGHT_EG, _BISHOP_EG, _ROOK_EG, _QUEEN_EG, _KING_EG]
