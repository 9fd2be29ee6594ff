"""``Position``, the Python face of the core's arrays: FENs checked with python-chess's
reasons, positions the engine can play tolerated, and a position that converts back to
the board (FEN, move counters, moves) python-chess would have."""
import chess
import pytest

from players.position import InvalidPositionError, Position, parse_fen

ITALIAN = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")


@pytest.mark.parametrize("fen, reasons", [
    ("8/8/8/8/8/8/8/8 w - - 0 1", "white has no king, black has no king, the board is empty"),
    ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "the side not to move is in check"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawns on the first or last rank"),
    ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "too many kings"),
])
def test_an_illegal_position_is_refused_with_every_reason(fen, reasons):
    with pytest.raises(InvalidPositionError) as info:
        parse_fen(fen)
    assert str(info.value) == f"illegal position {fen!r}: {reasons}"


def test_a_fen_python_chess_cannot_parse_is_refused_with_its_words():
    with pytest.raises(InvalidPositionError, match=r"invalid FEN 'not a fen': expected 'w' or 'b'"):
        Position.from_fen("not a fen")


def test_what_the_engine_can_play_is_tolerated_and_cleaned_as_python_chess_cleans_it():
    # castling rights without the rooks, an en passant square no pawn can take on
    assert Position.from_fen("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1").fen() == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert Position.from_fen(after_e4).fen() == chess.Board(after_e4).fen()  # e3 dropped: nobody takes there


def test_moves_from_a_black_root_count_full_moves_as_python_chess_does():
    root = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    board = chess.Board(root)
    pos = Position.from_fen(root)
    for uci in ITALIAN[1:]:
        board.push_uci(uci)
        pos.push_uci(uci)
        assert pos.fen() == board.fen()
    assert pos.fen().endswith(" b KQkq - 3 3") and pos.moves == list(ITALIAN[1:])


def test_a_position_converts_back_to_the_game_that_led_to_it():
    board = chess.Board()
    for uci in ITALIAN:
        board.push_uci(uci)
    pos = Position(board)
    back = pos.to_board()
    assert back.fen() == board.fen() and [m.uci() for m in back.move_stack] == list(ITALIAN)
    assert pos.root_fen == chess.STARTING_FEN and pos.turn == chess.BLACK


def test_a_copy_is_independent_and_pop_takes_back_the_last_move():
    pos = Position.from_fen(moves=ITALIAN[:2])
    copy = pos.copy()
    copy.push_uci("g1f3")
    assert pos.fen() == chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").fen()
    assert copy.pop() == "g1f3" and copy.fen() == pos.fen() and copy.key == pos.key
    assert pos.legal_moves() and sorted(pos.legal_moves()) == sorted(m.uci() for m in pos.to_board().legal_moves)
