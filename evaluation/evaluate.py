"""The evaluation the search calls: seven categories, each skipped when masked out.

``evaluate(pos, mask, weights, params, terms, attacks, counts)`` fills
``terms[c, colour]`` with each category's tapered value for White and Black
(unweighted centipawns) and returns the weighted total from the side to move's
point of view.  The total is the sum of the per-category nets, each rounded on its
own, so a trace adds up exactly.

Attacks are computed once per call, and only when X, K or A needs them; they are
shared by those categories (and feed the king-zone attack count of K).

Where the bare-king bonus lives: GnuChess gives it outside its categories.  Here it
is part of **M**, because M is the category every instance of an ensemble has (an
instance without material is an error unless a file allows it), so every instance
knows how to convert KPK/KBNK/KRK-type endings in the same way.
"""
import numpy as np
from numba import njit

from players.core.bitboard import (BETWEEN, KING_ATTACKS, KNIGHT_ATTACKS, U0, U1, FILES, bishop_attacks, bit, lsb,
                                   popcount, queen_attacks, rook_attacks, LIGHT_SQUARES)
from players.core.hot import hot
from players.core.moves import BISHOP, KING, KNIGHT, OCC_WHITE, PAWN, QUEEN, ROOK, ST_SIDE, WHITE
from .masks import (ADJACENT_FILES, CENTRE_DISTANCE, CENTRE_FILES, DISTANCE, FORWARD_FILE, KING_ZONE,
                    PASSED_RANK_FACTOR, PASSED_SPAN, SHELTER, WITHIN, BISHOP_LINES, ROOK_LINES)
from .params import (ATTACKED_BY_LOWER, BISHOP_MOBILITY, BISHOP_PAIR, CENTRE_PAWN_ADVANCE, CENTRE_PAWN_BLOCKED,
                     DOUBLED_PAWN, HANGING, ISOLATED_PAWN, KING_ADJACENT_CONTROL, KING_EXPOSURE,
                     KING_HALF_OPEN_FILE, KING_NO_ADJACENT_PAWNS, KING_PAWN_DISTANCE, KING_SHELTER_MISSING,
                     KING_ZONE_ATTACK, KING_ZONE_QUEEN, KNIGHT_KING_PROXIMITY, KNIGHT_PAIR, PASSED_PAWN, PAWN_VALUE,
                     PIN, QUEEN_KING_PROXIMITY, ROOK_HALF_OPEN_FILE, ROOK_MOBILITY, ROOK_OPEN_FILE, TRIPLED_PAWN,
                     UNDEFENDED_PIECES, UNOPPOSED_PAWN, XRAY)
from .tables import PHASE_MAX, PHASE_WEIGHT, PST

CAT_M, CAT_B, CAT_X, CAT_K, CAT_P, CAT_A, CAT_R = 0, 1, 2, 3, 4, 5, 6
N_CATEGORIES = 7
# attacks[colour, slot]: slots 0-5 attacks by piece type, 6 all attacks, 7 squares attacked twice.
ATT_ALL, ATT_TWICE = 6, 7
# counts[colour, slot]
CNT_BISHOP_MOB, CNT_ROOK_MOB, CNT_KING_UNITS, CNT_QUEEN_ON_ZONE = 0, 1, 2, 3
KING_ATTACK_UNITS = np.array([0, 2, 2, 3, 5, 0], np.int64)  # by the attacking piece's type

BARE_KING_WIN = 200  # on top of material: the side with the bare king is lost
PAWN_CACHE_SIZE = 1 << 12  # entries of a search's pawn cache (a power of two)


def new_scratch():
    """Work arrays ``(terms, attacks, counts)`` for one searcher (no allocation per call)."""
    return np.zeros((7, 2), np.int64), np.zeros((2, 8), np.uint64), np.zeros((2, 4), np.int64)


@njit(cache=True, inline="always")
def category_on(mask, cat):
    return (mask >> (6 - cat)) & 1


@njit(cache=True, inline="always")
def taper(mg, eg, phase):
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


@hot()
def game_phase(bb):
    """24 with every minor and major piece on the board, 0 with none: the smooth
    counterpart of GnuChess's opening / middlegame / endgame stage."""
    phase = 0
    for colour in range(2):
        for t in range(1, 5):
            phase += PHASE_WEIGHT[t] * popcount(bb[6 * colour + t])
    return min(phase, PHASE_MAX)


@hot()
def compute_attacks(bb, attacks, counts):
    """Every attack of both sides, once: by piece type, all, twice; plus bishop and
    rook mobility and the attack units aimed at the enemy king's zone."""
    occ = bb[12] | bb[13]
    attacks[:, :] = U0
    counts[:, :] = 0
    for c in range(2):
        o = 6 * c
        own = bb[OCC_WHITE + c]
        enemy_zone = KING_ZONE[lsb(bb[6 * (1 - c) + KING])]
        pawns = bb[o + PAWN]
        if c == WHITE:
            left = (pawns & np.uint64(0xFEFEFEFEFEFEFEFE)) << np.uint64(7)
            right = (pawns & np.uint64(0x7F7F7F7F7F7F7F7F)) << np.uint64(9)
        else:
            left = (pawns & np.uint64(0xFEFEFEFEFEFEFEFE)) >> np.uint64(9)
            right = (pawns & np.uint64(0x7F7F7F7F7F7F7F7F)) >> np.uint64(7)
        all_att = left | right
        twice = left & right
        attacks[c, PAWN] = all_att
        for t in range(1, 6):
            pieces = bb[o + t]
            while pieces:
                sq = lsb(pieces)
                pieces &= pieces - U1
                if t == KNIGHT:
                    a = KNIGHT_ATTACKS[sq]
                elif t == BISHOP:
                    a = bishop_attacks(sq, occ)
                    counts[c, CNT_BISHOP_MOB] += popcount(a & ~own)
                elif t == ROOK:
                    a = rook_attacks(sq, occ)
                    counts[c, CNT_ROOK_MOB] += popcount(a & ~own)
                elif t == QUEEN:
                    a = queen_attacks(sq, occ)
                else:
                    a = KING_ATTACKS[sq]
                if t != KING and (a & enemy_zone):
                    counts[c, CNT_KING_UNITS] += KING_ATTACK_UNITS[t]
                    if t == QUEEN:
                        counts[c, CNT_QUEEN_ON_ZONE] = 1
                twice |= all_att & a
                all_att |= a
                attacks[c, t] |= a
        attacks[c, ATT_ALL] = all_att
        attacks[c, ATT_TWICE] = twice


@hot()
def _has_mating_material(bb, c):
    o = 6 * c
    if bb[o + PAWN] | bb[o + ROOK] | bb[o + QUEEN]:
        return True
    minors = popcount(bb[o + KNIGHT] | bb[o + BISHOP])
    return minors >= 2 and popcount(bb[o + KNIGHT]) < minors  # B+N or two bishops, not two knights


@hot()
def evaluate_material(bb, phase, params, terms):
    """Piece values, and the bare-king bonus: drive the lone king to the edge (to the
    bishop's corner in KBNK) and bring the own king closer."""
    for c in range(2):
        o = 6 * c
        mg = 0
        eg = 0
        for t in range(5):
            n = popcount(bb[o + t])
            mg += n * params[PAWN_VALUE + t, 0]
            eg += n * params[PAWN_VALUE + t, 1]
        terms[CAT_M, c] = taper(mg, eg, phase)
        e = 1 - c
        if bb[OCC_WHITE + e] == bb[6 * e + KING] and _has_mating_material(bb, c):
            weak_king = lsb(bb[6 * e + KING])
            strong_king = lsb(bb[o + KING])
            drive = CENTRE_DISTANCE[weak_king]
            bishops = bb[o + BISHOP]
            if popcount(bishops) == 1 and popcount(bb[o + KNIGHT]) == 1 and bb[o + ROOK] == U0 \
                    and bb[o + QUEEN] == U0 and bb[o + PAWN] == U0:
                # KBNK: mate only in a corner of the bishop's colour.
                if bishops & LIGHT_SQUARES:
                    drive = 7 - min(DISTANCE[weak_king, 7], DISTANCE[weak_king, 56])
                else:
                    drive = 7 - min(DISTANCE[weak_king, 0], DISTANCE[weak_king, 63])
            terms[CAT_M, c] += BARE_KING_WIN + 10 * drive + 4 * (7 - DISTANCE[weak_king, strong_king])


@hot()
def evaluate_positional(bb, phase, params, terms):
    """Piece-square values (late-game bonuses are the endgame tables), bishop pair, knight pair."""
    for c in range(2):
        flip = 56 * c
        mg = 0
        eg = 0
        for t in range(6):
            pieces = bb[6 * c + t]
            while pieces:
                sq = lsb(pieces) ^ flip
                pieces &= pieces - U1
                mg += PST[0, t, sq]
                eg += PST[1, t, sq]
        if popcount(bb[6 * c + BISHOP]) >= 2:
            mg += params[BISHOP_PAIR, 0]
            eg += params[BISHOP_PAIR, 1]
        if popcount(bb[6 * c + KNIGHT]) >= 2:
            mg += params[KNIGHT_PAIR, 0]
            eg += params[KNIGHT_PAIR, 1]
        terms[CAT_B, c] = taper(mg, eg, phase)


@hot()
def evaluate_mobility_attacks(bb, phase, params, terms, attacks, counts):
    """Bishop and rook mobility; their pins and x-rays; their control of the squares
    next to the enemy king; knights and queen close to it."""
    occ = bb[12] | bb[13]
    for c in range(2):
        o = 6 * c
        e = 1 - c
        enemy = bb[OCC_WHITE + e]
        ek = lsb(bb[6 * e + KING])
        mg = counts[c, CNT_BISHOP_MOB] * params[BISHOP_MOBILITY, 0] + counts[c, CNT_ROOK_MOB] * params[ROOK_MOBILITY, 0]
        eg = counts[c, CNT_BISHOP_MOB] * params[BISHOP_MOBILITY, 1] + counts[c, CNT_ROOK_MOB] * params[ROOK_MOBILITY, 1]
        pins = 0
        xrays = 0
        for t in (BISHOP, ROOK):
            pieces = bb[o + t]
            valuable = bb[6 * e + KING] | bb[6 * e + QUEEN]
            if t == BISHOP:
                valuable |= bb[6 * e + ROOK]
            while pieces:
                sq = lsb(pieces)
                pieces &= pieces - U1
                lines = BISHOP_LINES[sq] if t == BISHOP else ROOK_LINES[sq]
                if (lines & valuable) == U0:
                    continue  # nothing on its lines to pin or x-ray: spare the two lookups
                if t == BISHOP:
                    direct = bishop_attacks(sq, occ)
                    behind = bishop_attacks(sq, occ ^ (direct & occ)) & ~direct
                else:
                    direct = rook_attacks(sq, occ)
                    behind = rook_attacks(sq, occ ^ (direct & occ)) & ~direct
                targets = behind & valuable
                while targets:
                    tsq = lsb(targets)
                    targets &= targets - U1
                    blocker = BETWEEN[sq, tsq] & occ
                    if blocker & enemy & ~bb[6 * e + PAWN]:
                        pins += 1
                    else:
                        xrays += 1
        mg += pins * params[PIN, 0] + xrays * params[XRAY, 0]
        eg += pins * params[PIN, 1] + xrays * params[XRAY, 1]
        control = popcount((attacks[c, BISHOP] | attacks[c, ROOK]) & KING_ATTACKS[ek])
        mg += control * params[KING_ADJACENT_CONTROL, 0]
        eg += control * params[KING_ADJACENT_CONTROL, 1]
        for t, term in ((KNIGHT, KNIGHT_KING_PROXIMITY), (QUEEN, QUEEN_KING_PROXIMITY)):
            near = 0
            pieces = bb[o + t]
            while pieces:
                sq = lsb(pieces)
                pieces &= pieces - U1
                near += 7 - DISTANCE[sq, ek]
            mg += near * params[term, 0]
            eg += near * params[term, 1]
        terms[CAT_X, c] = taper(mg, eg, phase)


@hot()
def evaluate_king_safety(bb, phase, params, terms, counts):
    """Enemy attacks on the king's zone (the queen above all), missing shelter pawns,
    and how open the king is to a queen."""
    occ = bb[12] | bb[13]
    for c in range(2):
        o = 6 * c
        e = 1 - c
        k = lsb(bb[o + KING])
        units = counts[e, CNT_KING_UNITS]
        mg = units * params[KING_ZONE_ATTACK, 0] + counts[e, CNT_QUEEN_ON_ZONE] * params[KING_ZONE_QUEEN, 0]
        eg = units * params[KING_ZONE_ATTACK, 1] + counts[e, CNT_QUEEN_ON_ZONE] * params[KING_ZONE_QUEEN, 1]
        shelter = SHELTER[c, k] & bb[o + PAWN]
        missing = 0
        kf = k % 8
        for f in range(max(0, kf - 1), min(7, kf + 1) + 1):
            if (shelter & FILES[f]) == U0:
                missing += 1
        mg += missing * params[KING_SHELTER_MISSING, 0]
        eg += missing * params[KING_SHELTER_MISSING, 1]
        if bb[6 * e + QUEEN]:
            exposure = popcount(queen_attacks(k, occ) & ~bb[OCC_WHITE + c])
            mg += exposure * params[KING_EXPOSURE, 0]
            eg += exposure * params[KING_EXPOSURE, 1]
        terms[CAT_K, c] = taper(mg, eg, phase)


@hot()
def pawn_terms(bb, params, out):
    """The pawn-only part of **P** into ``out`` (mg, eg of White, then of Black): isolated,
    doubled and tripled pawns; passed and unopposed pawns; centre pawns' advance.  It depends
    on the pawns alone, so the search keeps it in a pawn cache."""
    for c in range(2):
        o = 6 * c
        own = bb[o + PAWN]
        enemy = bb[6 * (1 - c) + PAWN]
        mg = 0
        eg = 0
        for f in range(8):
            n = popcount(own & FILES[f])
            if n >= 2:
                mg += (n - 1) * params[DOUBLED_PAWN, 0]
                eg += (n - 1) * params[DOUBLED_PAWN, 1]
            if n >= 3:
                mg += params[TRIPLED_PAWN, 0]
                eg += params[TRIPLED_PAWN, 1]
        pawns = own
        while pawns:
            sq = lsb(pawns)
            pawns &= pawns - U1
            f = sq % 8
            rel_rank = sq // 8 if c == WHITE else 7 - sq // 8
            if (own & ADJACENT_FILES[f]) == U0:
                mg += params[ISOLATED_PAWN, 0]
                eg += params[ISOLATED_PAWN, 1]
            if (enemy & PASSED_SPAN[c, sq]) == U0:
                factor = PASSED_RANK_FACTOR[rel_rank]
                mg += params[PASSED_PAWN, 0] * factor
                eg += params[PASSED_PAWN, 1] * factor
            if (enemy & FORWARD_FILE[c, sq]) == U0:
                mg += params[UNOPPOSED_PAWN, 0]
                eg += params[UNOPPOSED_PAWN, 1]
            if bit(sq) & CENTRE_FILES:
                advance = min(2, rel_rank - 1)
                mg += advance * params[CENTRE_PAWN_ADVANCE, 0]
                eg += advance * params[CENTRE_PAWN_ADVANCE, 1]
        out[2 * c] = mg
        out[2 * c + 1] = eg


@njit(cache=True, inline="always")
def _pawn_slot(white, black, size):
    h = (white * np.uint64(0x9E3779B97F4A7C15)) ^ (black * np.uint64(0xC2B2AE3D27D4EB4F))
    return np.int64((h ^ (h >> np.uint64(29))) & np.uint64(size - 1))


@hot()
def evaluate_pawn_structure(bb, phase, params, terms, pawn_keys, pawn_values, cached):
    """**P**: the pawn-only terms (from the pawn cache where ``cached``: an entry holds
    both colours' pawns, so a hit is never wrong) and centre pawns blocked by any piece."""
    white, black = bb[PAWN], bb[6 + PAWN]
    slot = _pawn_slot(white, black, pawn_keys.shape[0]) if cached else 0
    values = pawn_values[slot]
    if not cached or pawn_keys[slot, 0] != white or pawn_keys[slot, 1] != black:
        pawn_terms(bb, params, values)
        pawn_keys[slot, 0] = white
        pawn_keys[slot, 1] = black
    occ = bb[12] | bb[13]
    centre = white & CENTRE_FILES, black & CENTRE_FILES
    blocked = popcount((centre[0] << np.uint64(8)) & occ), popcount((centre[1] >> np.uint64(8)) & occ)
    for c in range(2):
        mg = values[2 * c] + blocked[c] * params[CENTRE_PAWN_BLOCKED, 0]
        eg = values[2 * c + 1] + blocked[c] * params[CENTRE_PAWN_BLOCKED, 1]
        terms[CAT_P, c] = taper(mg, eg, phase)


@hot()
def evaluate_protection(bb, phase, params, terms, attacks):
    """For each knight, bishop, rook and queen: attacked by a cheaper enemy piece, or
    attacked and undefended; extra penalty when two or more pieces are undefended."""
    for c in range(2):
        o = 6 * c
        e = 1 - c
        mg = 0
        eg = 0
        undefended = 0
        for t in range(1, 5):
            lower = attacks[e, PAWN]
            if t >= ROOK:
                lower |= attacks[e, KNIGHT] | attacks[e, BISHOP]
            if t == QUEEN:
                lower |= attacks[e, ROOK]
            pieces = bb[o + t]
            while pieces:
                sq = lsb(pieces)
                pieces &= pieces - U1
                b = bit(sq)
                defended = (attacks[c, ATT_ALL] & b) != U0
                if not defended:
                    undefended += 1
                if attacks[e, ATT_ALL] & b:
                    if lower & b:
                        mg += params[ATTACKED_BY_LOWER, 0]
                        eg += params[ATTACKED_BY_LOWER, 1]
                    elif not defended:
                        mg += params[HANGING, 0]
                        eg += params[HANGING, 1]
        if undefended >= 2:
            mg += params[UNDEFENDED_PIECES, 0]
            eg += params[UNDEFENDED_PIECES, 1]
        terms[CAT_A, c] = taper(mg, eg, phase)


@hot()
def evaluate_piece_pawn_relation(bb, phase, params, terms):
    """Rooks on open and half-open files; a king on a file without own pawns, without
    own pawns beside it, or far from every pawn."""
    all_pawns = bb[PAWN] | bb[6 + PAWN]
    for c in range(2):
        o = 6 * c
        own = bb[o + PAWN]
        mg = 0
        eg = 0
        rooks = bb[o + ROOK]
        while rooks:
            sq = lsb(rooks)
            rooks &= rooks - U1
            f = FILES[sq % 8]
            if (all_pawns & f) == U0:
                mg += params[ROOK_OPEN_FILE, 0]
                eg += params[ROOK_OPEN_FILE, 1]
            elif (own & f) == U0:
                mg += params[ROOK_HALF_OPEN_FILE, 0]
                eg += params[ROOK_HALF_OPEN_FILE, 1]
        k = lsb(bb[o + KING])
        if (own & FILES[k % 8]) == U0:
            mg += params[KING_HALF_OPEN_FILE, 0]
            eg += params[KING_HALF_OPEN_FILE, 1]
        if (own & ADJACENT_FILES[k % 8]) == U0:
            mg += params[KING_NO_ADJACENT_PAWNS, 0]
            eg += params[KING_NO_ADJACENT_PAWNS, 1]
        if all_pawns:
            nearest = 1
            while (WITHIN[k, nearest] & all_pawns) == U0:
                nearest += 1
            mg += nearest * params[KING_PAWN_DISTANCE, 0]
            eg += nearest * params[KING_PAWN_DISTANCE, 1]
        terms[CAT_R, c] = taper(mg, eg, phase)


def new_pawn_cache(entries: int = PAWN_CACHE_SIZE):
    """``(keys, values)`` of a pawn cache: the pawn-only terms of **P** by both colours' pawns.
    Valid for one set of term values: a searcher's, which never change."""
    return np.zeros((entries, 2), np.uint64), np.zeros((entries, 4), np.int64)


@njit(cache=True)
def evaluate(pos, mask, weights, params, terms, attacks, counts):
    """Weighted evaluation from the side to move's point of view (centipawns)."""
    return evaluate_cached(pos, mask, weights, params, terms, attacks, counts, np.zeros((1, 2), np.uint64),
                           np.zeros((1, 4), np.int64), False)


@hot()
def evaluate_cached(pos, mask, weights, params, terms, attacks, counts, pawn_keys, pawn_values, cached):
    """:func:`evaluate`, with the pawn cache ``(pawn_keys, pawn_values)`` where ``cached`` (the
    search's; its term values are fixed for the searcher's life)."""
    bb = pos[0]
    terms[:, :] = 0
    phase = game_phase(bb)
    if category_on(mask, CAT_X) or category_on(mask, CAT_K) or category_on(mask, CAT_A):
        compute_attacks(bb, attacks, counts)
    if category_on(mask, CAT_M):
        evaluate_material(bb, phase, params, terms)
    if category_on(mask, CAT_B):
        evaluate_positional(bb, phase, params, terms)
    if category_on(mask, CAT_X):
        evaluate_mobility_attacks(bb, phase, params, terms, attacks, counts)
    if category_on(mask, CAT_K):
        evaluate_king_safety(bb, phase, params, terms, counts)
    if category_on(mask, CAT_P):
        evaluate_pawn_structure(bb, phase, params, terms, pawn_keys, pawn_values, cached)
    if category_on(mask, CAT_A):
        evaluate_protection(bb, phase, params, terms, attacks)
    if category_on(mask, CAT_R):
        evaluate_piece_pawn_relation(bb, phase, params, terms)
    total = 0
    for c in range(N_CATEGORIES):
        if category_on(mask, c):
            if weights[c] == 1.0:
                total += terms[c, 0] - terms[c, 1]  # what the rounding below gives, without it
            else:
                total += int(np.round(weights[c] * (terms[c, 0] - terms[c, 1])))
    return total if pos[2][ST_SIDE] == WHITE else -total
