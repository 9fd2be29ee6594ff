"""A game's rules: seeded node jitter, and each move's limit made from the time control."""
import chess

from players.limits import Limit
from tournaments.games.game import TimeControl


def test_node_jitter_is_seeded_and_bounded():
    tc = TimeControl(Limit(nodes=10000), jitter=0.1)
    budgets = [tc.nodes_for("0-3", ply) for ply in range(50)]
    assert budgets == [tc.nodes_for("0-3", ply) for ply in range(50)]
    assert all(9000 <= b <= 11000 for b in budgets) and len(set(budgets)) > 40
    assert budgets != [tc.nodes_for("0-5", ply) for ply in range(50)]
    assert TimeControl(Limit(nodes=10000)).nodes_for("0-3", 7) == 10000
    assert tc.limit("0-3", 7, {}, {}) == Limit(nodes=budgets[7])  # the move's limit carries the jittered budget


def test_a_clock_becomes_both_clocks_in_milliseconds_with_each_sides_increment():
    clock = TimeControl(base=60, increment=0.5)
    limit = clock.limit("0-1", 3, {chess.WHITE: 12.5, chess.BLACK: 30.0}, {chess.WHITE: 0.5, chess.BLACK: 0.1})
    assert limit == Limit(wtime=12_500, btime=30_000, winc=500, binc=100)
    assert clock.equal_time is False and TimeControl(Limit(nodes=5, equal_time=True)).equal_time
    assert clock.describe() == "clock 60+0.5 s" and TimeControl(Limit(movetime=250)).pgn() == "0.25/move"
