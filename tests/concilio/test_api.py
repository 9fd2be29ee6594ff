"""The Python API (``concilio.api``): the README's example runs as written, and the calls
check what they are given."""
import re
from pathlib import Path

import chess
import pytest

import concilio

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The code block of README.md's 'In Python' section."""
    section = README.read_text().split("## In Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # its suite and match write under the current directory
    exec(compile(readme_example(), "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "a1a8 10000" and "pv a1a8" in out
    assert "criterion weighted_majority" in out and "('a1a8',)" in out
    assert (tmp_path / "reports" / "smoke").is_dir() and (tmp_path / "runs" / "notebook" / "games.pgn").is_file()
    assert out[-1].startswith("3b-generalised vs full: ") and out[-1].endswith(" of 2")


def test_the_package_names_the_api_without_loading_it_at_import():
    assert set(concilio.__all__) <= set(dir(concilio))
    assert concilio.Limit(nodes=5).nodes == 5 and concilio.player is concilio.api.player
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        concilio.nothing  # noqa: B018


def test_analyse_by_a_player_of_ones_own_and_bad_overrides_are_named():
    with concilio.player("MB", hash_mb=4) as mb:
        assert mb.settings.hash_mb == 4
        played = concilio.analyse("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", concilio.Limit(depth=3), by=mb)
    assert played.move == "a1a8" and played.result.mate == 1
    assert concilio.evaluate(chess.Board(), "MB").total == 0
    with pytest.raises(concilio.ConcilioError, match="with an opening book it must be even"):
        concilio.run_match("quick", games=3)
    with pytest.raises(concilio.ConcilioError, match="takes one of nodes, depth or movetime"):
        concilio.run_match("quick", limit=concilio.Limit(nodes=5, depth=3))
