"""One limits type: what it accepts, what a move's limit leaves to its search, and its
conversions to and from python-chess's ``chess.engine.Limit`` and UCI's ``go`` arguments."""
import pickle

import chess
import chess.engine
import pytest

from players.clock import TimeManager
from players.limits import Limit, LimitError, parse_go


@pytest.mark.parametrize("limit", [
    Limit(nodes=20000),
    Limit(depth=9),
    Limit(movetime=250),
    Limit(wtime=60_000, btime=59_500, winc=500, binc=500, movestogo=20),
    Limit(nodes=5000, depth=7, movetime=900),
])
def test_a_limit_goes_to_python_chess_and_back(limit):
    engine = limit.to_engine()
    assert isinstance(engine, chess.engine.Limit)
    assert Limit.from_engine(engine) == limit


def test_python_chess_seconds_become_milliseconds_and_mate_a_depth():
    engine = chess.engine.Limit(time=0.1, white_clock=3.5, black_clock=2.25, white_inc=0.05)
    limit = Limit.from_engine(engine)
    assert (limit.movetime, limit.wtime, limit.btime, limit.winc, limit.binc) == (100, 3500, 2250, 50, None)
    assert limit.clock(chess.WHITE) == (3500, 50) and limit.clock(chess.BLACK) == (2250, 0)
    assert Limit.from_engine(chess.engine.Limit(mate=2)).depth == 5  # as UCI's go mate 2
    assert Limit.from_engine(chess.engine.Limit(time=0.0001)).movetime == 1  # never nothing
    assert Limit.from_engine(chess.engine.Limit()).unbounded


@pytest.mark.parametrize("limit", [
    Limit(nodes=20000),
    Limit(wtime=60_000, btime=59_000, winc=500, binc=500, movestogo=20),
    Limit(depth=5, infinite=True),
    Limit(movetime=100, searchmoves=("e2e4", "d2d4")),
    Limit(infinite=True),
    Limit(),
])
def test_a_limit_goes_to_uci_go_arguments_and_back(limit):
    parsed, ignored = parse_go(limit.to_go().split())
    assert parsed == limit and ignored == []


def test_go_arguments_as_guis_send_them():
    assert parse_go("wtime 1000 btime -20 winc 10 binc 10".split())[0] == Limit(wtime=1000, btime=0, winc=10, binc=10)
    assert parse_go("go_on depth x nodes 0 mate 3".split()) == (Limit(nodes=1, depth=7), ["go_on", "depth"])
    assert parse_go("depth 0 movetime 0 movestogo 0".split())[0] == Limit(depth=1, movetime=1)
    assert parse_go(["ponder"])[0].infinite and parse_go(["nodes"])[1] == ["nodes"]
    assert parse_go("searchmoves e2e4 g1f3 depth 4".split())[0] == Limit(depth=4, searchmoves=("e2e4", "g1f3"))


def test_a_limit_is_a_frozen_value_that_pickles_and_refuses_what_bounds_nothing():
    limit = Limit(nodes=100, searchmoves=["e2e4"])  # a list becomes a tuple: the value stays hashable
    assert limit.searchmoves == ("e2e4",) and hash(limit) == hash(pickle.loads(pickle.dumps(limit)))
    with pytest.raises(AttributeError):
        limit.nodes = 5  # type: ignore[misc]
    with pytest.raises(LimitError, match="movestogo must be positive"):
        Limit(movestogo=0)
    with pytest.raises(LimitError, match="winc must not be negative"):
        Limit(winc=-5)
    assert str(Limit(nodes=10, equal_time=True)) == "nodes=10 equal_time=True" and str(Limit()) == "until stop"
    assert Limit(nodes=10).deterministic and not Limit(movetime=10).deterministic and not Limit().deterministic


def test_soft_time_without_hard_time_is_refused_and_fixed_keeps_only_the_soft_time():
    with pytest.raises(LimitError, match="soft_movetime"):
        Limit(depth=5, soft_movetime=100)
    with pytest.raises(LimitError, match="soft_movetime"):
        Limit(movetime=50, soft_movetime=100)
    assert Limit(movetime=500, soft_movetime=100).fixed() == Limit(movetime=100)
    assert Limit(nodes=10).fixed() == Limit(nodes=10)


def test_a_move_limit_becomes_the_searchs_limit():
    assert Limit(nodes=500).for_move(chess.WHITE) == Limit(nodes=500)
    soft = (60_000 - 50) // 25
    assert Limit(wtime=60_000, btime=1).for_move(chess.WHITE, 50) == Limit(movetime=5 * soft, soft_movetime=soft)
    assert Limit(wtime=60_000).for_move(chess.BLACK).unbounded  # Black has no clock: until stop
    assert Limit().for_move(chess.WHITE).unbounded and not Limit(depth=3).unbounded  # until stop: no sentinel
    assert Limit(wtime=1000, infinite=True).for_move(chess.WHITE) == Limit(infinite=True)  # the clock does not count
    assert Limit(depth=3, infinite=True).for_move(chess.WHITE).depth == 3
    assert Limit(movetime=100, wtime=60_000).for_move(chess.WHITE) == Limit(movetime=100)  # a movetime is the time


def test_a_movetime_and_a_clock_both_apply_whichever_comes_first():
    """UCI: every bound given applies.  A movetime beyond what the clock allows the move is cut
    to the clock's hard time (``go wtime 1000 movetime 60000`` once searched the minute)."""
    soft, hard = TimeManager.times(1000, 0, None, 50)
    assert Limit(movetime=60_000, wtime=1000).for_move(chess.WHITE, 50) == Limit(movetime=hard, soft_movetime=soft)
    between = (soft + hard) // 2
    assert Limit(movetime=between, wtime=1000).for_move(chess.WHITE, 50) == Limit(movetime=between, soft_movetime=soft)
    assert Limit(movetime=60_000, wtime=1000, infinite=True).for_move(chess.WHITE).movetime == 60_000


def test_a_mate_and_a_depth_both_apply():
    assert parse_go("depth 3 mate 5".split())[0].depth == 3 and parse_go("mate 1 depth 9".split())[0].depth == 3
    assert Limit.from_engine(chess.engine.Limit(depth=3, mate=5)).depth == 3
    assert Limit.from_engine(chess.engine.Limit(depth=9, mate=1)).depth == 3
