"""The evaluation's scalar terms: one (middlegame, endgame) pair each, in centipawns.

The jitted evaluation reads them from an array passed at run time (never a frozen
global), so that ``tournaments/training/fit.py`` can fit them without recompiling and an
instance could carry its own.  ``DEFAULT_PARAMS`` holds the fitted values, fitted
together with the piece-square tables of ``tables.py`` (``concilio fit positions
--games 21000`` then ``concilio fit terms --tables --apply``: 1,035,449 distinct
positions of 20,562 Stockfish self-play games at depth 6, seed 20261123; the fit and
its SPRT are in ``CHANGELOG.md``).
"""
import numpy as np

# (name, category, middlegame, endgame); the order fixes the indices below.
TERMS = (
    ("pawn_value", "M", 78, 96),
    ("knight_value", "M", 373, 372),
    ("bishop_value", "M", 375, 376),
    ("rook_value", "M", 458, 663),
    ("queen_value", "M", 1001, 1232),
    ("bishop_pair", "B", 26, 81),
    ("knight_pair", "B", -14, 0),
    ("bishop_mobility", "X", 5, 2),          # per square a bishop reaches
    ("rook_mobility", "X", 3, 3),            # per square a rook reaches
    ("pin", "X", 51, 70),                    # enemy piece pinned by our bishop or rook
    ("xray", "X", 12, 0),                     # our bishop or rook sees an enemy Q/K/R through one piece
    ("king_adjacent_control", "X", 9, 0),    # square next to the enemy king hit by our bishop or rook
    ("knight_king_proximity", "X", 11, 0),    # per step closer than 7 to the enemy king
    ("queen_king_proximity", "X", 17, 0),
    ("king_zone_attack", "K", -2, 0),        # per attack unit on squares around our king
    ("king_zone_queen", "K", 0, 0),        # the enemy queen among those attackers
    ("king_shelter_missing", "K", -9, 0),   # per missing own pawn in front of the king
    ("king_exposure", "K", -7, 0),           # per square a queen on our king's square would reach
    ("isolated_pawn", "P", -21, -6),
    ("doubled_pawn", "P", -4, -35),
    ("tripled_pawn", "P", -7, 0),
    ("passed_pawn", "P", 0, 16),             # times a factor of the relative rank
    ("unopposed_pawn", "P", 0, 0),           # no enemy pawn ahead on its file
    ("centre_pawn_advance", "P", 9, 0),      # per rank a d/e pawn has advanced (up to 2)
    ("centre_pawn_blocked", "P", 0, -36),   # d/e pawn that cannot advance
    ("attacked_by_lower", "A", -53, -37),    # piece attacked by a cheaper enemy piece
    ("hanging", "A", -5, -40),              # piece attacked and not defended
    ("undefended_pieces", "A", 0, -15),    # extra, when two or more pieces are undefended
    ("rook_open_file", "R", 31, 0),
    ("rook_half_open_file", "R", 9, 26),
    ("king_half_open_file", "R", -17, 0),    # no own pawn on the king's file
    ("king_no_adjacent_pawns", "R", -6, 0), # no own pawn on the files beside the king
    ("king_pawn_distance", "R", 0, -24),      # per step from the king to the nearest pawn
)

N_PARAMS = len(TERMS)
PARAM_NAMES = tuple(t[0] for t in TERMS)
DEFAULT_PARAMS = np.array([[t[2], t[3]] for t in TERMS], np.int64)

(PAWN_VALUE, KNIGHT_VALUE, BISHOP_VALUE, ROOK_VALUE, QUEEN_VALUE, BISHOP_PAIR, KNIGHT_PAIR, BISHOP_MOBILITY,
 ROOK_MOBILITY, PIN, XRAY, KING_ADJACENT_CONTROL, KNIGHT_KING_PROXIMITY, QUEEN_KING_PROXIMITY, KING_ZONE_ATTACK,
 KING_ZONE_QUEEN, KING_SHELTER_MISSING, KING_EXPOSURE, ISOLATED_PAWN, DOUBLED_PAWN, TRIPLED_PAWN, PASSED_PAWN,
 UNOPPOSED_PAWN, CENTRE_PAWN_ADVANCE, CENTRE_PAWN_BLOCKED, ATTACKED_BY_LOWER, HANGING, UNDEFENDED_PIECES,
 ROOK_OPEN_FILE, ROOK_HALF_OPEN_FILE, KING_HALF_OPEN_FILE, KING_NO_ADJACENT_PAWNS,
 KING_PAWN_DISTANCE) = range(N_PARAMS)
