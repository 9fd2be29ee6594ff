"""Positions from random games: the move-generation and search tests check compiled code
against python-chess on them, because random play reaches the odd positions (pins, en passant,
promotions, checks) that hand-picked lists miss."""
import random
from collections.abc import Iterator

import chess


def random_game_positions(seed: int, count: int, plies: tuple[int, int]) -> Iterator[chess.Board]:
    """At least ``count`` positions of seeded random games, each game lasting a length drawn from
    ``plies`` (or until it ends).  The same board is yielded again after each random move, so a
    caller reads it (or copies it) and must not push moves on it."""
    rng = random.Random(seed)
    positions = 0
    while positions < count:
        board = chess.Board()
        for _ in range(rng.randrange(*plies)):
            if board.is_game_over():
                break
            yield board
            positions += 1
            board.push(rng.choice(list(board.legal_moves)))
