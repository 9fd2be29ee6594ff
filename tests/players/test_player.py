"""The one Player interface: the time manager, move limits, and every kind of player
answering through it."""
import chess
import pytest

from players.clock import IterationClock
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


@pytest.mark.parametrize("clock_ms, increment_ms, moves_to_go, soft, hard", [
    (10_000, 100, None, int(9_950 / 25 + 75), 5 * int(9_950 / 25 + 75)),  # 10+0.1: five soft shares
    (1_000, 100, None, int(950 / 25 + 75), int(950 * 0.3)),             # low on time: 30% of the clock at most
    (10_000, 0, 1, int(9_950 / 3), int(9_950 / 3)),                       # the last move before the control
    (1, 0, None, 1, 1),                                                    # an empty clock still gets a move
])
def test_time_manager_soft_and_hard_times(clock_ms, increment_ms, moves_to_go, soft, hard):
    assert TimeManager.limits(clock_ms, increment_ms, moves_to_go, 50) == SearchLimits(movetime=hard,
                                                                                       soft_movetime=soft)


def test_soft_time_without_hard_time_is_refused_and_fixed_keeps_only_the_soft_time():
    with pytest.raises(ValueError, match="soft_movetime"):
        SearchLimits(depth=5, soft_movetime=100)
    with pytest.raises(ValueError, match="soft_movetime"):
        SearchLimits(movetime=50, soft_movetime=100)
    assert SearchLimits(movetime=500, soft_movetime=100).fixed() == SearchLimits(movetime=100)
    assert SearchLimits(nodes=10).fixed() == SearchLimits(nodes=10)


def test_iteration_clock_stops_early_on_a_settled_move_and_goes_on_when_it_changes():
    soft = 1.0
    settled = IterationClock(soft)
    for depth in range(1, 9):
        settled.update("e2e4", 30)
    # Eight iterations on one move: the stable factor applies, no change is remembered.
    assert settled.scale == pytest.approx(IterationClock.STABLE_FACTOR)
    assert settled.should_stop(8, 0.6 * 0.7 * soft + 0.01)
    assert not settled.should_stop(8, 0.6 * 0.7 * soft - 0.01)

    unsettled = IterationClock(soft)
    for move in ("e2e4", "d2d4", "e2e4", "d2d4"):
        unsettled.update(move, 30)
    # Changes at the last three iterations: 1/4 + 1/2 + 1 = 1.75, so the scale is 1 + 1.2 × 1.75.
    assert unsettled.scale == pytest.approx(1 + IterationClock.INSTABILITY * 1.75)
    assert not unsettled.should_stop(8, 0.6 * soft * 3.0)
    assert unsettled.should_stop(8, 0.6 * soft * 3.2)


def test_iteration_clock_gives_a_falling_score_more_time_and_judges_shallow_iterations_by_the_soft_time():
    clock = IterationClock(1.0)
    for score in (50, 50, 50, 50):
        clock.update("e2e4", score)
    clock.update("e2e4", -25)  # 75 below the mean of the last four: half as much time again
    assert clock.scale == pytest.approx(1.5)
    clock.update("e2e4", 400)  # a rising score never cuts below 0.8
    assert clock.scale == pytest.approx(0.8 * IterationClock.STABLE_FACTOR)
    assert not clock.should_stop(3, 0.9) and clock.should_stop(3, 1.0)


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
