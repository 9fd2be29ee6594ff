"""The one Player interface: the time manager, move limits, and every kind of player
answering through it."""
import chess
import pytest

from players.player import InstancePlayer, MoveLimits, Played, TimeManager
from players.result import MATE_CP, SearchLimits, SearchResult
from players.searcher import Searcher


@pytest.mark.parametrize("clock_ms, increment_ms, moves_to_go, overhead_ms, expected", [
    (60_000, 0, None, 50, (60_000 - 50) // 25),          # a 1/25 share of what is left
    (60_000, 1_000, None, 50, int((60_000 - 50) / 25 + 750)),  # plus three quarters of the increment
    (10_000, 0, 5, 50, (10_000 - 50) // 5),              # movestogo sets the share
    (300, 1_000, None, 50, int(250 / 3)),                 # never more than a third of the clock
    (1, 0, None, 50, 1),                                  # an empty clock still gets a move
])
def test_time_manager(clock_ms, increment_ms, moves_to_go, overhead_ms, expected):
    assert TimeManager.allocate(clock_ms, increment_ms, moves_to_go, overhead_ms) == expected


def test_move_limits_become_search_limits():
    assert MoveLimits(nodes=500).search_limits() == SearchLimits(nodes=500)
    assert MoveLimits(clock=60.0).search_limits(50) == SearchLimits(movetime=(60_000 - 50) // 25)
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
