"""The match report's evidence: budgets per player from PGN comments, failures, the plot."""
from tournaments.statistics.elo import pentanomial
from tournaments.games.game import GameRecord
from tournaments.match.report import budget_table, endings_table, forfeits, move_budgets, plot_elo

PGN = """[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 { book } 1... e5 { book } 2. Nf3 { +0.31/9 0.98s nodes 25000 } 2... Nc6
{ -0.20/7 0.50s nodes 41260 cascade widened b8c6 -> b8c6 d7 } 3. Bb5 { +0.35/10 1.02s nodes 24990 }
3... a6 { #-5/12 0.40s nodes 39000 } 1-0
"""


def record(termination="adjudication: b resigns", white="a", black="b"):
    return GameRecord("0-0", 0, 1, white, black, white, True, "1-0", 1.0, termination, 6, "x", PGN)


def test_budgets_come_from_every_searched_move_and_skip_the_book():
    budgets = move_budgets([record()])
    assert budgets["a"].nodes == [25000, 24990] and budgets["a"].depths == [9, 10]
    assert budgets["b"].nodes == [41260, 39000] and budgets["b"].depths == [7]  # a mate score has no depth
    assert budgets["a"].seconds == [0.98, 1.02]
    table = "\n".join(budget_table(budgets))
    assert "| a | 2 | 24995 [24990, 24990] | 9.5 [9, 9] |" in table


def test_failures_are_counted_and_adjudications_are_not():
    games = [record(), record("forfeit: b sent an illegal move e2e5"), record("b lost on time")]
    assert [g.termination for g in forfeits(games)] == ["forfeit: b sent an illegal move e2e5", "b lost on time"]


def test_the_elo_plot_is_written(tmp_path):
    estimates = [pentanomial([5, 10, 20, 10, 5]), pentanomial([2, 5, 20, 15, 8])]
    path = plot_elo(["a - b", "a - c"], estimates, tmp_path / "elo.png", "test")
    assert path is not None and path.stat().st_size > 5000


def test_endings_are_grouped_without_names_and_numbers():
    games = [record(), record("adjudication: a resigns"), record("checkmate"),
             record("adjudication: 100 half-moves, full evaluation +169 cp for a")]
    table = "\n".join(endings_table(games))
    assert "| resignation (adjudicated) | 2 | 6 [6, 6] |" in table
    assert "| checkmate | 1 |" in table and "| move limit (thesis adjudication) | 1 |" in table


def test_only_a_strength_limited_engine_is_an_anchor():
    from tournaments.match.report import anchored_rating
    assert anchored_rating({"UCI_LimitStrength": True, "UCI_Elo": 2100}) == 2100.0
    assert anchored_rating({"UCI_LimitStrength": "true", "UCI_Elo": "1900"}) == 1900.0
    assert anchored_rating({"UCI_Elo": 2100}) is None  # the limiter is off: full strength, no rating
    assert anchored_rating({"UCI_LimitStrength": True}) is None
    assert anchored_rating({}) is None


def test_ladder_table_gives_each_pairings_rating_and_the_joint_fit():
    from tournaments.match.report import ladder_table
    # 75% against 1900 (+191), all lost against 2500 (no finite per-level rating), none against 2300
    lines = "\n".join(ladder_table([("sf-1900", 1900, [0, 0, 10, 0, 10]), ("sf-2300", 2300, [0] * 5),
                                    ("sf-2500", 2500, [6, 0, 0, 0, 0])], "full"))
    assert "| sf-1900 | 1900 | 75.0% | 2091 [" in lines
    assert "sf-2300" not in lines
    assert "| sf-2500 | 2500 | 0.0% | < 2500 |" in lines
    assert "**2070 [1982, 2158]** over 52 games" in lines
