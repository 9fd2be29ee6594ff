"""Which of a book's openings a match plays: the book in an order its seed fixes, less the
openings it must leave out, cut to a limit.

An opening is known by the position its games start from (:func:`opening_key`: the book
entry's position with its moves played, as ``opening_record.position_key``), so an EPD
position and a PGN line that reaches it are one opening, whatever their move counters.
What to leave out comes as such keys: a training set's openings
(``tournaments.training.provenance.excluded_openings``, so that a criterion trained on
self-play is judged on openings no training game began from) or another book's
(:func:`book_keys`).
"""
from __future__ import annotations

import random
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from tournaments.openings.books import BookEntry
from tournaments.records.opening_record import played_from, position_key


def opening_key(fen: str, moves: tuple[str, ...] = ()) -> str:
    """The key of the position a game starts at when it begins with ``moves`` from ``fen``."""
    return position_key(played_from(fen, moves))


def book_keys(book: Iterable[BookEntry]) -> set[str]:
    """The keys of every opening of a book."""
    return {opening_key(fen, moves) for fen, moves, _ in book}


@dataclass(frozen=True)
class OpeningSelection:
    """The openings to play, in order, and how many of the book were left out."""

    openings: tuple[BookEntry, ...]
    excluded: int = 0


def select_openings(book: Iterable[BookEntry], seed: int, limit: int | None = None,
                    exclude: Collection[str] = frozenset()) -> OpeningSelection:
    """The book's openings whose key is not in ``exclude``, shuffled by ``random.Random(seed)``
    (the same seed gives the same order, so a resumed match plays the same games), the first
    ``limit`` of them when one is given."""
    book = list(book)
    kept = [entry for entry in book if opening_key(entry[0], entry[1]) not in exclude] if exclude else book
    random.Random(seed).shuffle(kept)
    return OpeningSelection(tuple(kept[:limit] if limit else kept), len(book) - len(kept))
