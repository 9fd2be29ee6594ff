"""The evaluation's scalar terms: one (middlegame, endgame) pair each, in centipawns.

The jitted evaluation reads them from an array passed at run time (never a frozen
global), so that ``tournaments/tuning.py`` can fit them without recompiling and an
instance could carry its own.  ``DEFAULT_PARAMS`` holds the fitted values
(``python -m tournaments.tuning --games 600``, seed 20261121: 20,441 positions,
Stockfish depth 8; held-out error 0.01509 -> 0.01311 against the hand values).
"""
import numpy as np

# (name, category, middlegame, endgame); the order fixes the indices below.
TERMS = (
    ("pawn_value", "M", 88, 92),
    ("knight_value", "M", 396, 354),
    ("bishop_value", "M", 403, 326),
    ("rook_value", "M", 496, 616),
    ("queen_value", "M", 1078, 1195),
    ("bishop_pair", "B", 24, 88),
    ("knight_pair", "B", -4, 0),
    ("bishop_mobility", "X", 4, 4),          # per square a bishop reaches
    ("rook_mobility", "X", 2, 5),            # per square a rook reaches
    ("pin", "X", 33, 122),                    # enemy piece pinned by our bishop or rook
    ("xray", "X", 8, 23),                     # our bishop or rook sees an enemy Q/K/R through one piece
    ("king_adjacent_control", "X", 10, 0),    # square next to the enemy king hit by our bishop or rook
    ("knight_king_proximity", "X", 6, 0),    # per step closer than 7 to the enemy king
    ("queen_king_proximity", "X", 2, 0),
    ("king_zone_attack", "K", -1, 0),        # per attack unit on squares around our king
    ("king_zone_queen", "K", -3, 0),        # the enemy queen among those attackers
    ("king_shelter_missing", "K", -15, 0),   # per missing own pawn in front of the king
    ("king_exposure", "K", -7, 0),           # per square a queen on our king's square would reach
    ("isolated_pawn", "P", -6, -13),
    ("doubled_pawn", "P", -1, -36),
    ("tripled_pawn", "P", -30, 0),
    ("passed_pawn", "P", 0, 12),             # times a factor of the relative rank
    ("unopposed_pawn", "P", 3, 6),           # no enemy pawn ahead on its file
    ("centre_pawn_advance", "P", 2, 0),      # per rank a d/e pawn has advanced (up to 2)
    ("centre_pawn_blocked", "P", 0, -60),   # d/e pawn that cannot advance
    ("attacked_by_lower", "A", -48, -4),    # piece attacked by a cheaper enemy piece
    ("hanging", "A", -2, -30),              # piece attacked and not defended
    ("undefended_pieces", "A", 0, -8),    # extra, when two or more pieces are undefended
    ("rook_open_file", "R", 35, 20),
    ("rook_half_open_file", "R", 26, 1),
    ("king_half_open_file", "R", -18, 0),    # no own pawn on the king's file
    ("king_no_adjacent_pawns", "R", -6, 0), # no own pawn on the files beside the king
    ("king_pawn_distance", "R", 0, -12),      # per step from the king to the nearest pawn
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
