"""The label store: the points scale (expected score lost, by hand), and openings recorded
after the fact only where a stored game could have started."""
import chess
import pytest

from tournaments.records.opening_record import Opening
from tournaments.training.label_store import LabelStore, OpeningMismatchError, expected_score, move_points


def test_points_follow_the_expected_score_lost():
    # E(0) = .5; E(-10) = .4856 -> 10 - 1.44 = 8.56 -> 9; E(-50) = .4283 -> 2.83 -> 3; E(-300) -> below 0
    assert move_points([("a", 0), ("b", -10), ("c", -50), ("d", -300)]) == {"a": 10, "b": 9, "c": 3}
    # a rook up, 50 cp matter little: E(900) - E(850) = .0037 -> 9.63 -> 10
    assert move_points([("a", 900), ("b", 850)]) == {"a": 10, "b": 10}
    assert expected_score(0) == 0.5 and abs(expected_score(400) - 10 / 11) < 1e-12
    assert move_points([]) == {}


def test_games_stored_before_openings_were_learn_theirs(tmp_path):
    first, second = (Opening("b.epd", n, chess.STARTING_FEN) for n in (1, 2))
    with LabelStore(tmp_path / "old.sqlite") as store:
        store.add_source("selfplay:1", [])
        store.add_source("selfplay:2", [], first)
        assert store.backfill_openings([("selfplay:1", first), ("selfplay:2", second)]) == 1
        assert store.openings() == {"selfplay:1": first, "selfplay:2": first}  # a recorded one is kept


def test_a_backfilled_opening_must_be_where_the_stored_game_could_start(tmp_path):
    """A store filled from another book or seed: the opening the plan now draws cannot precede
    the game's stored positions, and recording it would let the real opening into matches."""
    board = chess.Board()
    for uci in ("e2e4", "e7e5"):
        board.push_uci(uci)
    after_d4 = chess.Board()
    after_d4.push_uci("d2d4")
    with LabelStore(tmp_path / "old.sqlite") as store:
        store.add_source("selfplay:3", [(board.epd(), "selfplay:3:2")])
        with pytest.raises(OpeningMismatchError, match=r"selfplay:3:2 cannot follow d4.epd:5"):
            store.backfill_openings([("selfplay:3", Opening("d4.epd", 5, after_d4.fen()))])
        assert store.openings() == {}
        assert store.backfill_openings([("selfplay:3", Opening("b.epd", 1, chess.STARTING_FEN))]) == 1
