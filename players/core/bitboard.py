"""Bitboard primitives and precomputed attack tables.

Squares are numbered as in python-chess: a1 = 0, b1 = 1, ..., h8 = 63.  Every
bitboard is a ``uint64``.  Numba promotes ``uint64`` mixed with ``int64`` to
float, so every constant here is an explicit ``np.uint64`` and the helpers take
and return ``uint64``.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .magics import BISHOP_MAGICS, ROOK_MAGICS

U0 = np.uint64(0)
U1 = np.uint64(1)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)

FILE_A = np.uint64(0x0101010101010101)
FILE_H = np.uint64(0x8080808080808080)
RANK_1 = np.uint64(0x00000000000000FF)
RANK_2 = np.uint64(0x000000000000FF00)
RANK_3 = np.uint64(0x0000000000FF0000)
RANK_4 = np.uint64(0x00000000FF000000)
RANK_5 = np.uint64(0x000000FF00000000)
RANK_6 = np.uint64(0x0000FF0000000000)
RANK_7 = np.uint64(0x00FF000000000000)
RANK_8 = np.uint64(0xFF00000000000000)
NOT_FILE_A = ~FILE_A
NOT_FILE_H = ~FILE_H
LIGHT_SQUARES = np.uint64(0x55AA55AA55AA55AA)
DARK_SQUARES = ~LIGHT_SQUARES


@intrinsic
def popcount(typingctx, x):
    """Number of set bits (LLVM ``ctpop``, one instruction on x86-64)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def lsb(typingctx, x):
    """Index of the lowest set bit; undefined for 0 (LLVM ``cttz``)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.uint64), codegen


@njit(cache=True, inline="always")
def bit(sq):
    return U1 << np.uint64(sq)


@njit(cache=True)
def _ray_attacks(sq, occ, dirs):
    """Slow reference: attacks of a slider from ``sq`` along ``dirs`` given ``occ``."""
    att = U0
    r0, f0 = sq // 8, sq % 8
    for d in range(dirs.shape[0]):
        dr, df = dirs[d, 0], dirs[d, 1]
        r, f = r0 + dr, f0 + df
        while 0 <= r < 8 and 0 <= f < 8:
            b = U1 << np.uint64(r * 8 + f)
            att |= b
            if occ & b:
                break
            r += dr
            f += df
    return att


@njit(cache=True)
def _relevant_mask(sq, dirs):
    """Squares whose occupancy changes the slider's attacks (board edges excluded)."""
    m = U0
    r0, f0 = sq // 8, sq % 8
    for d in range(dirs.shape[0]):
        dr, df = dirs[d, 0], dirs[d, 1]
        r, f = r0 + dr, f0 + df
        while 0 <= r + dr < 8 and 0 <= f + df < 8:
            m |= U1 << np.uint64(r * 8 + f)
            r += dr
            f += df
    return m


@njit(cache=True)
def build_slider_table(dirs, magics):
    """Fill the magic lookup table; returns (masks, shifts, offsets, table, collisions)."""
    masks = np.zeros(64, np.uint64)
    shifts = np.zeros(64, np.uint64)
    offsets = np.zeros(64, np.int64)
    total = 0
    for sq in range(64):
        masks[sq] = _relevant_mask(sq, dirs)
        bits = popcount(masks[sq])
        shifts[sq] = np.uint64(64 - bits)
        offsets[sq] = total
        total += 1 << bits
    table = np.zeros(total, np.uint64)
    filled = np.zeros(total, np.bool_)
    collisions = 0
    for sq in range(64):
        mask = masks[sq]
        sub = U0
        while True:
            idx = offsets[sq] + np.int64((sub * magics[sq]) >> shifts[sq])
            att = _ray_attacks(sq, sub, dirs)
            if filled[idx] and table[idx] != att:
                collisions += 1
            table[idx] = att
            filled[idx] = True
            sub = (sub - mask) & mask
            if sub == U0:
                break
    return masks, shifts, offsets, table, collisions


@njit(cache=True)
def _leaper_tables(knight_d, king_d):
    knight = np.zeros(64, np.uint64)
    king = np.zeros(64, np.uint64)
    pawn = np.zeros((2, 64), np.uint64)
    for sq in range(64):
        r, f = sq // 8, sq % 8
        for i in range(8):
            rr, ff = r + knight_d[i, 0], f + knight_d[i, 1]
            if 0 <= rr < 8 and 0 <= ff < 8:
                knight[sq] |= U1 << np.uint64(rr * 8 + ff)
            rr, ff = r + king_d[i, 0], f + king_d[i, 1]
            if 0 <= rr < 8 and 0 <= ff < 8:
                king[sq] |= U1 << np.uint64(rr * 8 + ff)
        for df in (-1, 1):
            ff = f + df
            if 0 <= ff < 8:
                if r < 7:
                    pawn[0, sq] |= U1 << np.uint64((r + 1) * 8 + ff)
                if r > 0:
                    pawn[1, sq] |= U1 << np.uint64((r - 1) * 8 + ff)
    return knight, king, pawn


@njit(cache=True)
def _line_tables(queen_dirs):
    """BETWEEN[a, b]: squares strictly between aligned a and b; LINE[a, b]: the whole line."""
    between = np.zeros((64, 64), np.uint64)
    line = np.zeros((64, 64), np.uint64)
    for a in range(64):
        ra, fa = a // 8, a % 8
        for d in range(8):
            dr, df = queen_dirs[d, 0], queen_dirs[d, 1]
            full = U1 << np.uint64(a)
            r, f = ra + dr, fa + df
            while 0 <= r < 8 and 0 <= f < 8:
                full |= U1 << np.uint64(r * 8 + f)
                r += dr
                f += df
            r, f = ra - dr, fa - df
            while 0 <= r < 8 and 0 <= f < 8:
                full |= U1 << np.uint64(r * 8 + f)
                r -= dr
                f -= df
            acc = U0
            r, f = ra + dr, fa + df
            while 0 <= r < 8 and 0 <= f < 8:
                b = r * 8 + f
                between[a, b] = acc
                line[a, b] = full
                acc |= U1 << np.uint64(b)
                r += dr
                f += df
    return between, line


ROOK_DIRS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], np.int64)
BISHOP_DIRS = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], np.int64)
QUEEN_DIRS = np.concatenate((ROOK_DIRS, BISHOP_DIRS))
_KNIGHT_D = np.array([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]], np.int64)

KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS = _leaper_tables(_KNIGHT_D, QUEEN_DIRS)
ROOK_MASKS, ROOK_SHIFTS, ROOK_OFFSETS, ROOK_TABLE, ROOK_COLLISIONS = build_slider_table(ROOK_DIRS, ROOK_MAGICS)
BISHOP_MASKS, BISHOP_SHIFTS, BISHOP_OFFSETS, BISHOP_TABLE, BISHOP_COLLISIONS = build_slider_table(
    BISHOP_DIRS, BISHOP_MAGICS)
BETWEEN, LINE = _line_tables(QUEEN_DIRS)

FILES = np.array([FILE_A << np.uint64(f) for f in range(8)], np.uint64)
RANKS = np.array([RANK_1 << np.uint64(8 * r) for r in range(8)], np.uint64)


@njit(cache=True, inline="always")
def rook_attacks(sq, occ):
    idx = ROOK_OFFSETS[sq] + np.int64(((occ & ROOK_MASKS[sq]) * ROOK_MAGICS[sq]) >> ROOK_SHIFTS[sq])
    return ROOK_TABLE[idx]


@njit(cache=True, inline="always")
def bishop_attacks(sq, occ):
    idx = BISHOP_OFFSETS[sq] + np.int64(((occ & BISHOP_MASKS[sq]) * BISHOP_MAGICS[sq]) >> BISHOP_SHIFTS[sq])
    return BISHOP_TABLE[idx]


@njit(cache=True, inline="always")
def queen_attacks(sq, occ):
    return rook_attacks(sq, occ) | bishop_attacks(sq, occ)
