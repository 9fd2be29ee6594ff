"""Opening books: the formats published books come in, and every unreadable line named."""
import logging
import re
import textwrap

import chess
import pytest

from base.errors import ConcilioError
from tournaments.openings.books import read_book

E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
SICILIAN = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
RUY = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
INDIAN = "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2"
OPEN = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"


def fens(book):
    return [fen for fen, _, _ in book]


def test_a_book_of_full_fens_and_epd_reads_every_line(tmp_path):
    path = tmp_path / "mixed-forms.epd"
    path.write_bytes((
        "# one full FEN per line, as many published books are\r\n"
        f"{E4}\r\n"
        "\x00\r\n"
        f"{SICILIAN}\x00\r\n"
        f"{RUY} ; bm a6; id \"ruy\";\n"       # counters before '; bm'
        f"{INDIAN} c0 \"1. d4 Nf6\";\n"      # counters, then operations
        f"{OPEN} c0 \"1. e4 e5\";\n"         # EPD: four fields, operations
        f"{OPEN}\n").encode())
    book = read_book(path)
    assert fens(book) == [chess.Board(fen).fen() for fen in (E4, SICILIAN, RUY, INDIAN)] + [
        chess.Board(f"{OPEN} 0 1").fen()] * 2
    assert [name for _, _, name in book] == [f"mixed-forms.epd:{n}" for n in (2, 4, 5, 6, 7, 8)]
    assert all(moves == () for _, moves, _ in book)


def test_a_mixed_book_reports_exactly_its_bad_lines(tmp_path, caplog):
    path = tmp_path / "mixed.epd"
    path.write_text("\n".join([
        E4,                                                   # 1
        "1. e4 e5 2. Nf3",                                    # 2: moves, not a position
        "",                                                   # 3
        "# a comment",                                        # 4
        "8/8/8/8/8/8/8/8 w - - 0 1",                          # 5: no kings
        SICILIAN,                                             # 6
        f"{E4} bm Ke2;",                                      # 7: an operation with an illegal move
        "4k3/8/8/8/8/8/4q3/4K3 b - - 0 1",                    # 8: the side not to move is in check
    ]) + "\n")
    with caplog.at_level(logging.WARNING, logger="concilio.books"):
        book = read_book(path)
    assert fens(book) == [chess.Board(E4).fen(), chess.Board(SICILIAN).fen()]
    assert len(caplog.records) == 1
    text = caplog.records[0].getMessage()
    assert str(path) in text and "4 unreadable lines" in text
    assert re.findall(r"\bline (\d+): ", text) == ["2", "5", "7", "8"]
    assert "line 5: illegal position (no white king, no black king" in text
    assert "line 8: illegal position (opposite check)" in text


def test_a_book_with_no_usable_line_names_the_file_and_its_first_bad_lines(tmp_path):
    path = tmp_path / "moves.txt"
    path.write_text("".join(f"{n}. e4 e5\n" for n in range(1, 9)))
    with pytest.raises(ConcilioError) as info:
        read_book(path)
    assert isinstance(info.value, ValueError)  # callers catching ValueError go on working
    text = str(info.value)
    assert text.startswith(f"{path}: no usable opening")
    assert "line 1: " in text and "line 5: " in text and "line 6: " not in text and "and 3 more" in text
    assert "\n" not in text


def test_an_empty_book_says_so(tmp_path):
    path = tmp_path / "empty.epd"
    path.write_text("# nothing yet\n\n")
    with pytest.raises(ConcilioError, match="empty.epd: no usable opening: the file holds none"):
        read_book(path)


PGN = textwrap.dedent("""\
    [Event "first"]
    [White "A"]
    [Black "B"]

    1. e4 e5 2. Nf3 Nc6 *

    [Event "second"]
    [White "C"]
    [Black "D"]

    1. d4 d5 2. Ke3 Nf6 *

    [Event "third"]
    [Opening "English"]

    1. c4 e5 *
    """)


def test_a_pgn_book_reads_its_good_games_and_names_the_bad_one(tmp_path, caplog):
    path = tmp_path / "games.pgn"
    path.write_text(PGN.replace("\n", "\r\n"))
    with caplog.at_level(logging.WARNING):
        book = read_book(path)
    assert book == [(chess.STARTING_FEN, ("e2e4", "e7e5", "g1f3", "b8c6"), "games.pgn#1"),
                    (chess.STARTING_FEN, ("c2c4", "e7e5"), "English")]
    records = [r for r in caplog.records if r.name == "concilio.books"]
    assert len(records) == 1
    assert "line 7: game 2: illegal san: 'Ke3'" in records[0].getMessage()
    assert not [r for r in caplog.records if r.name == "chess.pgn"]  # python-chess's own log stays quiet


def test_a_book_is_read_once_while_it_is_unchanged(tmp_path, monkeypatch):
    import os

    import tournaments.openings.books as books
    path = tmp_path / "b.epd"
    path.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    parsed = []
    real = books._parse_book
    monkeypatch.setattr(books, "_parse_book", lambda p: parsed.append(p) or real(p))
    first = books.read_book(path)
    first.clear()  # a caller's list is its own
    assert len(books.read_book(path)) == 1 and len(parsed) == 1
    path.write_text(path.read_text() + "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n")
    os.utime(path, ns=(1, 1))  # a new modification time, whatever the clock's resolution
    assert len(books.read_book(path)) == 2 and len(parsed) == 2
