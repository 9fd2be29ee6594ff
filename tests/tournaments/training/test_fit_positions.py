"""The fit's positions file: resume, a killed run's tail, a damaged line named; Stockfish's
games seeded and their positions quiet."""
import chess
import pytest

from tests.engines import needs_stockfish
from tests.tournaments.training.fit_files import FENS
from tournaments.training.fit_positions import (FitDataError, FitDataPlan, FitGame, append_game,
                                                drop_unfinished, make_positions, play_game, read_games,
                                                read_positions)
from tournaments.training.labelling import close_engines


def test_positions_file_round_trip_and_a_killed_runs_tail(tmp_path):
    path = tmp_path / "p.txt"
    append_game(path, FitGame(7, ((FENS[0], 25), (FENS[1], -40)), 0.5))
    append_game(path, FitGame(8, (), 1.0))  # a game with no quiet position still counts as played
    with path.open("a") as handle:  # a run killed inside game 9: two lines, the second cut short
        handle.write(f"{FENS[2]};13\n{FENS[3][:20]}")
    assert [seed for seed, _, _ in read_games(path)] == [7, 8]
    assert list(read_positions(path)) == [(FENS[0], 25, 7, 0.5), (FENS[1], -40, 7, 0.5)]
    assert drop_unfinished(path) > 0
    append_game(path, FitGame(9, ((FENS[2], 13),), 0.0))
    assert [(seed, len(p)) for seed, _, p in read_games(path)] == [(7, 2), (8, 0), (9, 1)]
    assert drop_unfinished(path) == 0


def test_a_damaged_positions_file_names_the_line(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(f"{FENS[0]};25\nnot a position\n#game 1 0.5 2\n")
    with pytest.raises(FitDataError, match=r"p.txt:2: expected 'FEN;centipawns'"):
        list(read_games(path))
    path.write_text(f"{FENS[0]};25\n#game 1 0.5 3\n")
    with pytest.raises(FitDataError, match=r"p.txt:2: game 1 counts 3 positions, 1 lines precede it"):
        list(read_games(path))


@needs_stockfish
def test_a_game_is_seeded_and_its_positions_quiet(tmp_path, data_dir):
    try:
        first = play_game(3, chess.STARTING_FEN, depth=4, max_plies=40)
        again = play_game(3, chess.STARTING_FEN, depth=4, max_plies=40)
    finally:
        close_engines()
    assert first == again and first.positions
    for fen, cp in first.positions:
        board = chess.Board(fen)
        assert not board.is_check() and abs(cp) <= 30_000
    plan = FitDataPlan(tmp_path / "p.txt", data_dir / "openings" / "8moves_v3-1000.epd", games=2, depth=3, workers=1)
    count = make_positions(plan, progress=False)
    assert len(list(read_games(plan.out))) == 2 and count == sum(1 for _ in read_positions(plan.out))
    size = plan.out.stat().st_size
    assert make_positions(plan, progress=False) == count and plan.out.stat().st_size == size  # nothing replayed
