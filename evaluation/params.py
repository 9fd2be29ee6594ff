"""The evaluation's scalar terms: one (middlegame, endgame) pair each, in centipawns.

The jitted evaluation reads them from an array passed at run time (never a frozen
global), so that ``evaluation/tuning.py`` can fit them without recompiling and an
instance could carry its own.  ``DEFAULT_PARAMS`` holds the fitted values; the
recipe that produced them is in ``tuning.py``.
"""
import numpy as np

# (name, category, middlegame, endgame); the order fixes the indices below.
TERMS = (
    ("pawn_value", "M", 100, 120),
    ("knight_value", "M", 340, 310),
    ("bishop_value", "M", 350, 330),
    ("rook_value", "M", 480, 560),
    ("queen_value", "M", 1000, 1050),
    ("bishop_pair", "B", 30, 50),
    ("knight_pair", "B", -8, -8),
    ("bishop_mobility", "X", 4, 4),          # per square a bishop reaches
    ("rook_mobility", "X", 2, 4),            # per square a rook reaches
    ("pin", "X", 15, 10),                    # enemy piece pinned by our bishop or rook
    ("xray", "X", 8, 4),                     # our bishop or rook sees an enemy Q/K/R through one piece
    ("king_adjacent_control", "X", 6, 0),    # square next to the enemy king hit by our bishop or rook
    ("knight_king_proximity", "X", 3, 0),    # per step closer than 7 to the enemy king
    ("queen_king_proximity", "X", 3, 0),
    ("king_zone_attack", "K", -7, 0),        # per attack unit on squares around our king
    ("king_zone_queen", "K", -12, 0),        # the enemy queen among those attackers
    ("king_shelter_missing", "K", -11, 0),   # per missing own pawn in front of the king
    ("king_exposure", "K", -2, 0),           # per square a queen on our king's square would reach
    ("isolated_pawn", "P", -10, -15),
    ("doubled_pawn", "P", -10, -20),
    ("tripled_pawn", "P", -10, -15),
    ("passed_pawn", "P", 5, 12),             # times a factor of the relative rank
    ("unopposed_pawn", "P", 3, 6),           # no enemy pawn ahead on its file
    ("centre_pawn_advance", "P", 6, 0),      # per rank a d/e pawn has advanced (up to 2)
    ("centre_pawn_blocked", "P", -12, -4),   # d/e pawn that cannot advance
    ("attacked_by_lower", "A", -22, -16),    # piece attacked by a cheaper enemy piece
    ("hanging", "A", -18, -12),              # piece attacked and not defended
    ("undefended_pieces", "A", -10, -10),    # extra, when two or more pieces are undefended
    ("rook_open_file", "R", 25, 10),
    ("rook_half_open_file", "R", 12, 8),
    ("king_half_open_file", "R", -18, 0),    # no own pawn on the king's file
    ("king_no_adjacent_pawns", "R", -14, 0), # no own pawn on the files beside the king
    ("king_pawn_distance", "R", 0, -4),      # per step from the king to the nearest pawn
)

N_PARAMS = len(TERMS)
PARAM_NAMES = tuple(t[0] for t in TERMS)
PARAM_CATEGORY = tuple(t[1] for t in TERMS)
DEFAULT_PARAMS = np.array([[t[2], t[3]] for t in TERMS], np.int64)

(PAWN_VALUE, KNIGHT_VALUE, BISHOP_VALUE, ROOK_VALUE, QUEEN_VALUE, BISHOP_PAIR, KNIGHT_PAIR, BISHOP_MOBILITY,
 ROOK_MOBILITY, PIN, XRAY, KING_ADJACENT_CONTROL, KNIGHT_KING_PROXIMITY, QUEEN_KING_PROXIMITY, KING_ZONE_ATTACK,
 KING_ZONE_QUEEN, KING_SHELTER_MISSING, KING_EXPOSURE, ISOLATED_PAWN, DOUBLED_PAWN, TRIPLED_PAWN, PASSED_PAWN,
 UNOPPOSED_PAWN, CENTRE_PAWN_ADVANCE, CENTRE_PAWN_BLOCKED, ATTACKED_BY_LOWER, HANGING, UNDEFENDED_PIECES,
 ROOK_OPEN_FILE, ROOK_HALF_OPEN_FILE, KING_HALF_OPEN_FILE, KING_NO_ADJACENT_PAWNS,
 KING_PAWN_DISTANCE) = range(N_PARAMS)


def param_index(name: str) -> int:
    return PARAM_NAMES.index(name)
