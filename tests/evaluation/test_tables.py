"""The piece-square tables as data: written rank 8 first, stored a1 = 0, and a phase that
counts 24 with every minor and major piece on the board."""
import chess

from evaluation.tables import PHASE_MAX, PHASE_WEIGHT, PST

PAWN, KNIGHT, KING = 0, 1, 5


def test_the_start_position_is_the_whole_phase():
    board = chess.Board()
    phase = sum(PHASE_WEIGHT[t - 1] * len(board.pieces(t, c)) for t in chess.PIECE_TYPES for c in chess.COLORS)
    assert phase == PHASE_MAX


def test_tables_are_stored_a1_first_from_white_s_side():
    for phase in (0, 1):
        assert (PST[phase, PAWN, chess.A1:chess.H1 + 1] == 0).all()  # no pawn stands on rank 1
        assert (PST[phase, PAWN, chess.A8:chess.H8 + 1] == 0).all()  # nor on rank 8
    # rank 7 (one step from promoting) is rank 7 of the stored table, not rank 2
    assert PST[1, PAWN, chess.A7:chess.H7 + 1].mean() > PST[1, PAWN, chess.A2:chess.H2 + 1].mean()
    # a knight is worse on the rim than in the centre, in either phase
    assert (PST[:, KNIGHT, chess.A1] < PST[:, KNIGHT, chess.D4]).all()
    # in the endgame the king belongs in the centre, not in its corner
    assert PST[1, KING, chess.E4] > PST[1, KING, chess.H1]
