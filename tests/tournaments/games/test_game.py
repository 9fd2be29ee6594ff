"""A game's rules: seeded node jitter."""
from tournaments.games.game import TimeControl


def test_node_jitter_is_seeded_and_bounded():
    tc = TimeControl(nodes=10000, jitter=0.1)
    budgets = [tc.nodes_for("0-3", ply) for ply in range(50)]
    assert budgets == [tc.nodes_for("0-3", ply) for ply in range(50)]
    assert all(9000 <= b <= 11000 for b in budgets) and len(set(budgets)) > 40
    assert budgets != [tc.nodes_for("0-5", ply) for ply in range(50)]
    assert TimeControl(nodes=10000).nodes_for("0-3", 7) == 10000
