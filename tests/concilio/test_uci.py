"""``concilio uci`` driven by python-chess, as a GUI would drive it."""
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from concilio.uci import UciEngine
from players.clock import DEFAULT_OVERHEAD_MS, MOVETIME_MARGIN_MS
from players.external import EngineNotFoundError, find_engine_binary
from players.limits import Limit, parse_go
from players.player import COORDINATED_OVERHEAD_MS

UCI = [sys.executable, "-m", "concilio", "uci"]
COLD_START_ENV = "CONCILIO_TEST_COLD_START"  # tests/conftest.py starts the probe and names its folder here
COLD_START_PROBE = Path(__file__).resolve().parent / "cold_start_probe.py"


@pytest.fixture
def engine():
    e = chess.engine.SimpleEngine.popen_uci(UCI, timeout=60)
    yield e
    e.quit()


def test_identifies_and_analyses(engine):
    assert engine.id["name"].startswith("Concilio full engine")
    assert "Hash" in engine.options
    info = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), chess.engine.Limit(depth=4))
    assert info["score"].white().mate() == 1 and info["pv"][0] == chess.Move.from_uci("a1a8")
    engine.configure({"Hash": 32})
    result = engine.play(chess.Board(), chess.engine.Limit(nodes=20000))
    assert result.move in chess.Board().legal_moves


def test_stop_during_infinite_returns_promptly(engine):
    with engine.analysis(chess.Board(), chess.engine.Limit()) as analysis:  # go infinite
        time.sleep(1.0)
        started = time.perf_counter()
        analysis.stop()
        best = analysis.wait()
    assert time.perf_counter() - started < 1.0
    assert best.move in chess.Board().legal_moves


def test_stop_right_after_go_infinite_is_never_lost():
    """A stop that reaches the engine before its search thread has begun must still end the
    search: twenty go infinite / stop pairs, twenty bestmoves, at once."""
    lines = ["uci", "isready", "position startpos"] + ["go infinite", "stop"] * 20 + ["isready"]
    started = time.perf_counter()
    proc = subprocess.run(UCI, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    answers = [line for line in proc.stdout.splitlines() if line.startswith("bestmove")]
    assert len(answers) == 20 and all(chess.Move.from_uci(a.split()[1]) in chess.Board().legal_moves
                                      for a in answers)
    assert time.perf_counter() - started < 30


def test_a_full_game_against_gnu_chess_without_losing_on_time():
    try:
        gnuchess = find_engine_binary("gnuchess")
    except EngineNotFoundError:
        pytest.skip("gnuchess not installed (CI installs it)")
    ours = chess.engine.SimpleEngine.popen_uci(UCI, timeout=60)
    def start_gnuchess() -> chess.engine.SimpleEngine:
        return chess.engine.SimpleEngine.popen_uci([gnuchess, "--uci"], timeout=60)

    theirs = start_gnuchess()
    board = chess.Board()
    clocks = {chess.WHITE: 4.0, chess.BLACK: 4.0}  # a bullet game: 4 s + 0.05 s a move
    increment = 0.05
    replaced = 0
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < 120:
            engine = ours if board.turn == chess.WHITE else theirs
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=increment, black_inc=increment)
            started = time.perf_counter()
            try:
                result = engine.play(board, limit)
            except chess.engine.EngineTerminatedError:
                if engine is ours or replaced == 3:
                    raise
                # GNU Chess's UCI adapter aborts on an over-long line of its engine's output (an
                # assertion in its engine.cc): the opponent is replaced and the game goes on
                replaced += 1
                with contextlib.suppress(chess.engine.EngineError):
                    theirs.quit()
                theirs = start_gnuchess()
                continue
            clocks[board.turn] -= time.perf_counter() - started
            if board.turn == chess.WHITE:
                assert clocks[chess.WHITE] > 0, f"Concilio lost on time at ply {board.ply()}"
            clocks[board.turn] += increment
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        ours.quit()
        with contextlib.suppress(chess.engine.EngineError):
            theirs.quit()
    assert board.ply() >= 20


def test_malformed_input_never_kills_or_hangs_the_engine():
    rng = random.Random(11)
    words = ["go", "position", "fen", "startpos", "moves", "e2e4", "e7e5", "zz", "setoption", "name", "value",
             "Hash", "-1", "99999", "wtime", "btime", "depth", "nodes", "movetime", "x", "9/9", "stop", "debug",
             "isready", "ucinewgame", "searchmoves", "a1a1", "infinite", "\x00", "é", "ponderhit", "mate"]
    lines = ["uci"]
    for _ in range(300):
        lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))))
        if rng.random() < 0.2:
            lines.append("stop")
    lines += ["stop", "position startpos moves e2e4", "go depth 3", "isready"]
    proc = subprocess.run(UCI, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.splitlines()
    assert "Traceback" not in proc.stderr
    assert out[-1] == "readyok" or any(l.startswith("bestmove") for l in out[-5:])
    assert any(l.startswith("info string") for l in out)


def test_an_ensemble_speaks_uci_with_its_votes(tmp_path):
    config = tmp_path / "duo.yaml"
    config.write_text("name: duo\ninstances: [MBXP, MXKA]\nselection: {criterion: majority}\n"
                      "budget: {movetime: 500}\ncluster: {workers: 2, dashboard: false}\n")
    engine = chess.engine.SimpleEngine.popen_uci(UCI + [str(config)], timeout=120)
    try:
        assert engine.id["name"].startswith("Concilio ensemble duo (MBXP)(MXKA)")
        assert "BudgetMode" in engine.options
        lines = []
        with engine.analysis(chess.Board(), chess.engine.Limit(time=1.0)) as analysis:
            for info in analysis:
                if "string" in info:
                    lines.append(info["string"])
        assert any(s.startswith("(MBXP) ") for s in lines) and any(s.startswith("majority:") for s in lines)
        started = time.perf_counter()
        result = engine.play(chess.Board(), chess.engine.Limit(white_clock=5, black_clock=5))
        assert time.perf_counter() - started < 5 / 3
        assert result.move in chess.Board().legal_moves
    finally:
        engine.quit()


def _after(commands: list[str]) -> tuple[chess.Board, str]:
    out = io.StringIO()
    engine = UciEngine(out=out)
    for line in commands:
        engine.handle(line)
    return engine.board, out.getvalue()


def _board(*ucis: str, fen: str = chess.STARTING_FEN) -> chess.Board:
    board = chess.Board(fen)
    for uci in ucis:
        board.push_uci(uci)
    return board


def test_a_position_that_extends_the_last_one_is_the_right_position():
    """A GUI resends the game before each move, and only the new moves are checked; every way
    the new command can differ from the last must still give its own position."""
    board, _ = _after(["position startpos moves e2e4 e7e5", "position startpos moves e2e4 e7e5 g1f3 b8c6"])
    assert board == _board("e2e4", "e7e5", "g1f3", "b8c6")
    board, _ = _after(["position startpos moves e2e4 e7e5", "position startpos moves d2d4"])
    assert board == _board("d2d4")
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    board, _ = _after(["position startpos moves e2e4", f"position fen {fen} moves e2e4 e8d7"])
    assert board == _board("e2e4", "e8d7", fen=fen)
    board, out = _after(["position startpos moves e2e4", "position startpos moves e2e4 e7e5 e1e3",
                         "position startpos moves e2e4 e7e5"])
    assert "illegal move 'e1e3'" in out and board == _board("e2e4", "e7e5")
    board, out = _after(["position startpos moves e2e4", "ucinewgame", "position startpos moves e2e4 e7e5"])
    assert "illegal" not in out and board == _board("e2e4", "e7e5")
    assert board.move_stack == _board("e2e4", "e7e5").move_stack


def test_a_movetime_loses_only_the_reply_latency_unless_move_overhead_is_set():
    """A 100 ms ``go movetime`` is a 90 ms search for a single searcher (the clock's 50 ms
    overhead once halved it), 100 - Move Overhead once the GUI sets that option, and for an
    ensemble too, whose coordination comes out of the movetime; a clock still keeps the
    clock's overhead back."""
    engine = UciEngine(out=io.StringIO())

    def go(uci: UciEngine, words: str) -> Limit:
        return uci.limit_for(parse_go(words.split())[0])
    assert go(engine, "movetime 100").movetime == 100 - MOVETIME_MARGIN_MS == 90
    assert go(engine, "movetime 1").movetime == 1  # never nothing
    assert engine.overhead == DEFAULT_OVERHEAD_MS
    engine.cmd_setoption("name Move Overhead value 30".split())
    assert go(engine, "movetime 100").movetime == 70 and engine.player.settings.move_overhead_ms == 30
    ensemble = UciEngine("3b", out=io.StringIO())  # read, built, not started: no workers needed
    assert go(ensemble, "movetime 1000").movetime == 1000 - MOVETIME_MARGIN_MS
    assert ensemble.overhead == COORDINATED_OVERHEAD_MS
    ensemble.cmd_setoption("name BudgetMode value equal_total".split())
    assert ensemble.player.settings.budget_mode == "equal_total"


def test_an_unknown_player_kind_is_named_with_its_file_and_field(tmp_path):
    config = tmp_path / "odd.yaml"
    config.write_text("kind: committee\ninstances: [MB]\n")
    done = subprocess.run(UCI + [str(config)], input="quit\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"{config}:1: kind: unknown kind 'committee'; known: instance, ensemble" in done.stderr


def test_an_instance_speaks_uci_with_its_mask():
    lines = ["uci", "setoption name Hash value 8", "isready", "position startpos", "go depth 3", "isready"]
    done = subprocess.run(UCI + ["MKP"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    out = done.stdout.splitlines()
    assert done.returncode == 0 and out[0] == "id name Concilio instance (MKP)"
    assert "BudgetMode" not in done.stdout and out.count("readyok") == 2
    [best] = [line for line in out if line.startswith("bestmove")]
    assert chess.Move.from_uci(best.split()[1]) in chess.Board().legal_moves


def test_the_ybw_player_answers_a_node_budget_and_a_movetime():
    """``concilio uci ybw``: Young Brothers Wait on two threads of one worker process answers
    ``go nodes 20000`` and ``go movetime 50`` with legal moves."""
    engine = chess.engine.SimpleEngine.popen_uci(UCI + ["ybw"], timeout=120)
    try:
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(nodes=20000))
        assert result.move in board.legal_moves
        board.push(result.move)
        result = engine.play(board, chess.engine.Limit(time=0.05))
        assert result.move in board.legal_moves
    finally:
        engine.quit()


@pytest.fixture(scope="module")
def in_process():
    """One engine in this process for many ``go`` lines: (engine, its output)."""
    out = io.StringIO()
    engine = UciEngine(out=out)
    engine.handle("isready")
    yield engine, out
    engine.close()


def _go(engine: UciEngine, out: io.StringIO, words: str) -> tuple[list[dict[str, int]], str, float]:
    """The info lines' numbers, the bestmove and the seconds of one ``go`` after 1. e4 e5."""
    out.seek(0)
    out.truncate()
    engine.handle("position startpos moves e2e4 e7e5")
    started = time.perf_counter()
    engine.handle(f"go {words}")
    engine.thread.join(timeout=120)
    seconds = time.perf_counter() - started
    infos, best = [], ""
    for line in out.getvalue().splitlines():
        tokens = line.split()
        if tokens[0] == "info" and "depth" in tokens:
            infos.append({k: int(tokens[tokens.index(k) + 1]) for k in ("depth", "nodes")})
        elif tokens[0] == "bestmove":
            best = tokens[1]
    return infos, best, seconds


@pytest.mark.parametrize("words, bound, value", [
    ("depth 3 movetime 20000", "depth", 3),
    ("depth 3 nodes 100000000", "depth", 3),
    ("depth 3 wtime 600000 btime 600000", "depth", 3),
    ("depth 2 mate 3", "depth", 2),
    ("nodes 2000 movetime 20000", "nodes", 2000),
    ("nodes 2000 wtime 600000 btime 600000", "nodes", 2000),
    ("nodes 2000 mate 10", "nodes", 2000),
    ("movetime 20000 wtime 1000 btime 1000", "time", None),
    ("movetime 300 mate 20", "time", None),
    ("wtime 1000 btime 1000 mate 20", "time", None),
])
def test_every_limit_of_a_go_applies_whichever_comes_first(in_process, words, bound, value):
    """UCI: each bound given stops the search, whichever comes first (``go depth 5 movetime 3000``
    once searched the whole 3 s to depth 19).  Every time bound here is 20 s, or a short one."""
    infos, best, seconds = _go(*in_process, words)
    board = _board("e2e4", "e7e5")
    assert chess.Move.from_uci(best) in board.legal_moves and infos
    assert seconds < 10
    if bound == "depth":
        assert max(i["depth"] for i in infos) == value
    elif bound == "nodes":
        assert max(i["nodes"] for i in infos) <= value


def test_multipv_reports_the_best_lines_in_order(engine):
    """An analysis GUI asks for MultiPV (it once got ``engine does not support option MultiPV``)."""
    assert engine.options["MultiPV"].default == 1 and engine.options["MultiPV"].max >= 256
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    moves = [info["pv"][0] for info in infos]
    assert len(set(moves)) == 3 and all(move in board.legal_moves for move in moves)
    scores = [info["score"].white().score() for info in infos]
    assert scores == sorted(scores, reverse=True)
    mate = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    infos = engine.analyse(mate, chess.engine.Limit(depth=5), multipv=3)
    assert len(infos) == 3 and infos[0]["pv"][0] == chess.Move.from_uci("a1a8")
    assert infos[0]["score"].white().mate() == 1
    assert engine.play(chess.Board(), chess.engine.Limit(depth=3)).move in chess.Board().legal_moves


def test_only_players_that_search_several_lines_offer_multipv():
    ensemble = UciEngine("3b", out=io.StringIO())  # read, built, not started: no workers needed
    ensemble.cmd_uci([])
    ensemble.cmd_setoption("name MultiPV value 3".split())
    said = ensemble.out.getvalue()
    assert "MultiPV" not in said.split("uciok")[0] and "ignored unknown option 'MultiPV'" in said
    instance = UciEngine("MKP", out=io.StringIO())
    instance.cmd_uci([])
    instance.cmd_setoption("name MultiPV value 0".split())
    assert "option name MultiPV type spin default 1 min 1 max" in instance.out.getvalue()
    assert "MultiPV must be 1-" in instance.out.getvalue() and instance.player.settings.multipv == 1


@pytest.mark.parametrize("target", [[], ["MKP"], ["3b"], ["abdada"], ["lazy-cluster"], ["fresh-cluster"], ["cascade"],
                                    ["gnuchess"]])
def test_uci_is_answered_before_the_engine_is_loaded(target):
    """Importing the search compiles it when numba's cache is cold (a minute) and loads it
    otherwise (seconds); a GUI gives ``uciok`` ten seconds.  Nothing that does either may run
    before ``uciok``, whatever the player: what ``concilio uci`` imports up to its engine
    answering ``uci``, the player's file read.  (numba itself is imported, a fifth of a second:
    ``players`` points its cache at the user's folder.)"""
    probe = ("import io, sys\n"
             "from concilio import cli, uci\n"
             "heavy = ('players.core.search', 'players.core.movegen', 'players.searcher', 'ensemble.player',\n"
             "         'players.decomposition.player', 'tournaments.training.fit')\n"
             "uci.UciEngine._start_early = lambda engine: print([m for m in heavy if m in sys.modules])\n"
             "sys.stdin = io.StringIO('uci\\n')\n"
             f"cli.main(['uci'] + {target!r})\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-2:] == ["uciok", "[]"], done.stdout + done.stderr[-2000:]


def cold_start_result(tmp_path) -> tuple[dict, Path]:
    """The cold-start probe's result and folder: the one the suite's controller started while it
    warmed up (tests/conftest.py), waited for; else (a run without it) the probe run here."""
    folder = os.environ.get(COLD_START_ENV)
    if folder is None:
        folder = str(tmp_path)
        subprocess.run([sys.executable, str(COLD_START_PROBE), folder], timeout=600, check=True)
    result = Path(folder) / "result.json"
    deadline = time.monotonic() + 600
    while not result.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert result.exists(), f"the cold-start probe wrote nothing in 10 minutes ({folder})"
    return json.loads(result.read_text()), Path(folder)


@pytest.mark.slow
def test_a_cold_start_answers_at_once_and_keeps_the_compile_out_of_the_first_search(tmp_path):
    """An empty numba cache: python-chess's ``popen_uci`` with its default timeouts (10 s for
    ``uciok``) starts the engine, a line on standard error says it compiles, and the first
    move's search reports its own time, not the compile's (about a minute).  The compiled code
    lands in the user's cache folder, one folder per engine (the suite's one cold compile: the
    folder's choice alone is tested in tests/base/test_resources.py)."""
    from base.fingerprint import engine_fingerprint
    from base.resources import compiled
    played, folder = cold_start_result(tmp_path)
    assert "error" not in played, played.get("error")
    assert chess.Move.from_uci(played["move"]) in chess.Board().legal_moves
    assert "compiling the engine, about a minute, once" in (folder / "stderr").read_text()
    assert played["time"] < min(1.0, played["wall"] / 4), played
    assert compiled(folder / "cache" / "concilio" / "numba" / f"engine-{engine_fingerprint()}")


def _speaks_while_searching_and_uses_its_movetime(engine: chess.engine.SimpleEngine, instances: int) -> None:
    """An ensemble as python-chess's ``analysis`` drives it (``go infinite``): an ``info`` with
    a score and a PV, and an ``info string`` naming the instances behind it, before any
    ``stop``; ``stop`` then gets the ``bestmove``.  A ``go movetime 1000`` uses most of the
    second (the coordination once cost a quarter of it): a loose bound."""
    engine.ping()  # isready: the workers are up
    board = chess.Board()
    stopped, strings, scored = [], [], None
    with engine.analysis(board) as analysis:
        # Without a word from the engine the loop below would wait for good: stop it late.
        watchdog = threading.Timer(15, lambda: (stopped.append(True), analysis.stop()))
        watchdog.start()
        started = time.perf_counter()
        for info in analysis:
            strings += [info["string"]] if "string" in info else []
            if "score" in info and "pv" in info:
                scored = time.perf_counter() - started
                break
        watchdog.cancel()
        time.sleep(max(0.0, 1.0 - (time.perf_counter() - started)))
        analysis.stop()
        best = analysis.wait()
    assert not stopped and scored is not None, "no info before stop"
    assert any(s.startswith("leading ") and f" of {instances} instances: (M" in s for s in strings), strings
    assert best.move in board.legal_moves
    started = time.perf_counter()
    result = engine.play(board, chess.engine.Limit(time=1.0))
    used = time.perf_counter() - started
    assert result.move in board.legal_moves
    assert 0.8 <= used < 2.0, used


def test_an_inline_ensemble_speaks_while_it_searches(tmp_path):
    config = tmp_path / "trio.yaml"
    config.write_text("name: trio\ninstances: [MBXP, MXKA, MBKR]\nselection: {criterion: majority}\n"
                      "cluster: {inline: true}\n")
    engine = chess.engine.SimpleEngine.popen_uci(UCI + [str(config)], timeout=120)
    try:
        _speaks_while_searching_and_uses_its_movetime(engine, 3)
    finally:
        engine.quit()


@pytest.mark.slow
def test_an_ensemble_on_workers_speaks_while_it_searches_and_uses_its_movetime():
    """``concilio uci 3b``: its instances on three local Dask workers."""
    engine = chess.engine.SimpleEngine.popen_uci(UCI + ["3b"], timeout=120)
    try:
        _speaks_while_searching_and_uses_its_movetime(engine, 3)
    finally:
        engine.quit()
