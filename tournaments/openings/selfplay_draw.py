"""The seeded draws of self-play: game ``g`` of a plan seeded ``s`` has the seed
``s · 1,000,003 + g``, and that seed alone picks the game's opening from the book.

``concilio label`` and ``concilio fit positions`` play games this way, and the training
set's provenance (``tournaments.training.provenance``) replays the same draws to say which
opening each game began from; all of them call these functions, so the record cannot
drift from what was played.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from tournaments.openings.books import BookEntry
from tournaments.records.opening_record import Opening

SEED_STRIDE = 1_000_003  # a prime above any plan's game count: plans with different seeds never share a game seed


def game_seed(plan_seed: int, game: int) -> int:
    """The seed of a plan's ``game``-th game (from 0)."""
    return plan_seed * SEED_STRIDE + game


def opening_index(seed: int, book_size: int) -> int:
    """The book entry (from 0) a game with this seed starts from."""
    return random.Random(seed).randrange(book_size)


def drawn_opening(book: Sequence[BookEntry], book_name: str, seed: int) -> Opening:
    """The opening a game with this seed starts from, in a book called ``book_name``."""
    index = opening_index(seed, len(book))
    fen, moves, _ = book[index]
    return Opening(book_name, index + 1, fen, tuple(moves))
