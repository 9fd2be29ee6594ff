"""The attack tables (``players.core.bitboard`` with ``magics``) against python-chess's on every
square: leapers, sliders through magic multiplication on random occupancies, lines and the
squares between, and the popcount and lowest-bit intrinsics."""
import random

import chess
import numpy as np
from numba import njit

from players.core.bitboard import (
    BETWEEN,
    BISHOP_COLLISIONS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    LINE,
    PAWN_ATTACKS,
    ROOK_COLLISIONS,
    bishop_attacks,
    lsb,
    popcount,
    queen_attacks,
    rook_attacks,
)


def chess_rook(sq: int, occ: int) -> int:
    return (chess.BB_RANK_ATTACKS[sq][occ & chess.BB_RANK_MASKS[sq]]
            | chess.BB_FILE_ATTACKS[sq][occ & chess.BB_FILE_MASKS[sq]])


def chess_bishop(sq: int, occ: int) -> int:
    return chess.BB_DIAG_ATTACKS[sq][occ & chess.BB_DIAG_MASKS[sq]]


def occupancies(rng: random.Random, count: int):
    """Sparse, middling and dense boards: magic indexing errors show at every density."""
    for _ in range(count):
        density = rng.choice((0.1, 0.3, 0.6))
        yield sum(1 << s for s in range(64) if rng.random() < density)


def test_leaper_tables_match_python_chess():
    for sq in chess.SQUARES:
        assert int(KNIGHT_ATTACKS[sq]) == chess.BB_KNIGHT_ATTACKS[sq]
        assert int(KING_ATTACKS[sq]) == chess.BB_KING_ATTACKS[sq]
        assert int(PAWN_ATTACKS[0, sq]) == chess.BB_PAWN_ATTACKS[chess.WHITE][sq]
        assert int(PAWN_ATTACKS[1, sq]) == chess.BB_PAWN_ATTACKS[chess.BLACK][sq]


def test_slider_attacks_match_python_chess_on_random_occupancies():
    rng = random.Random(20261125)
    assert ROOK_COLLISIONS == 0 and BISHOP_COLLISIONS == 0  # every magic indexes without a clash
    for occ in occupancies(rng, 300):
        for sq in chess.SQUARES:
            o = np.uint64(occ)
            rook, bishop = chess_rook(sq, occ), chess_bishop(sq, occ)
            assert int(rook_attacks(sq, o)) == rook, (sq, hex(occ))
            assert int(bishop_attacks(sq, o)) == bishop, (sq, hex(occ))
            assert int(queen_attacks(sq, o)) == rook | bishop


def test_lines_and_squares_between_match_python_chess():
    for a in chess.SQUARES:
        for b in chess.SQUARES:
            if a != b:
                assert int(BETWEEN[a, b]) == chess.between(a, b), (a, b)
                assert int(LINE[a, b]) == chess.ray(a, b), (a, b)


@njit
def _count_and_lowest(x):
    return popcount(x), lsb(x)


def test_popcount_and_lowest_bit():
    rng = random.Random(7)
    for x in [1, 1 << 63, (1 << 64) - 1] + [rng.getrandbits(64) | 1 << rng.randrange(64) for _ in range(500)]:
        count, lowest = _count_and_lowest(np.uint64(x))
        assert (count, lowest) == (x.bit_count(), (x & -x).bit_length() - 1)
