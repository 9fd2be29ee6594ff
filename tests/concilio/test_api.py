"""The Python API (``concilio.api``): the README's example runs as written, and the calls
check what they are given."""
import re
import subprocess
import sys
from pathlib import Path

import chess
import chess.engine
import pytest

import concilio

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The code block of README.md's 'In Python' section."""
    section = README.read_text().split("## In Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run_script(path: Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """A script run as a user runs one: a fresh interpreter, the file's path, its own folder."""
    return subprocess.run([sys.executable, str(path)], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_the_readme_example_runs_as_a_saved_script(tmp_path):
    # As a file, not exec'd: Dask's spawned workers re-import a script (not a -c string), the
    # case that broke when the README's example had no main guard.
    script = tmp_path / "example.py"
    script.write_text(readme_example())
    done = run_script(script, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.splitlines()
    assert out[0] == "a1a8 10000 PovScore(Mate(+1), WHITE)" and "pv a1a8" in out
    assert "criterion weighted_majority" in out and "('a1a8',)" in out
    assert (tmp_path / "reports" / "smoke").is_dir() and (tmp_path / "runs" / "notebook" / "games.pgn").is_file()
    assert out[-1].startswith("3b-generalised vs full: ") and out[-1].endswith(" of 2")
    assert "bootstrapping" not in done.stderr and "Nanny failed" not in done.stderr


@pytest.mark.slow
def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text("import chess, concilio\n"
                      "print('top level')\n"
                      "with concilio.player('3b') as p:\n"
                      "    p.play(chess.Board(), concilio.Limit(nodes=500))\n")
    done = run_script(script, tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert "unguarded.py" in last and 'if __name__ == "__main__":' in last
    # Before: ~860 lines of Nanny and bootstrapping errors; now one traceback of the script's own.
    assert len(done.stderr.splitlines()) < 60 and "bootstrapping" not in done.stderr


def test_python_chess_limits_moves_and_scores_work_with_every_call():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1")  # Black to move, a rook down
    played = concilio.analyse(board, chess.engine.Limit(depth=4))
    assert played.chess_move in board.legal_moves and played.chess_move.uci() == played.move
    assert played.pov_score.turn == chess.BLACK and played.pov_score.relative.score() == played.score
    assert played.pov_score.white().score() == -played.score > 300
    black_mates = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").mirror()  # Black to move mates: a8a1
    mate = concilio.analyse(black_mates, chess.engine.Limit(depth=3))
    assert mate.move == "a8a1" and mate.score == 10_000
    assert mate.pov_score.relative == chess.engine.Mate(1) and mate.pov_score.white() == chess.engine.Mate(-1)
    assert concilio.Limit.from_engine(chess.engine.Limit(time=0.25, nodes=9)) == concilio.Limit(movetime=250, nodes=9)
    with pytest.raises(concilio.ConcilioError, match="expected a concilio.Limit or a chess.engine.Limit"):
        concilio.analyse(board, {"depth": 3})


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
