"""The ``concilio`` command: output contracts and bad-input handling."""
import subprocess
import sys

import pytest

from concilio import cli


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
def test_bad_fen_names_fen_and_reason(fen, reason, capsys):
    # In this process (cli.main is what the command runs): a process per case cost 3 s each.
    for cmd in (["search", "--depth", "2"], ["perft", "--depth", "2"]):
        assert cli.main([*cmd, "--fen", fen]) == 2
        err = capsys.readouterr().err
        assert fen in err and reason in err


def test_a_bad_fen_exits_2_from_the_command_line():
    out = run("perft", "--depth", "2", "--fen", "not a fen")
    assert out.returncode == 2 and "not a fen" in out.stderr and "invalid FEN" in out.stderr


def test_bad_mask_and_limits(capsys):
    assert cli.main(["search", "--depth", "2", "--mask", "MQZ"]) == 2
    assert "Q, Z" in capsys.readouterr().err
    assert cli.main(["search", "--depth", "-1"]) == 2
    assert "depth must be positive" in capsys.readouterr().err


def test_play_prints_instances_votes_and_bestmove(tmp_path):
    config = tmp_path / "duo.yaml"
    config.write_text("instances: [MB, {mask: MX, weights: {X: 2}}]\nselection: {criterion: depth_confidence}\n"
                      "budget: {nodes: 3000}\ncluster: {workers: 2, dashboard: false}\n")
    out = run("-v", "play", str(config), "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "(MX X×2)" in text and "weights M=1 X=2" in text
    assert "criterion depth_confidence" in text
    assert text.strip().splitlines()[-1] == "bestmove a1a8"  # both instances see the back-rank mate
    lines = text.splitlines()
    # the selection as words, every column named and explained
    assert "Selection depth_confidence (c 100, seed 0); budget nodes 3000" in text and "{" not in text
    head = next(line for line in lines if line.startswith("instance "))
    assert head.split() == ["instance", "move", "score", "depth", "roots", "nodes", "time", "worker"]
    assert any(line.startswith("depth: the deepest finished iteration") and "roots: " in line for line in lines)
    # -v: Dask's INFO logs, of the scheduler in this process and of the workers in theirs
    assert "distributed.scheduler INFO" in out.stderr and "distributed.worker - INFO" in out.stderr


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


def test_version_is_the_installed_package_and_the_engine(capsys):
    from importlib.metadata import version

    from base.fingerprint import engine_fingerprint
    from concilio.cli import main
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"concilio {version('concilio')} (engine {engine_fingerprint()})"


def _parsers(parser, name="concilio"):
    """Every parser of the command line, the subcommands' (and their steps') included."""
    import argparse
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def test_every_help_shows_its_defaults_and_an_example(monkeypatch):
    from concilio.cli import build_parser
    monkeypatch.setenv("COLUMNS", "400")  # no wrapping: each default stays on one line
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 25
    for name, parser in parsers:
        text = parser.format_help()
        lines = text.splitlines()
        assert any(line.startswith("example") for line in lines), name
        example = lines[next(i for i, line in enumerate(lines) if line.startswith("example")) + 1]
        assert example.startswith(f"  {name}"), (name, example)
        for action in parser._actions:
            if action.help is None or action.nargs == 0 or action.default in (None, [], "==SUPPRESS=="):
                continue  # no help to show it in (none lacks one: checked below), a flag, or no default
            assert f"(default: {action.default})" in text, (name, action.dest)
        undocumented = [a.dest for a in parser._actions if a.help is None and a.option_strings]
        assert not undocumented, (name, undocumented)
    fit = dict(parsers)["concilio fit"].format_help()
    assert "``" not in fit and "**" not in fit  # its recipe as plain text, not reStructuredText


def test_verbose_sets_our_and_dasks_loggers_and_the_workers_level():
    import logging

    from base import logs
    from concilio.cli import main
    names = logs.OURS + logs.DASK
    before = {name: logging.getLogger(name).level for name in names}
    try:
        assert logs.worker_log_level() == logging.ERROR  # quiet workers by default
        assert main(["perft", "--depth", "1", "-vv"]) == 0
        assert {logging.getLogger(name).level for name in names} == {logging.DEBUG}
        assert logs.worker_log_level() == logging.DEBUG
        assert main(["-v", "perft", "--depth", "1"]) == 0
        assert {logging.getLogger(name).level for name in names} == {logging.INFO}
    finally:
        logs._level = None
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)


def test_verbose_shows_our_modules_info_logs():
    args = ("play", "lazy-cluster-in-process", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--nodes", "2000")
    quiet, verbose = run(*args), run("-v", *args)
    assert quiet.returncode == verbose.returncode == 0, quiet.stderr + verbose.stderr
    assert "players.decomposition.session INFO" not in quiet.stderr
    assert "players.decomposition.session INFO: 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1: lockstep" in verbose.stderr


def test_no_progress_bar_into_a_file_or_pipe(tmp_path):
    config = tmp_path / "m.yaml"
    config.write_text(f"players: [{{name: mb, instance: MB}}]\ngames: 2\ntime_control: {{nodes: 200}}\n"
                      f"max_plies: 6\nconcurrency: 1\noutput: {tmp_path / 'out'}\n")
    out = run("match", str(config))  # stderr is a pipe here, as it is a file under nohup or a scheduler
    assert out.returncode == 0, out.stderr
    assert "\r" not in out.stderr and "game 0-1 full - mb" in out.stdout


def test_play_tells_a_mistyped_mask_from_a_missing_config(capsys):
    from concilio.cli import main
    assert main(["play", "MKPZ"]) == 2
    assert "MKPZ: Z is not a category (the categories are M B X K P A R)" in capsys.readouterr().err
    assert main(["play", "does-not-exist"]) == 2
    err = capsys.readouterr().err
    assert "does-not-exist: no such config" in err
    shipped = err.split("the shipped ones, by kind:")[1].splitlines()
    assert any(line.startswith("  ensembles: ") and " 3b," in line for line in shipped)
    assert "  engines: gnuchess, stockfish" in shipped
    assert any(line.startswith("  decomposition: ") and " abdada," in line for line in shipped)


def test_the_parser_shows_its_owners_defaults_without_loading_the_engine():
    # Every command builds the parser first; importing the defaults' owners loads the compiled
    # engine (a minute on an empty cache), so the parser keeps copies: they must not drift.
    probe = ("import sys\nfrom concilio import cli\ncli.build_parser()\n"
             "print([m for m in ('numba', 'players.searcher', 'tournaments.training.fit') if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr[-2000:]
    from concilio.commands import bench, fit, inputs
    from evaluation.spec import CATEGORIES
    from players.bench import BENCH_DEPTH
    from tournaments.training.fit import DEFAULT_POSITIONS, RIDGE
    assert (inputs.CATEGORIES, bench.BENCH_DEPTH, fit.FIT_POSITIONS, fit.FIT_RIDGE) == (CATEGORIES, BENCH_DEPTH,
                                                                                      DEFAULT_POSITIONS, RIDGE)
