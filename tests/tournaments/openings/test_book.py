"""concilio book: openings drawn from an engine's MultiPV choices, balanced, new, resumable."""
import chess
import pytest

from tests.engines import needs_stockfish
from tournaments.openings.book import BookPlan, make_book, read_positions


@needs_stockfish
def test_a_book_holds_balanced_new_openings_and_resumes_as_one_run(tmp_path):
    excluded = tmp_path / "other.epd"
    excluded.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")  # 1. e4
    plan = BookPlan(tmp_path / "book.epd", count=3, plies=2, depth=5, multipv=4, window=40, balance=60, seed=7,
                    exclude=(excluded,))
    assert make_book(plan, progress=False) == 3
    lines = plan.out.read_text().splitlines()
    assert len(lines) == 3
    positions = set()
    for line in lines:
        board, ops = chess.Board.from_epd(line)
        replayed = chess.Board()
        for san in ops["c0"].replace("1.", "").split():
            replayed.push_san(san)
        assert replayed.epd() == board.epd() and board.ply() == 0  # c0 leads to the position
        assert len(replayed.move_stack) == 2
        assert abs(int(ops["c1"])) <= 60
        positions.add(board.epd())
    assert len(positions) == 3
    assert "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -" not in read_positions(plan.out)
    # Stopped after one opening and resumed to three: the same book as the run above.
    resumed = BookPlan(tmp_path / "resumed.epd", 1, 2, 5, 4, 40, 60, 7, exclude=(excluded,))
    make_book(resumed, progress=False)
    make_book(BookPlan(resumed.out, 3, 2, 5, 4, 40, 60, 7, exclude=(excluded,)), progress=False)
    assert resumed.out.read_text() == plan.out.read_text()


def test_a_missing_engine_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such-engine"):
        make_book(BookPlan(tmp_path / "b.epd", count=1, engine="no-such-engine"), progress=False)
