"""benchmarks/sprt_commits.py builds a match file the match command accepts."""
import sys
from pathlib import Path

import pytest
import yaml

from tournaments.match.config import load_match

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.sprt_commits import ROOT, check_runs_its_tree, engine, match_file, parse_clock  # noqa: E402


def test_the_generated_match_is_valid_and_asks_one_question(tmp_path):
    work, base = engine(Path("/a"), tmp_path / "ca"), engine(Path("/b"), tmp_path / "cb")
    assert work[:3] == ["env", "PYTHONPATH=/a", f"NUMBA_CACHE_DIR={tmp_path / 'ca'}"] and work[-2:] == ["concilio", "uci"]
    for tc in ({"movetime": 100}, parse_clock("10+0.1")):
        path = tmp_path / "m.yaml"
        path.write_text(yaml.safe_dump(match_file("abc123", work, base, tc, 0, 5, 4000, 2, tmp_path / "out")))
        config = load_match(path)
        assert config.pairings() == [("work", "base")] and config.sprt.elo1 == 5
        assert config.entry("base").command == tuple(base)
        # Both engines lose the same margin, whatever their commits' defaults.
        assert config.entry("work").options == config.entry("base").options == {"Move Overhead": 10}
    assert parse_clock("10+0.1") == {"base": 10.0, "increment": 0.1}
    # Another book: its openings, not the 8-move book's.
    book = tmp_path / "book.epd"
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    path.write_text(yaml.safe_dump(match_file("abc123", work, base, {"movetime": 100}, 0, 5, 4000, 2,
                                              tmp_path / "out", str(book))))
    assert [fen for fen, _, _ in load_match(path).openings] == [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]


def test_each_engine_runs_the_code_of_its_own_tree_not_the_working_tree(tmp_path):
    """``python -m`` from the working tree would import the working tree's code for both
    engines (a match of the tree against itself): the command must not, and the check sees it."""
    other = tmp_path / "tree"
    (other / "players").mkdir(parents=True)
    (other / "players" / "__init__.py").write_text("")
    check_runs_its_tree(engine(other, tmp_path / "cache"), other)
    check_runs_its_tree(engine(ROOT, tmp_path / "cache"), ROOT)
    unsafe = [part for part in engine(other, tmp_path / "cache") if part != "-P"]
    with pytest.raises(RuntimeError, match="imports"):
        check_runs_its_tree(unsafe, other)
