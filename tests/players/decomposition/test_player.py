"""The decomposition player plays on time, and frees its game's shared table."""
import time

import chess
import pytest

from players.decomposition.config import load_decomposition
from players.decomposition.player import DecompositionPlayer
from players.limits import Limit


def play_within(text: str, first: str, movetime: int, fixed_depth: int):
    """The player's answer after ``first`` within ``movetime`` ms (checked: legal, on time plus
    0.5 s), and then at a fixed depth from the start (checked: that depth)."""
    with DecompositionPlayer(load_decomposition(text=text)) as player:
        board = chess.Board()
        board.push_uci(first)
        started = time.perf_counter()
        result = player.search(board, Limit(movetime=movetime))
        elapsed = time.perf_counter() - started
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves
        assert elapsed < movetime / 1000 + 0.5
        fixed = player.search(chess.Board(), Limit(depth=fixed_depth))
        assert fixed.depth == fixed_depth
    return result


def test_the_player_answers_within_its_movetime():
    result = play_within("algorithm: pv_split\nworkers: 2\nmin_split_depth: 3\n", "e2e4", 1500, 5)
    assert result.depth >= 2


def test_the_player_with_a_shared_table_plays_and_frees_it():
    from multiprocessing import shared_memory
    config = load_decomposition(text="algorithm: root_split\nworkers: 2\nmin_split_depth: 3\nspeculative: true\n"
                                     "shared_table: true\nsearch: {hash_mb: 4}\n")
    with DecompositionPlayer(config) as player:
        board = chess.Board()
        result = player.search(board, Limit(movetime=1000))
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves and result.depth >= 3
        table = player.table
        assert table
        player.new_game()  # the game's table is released and unlinked
        with pytest.raises(FileNotFoundError):
            shared_memory.SharedMemory(name=table)


def test_the_abdada_player_answers_within_its_movetime():
    result = play_within("algorithm: abdada\nworkers: 2\nshared_table: true\nthreads: true\nsearch: {hash_mb: 4}\n",
                         "d2d4", 1000, 6)
    assert result.depth >= 5
    assert result.iterations and result.iterations[-1].depth == result.depth


def test_the_ybw_player_answers_within_its_movetime_and_counts_its_splits():
    result = play_within("algorithm: ybw\nworkers: 2\nshared_table: true\nthreads: true\nsearch: {hash_mb: 4}\n",
                         "c2c4", 1000, 6)
    assert result.depth >= 5
    assert result.iterations and result.iterations[-1].depth == result.depth
