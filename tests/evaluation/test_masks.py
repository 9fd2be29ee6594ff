"""The evaluation's bitboard masks against python-chess's squares and distances."""
import chess
import numpy as np

from evaluation.masks import (ADJACENT_FILES, BISHOP_LINES, CENTRE_DISTANCE, DISTANCE, FORWARD_FILE, KING_ZONE,
                              PASSED_SPAN, ROOK_LINES, SHELTER, WITHIN)


def squares(mask) -> set[int]:
    return set(chess.SquareSet(int(mask)))


def ahead(square: int, colour: int, files: range, ranks: int = 8) -> set[int]:
    """Squares on ``files`` in front of ``square`` from ``colour``'s side (0 White), at most ``ranks`` ranks."""
    rank = chess.square_rank(square)
    steps = range(rank + 1, min(8, rank + 1 + ranks)) if colour == 0 else range(rank - 1, max(-1, rank - 1 - ranks), -1)
    return {chess.square(f, r) for r in steps for f in files if 0 <= f < 8}


def test_pawn_masks_are_the_squares_ahead_on_the_file_and_its_neighbours():
    for square in chess.SQUARES:
        f = chess.square_file(square)
        for colour in (0, 1):
            assert squares(FORWARD_FILE[colour, square]) == ahead(square, colour, range(f, f + 1))
            assert squares(PASSED_SPAN[colour, square]) == ahead(square, colour, range(f - 1, f + 2))
            assert squares(SHELTER[colour, square]) == ahead(square, colour, range(f - 1, f + 2), ranks=2)
    assert squares(SHELTER[0, chess.G1]) == {chess.F2, chess.G2, chess.H2, chess.F3, chess.G3, chess.H3}


def test_adjacent_files_leave_out_the_file_itself():
    for f in range(8):
        expected = {s for s in chess.SQUARES if abs(chess.square_file(s) - f) == 1}
        assert squares(ADJACENT_FILES[f]) == expected


def test_king_zone_and_distances_are_python_chess_s():
    for a in chess.SQUARES:
        assert squares(KING_ZONE[a]) == set(chess.SquareSet(chess.BB_KING_ATTACKS[a])) | {a}
        for b in chess.SQUARES:
            assert DISTANCE[a, b] == chess.square_distance(a, b)
        for d in range(8):
            assert squares(WITHIN[a, d]) == {b for b in chess.SQUARES if chess.square_distance(a, b) <= d}


def test_slider_lines_are_the_attacks_on_an_empty_board():
    empty = chess.Board(None)
    for s in chess.SQUARES:
        empty.set_piece_at(s, chess.Piece(chess.BISHOP, chess.WHITE))
        assert squares(BISHOP_LINES[s]) == set(empty.attacks(s))
        empty.set_piece_at(s, chess.Piece(chess.ROOK, chess.WHITE))
        assert squares(ROOK_LINES[s]) == set(empty.attacks(s))
        empty.remove_piece_at(s)


def test_centre_distance_is_zero_in_the_centre_and_three_in_the_corners():
    assert {CENTRE_DISTANCE[s] for s in (chess.D4, chess.E4, chess.D5, chess.E5)} == {0}
    assert {CENTRE_DISTANCE[s] for s in (chess.A1, chess.H1, chess.A8, chess.H8)} == {3}
    assert CENTRE_DISTANCE[chess.B7] == 2 and CENTRE_DISTANCE[chess.C4] == 1
    assert np.array_equal(CENTRE_DISTANCE.reshape(8, 8), CENTRE_DISTANCE.reshape(8, 8)[::-1, ::-1])  # symmetric
