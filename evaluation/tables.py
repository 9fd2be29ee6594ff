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
  57   56   50   57   45   37   24   10
  10   23   44   62   49   60   28    9
   4    4   18   11   30   46   15   11
 -15  -14    8   -1    7   23    4   -6
 -17  -18   -3  -14   -5   10    0   -1
 -18  -19   -9  -29   -4   13   15  -10
   0    0    0    0    0    0    0    0""")

_PAWN_EG = _table("""
   0    0    0    0    0    0    0    0
  91   73   85   64   65   72   66   72
  51   45   36   15   22   43   50   34
  37   39   17    8    9   16   29   17
  25   24   10   12    8   13   13    5
  20   22   17   16   16   14   14    1
  27   23   26   19   26   20    9    6
   0    0    0    0    0    0    0    0""")

_KNIGHT_MG = _table("""
 -48  -17  -23  -19  -10  -22  -18  -26
 -23  -13    6    3    8   13  -17  -19
  -9   27   22   42   35   26   17   -6
   5    9   21   43    9   31    7    8
   3  -12   13    5   18   16    5  -17
 -18  -12    4   11   21    7    5  -13
 -37  -13   -4    1    2    6   -8  -17
 -20  -25  -21   -1    1   -4  -15  -22""")

_KNIGHT_EG = _table("""
 -37  -21  -16   -9  -16  -18  -21  -21
 -33   -3   -1    7    5    1  -23  -22
 -13    7   11   17   13   14    4  -22
   5   23   19   26   31   28    7  -13
   0    7   25   27   26   16   -4   -4
 -15   10   22   21   20    5    6   -8
 -14   -4    6   10    9    4  -22  -19
 -26  -32    0   -1  -16  -13  -22  -18""")

_BISHOP_MG = _table("""
 -19  -13  -18  -15  -10  -21  -10  -25
  -9  -11    4  -10   -5   -4  -18  -18
 -14   19    0   12   11   24   16   -1
  -9   -4    8   22   13    9   -4  -11
 -13  -21   -6   13   13    1   -9   -3
  -3   15    8    1    7    2   12    2
 -11   11   23  -15   -2    8   24   12
 -14   -2   -9  -16   -9  -17    2  -29""")

_BISHOP_EG = _table("""
 -17   -3   -5  -10   -4   -5  -14  -23
 -28    0    7    3   -5  -13   -6  -10
  -7   -3    9    1   -3   10    1   -8
  -7   14    1    7    9    5   -2  -13
  -5    1   15    5    3    6   -3   -8
 -10    3   19    7   13   15   -4   -8
   0    1    2    6    4   -2   -1  -23
   2   -6  -13   -7  -10    2  -14   -9""")

_ROOK_MG = _table("""
   2    1    2    9   11    4    9   12
   8    4   25   32   21   17   16   19
   1   10    6   14   24   10    9   13
  -2    1    0    2   14   10    5   -6
 -14  -18  -10    5   -6   -9   -3   -9
 -17   -6   -8   -3   -1   -9    5  -16
 -27  -16   -4   -8   -9   -8   -4  -18
  -6   -6   -4   -6    2  -13  -14   -8""")

_ROOK_EG = _table("""
   9   10   16    6   10   11   11    7
  10   15   16   17   11    1    6   -2
   3    4    5    3    0   -4   -1  -11
   6    4    8    9   -2    3   -7   -2
  10   -1    9   -5   -6   -9    0   -7
   1    1    3    0   -7  -16  -16  -18
   1   -1   -1   -1   -5   -8  -18   -7
   3   -7    4   -2   -8   -6   -8  -17""")

_QUEEN_MG = _table("""
 -23   -3    0   -3    3    2   -2   -5
 -16  -18    1   -1   -1   13    1    6
  -7    6  -14   -7    5   16    9   -4
 -19   -5   -1   -9   -2    2  -17  -10
  -6   -6  -18  -21  -13   -3   -3  -12
  -3   -7   -6  -11   -7    3    0   -2
  -3   16   12   11   14    5    7   -1
  -8    2    5   24    4  -21  -19  -14""")

_QUEEN_EG = _table("""
 -13   -7   -1   -3    1   -1   -8  -13
 -12    0   13    4    3    9    3   -3
  -7    5    6   10   19   18    5   -4
  -6    5    6   12   13   13    4    2
  -2    4    7   13    3    8    0   -8
  -7    1    4    5   -4   -8   -9   -9
  -9   -3  -13  -10  -18  -17  -12  -13
 -12  -24  -18  -24  -21  -23  -19  -23""")

_KING_MG = _table("""
 -30  -37  -40  -50  -50  -38  -39  -29
 -28  -35  -36  -48  -46  -37  -34  -30
 -28  -34  -41  -48  -53  -38  -36  -29
 -29  -34  -45  -53  -56  -44  -40  -32
 -20  -28  -33  -48  -46  -32  -35  -30
  -8  -13  -27  -29  -20  -16    2  -19
  27   30   -4   -7  -13    2   56   25
   3   39   35  -39   11  -22   34    9""")

_KING_EG = _table("""
 -54  -31  -29  -16  -16  -19  -26  -42
 -44    5    6   19   16   13    9  -26
 -28    8   24   35   29   44   24  -21
 -27    3   18   26   17   16   10  -24
 -39   -7   17   11   12    2  -12  -32
 -33    0    0   12    3   -6  -18  -34
 -28  -23    3    0   -2  -16  -37  -36
 -55  -32  -33  -20  -37  -20  -44  -54""")

# PST[phase, piece type, square]: phase 0 middlegame, 1 endgame.
PST = np.zeros((2, 6, 64), np.int64)
PST[0] = [_PAWN_MG, _KNIGHT_MG, _BISHOP_MG, _ROOK_MG, _QUEEN_MG, _KING_MG]
PST[1] = [_PAWN_EG, _KNIGHT_EG, _BISHOP_EG, _ROOK_EG, _QUEEN_EG, _KING_EG]
