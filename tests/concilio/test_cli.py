"""The ``concilio`` command: output contracts and bad-input handling."""
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "concilio", *args], capture_output=True, text=True, timeout=300)


def test_perft_prints_divide_and_node_line():
    out = run("perft", "--depth", "3", "--divide")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "e2e4: 600" in lines
    assert lines[-1].startswith("Nodes: 8902  time: ") and " nps: " in lines[-1]


def test_search_prints_info_lines_and_bestmove():
    out = run("search", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--depth", "4")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    # Iterations stop once the mate in one is confirmed (depth 3 >= 2 * 1 + 1).
    assert [l.split()[2] for l in lines[:-1]] == ["1", "2", "3"]
    assert lines[-2].split()[5:8] == ["score", "mate", "1"]
    assert lines[-1] == "bestmove a1a8"


def test_bench_ends_with_the_signature_the_readme_gives(readme_bench):
    depth, nodes = readme_bench
    out = run("bench", "--depth", str(depth))
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1].split()
    assert last[0] == "Bench:" and last[2] == "nodes" and last[4] == "nps"
    assert int(last[1]) == nodes, "the search changed: update the signature in README.md"


@pytest.mark.parametrize("fen, reason", [
    ("not a fen", "invalid FEN"),
    ("4k3/8/8/8/8/8/4q3/4K3 b - - 0 1", "the side not to move is in check"),
    ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "pawns on the first or last rank"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "white has no king"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "too many kings"),
])
def test_bad_fen_names_fen_and_reason(fen, reason):
    for cmd in (["search", "--depth", "2"], ["perft", "--depth", "2"]):
        out = run(*cmd, "--fen", fen)
        assert out.returncode == 2
        assert fen in out.stderr and reason in out.stderr


def test_bad_mask_and_limits():
    out = run("search", "--depth", "2", "--mask", "MQZ")
    assert out.returncode == 2 and "Q, Z" in out.stderr
    out = run("search", "--depth", "-1")
    assert out.returncode == 2 and "depth must be positive" in out.stderr


def test_play_prints_instances_votes_and_bestmove(tmp_path):
    config = tmp_path / "duo.yaml"
    config.write_text("instances: [MB, {mask: MX, weights: {X: 2}}]\nselection: {criterion: depth_confidence}\n"
                      "budget: {nodes: 3000}\ncluster: {workers: 2, dashboard: false}\n")
    out = run("play", str(config), "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "(MX X×2)" in text and "weights M=1 X=2" in text
    assert "criterion depth_confidence" in text
    assert text.strip().splitlines()[-1] == "bestmove a1a8"  # both instances see the back-rank mate


@pytest.mark.parametrize("player, says", [
    ("MKP", "instance (MKP): the searcher with MKP"),
    ("abdada-in-process", "decomposition abdada-in-process (abdada, 2 workers): abdada on 2 threads of this process"),
])
def test_play_works_for_an_instance_and_a_decomposition(player, says):
    out = run("play", player, "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--nodes", "3000")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith(says) and "Limit: nodes=3000" in lines
    assert any(line.startswith("info depth 1 ") for line in lines)  # the search's iterations
    assert lines[-2] == "pv a1a8" and lines[-1] == "bestmove a1a8"


def test_play_works_for_an_external_engine(tmp_path):
    engine = tmp_path / "ours.yaml"
    engine.write_text(f"kind: uci\nname: ours\ncommand: ['{sys.executable}', -m, concilio, uci, MB]\ntimeout: 60\n")
    out = run("play", str(engine), "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--depth", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == f"ours: external UCI engine {sys.executable} -m concilio uci MB"
    assert "score mate 1 depth 3" in out.stdout and lines[-2] == "pv a1a8" and lines[-1] == "bestmove a1a8"


def test_play_refuses_what_the_player_does_not_have():
    out = run("play", "MKP", "--criterion", "majority")
    assert out.returncode == 2
    assert "a selection criterion is an ensemble's; this player's kind is instance" in out.stderr
    out = run("play", "abdada-in-process", "--budget-mode", "equal_total")
    assert out.returncode == 2 and "budget_mode is an ensemble's setting" in out.stderr


def test_play_reports_a_bad_file_with_line_and_field(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("instances: [MB]\nselection: {criterion: plurality}\n")
    out = run("play", str(config))
    assert out.returncode == 2
    assert f"{config}:2: selection.criterion: unknown selection criterion 'plurality'" in out.stderr


def one_line_error(tmp_path, data: str, config: str, *args) -> tuple[str, str]:
    """Run ``args`` on a config (``{data}`` names the data file) and return the data file's
    path and stderr, which must be one error line with exit code 2."""
    (tmp_path / "data.txt").write_text(data)
    (tmp_path / "config.yaml").write_text(config.format(data=tmp_path / "data.txt", tmp=tmp_path))
    out = run(*args[:1], str(tmp_path / "config.yaml"), "--quiet", *args[1:])
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    return str(tmp_path / "data.txt"), out.stderr


def test_match_with_an_unreadable_book_names_the_file_and_its_lines(tmp_path):
    book, error = one_line_error(
        tmp_path, "1. e4 e5 2. Nf3\n1. d4 d5\n",
        "players: [{{name: a, instance: MB}}, {{name: b, instance: MK}}]\ngames: 2\nopenings: {{file: {data}}}\n"
        "time_control: {{nodes: 100}}\noutput: {tmp}/out\n", "match")
    assert f"{tmp_path / 'config.yaml'}:3: openings.file: {book}: no usable opening" in error
    assert "line 1: " in error and "line 2: " in error


def test_suite_with_no_usable_position_names_the_file_and_its_lines(tmp_path):
    suite, error = one_line_error(
        tmp_path, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n",
        "suites: [{{path: {data}}}]\nplayers: {{instances: [MB]}}\nbudget: {{nodes: 100}}\ncriteria: [majority]\n"
        "store: {tmp}/store.sqlite\nreport: {tmp}/report\n", "suite", "--no-search")
    assert f"concilio suite: error: {suite}: no usable position; " in error
    assert "line 1: no bm or am operation" in error
