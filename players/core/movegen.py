"""Legal move generation and perft.

Moves are generated legal directly (no make/test/unmake): checkers and pinned
pieces are found once, pinned pieces may move only along the pin line, a king
may not step onto an attacked square, and when in check only evasions are made.
En passant, the one move that can expose the king along a rank, is checked by
re-testing slider attacks on the king with the two pawns removed.
"""
import numpy as np
from numba import njit, types

from .bitboard import (BETWEEN, KING_ATTACKS, KNIGHT_ATTACKS, LINE, PAWN_ATTACKS, RANK_1, RANK_3,
                       RANK_6, RANK_8, U0, U1, bishop_attacks, bit, lsb, rook_attacks)
from .hot import hot
from .moves import (POSITION_TYPE, BISHOP, CASTLE_BK, CASTLE_BQ, CASTLE_WK, CASTLE_WQ, FLAG_CASTLE, FLAG_DOUBLE_PUSH,
                    FLAG_EN_PASSANT, FLAG_NORMAL, KING, KNIGHT, MAX_MOVES, OCC_WHITE, PAWN, QUEEN, ROOK,
                    ST_CASTLE, ST_EP, ST_SIDE, WHITE, encode_move)
from .position import attackers_to, is_attacked, make_move, unmake_move


@hot()
def pinned_pieces(bb, side, ksq, occ):
    """Pieces of ``side`` that stand alone between their king and an enemy slider."""
    o = 6 * (1 - side)
    snipers = ((rook_attacks(ksq, U0) & (bb[o + ROOK] | bb[o + QUEEN]))
               | (bishop_attacks(ksq, U0) & (bb[o + BISHOP] | bb[o + QUEEN])))
    pinned = U0
    own = bb[OCC_WHITE + side]
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        blockers = BETWEEN[ksq, s] & occ
        if blockers != U0 and (blockers & (blockers - U1)) == U0 and (blockers & own):
            pinned |= blockers
    return pinned


@njit(cache=True, inline="always")
def _add_targets(out, n, fr, targets):
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        out[n] = fr | (to << 6)
        n += 1
    return n


@njit(cache=True, inline="always")
def _add_promotions(out, n, fr, to):
    """The four promotions of one pawn move, queen first."""
    out[n] = encode_move(fr, to, QUEEN, FLAG_NORMAL)
    out[n + 1] = encode_move(fr, to, KNIGHT, FLAG_NORMAL)
    out[n + 2] = encode_move(fr, to, ROOK, FLAG_NORMAL)
    out[n + 3] = encode_move(fr, to, BISHOP, FLAG_NORMAL)
    return n + 4


@njit(cache=True, inline="always")
def _add_pawn_moves(out, n, targets, offset, promotions, flag):
    """Pawn moves to each square of ``targets`` from ``to - offset``."""
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        fr = to - offset
        if promotions:
            n = _add_promotions(out, n, fr, to)
        else:
            out[n] = encode_move(fr, to, 0, flag)
            n += 1
    return n


@hot()
def generate_moves(pos, out, captures_only):
    """Write the legal moves into ``out`` and return how many there are.

    With ``captures_only`` (quiescence search) only captures and promotions are
    produced, unless the side to move is in check: then every evasion is.
    """
    bb, st = pos[0], pos[2]
    us = st[ST_SIDE]
    them = 1 - us
    o = 6 * us
    own = bb[OCC_WHITE + us]
    enemy = bb[OCC_WHITE + them]
    occ = own | enemy
    ksq = lsb(bb[o + KING])
    n = 0

    checkers = attackers_to(bb, ksq, occ) & enemy
    # King moves: the king itself must not shield the squares it steps onto.
    occ_no_king = occ ^ bit(ksq)
    ktargets = KING_ATTACKS[ksq] & ~own
    if captures_only and checkers == U0:
        ktargets &= enemy
    while ktargets:
        to = lsb(ktargets)
        ktargets &= ktargets - U1
        if not is_attacked(bb, to, them, occ_no_king):
            out[n] = ksq | (to << 6)
            n += 1
    if checkers & (checkers - U1):
        return n  # double check: only the king can move

    if checkers:
        csq = lsb(checkers)
        target = BETWEEN[ksq, csq] | checkers
    elif captures_only:
        target = enemy
    else:
        target = ~own
    pinned = pinned_pieces(bb, us, ksq, occ)

    # Knights (a pinned knight can never move).
    pieces = bb[o + KNIGHT] & ~pinned
    while pieces:
        fr = lsb(pieces)
        pieces &= pieces - U1
        n = _add_targets(out, n, fr, KNIGHT_ATTACKS[fr] & target)
    # Sliders.
    pieces = bb[o + BISHOP] | bb[o + QUEEN]
    while pieces:
        fr = lsb(pieces)
        pieces &= pieces - U1
        t = bishop_attacks(fr, occ) & target
        if pinned & bit(fr):
            t &= LINE[ksq, fr]
        n = _add_targets(out, n, fr, t)
    pieces = bb[o + ROOK] | bb[o + QUEEN]
    while pieces:
        fr = lsb(pieces)
        pieces &= pieces - U1
        t = rook_attacks(fr, occ) & target
        if pinned & bit(fr):
            t &= LINE[ksq, fr]
        n = _add_targets(out, n, fr, t)

    # Pawns: unpinned ones set-wise, pinned ones one by one.
    pawns = bb[o + PAWN]
    free = pawns & ~pinned
    empty = ~occ
    if us == WHITE:
        last_rank = RANK_8
        push1 = (free << np.uint64(8)) & empty
        push2 = ((push1 & RANK_3) << np.uint64(8)) & empty & target
        push1 &= target
        cap_l = ((free & np.uint64(0xFEFEFEFEFEFEFEFE)) << np.uint64(7)) & enemy & target
        cap_r = ((free & np.uint64(0x7F7F7F7F7F7F7F7F)) << np.uint64(9)) & enemy & target
        d1, d2, dl, dr = 8, 16, 7, 9
    else:
        last_rank = RANK_1
        push1 = (free >> np.uint64(8)) & empty
        push2 = ((push1 & RANK_6) >> np.uint64(8)) & empty & target
        push1 &= target
        cap_l = ((free & np.uint64(0xFEFEFEFEFEFEFEFE)) >> np.uint64(9)) & enemy & target
        cap_r = ((free & np.uint64(0x7F7F7F7F7F7F7F7F)) >> np.uint64(7)) & enemy & target
        d1, d2, dl, dr = -8, -16, -9, -7
    n = _add_pawn_moves(out, n, push1 & last_rank, d1, True, FLAG_NORMAL)
    n = _add_pawn_moves(out, n, cap_l & last_rank, dl, True, FLAG_NORMAL)
    n = _add_pawn_moves(out, n, cap_r & last_rank, dr, True, FLAG_NORMAL)
    n = _add_pawn_moves(out, n, cap_l & ~last_rank, dl, False, FLAG_NORMAL)
    n = _add_pawn_moves(out, n, cap_r & ~last_rank, dr, False, FLAG_NORMAL)
    if not captures_only or checkers:
        n = _add_pawn_moves(out, n, push1 & ~last_rank, d1, False, FLAG_NORMAL)
        n = _add_pawn_moves(out, n, push2, d2, False, FLAG_DOUBLE_PUSH)

    pinned_pawns = pawns & pinned
    while pinned_pawns:
        fr = lsb(pinned_pawns)
        pinned_pawns &= pinned_pawns - U1
        line = LINE[ksq, fr]
        caps = PAWN_ATTACKS[us, fr] & enemy & target & line
        n = _add_pawn_moves_from(out, n, fr, caps, last_rank)
        if not captures_only or checkers:
            one = (fr + 8) if us == WHITE else (fr - 8)
            if (occ & bit(one)) == U0 and (line & bit(one)):
                if target & bit(one):
                    n = _add_pawn_moves_from(out, n, fr, bit(one), last_rank)
                two = (fr + 16) if us == WHITE else (fr - 16)
                start_rank = (fr // 8 == 1) if us == WHITE else (fr // 8 == 6)
                if start_rank and (occ & bit(two)) == U0 and (target & bit(two)):
                    out[n] = encode_move(fr, two, 0, FLAG_DOUBLE_PUSH)
                    n += 1

    # En passant: verified by looking at the king's lines after the capture.
    ep = st[ST_EP]
    if ep >= 0:
        cap_sq = ep - 8 if us == WHITE else ep + 8
        if checkers == U0 or (checkers & bit(cap_sq)) or (target & bit(ep)):
            froms = PAWN_ATTACKS[them, ep] & pawns
            while froms:
                fr = lsb(froms)
                froms &= froms - U1
                after = (occ ^ bit(fr) ^ bit(cap_sq)) | bit(ep)
                o2 = 6 * them
                if rook_attacks(ksq, after) & (bb[o2 + ROOK] | bb[o2 + QUEEN]):
                    continue
                if bishop_attacks(ksq, after) & (bb[o2 + BISHOP] | bb[o2 + QUEEN]):
                    continue
                out[n] = encode_move(fr, ep, 0, FLAG_EN_PASSANT)
                n += 1

    # Castling: rights, empty path, and no attacked square on the king's way.
    if not captures_only and checkers == U0:
        rights = st[ST_CASTLE]
        if us == WHITE:
            if (rights & CASTLE_WK) and (occ & np.uint64(0x60)) == U0 \
                    and not is_attacked(bb, 5, them, occ) and not is_attacked(bb, 6, them, occ):
                out[n] = encode_move(4, 6, 0, FLAG_CASTLE)
                n += 1
            if (rights & CASTLE_WQ) and (occ & np.uint64(0x0E)) == U0 \
                    and not is_attacked(bb, 3, them, occ) and not is_attacked(bb, 2, them, occ):
                out[n] = encode_move(4, 2, 0, FLAG_CASTLE)
                n += 1
        else:
            if (rights & CASTLE_BK) and (occ & np.uint64(0x6000000000000000)) == U0 \
                    and not is_attacked(bb, 61, them, occ) and not is_attacked(bb, 62, them, occ):
                out[n] = encode_move(60, 62, 0, FLAG_CASTLE)
                n += 1
            if (rights & CASTLE_BQ) and (occ & np.uint64(0x0E00000000000000)) == U0 \
                    and not is_attacked(bb, 59, them, occ) and not is_attacked(bb, 58, them, occ):
                out[n] = encode_move(60, 58, 0, FLAG_CASTLE)
                n += 1
    return n


@njit(cache=True, inline="always")
def _add_pawn_moves_from(out, n, fr, targets, last_rank):
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        if bit(to) & last_rank:
            n = _add_promotions(out, n, fr, to)
        else:
            out[n] = encode_move(fr, to, 0, FLAG_NORMAL)
            n += 1
    return n


@hot(types.int64(POSITION_TYPE, types.int64, types.Array(types.int64, 2, "C"), types.int64))
def _perft(pos, depth, buffers, ply):
    out = buffers[ply]
    n = generate_moves(pos, out, False)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        make_move(pos, out[i])
        total += _perft(pos, depth - 1, buffers, ply + 1)
        unmake_move(pos)
    return total


@njit(cache=True)
def perft(pos, depth):
    """Leaf count of the legal move tree, counting the last ply in bulk."""
    if depth <= 0:
        return 1
    buffers = np.zeros((depth + 1, MAX_MOVES), np.int64)
    return _perft(pos, depth, buffers, 0)


@njit(cache=True)
def perft_divide(pos, depth, moves_out, counts_out):
    """Per-root-move leaf counts; returns the number of root moves."""
    buffers = np.zeros((depth + 1, MAX_MOVES), np.int64)
    n = generate_moves(pos, moves_out, False)
    for i in range(n):
        if depth <= 1:
            counts_out[i] = 1
        else:
            make_move(pos, moves_out[i])
            counts_out[i] = _perft(pos, depth - 1, buffers, 1)
            unmake_move(pos)
    return n


@njit(cache=True)
def play_moves(pos, wanted):
    """Play moves given by their from, to and promotion bits (``from | to << 6 | promo << 12``),
    each only if it is legal; returns how many were played (all of them, or the index of the
    first that is not legal).  A GUI sends the whole game before every ``go``: compiled, the
    replay is a small part of the move's time even for a long game, as it would not be in Python."""
    moves = np.empty(MAX_MOVES, np.int64)
    for k in range(len(wanted)):
        n = generate_moves(pos, moves, False)
        code = 0
        for i in range(n):
            if moves[i] & 0x7FFF == wanted[k]:
                code = moves[i]
                break
        if code == 0:
            return k
        make_move(pos, code)
    return len(wanted)
