"""Move generation against exact perft counts and python-chess, keys against Polyglot."""
import random

import chess
import chess.polyglot
import numpy as np
import pytest

from players.core.bitboard import BISHOP_COLLISIONS, ROOK_COLLISIONS
from players.core.movegen import perft, perft_divide
from players.core.moves import MAX_MOVES, move_to_uci
from players.core.position import (check_info, compute_key, current_key, gives_check, gives_check_with, in_check, insufficient_material,
                                   repetition_count)
from players.position import Position

from .random_games import random_game_positions


def _perft_cases(data_dir, max_depth):
    """(line number, fen, depth, nodes) for every count up to ``max_depth``."""
    cases = []
    lines = (data_dir / "perft" / "perftsuite.epd").read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fen, *counts = [part.strip() for part in line.split(";")]
        for item in counts:
            depth, nodes = item.split()
            if int(depth[1:]) <= max_depth:
                cases.append((number, fen, int(depth[1:]), int(nodes)))
    return cases


def test_magics_have_no_destructive_collisions():
    assert ROOK_COLLISIONS == 0 and BISHOP_COLLISIONS == 0


def test_perft_suite_depth_4(data_dir):
    cases = _perft_cases(data_dir, 4)
    assert len({number for number, _, _, _ in cases}) == 126
    wrong = [(number, fen, d, n) for number, fen, d, n in cases if perft(Position.from_fen(fen).arrays, d) != n]
    assert wrong == []


@pytest.mark.slow
def test_perft_suite_depth_5(data_dir):
    cases = [c for c in _perft_cases(data_dir, 5) if c[2] == 5]
    assert len(cases) == 126
    wrong = [(number, fen, n) for number, fen, d, n in cases if perft(Position.from_fen(fen).arrays, d) != n]
    assert wrong == []


def test_divide_sums_to_perft():
    pos = Position.from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    moves = np.zeros(MAX_MOVES, np.int64)
    counts = np.zeros(MAX_MOVES, np.int64)
    n = perft_divide(pos.arrays, 3, moves, counts)
    assert n == 48 and counts[:n].sum() == 97862
    board = chess.Board(pos.fen())
    for m, c in zip(moves[:n], counts[:n]):
        board.push_uci(move_to_uci(int(m)))
        assert c == _python_chess_perft(board, 2)
        board.pop()


def _python_chess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _python_chess_perft(board, depth - 1)
        board.pop()
    return total


EDGE_FENS = [
    # en passant that would expose the king along the rank
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    # en passant evading a pawn check
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
    # promotions with capture, both colours
    "r3k3/1P6/8/8/8/8/1p6/R3K3 w Qq - 0 1",
    # castling through attacked squares
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/5q2/8/R3K2R w KQkq - 0 1",
    # double check
    "4k3/8/8/8/8/5n2/8/4K2r w - - 0 1",
    # pinned pawn that may capture its pinner diagonally
    "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1",
]


@pytest.mark.parametrize("fen", EDGE_FENS)
def test_edge_cases_match_python_chess(fen):
    board = chess.Board(fen)
    pos = Position.from_fen(fen)
    assert sorted(pos.legal_moves()) == sorted(m.uci() for m in board.legal_moves)
    assert perft(pos.arrays, 3) == _python_chess_perft(board, 3)


def test_random_games_match_python_chess_and_keys():
    """At every ply of seeded random games: same legal moves, same key as Polyglot,
    incremental key equal to a from-scratch one, and unmake restores everything."""
    rng = random.Random(20261121)
    positions = 0
    seen = {"ep": 0, "castle": 0, "promo": 0, "check": 0}
    while positions < 20000:
        board = chess.Board()
        pos = Position(board)
        for _ in range(rng.randrange(40, 300)):
            legal = sorted(m.uci() for m in board.legal_moves)
            ours = sorted(pos.legal_moves())
            assert ours == legal, board.fen()
            key = current_key(pos.arrays)
            assert key == chess.polyglot.zobrist_hash(board), board.fen()
            assert key == compute_key(pos.arrays)
            assert in_check(pos.arrays) == board.is_check()
            assert insufficient_material(pos.arrays[0]) == board.is_insufficient_material()
            positions += 1
            if not legal or board.is_repetition(3) or board.halfmove_clock >= 100:
                break
            # Special moves are rare in random play: take one half the time it is on offer.
            moves = [chess.Move.from_uci(u) for u in legal]
            special = [m for m in moves if board.is_en_passant(m) or board.is_castling(m) or m.promotion]
            move = rng.choice(special) if special and rng.random() < 0.5 else rng.choice(moves)
            seen["ep"] += board.is_en_passant(move)
            seen["castle"] += board.is_castling(move)
            seen["promo"] += move.promotion is not None
            seen["check"] += board.is_check()
            before = [a.copy() for a in pos.arrays[:3]]
            pos.push_uci(move.uci())
            pos.pop()
            assert all((a == b).all() for a, b in zip(before, pos.arrays[:3]))
            pos.push_uci(move.uci())
            board.push(move)
            assert pos.fen() == board.fen(en_passant="fen") or pos.fen() == board.fen()
    assert min(seen.values()) > 20, seen


def test_repetition_is_counted_from_key_history():
    pos = Position.from_fen()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        pos.push_uci(uci)
    assert repetition_count(pos.arrays) == 1
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        pos.push_uci(uci)
    assert repetition_count(pos.arrays) == 2
    pos.push_uci("e2e4")
    assert repetition_count(pos.arrays) == 0


@pytest.mark.parametrize("fen, uci", [
    (chess.STARTING_FEN, "e2e5"),       # not a legal move
    (chess.STARTING_FEN, "e2e4q"),      # a promotion suffix on a pawn push
    (chess.STARTING_FEN, "z2e4"),       # no such square
    (chess.STARTING_FEN, "e2"),         # too short
    (chess.STARTING_FEN, ""),
    ("8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8"),   # a promotion must say what it promotes to
    ("8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8k"),
])
def test_push_uci_refuses_what_is_not_a_legal_move(fen, uci):
    pos = Position.from_fen(fen)
    with pytest.raises(ValueError, match="illegal move"):
        pos.push_uci(uci)
    assert pos.fen() == chess.Board(fen).fen()  # nothing was played


def test_push_uci_plays_under_promotions_and_castling_as_spelt():
    pos = Position.from_fen("r3k3/1P6/8/8/8/8/8/4K2R w Kq - 0 1")
    pos.push_uci("b7a8n")
    pos.push_uci("e8d7")
    pos.push_uci("e1g1")
    board = chess.Board("r3k3/1P6/8/8/8/8/8/4K2R w Kq - 0 1")
    for uci in ("b7a8n", "e8d7", "e1g1"):
        board.push_uci(uci)
    assert pos.fen() == board.fen()


def test_history_survives_conversion_from_board():
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        board.push_uci(uci)
    assert repetition_count(Position(board).arrays) == 1


GIVES_CHECK_FENS = [
    "4k3/8/8/8/8/8/3R4/4K3 w - - 0 1",        # rook to the e-file or the 8th rank
    "4k3/8/8/8/8/4N3/4R3/K7 w - - 0 1",       # knight uncovers the rook: discovered check
    "4k3/8/8/8/1B6/8/3P4/K7 w - - 0 1",       # the bishop behind a pawn: d3 uncovers it, d4 does not
    "4k3/8/8/3Pp3/8/8/8/K3R3 w - e6 0 1",     # en passant
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",   # castling: the rook checks from d1 / f1 on an open file
    "2k5/4P3/8/8/8/8/8/K7 w - - 0 1",         # promotions that check (queen, rook)
    "7k/8/8/8/3PK3/8/8/b7 w - - 0 1",         # the king steps off a diagonal: no discovered check for white
    "4k3/8/8/4N3/8/2B5/8/4R1K1 w - - 0 1",    # every knight move uncovers the rook; the bishop's don't
    "4k3/4p3/8/4N3/8/8/8/4Q1K1 w - - 0 1",    # two blockers: the knight uncovers nothing
    "7k/8/5P2/8/3B4/8/8/K7 w - - 0 1",        # the pawn's push uncovers the bishop; f7 checks itself
]


def _assert_gives_check_matches(board: chess.Board, pos: Position) -> int:
    codes = {move_to_uci(int(c)): int(c) for c in pos.legal_move_codes()}
    checks = 0
    info = tuple(np.uint64(v) for v in check_info(pos.arrays))  # as compiled code holds it, all uint64
    for move in board.legal_moves:
        expected = board.gives_check(move)
        assert gives_check(pos.arrays, codes[move.uci()]) == expected, (board.fen(), move.uci())
        assert gives_check_with(pos.arrays, codes[move.uci()], info) == expected, (board.fen(), move.uci())
        checks += expected
    return checks


@pytest.mark.parametrize("fen", GIVES_CHECK_FENS)
def test_gives_check_on_hand_picked_positions(fen):
    board = chess.Board(fen)
    pos = Position.from_fen(fen)
    before = [a.copy() for a in pos.arrays[:3]]
    _assert_gives_check_matches(board, pos)
    assert all((a == b).all() for a, b in zip(before, pos.arrays[:3]))  # made-and-tested moves are unmade


def test_gives_check_matches_python_chess_in_random_games():
    checks = 0
    for board in random_game_positions(20261123, 3000, (20, 160)):
        checks += _assert_gives_check_matches(board, Position(board))
    assert checks > 500
