"""The seeded draws of self-play: game seeds, and the opening a seed picks."""
import random

from tournaments.training.labelling import LabelPlan, selfplay_openings
from tournaments.openings.books import read_book
from tournaments.openings.selfplay_draw import drawn_opening, game_seed, opening_index


def test_game_seeds_are_the_labeller_s():
    assert game_seed(1, 0) == 1_000_003 and game_seed(1, 799) == 1_000_802 and game_seed(0, 5) == 5


def test_the_drawn_opening_is_the_seeded_entry(data_dir):
    path = data_dir / "openings" / "8moves_v3-1000.epd"
    book = read_book(path)
    opening = drawn_opening(book, path.name, 1_000_004)
    index = random.Random(1_000_004).randrange(len(book))  # the arithmetic the shipped set was made with
    assert opening_index(1_000_004, len(book)) == index and opening.entry == index + 1 == 510
    assert (opening.fen, opening.moves) == book[index][:2] and opening.book == path.name


def test_labelling_plans_its_games_with_the_draw(data_dir, tmp_path):
    path = data_dir / "openings" / "8moves_v3-1000.epd"
    book = read_book(path)
    planned = selfplay_openings(LabelPlan(tmp_path / "x.sqlite", path, games=5, seed=3), book)
    assert planned == {game_seed(3, g): drawn_opening(book, path.name, game_seed(3, g)) for g in range(5)}
