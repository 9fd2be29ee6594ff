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
    assert result.depth >= 3  # about 10 on a quiet machine; 4 seen with five searches on two cores
    assert result.iterations and result.iterations[-1].depth == result.depth


def test_the_ybw_player_answers_within_its_movetime_and_counts_its_splits():
    result = play_within("algorithm: ybw\nworkers: 2\nshared_table: true\nthreads: true\nsearch: {hash_mb: 4}\n",
                         "c2c4", 1000, 6)
    assert result.depth >= 3  # as ABDADA's
    assert result.iterations and result.iterations[-1].depth == result.depth


@pytest.mark.parametrize("whole_budget", [False, True])
def test_abdada_with_whole_budget_spends_every_threads_share_of_a_node_budget(whole_budget):
    # Four threads on this machine's cores do not keep pace: without whole_budget the first to
    # use its share ends the move, with it every thread searches its share to the end.
    config = load_decomposition(text="algorithm: abdada\nworkers: 4\nshared_table: true\nin_process: true\n"
                                     f"whole_budget: {str(whole_budget).lower()}\nsearch: {{hash_mb: 4}}\n")
    budget = 40_000
    with DecompositionPlayer(config) as player:
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        result = player.search(board, Limit(nodes=budget))
        assert chess.Move.from_uci(result.bestmove) in board.legal_moves
        if whole_budget:
            assert result.nodes == budget  # each of the four threads to its 10,000th node
        else:
            assert result.nodes <= budget


def test_whole_budget_is_refused_where_no_node_budget_is_split_into_shares():
    from base.config import ConfigError
    with pytest.raises(ConfigError, match="whole_budget"):
        load_decomposition(text="algorithm: pv_split\nworkers: 2\nwhole_budget: true\n")
