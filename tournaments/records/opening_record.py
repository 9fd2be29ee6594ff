"""Where a self-play game began, written down: the book entry its seed drew.

A selection criterion trained on self-play positions has seen those games' openings, so
a match or a held-out split that reuses them judges it partly on what it learnt from.
The label store keeps each game's :class:`Opening`; the exported training set carries it
on every position as the EPD operation ``c2 "opening …"`` (:func:`format_opening`), which
:func:`parse_opening` reads back.  Openings compare by :func:`position_key` of the
position the game started from, so move counters and the book's own spelling of the
en passant square do not matter.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import chess

OPCODE = "c2"
PREFIX = "opening"


def position_key(fen: str) -> str:
    """A position as the first four FEN fields, normalised (en passant only when a capture
    is legal, castling as python-chess writes it): equal positions give equal keys."""
    fields = fen.split()
    if len(fields) < 4:
        raise ValueError(f"not a position: {fen!r}")
    return chess.Board(" ".join(fields[:4]) + " 0 1").epd()


def played_from(fen: str, moves: tuple[str, ...] = ()) -> str:
    """The FEN reached by playing the UCI ``moves`` from ``fen``: where a book line starts a game."""
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    return board.fen()


@dataclass(frozen=True)
class Opening:
    """One book entry as a game used it: the book's file name, the entry's number in it
    (1-based, in ``read_book``'s order), its position and the moves played from there
    before the game began (a PGN book's line; none for an EPD book)."""

    book: str
    entry: int
    fen: str
    moves: tuple[str, ...] = ()

    @cached_property
    def start_fen(self) -> str:
        """The FEN the game started from: the entry's position with its moves played."""
        return played_from(self.fen, self.moves)

    @cached_property
    def key(self) -> str:
        return position_key(self.start_fen)


def format_opening(opening: Opening) -> str:
    """The ``c2`` value: ``opening KEY book FILE:ENTRY``, then ``from KEY moves UCI…``
    when the entry has moves (KEY: the four position fields)."""
    book = "_".join(opening.book.split())  # one token, whatever the file is called
    text = f"{PREFIX} {opening.key} book {book}:{opening.entry}"
    if opening.moves:
        text += f" from {position_key(opening.fen)} moves {' '.join(opening.moves)}"
    return text


def is_opening(value: str) -> bool:
    """Whether a ``c2`` value is an opening record (other files use ``c2`` for comments)."""
    return value.startswith(PREFIX + " ")


def parse_opening(value: str) -> Opening:
    """The :class:`Opening` of a ``c2`` value; ``ValueError`` if it is not one, or if its
    moves do not lead from its position to the recorded start."""
    tokens = value.split()
    if len(tokens) < 7 or tokens[0] != PREFIX or tokens[5] != "book" or ":" not in tokens[6]:
        raise ValueError(f"{OPCODE}: not an opening record: {value!r}")
    start = " ".join(tokens[1:5])
    book, entry = tokens[6].rsplit(":", 1)
    fen, moves = start, ()
    if len(tokens) > 7:
        if len(tokens) < 13 or tokens[7] != "from" or tokens[12] != "moves":
            raise ValueError(f"{OPCODE}: expected 'from POSITION moves UCI…' after the book: {value!r}")
        fen, moves = " ".join(tokens[8:12]), tuple(tokens[13:])
    try:
        opening = Opening(book, int(entry), chess.Board(fen + " 0 1").fen(), moves)
        reached, recorded = opening.key, position_key(start)
    except ValueError as exc:  # a bad position, entry number or move
        raise ValueError(f"{OPCODE}: {exc}: {value!r}") from None
    if reached != recorded:
        raise ValueError(f"{OPCODE}: the moves lead to {reached}, not to the recorded {recorded}")
    return opening
