"""The one Player interface: move limits, and every kind of player answering through it."""
import chess
import pytest

from players.player import InstancePlayer, MoveLimits, Played
from players.result import MATE_CP, SearchLimits, SearchResult
from players.searcher import Searcher


def test_soft_time_without_hard_time_is_refused_and_fixed_keeps_only_the_soft_time():
    with pytest.raises(ValueError, match="soft_movetime"):
        SearchLimits(depth=5, soft_movetime=100)
    with pytest.raises(ValueError, match="soft_movetime"):
        SearchLimits(movetime=50, soft_movetime=100)
    assert SearchLimits(movetime=500, soft_movetime=100).fixed() == SearchLimits(movetime=100)
    assert SearchLimits(nodes=10).fixed() == SearchLimits(nodes=10)


def test_a_search_under_a_soft_time_stops_between_iterations_long_before_the_hard_time():
    searcher = Searcher()
    result = searcher.search(chess.Board(), SearchLimits(movetime=600_000, soft_movetime=1))
    assert 1 <= result.depth < 8 and result.mate is None
    only_move = chess.Board("k7/8/8/8/8/8/1q6/K7 w - - 0 1")  # Kxb2 is the only legal move
    result = searcher.search(only_move, SearchLimits(movetime=600_000, soft_movetime=100_000))
    assert result.bestmove == "a1b2" and result.depth == 1


def test_move_limits_become_search_limits():
    assert MoveLimits(nodes=500).search_limits() == SearchLimits(nodes=500)
    soft = (60_000 - 50) // 25
    assert MoveLimits(clock=60.0).search_limits(50) == SearchLimits(movetime=5 * soft, soft_movetime=soft)
    assert MoveLimits().search_limits() == SearchLimits(depth=127)  # until stop
    assert MoveLimits(clock=1.0, infinite=True).search_limits() == SearchLimits(depth=127)
    assert MoveLimits(depth=3, infinite=True).search_limits() == SearchLimits(depth=3)


def test_instance_player_answers_with_its_search_and_reports_mates_as_mate_cp():
    player = InstancePlayer(Searcher())
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    seen = []
    played = player.play(board, MoveLimits(depth=4), info=seen.append)
    assert played.move == "a1a8" and played.result is not None and played.result.mate == 1
    assert played.score == MATE_CP and played.depth == played.result.depth
    assert [it.depth for it in seen] == list(range(1, len(seen) + 1)) and played.error is None
    only = player.play(chess.Board(), MoveLimits(depth=2, searchmoves=("a2a3",)))
    assert only.move == "a2a3"


def test_played_of_counts_a_losing_mate_as_minus_mate_cp():
    losing = SearchResult(bestmove="g8h8", score_cp=-31_996, mate=-2, pv=("g8h8",), depth=5, root_moves_searched=2,
                          root_moves=2, seldepth=7, nodes=900, time=0.01)
    played = Played.of(losing, losing.bestmove, 0.01)
    assert played.score == -MATE_CP and played.depth == 5 and played.result is losing
    assert Played.of(None, "e2e4", 0.0).score is None
