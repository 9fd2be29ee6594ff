"""The cheap necessary condition for a position to follow a start: real games pass, and
each rule catches a position that breaks it."""
import chess
import pytest

from tournaments.openings.reachable import cannot_follow, fewest_pawn_moves, pawn_trip

START = chess.Board()


def after(*moves: str) -> chess.Board:
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return board


def test_positions_of_a_real_game_follow_its_start():
    board = chess.Board()
    line = "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 c7c6 g1f3 c8g4 f1e2 e7e6 e1g1 b8d7 h2h3 g4h5".split()
    for ply, uci in enumerate(line):
        assert cannot_follow(START, board, ply) is None, ply
        board.push_uci(uci)
    assert cannot_follow(START, board, len(line)) is None
    assert cannot_follow(START, board, len(line) + 20) is None  # a later ply is never ruled out by counting


@pytest.mark.parametrize("later, plies, reason", [
    (after("e2e4"), 0, "not the start position"),
    (after("e2e4"), 2, "wrong side"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), -1, "negative"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB2 w KQkq - 0 1"), 2, "lost 2 pieces in 1 moves"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1"), 2, None),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 1"), 2, None),
    (chess.Board("rnbqkbnr/pppppppp/8/8/5P2/8/PPPPP1PP/RNBQKBNR w KQkq - 0 1"), 2, None),  # a double step
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKQNR w KQkq - 0 1"), 40, "promoted"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/5P2/8/PPPPP1PP/RNBQKBNR w KQkq - 0 1"), 0, "not the start"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNP w KQkq - 0 1"), 40, "cannot have come"),
    (chess.Board("rnbqkbnr/pppppppp/8/5P2/8/8/PPPPP1PP/RNBQKBNR w KQkq - 0 1"), 2, "need 2 moves, more than its 1"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/4P3/PPPPP1PP/RNBQKBNR w KQkq - 0 1"), 2, "need 1 captures"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/4P3/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), 2, "more pawns than it started"),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 1"), 40, None),
    (chess.Board("rnbqkbnr/pppppppp/8/8/8/5P2/PPPP1PPP/RNBQKBNR w KQkq - 0 1"), 40, "need 1 captures, but the other"),
])
def test_each_rule_catches_what_breaks_it(later, plies, reason):
    found = cannot_follow(START, later, plies)
    assert (found is None) == (reason is None), found
    if reason:
        assert reason in found


def test_castling_rights_are_never_regained():
    start = chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Kq - 0 1")
    assert "castling right" in cannot_follow(start, chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQq - 0 1"), 2)


def test_pawn_trips_count_the_double_step_and_captures():
    assert pawn_trip((4, 1), (4, 3)) == (1, 0)       # e2-e4
    assert pawn_trip((4, 1), (5, 3)) == (2, 1)       # e2xf3-f4: no double step with a capture in two ranks
    assert pawn_trip((4, 1), (5, 4)) == (2, 1)       # e2-e4xf5
    assert pawn_trip((4, 2), (4, 1)) is None and pawn_trip((4, 1), (6, 2)) is None
    assert fewest_pawn_moves([(0, 1), (1, 1)], [(1, 2)]) == (1, 0)
    assert fewest_pawn_moves([(0, 1)], [(0, 1), (1, 1)]) is None
