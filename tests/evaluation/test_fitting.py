"""The fit's coefficients: a piece-square table counts each piece on its square, tapered
by the phase, Black's read mirrored."""
import chess
import numpy as np
import pytest
from scipy.sparse import csr_matrix

from evaluation.fitting import pst_coefficients


def test_pst_coefficients_count_pieces_on_their_squares():
    board = chess.Board("4k3/8/8/8/8/8/4P3/R3K3 b - - 0 1")  # phase 2 (a rook): 1/12 middlegame
    bbs = np.zeros((1, 14), np.uint64)
    for colour, c in ((chess.WHITE, 0), (chess.BLACK, 1)):
        for piece_type in chess.PIECE_TYPES:
            bbs[0, 6 * c + piece_type - 1] = board.pieces_mask(piece_type, colour)
    rows, columns, values = pst_coefficients(bbs)
    dense = csr_matrix((values, (rows, columns)), shape=(1, 768)).toarray()[0]
    assert dense[0 * 64 + chess.E2] == pytest.approx(2 / 24) and dense[384 + chess.E2] == pytest.approx(22 / 24)
    assert dense[3 * 64 + chess.A1] == pytest.approx(2 / 24)
    # Kings on e1 and e8: Black's reads the table at e8 ^ 56 = e1, so they cancel.
    assert dense[5 * 64 + chess.E1] == 0 and dense[384 + 5 * 64 + chess.E1] == 0
    assert np.count_nonzero(dense) == 4
