"""Opening records: the c2 text written and read back, and positions compared by key."""
import chess
import pytest

from tournaments.records.opening_record import Opening, format_opening, is_opening, parse_opening, position_key

ITALIAN = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")


def test_position_key_ignores_counters_and_an_idle_en_passant_square():
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert position_key(after_e4) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
    assert position_key(after_e4.replace("0 1", "7 30")) == position_key(after_e4)
    with pytest.raises(ValueError):
        position_key("8/8/8")


def test_an_epd_entry_round_trips():
    opening = Opening("8moves_v3-1000.epd", 510, chess.Board("r1bq1rk1/ppp2pbp/2n1pnp1/4N3/2B2P2/1QN1P3/PP1P2PP/"
                                                             "R1B1K2R w KQ - 0 1").fen())
    text = format_opening(opening)
    assert text == ("opening r1bq1rk1/ppp2pbp/2n1pnp1/4N3/2B2P2/1QN1P3/PP1P2PP/R1B1K2R w KQ - "
                    "book 8moves_v3-1000.epd:510")
    assert is_opening(text) and parse_opening(text) == opening
    assert opening.key == position_key(opening.fen) and opening.start_fen == opening.fen


def test_a_line_with_moves_records_where_it_leads():
    opening = Opening("my book.pgn", 3, chess.STARTING_FEN, ITALIAN)
    text = format_opening(opening)
    board = chess.Board()
    for uci in ITALIAN:
        board.push_uci(uci)
    assert text.startswith(f"opening {board.epd()} book my_book.pgn:3 from ")
    assert text.endswith("moves " + " ".join(ITALIAN))
    back = parse_opening(text)
    assert back.key == board.epd() and back.moves == ITALIAN and back.entry == 3


@pytest.mark.parametrize("text, message", [
    ("a comment", "not an opening record"),
    ("opening 8/8/8/8 w - - book b.epd:1", "c2: expected 8 rows"),
    ("opening book b.epd:1", "not an opening record"),
    ("opening rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - book b.epd:x", "c2"),
    ("opening rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - book b.epd:1 from "
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - moves e2e4", "the moves lead to"),
    ("opening rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - book b.epd:1 then e2e4", "expected 'from"),
])
def test_bad_records_are_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_opening(text)
    assert is_opening(text) == text.startswith("opening ")
