"""Clock play: a move's soft and hard time from the clock (worked out by hand), and the
iteration clock that stops early on a settled move and gives an unsettled one more, and what
comes off a GUI's movetime."""
import chess
import pytest

from players.clock import IterationClock, TimeManager, movetime_margin
from players.limits import Limit


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
    assert TimeManager.times(clock_ms, increment_ms, moves_to_go, 50) == (soft, hard)
    assert Limit(wtime=clock_ms, winc=increment_ms, movestogo=moves_to_go).for_move(chess.WHITE, 50) == \
        Limit(movetime=hard, soft_movetime=soft)


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


def test_a_movetime_loses_the_reply_latency_or_the_coordination_overhead():
    assert movetime_margin(50) == 10 and movetime_margin(150) == 150 and movetime_margin(0) == 10
    assert movetime_margin(150, configured_ms=30) == 30 and movetime_margin(50, configured_ms=0) == 0
