"""Reading opening books, in the forms published books come in.

A book is PGN (``.pgn``: each game's moves are an opening) or one position a line: EPD
(four FEN fields and operations), a full FEN (six fields, as many books are), or a full FEN
followed by operations, with or without ``;`` between.  Blank lines and ``#`` comments are
ignored; NUL bytes and CRLF line ends are tolerated.  A line (or game) that cannot be used
is named with its number and reason in one warning; a book with no usable opening is an
error that shows its first bad lines, rather than a match that cannot say why it has none.
"""
from __future__ import annotations

import bisect
import functools
import io
import itertools
import logging
from pathlib import Path

import chess
import chess.pgn

from tournaments.records.epd import check_board, check_position, clean_line, split_counters
from tournaments.records.file_lines import LineProblem, data_lines, left_out, nothing_usable, read_text

log = logging.getLogger("concilio.books")

BookEntry = tuple[str, tuple[str, ...], str]  # (FEN, UCI moves played from it, name)


def read_book(path: Path) -> list[BookEntry]:
    """Openings from an EPD/FEN or PGN book; unreadable entries are left out with one
    warning naming them, and a book with none usable is a ``DataFileError``.

    Read once per process while the file is unchanged: a sweep's every point and duel names
    the same book (and python-chess checks each position), so ``scaling duels --list`` read
    it some forty times."""
    path = Path(path)
    stat = path.stat()
    return list(_read_book(path.resolve(), stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=16)
def _read_book(path: Path, mtime_ns: int, size: int) -> tuple[BookEntry, ...]:
    """The book at ``path`` as it is at that modification time and size (the cache's key)."""
    return tuple(_parse_book(path))


def _parse_book(path: Path) -> list[BookEntry]:
    text = read_text(path)
    book, problems = (read_pgn if path.suffix.lower() == ".pgn" else read_position_lines)(text, path.name)
    if not book:
        raise nothing_usable(path, "opening", problems)
    if problems:
        log.warning("%s", left_out(path, problems))
    return book


def read_position_lines(text: str, name: str) -> tuple[list[BookEntry], list[LineProblem]]:
    """One opening a line (EPD or FEN), named ``name:line``."""
    book, problems = [], []
    for number, line in data_lines(text):
        try:
            book.append((line_position(line).fen(), (), f"{name}:{number}"))
        except ValueError as exc:
            problems.append(LineProblem(number, str(exc)))
    return book, problems


def line_position(line: str) -> chess.Board:
    """The position of an EPD or FEN line; ``ValueError`` with the reason when there is none
    or it is illegal.  Its operations must parse too, after the repairs of the quirks that
    suites' lines are allowed (``epd.clean_line``)."""
    check_position(line)
    _, counters = split_counters(line)
    board, _ = chess.Board.from_epd(clean_line(line))
    if counters:
        board.halfmove_clock, board.fullmove_number = counters
    check_board(board)
    return board


class _QuietBuilder(chess.pgn.GameBuilder):
    """Keeps a game's errors on the game (they are reported once, as the book's problems)
    instead of logging each as python-chess does."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def read_pgn(text: str, name: str) -> tuple[list[BookEntry], list[LineProblem]]:
    """Each game's moves from its start position, named by its ``Opening`` header or
    ``name#game``; a game with errors is a problem at its first line."""
    book, problems = [], []
    lines = text.splitlines()
    starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))  # offsets in the joined text
    handle = io.StringIO("\n".join(lines) + "\n")
    number = 0
    while True:
        # The game's first line: python-chess skips blank lines and "%" escapes before it.
        first = bisect.bisect_left(starts, handle.tell())
        while first < len(lines) and (not lines[first].strip() or lines[first].startswith("%")):
            first += 1
        try:
            game = chess.pgn.read_game(handle, Visitor=_QuietBuilder)
        except ValueError as exc:
            problems.append(LineProblem(first + 1, f"game {number + 1}: {exc}; the rest of the file is not read"))
            break
        if game is None:
            break
        number += 1
        try:
            if game.errors:
                raise ValueError(str(game.errors[0]))
            check_board(game.board())
        except ValueError as exc:
            problems.append(LineProblem(first + 1, f"game {number}: {exc}"))
            continue
        moves = tuple(m.uci() for m in game.mainline_moves())
        book.append((game.board().fen(), moves, game.headers.get("Opening", f"{name}#{number}")))
    return book, problems
