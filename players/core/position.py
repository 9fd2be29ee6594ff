"""Position state on plain arrays: placing pieces, make/unmake with incremental
Zobrist keys, attack queries, repetition and insufficient material.

See ``moves.py`` for the array layout.  The en-passant square is recorded only
when a pawn of the side to move stands next to the double-pushed pawn (the
Polyglot rule), so two positions that differ only in a useless ep square are
the same for repetition and for the transposition table.
"""
import numpy as np
from numba import njit

from .bitboard import (BETWEEN, LINE, bishop_attacks, KING_ATTACKS, KNIGHT_ATTACKS,
                       PAWN_ATTACKS, U0, bit, popcount, lsb, rook_attacks, LIGHT_SQUARES, DARK_SQUARES)
from .hot import hot
from .moves import (BISHOP, BLACK, CASTLE_BK, CASTLE_BQ, CASTLE_WK, CASTLE_WQ, EMPTY, FLAG_CASTLE,
                    FLAG_DOUBLE_PUSH, FLAG_EN_PASSANT, H_CAPTURED, H_CASTLE, H_EP, H_HALFMOVE, H_MOVE, KING,
                    KNIGHT, OCC_WHITE, PAWN, QUEEN, ROOK, ST_CASTLE, ST_EP, ST_HALFMOVE, ST_PLY, ST_SIDE,
                    WHITE, move_flag, move_from, move_promo, move_to)
from .zobrist import ZOBRIST_CASTLE, ZOBRIST_EP_FILE, ZOBRIST_PIECE, ZOBRIST_WHITE_TO_MOVE

# Castling rights kept after a move touches a square (king or rook squares clear them).
CASTLE_KEEP = np.full(64, 15, np.int64)
CASTLE_KEEP[0] = 15 & ~CASTLE_WQ
CASTLE_KEEP[7] = 15 & ~CASTLE_WK
CASTLE_KEEP[4] = 15 & ~(CASTLE_WK | CASTLE_WQ)
CASTLE_KEEP[56] = 15 & ~CASTLE_BQ
CASTLE_KEEP[63] = 15 & ~CASTLE_BK
CASTLE_KEEP[60] = 15 & ~(CASTLE_BK | CASTLE_BQ)


@njit(cache=True, inline="always")
def occupancy(bb):
    return bb[12] | bb[13]


@njit(cache=True, inline="always")
def current_key(pos):
    return pos[4][pos[2][ST_PLY]]


@njit(cache=True, inline="always")
def put_piece(bb, board, piece, sq):
    b = bit(sq)
    bb[piece] |= b
    bb[OCC_WHITE + piece // 6] |= b
    board[sq] = piece


@njit(cache=True, inline="always")
def remove_piece(bb, board, piece, sq):
    b = ~bit(sq)
    bb[piece] &= b
    bb[OCC_WHITE + piece // 6] &= b
    board[sq] = EMPTY


@njit(cache=True, inline="always")
def move_piece(bb, board, piece, fr, to):
    b = bit(fr) | bit(to)
    bb[piece] ^= b
    bb[OCC_WHITE + piece // 6] ^= b
    board[fr] = EMPTY
    board[to] = piece


@hot()
def attackers_to(bb, sq, occ):
    """Pieces of both colours attacking ``sq`` given the occupancy ``occ``."""
    rooks_queens = bb[ROOK] | bb[QUEEN] | bb[6 + ROOK] | bb[6 + QUEEN]
    bishops_queens = bb[BISHOP] | bb[QUEEN] | bb[6 + BISHOP] | bb[6 + QUEEN]
    return ((PAWN_ATTACKS[BLACK, sq] & bb[PAWN]) | (PAWN_ATTACKS[WHITE, sq] & bb[6 + PAWN])
            | (KNIGHT_ATTACKS[sq] & (bb[KNIGHT] | bb[6 + KNIGHT]))
            | (KING_ATTACKS[sq] & (bb[KING] | bb[6 + KING]))
            | (rook_attacks(sq, occ) & rooks_queens)
            | (bishop_attacks(sq, occ) & bishops_queens))


@hot()
def is_attacked(bb, sq, by, occ):
    """Whether side ``by`` attacks ``sq`` given the occupancy ``occ``."""
    o = 6 * by
    if PAWN_ATTACKS[1 - by, sq] & bb[o + PAWN]:
        return True
    if KNIGHT_ATTACKS[sq] & bb[o + KNIGHT]:
        return True
    if KING_ATTACKS[sq] & bb[o + KING]:
        return True
    if rook_attacks(sq, occ) & (bb[o + ROOK] | bb[o + QUEEN]):
        return True
    if bishop_attacks(sq, occ) & (bb[o + BISHOP] | bb[o + QUEEN]):
        return True
    return False


@njit(cache=True, inline="always")
def king_square(bb, side):
    return lsb(bb[6 * side + KING])


@hot()
def in_check(pos):
    bb = pos[0]
    side = pos[2][ST_SIDE]
    return is_attacked(bb, king_square(bb, side), 1 - side, occupancy(bb))


@hot()
def gives_check(pos, m):
    """Whether the legal move ``m`` checks the opponent, without making it: a direct check
    from the destination, or a discovered one from a slider behind the origin.  Castling,
    en passant and promotions (rare, and with more than one piece changing) are made and
    tested instead."""
    bb, board = pos[0], pos[1]
    if move_flag(m) == FLAG_CASTLE or move_flag(m) == FLAG_EN_PASSANT or move_promo(m) != 0:
        make_move(pos, m)
        checks = in_check(pos)
        unmake_move(pos)
        return checks
    fr, to = move_from(m), move_to(m)
    piece = board[fr]
    side = piece // 6
    ksq = king_square(bb, 1 - side)
    occ = (occupancy(bb) & ~bit(fr)) | bit(to)
    kind = piece % 6
    if kind == PAWN:
        if PAWN_ATTACKS[side, to] & bit(ksq):
            return True
    elif kind == KNIGHT:
        if KNIGHT_ATTACKS[to] & bit(ksq):
            return True
    elif kind == BISHOP:
        if bishop_attacks(to, occ) & bit(ksq):
            return True
    elif kind == ROOK:
        if rook_attacks(to, occ) & bit(ksq):
            return True
    elif kind == QUEEN:
        if (rook_attacks(to, occ) | bishop_attacks(to, occ)) & bit(ksq):
            return True
    o = 6 * side
    others = ~(bit(fr) | bit(to))  # the mover has left its square; a captured piece is gone
    return ((rook_attacks(ksq, occ) & (bb[o + ROOK] | bb[o + QUEEN]) & others)
            | (bishop_attacks(ksq, occ) & (bb[o + BISHOP] | bb[o + QUEEN]) & others)) != U0


@hot()
def check_info(pos):
    """What :func:`gives_check_with` needs to know about the side to move's checks, computed
    once for a node's moves: for each piece type the squares from which it would attack the
    enemy king, the own pieces whose leaving uncovers a slider's check (the discoverers), and
    the king's square.  A node that tests many moves saves the king's two slider lookups per
    move (Stockfish's CheckInfo)."""
    bb = pos[0]
    side = pos[2][ST_SIDE]
    ksq = king_square(bb, 1 - side)
    occ = occupancy(bb)
    o = 6 * side
    rooks = rook_attacks(ksq, occ)
    bishops = bishop_attacks(ksq, occ)
    discoverers = U0
    snipers = ((rook_attacks(ksq, U0) & (bb[o + ROOK] | bb[o + QUEEN]))
               | (bishop_attacks(ksq, U0) & (bb[o + BISHOP] | bb[o + QUEEN])))
    own = bb[OCC_WHITE + side]
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - np.uint64(1)
        blockers = BETWEEN[s, ksq] & occ
        if blockers != U0 and (blockers & (blockers - np.uint64(1))) == U0 and (blockers & own) != U0:
            discoverers |= blockers
    return (PAWN_ATTACKS[1 - side, ksq], KNIGHT_ATTACKS[ksq], bishops, rooks, rooks | bishops, U0,
            discoverers, np.uint64(ksq))


@njit(cache=True, inline="always")
def gives_check_with(pos, m, info):
    """:func:`gives_check` with the node's :func:`check_info`: two table tests for a plain
    move.  A direct check from a slider's destination is read from the king's own lines (the
    mover cannot be on the line behind its destination: it would be checking already); a
    discovered one needs a discoverer leaving its line to the king."""
    if move_flag(m) == FLAG_CASTLE or move_flag(m) == FLAG_EN_PASSANT or move_promo(m) != 0:
        return gives_check(pos, m)
    fr, to = move_from(m), move_to(m)
    if info[pos[1][fr] % 6] & bit(to):
        return True
    return (info[6] & bit(fr)) != U0 and (LINE[np.int64(info[7]), fr] & bit(to)) == U0


@njit(cache=True, inline="always")
def _ep_capturable(bb, to, side_to_move):
    """After a double push to ``to``, can a pawn of ``side_to_move`` stand beside it?"""
    b = bit(to)
    beside = ((b << np.uint64(1)) & np.uint64(0xFEFEFEFEFEFEFEFE)) | ((b >> np.uint64(1)) & np.uint64(0x7F7F7F7F7F7F7F7F))
    return (beside & bb[6 * side_to_move + PAWN]) != U0


@hot()
def compute_key(pos):
    """Zobrist key from scratch (the reference the incremental key must equal)."""
    board, st = pos[1], pos[2]
    key = U0
    for sq in range(64):
        p = board[sq]
        if p != EMPTY:
            key ^= ZOBRIST_PIECE[p, sq]
    key ^= ZOBRIST_CASTLE[st[ST_CASTLE]]
    if st[ST_EP] >= 0:
        key ^= ZOBRIST_EP_FILE[st[ST_EP] % 8]
    if st[ST_SIDE] == WHITE:
        key ^= ZOBRIST_WHITE_TO_MOVE
    return key


@hot()
def make_move(pos, m):
    """Play the (legal) move ``m``, recording what ``unmake_move`` needs."""
    bb, board, st, hist, keys = pos
    ply = st[ST_PLY]
    us = st[ST_SIDE]
    them = 1 - us
    fr = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    piece = board[fr]
    captured = board[to]
    key = keys[ply]

    hist[ply, H_MOVE] = m
    hist[ply, H_CASTLE] = st[ST_CASTLE]
    hist[ply, H_EP] = st[ST_EP]
    hist[ply, H_HALFMOVE] = st[ST_HALFMOVE]

    if st[ST_EP] >= 0:
        key ^= ZOBRIST_EP_FILE[st[ST_EP] % 8]
        st[ST_EP] = -1
    st[ST_HALFMOVE] += 1

    if flag == FLAG_EN_PASSANT:
        cap_sq = to - 8 if us == WHITE else to + 8
        captured = board[cap_sq]
        remove_piece(bb, board, captured, cap_sq)
        key ^= ZOBRIST_PIECE[captured, cap_sq]
    elif captured != EMPTY:
        remove_piece(bb, board, captured, to)
        key ^= ZOBRIST_PIECE[captured, to]
    hist[ply, H_CAPTURED] = captured
    if captured != EMPTY:
        st[ST_HALFMOVE] = 0

    move_piece(bb, board, piece, fr, to)
    key ^= ZOBRIST_PIECE[piece, fr] ^ ZOBRIST_PIECE[piece, to]

    if piece % 6 == PAWN:
        st[ST_HALFMOVE] = 0
        promo = move_promo(m)
        if promo != 0:
            new_piece = 6 * us + promo
            remove_piece(bb, board, piece, to)
            put_piece(bb, board, new_piece, to)
            key ^= ZOBRIST_PIECE[piece, to] ^ ZOBRIST_PIECE[new_piece, to]
        elif flag == FLAG_DOUBLE_PUSH and _ep_capturable(bb, to, them):
            ep = (fr + to) // 2
            st[ST_EP] = ep
            key ^= ZOBRIST_EP_FILE[ep % 8]
    elif flag == FLAG_CASTLE:
        if to > fr:
            rook_fr, rook_to = fr + 3, fr + 1
        else:
            rook_fr, rook_to = fr - 4, fr - 1
        rook = 6 * us + ROOK
        move_piece(bb, board, rook, rook_fr, rook_to)
        key ^= ZOBRIST_PIECE[rook, rook_fr] ^ ZOBRIST_PIECE[rook, rook_to]

    old_castle = st[ST_CASTLE]
    new_castle = old_castle & CASTLE_KEEP[fr] & CASTLE_KEEP[to]
    if new_castle != old_castle:
        key ^= ZOBRIST_CASTLE[old_castle] ^ ZOBRIST_CASTLE[new_castle]
        st[ST_CASTLE] = new_castle

    key ^= ZOBRIST_WHITE_TO_MOVE
    st[ST_SIDE] = them
    st[ST_PLY] = ply + 1
    keys[ply + 1] = key


@hot()
def unmake_move(pos):
    """Take back the last move made with ``make_move``."""
    bb, board, st, hist, keys = pos
    ply = st[ST_PLY] - 1
    m = hist[ply, H_MOVE]
    them = st[ST_SIDE]
    us = 1 - them
    fr = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    captured = hist[ply, H_CAPTURED]

    piece = board[to]
    if move_promo(m) != 0:
        remove_piece(bb, board, piece, to)
        piece = 6 * us + PAWN
        put_piece(bb, board, piece, to)
    move_piece(bb, board, piece, to, fr)
    if flag == FLAG_EN_PASSANT:
        put_piece(bb, board, captured, to - 8 if us == WHITE else to + 8)
    elif captured != EMPTY:
        put_piece(bb, board, captured, to)
    if flag == FLAG_CASTLE:
        if to > fr:
            rook_fr, rook_to = fr + 3, fr + 1
        else:
            rook_fr, rook_to = fr - 4, fr - 1
        move_piece(bb, board, 6 * us + ROOK, rook_to, rook_fr)

    st[ST_SIDE] = us
    st[ST_CASTLE] = hist[ply, H_CASTLE]
    st[ST_EP] = hist[ply, H_EP]
    st[ST_HALFMOVE] = hist[ply, H_HALFMOVE]
    st[ST_PLY] = ply


@hot()
def make_null_move(pos):
    """Pass the turn (null-move pruning).  The half-move clock is zeroed so that
    repetition detection never looks back across a null move."""
    bb, board, st, hist, keys = pos
    ply = st[ST_PLY]
    key = keys[ply]
    hist[ply, H_MOVE] = 0
    hist[ply, H_CAPTURED] = EMPTY
    hist[ply, H_CASTLE] = st[ST_CASTLE]
    hist[ply, H_EP] = st[ST_EP]
    hist[ply, H_HALFMOVE] = st[ST_HALFMOVE]
    if st[ST_EP] >= 0:
        key ^= ZOBRIST_EP_FILE[st[ST_EP] % 8]
        st[ST_EP] = -1
    st[ST_HALFMOVE] = 0
    st[ST_SIDE] = 1 - st[ST_SIDE]
    key ^= ZOBRIST_WHITE_TO_MOVE
    st[ST_PLY] = ply + 1
    keys[ply + 1] = key


@hot()
def unmake_null_move(pos):
    bb, board, st, hist, keys = pos
    ply = st[ST_PLY] - 1
    st[ST_SIDE] = 1 - st[ST_SIDE]
    st[ST_EP] = hist[ply, H_EP]
    st[ST_HALFMOVE] = hist[ply, H_HALFMOVE]
    st[ST_PLY] = ply


@hot()
def repetition_count(pos):
    """How many earlier positions, since the last irreversible move, share the
    current key (same side to move, so only every second ply is compared)."""
    st, keys = pos[2], pos[4]
    ply = st[ST_PLY]
    key = keys[ply]
    back = min(st[ST_HALFMOVE], ply)
    count = 0
    i = 4
    while i <= back:
        if keys[ply - i] == key:
            count += 1
        i += 2
    return count


@hot()
def insufficient_material(bb):
    """No sequence of legal moves can mate: K v K, K+minor v K, K+B v K+B on one colour."""
    if bb[PAWN] | bb[6 + PAWN] | bb[ROOK] | bb[6 + ROOK] | bb[QUEEN] | bb[6 + QUEEN]:
        return False
    knights = bb[KNIGHT] | bb[6 + KNIGHT]
    bishops = bb[BISHOP] | bb[6 + BISHOP]
    minors = popcount(knights | bishops)
    if minors <= 1:
        return True
    if knights == U0 and ((bishops & LIGHT_SQUARES) == U0 or (bishops & DARK_SQUARES) == U0):
        return True
    return False
