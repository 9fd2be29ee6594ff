"""Matches: PGN that python-chess reads back, the thesis adjudication in a real game,
forfeits for crashing, hanging and cheating engines, and a killed match that resumes
without losing or replaying a game."""
import io
import json
import signal
import subprocess
import sys
import textwrap
import time

import chess
import chess.pgn
import pytest

from tests.tournaments.match.match_files import write
from tournaments.match.run import read_records, run_match

FAKE_ENGINE = textwrap.dedent('''
    import os, sys, time
    import chess
    mode, board, gos = sys.argv[1], chess.Board(), 0
    if len(sys.argv) > 2:  # where to note this process's id
        with open(sys.argv[2], "a") as f:
            f.write(f"{os.getpid()}\\n")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name fake"); print("uciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position":
            board = chess.Board()
            if "moves" in words:
                for m in words[words.index("moves") + 1:]:
                    board.push_uci(m)
        elif words[0] == "go":
            gos += 1
            if gos == 2 and mode == "crash":
                sys.exit(3)
            if gos == 2 and mode == "hang":
                time.sleep(60)
            move = next(iter(board.legal_moves))
            if gos == 2 and mode == "illegal":
                print("bestmove e2e5", flush=True)
                continue
            print(f"info depth 1 score cp 0"); print(f"bestmove {move.uci()}", flush=True)
        elif words[0] == "quit":
            sys.exit(0)
    while mode == "linger":  # its input closed without a quit, it stays, as GNU Chess 6 does
        time.sleep(1)
''')


def test_a_match_writes_pgn_that_round_trips(tmp_path):
    config = write(tmp_path, """
        players: [{name: mkp, instance: MKP}]
        games: 2
        time_control: {nodes: 800}
        max_plies: 16
    """)
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert len(outcome.records) == 2
    text = (tmp_path / "out" / "games.pgn").read_text()
    handle = io.StringIO(text)
    games = [chess.pgn.read_game(handle) for _ in range(2)]
    for game, record in zip(games, outcome.records):
        assert not game.errors
        assert game.headers["White"] == record.white and game.headers["Result"] == record.result
        assert game.headers["GameId"] == record.id and game.headers["ConfigHash"] == config.digest
        moves = list(game.mainline())
        assert len(moves) == 16  # no natural end in 16 half-moves: the thesis adjudication
        assert "adjudication: 16 half-moves" in game.headers["Termination"]
        assert "s" in moves[0].comment and "/" in moves[0].comment  # "+0.31/9 0.98s"
        board = game.end().board()
        assert board.ply() == 16
    assert outcome.summaries[0].games == 2
    assert (tmp_path / "out" / "summary.md").read_text().startswith("# Match")


@pytest.mark.parametrize("mode,reason", [("crash", "crashed"), ("hang", "did not answer in time"),
                                         ("illegal", "illegal move")])
def test_misbehaving_engines_lose_and_the_match_goes_on(tmp_path, mode, reason):
    script = tmp_path / "fake.py"
    script.write_text(FAKE_ENGINE)
    config = write(tmp_path, f"""
        players:
          - {{name: fake, uci: ['{sys.executable}', '{script}', {mode}], timeout: 1}}
          - {{name: mb, instance: MB}}
        baseline: mb
        games: 2
        time_control: {{movetime: 50}}
        max_plies: 8
    """)
    started = time.time()
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert time.time() - started < 30
    records = sorted(outcome.records, key=lambda r: r.id)
    assert len(records) == 2
    for r in records:  # each game: the fake's second move misbehaves; it is restarted for the next game
        assert r.points == 0.0 and reason in r.termination
        game = chess.pgn.read_game(io.StringIO(r.pgn))
        assert not game.errors  # the illegal move was never played on the board


def test_a_parallel_match_quits_the_engines_its_workers_kept(tmp_path):
    """Engines live on their worker between games; when the match ends they are sent quit.
    A worker that is only shut down leaves them running (GNU Chess then spins on a core)."""
    script, pids = tmp_path / "fake.py", tmp_path / "pids"
    script.write_text(FAKE_ENGINE)
    config = write(tmp_path, f"""
        players:
          - {{name: fake, uci: ['{sys.executable}', '{script}', linger, '{pids}']}}
          - {{name: m, instance: M}}
        baseline: m
        games: 2
        time_control: {{movetime: 20}}
        max_plies: 4
        concurrency: 2
    """)
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert len(outcome.records) == 2
    started = [int(line) for line in pids.read_text().split()]
    assert started
    deadline = time.time() + 10
    alive = started
    while alive and time.time() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in started if _running(pid)]
    assert not alive, f"engines left running: {alive}"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def test_a_killed_match_resumes_without_losing_or_replaying(tmp_path):
    body = """
        players: [{name: mp, instance: MP}]
        games: 8
        time_control: {nodes: 3000}
        max_plies: 30
    """
    config = write(tmp_path, body)
    proc = subprocess.Popen([sys.executable, "-m", "concilio", "match", str(tmp_path / "m.yaml"), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    index = tmp_path / "out" / "games.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.2)
        if index.exists() and len(index.read_text().splitlines()) >= 2:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_records(tmp_path / "out")
    assert 2 <= len(before) < 8
    outcome = run_match(config, progress=False, out=lambda line: None)
    ids = [r.id for r in outcome.records]
    assert sorted(ids) == sorted(s.id for s in config.schedule())  # every game once
    assert outcome.played == 8 - len(before)
    pgn = (tmp_path / "out" / "games.pgn").read_text()
    assert pgn.count("[GameId ") == 8
    lines = [json.loads(x) for x in index.read_text().splitlines()]
    assert len(lines) == len({x["id"] for x in lines}) == 8
    from base.fingerprint import engine_fingerprint
    assert {x["engine"] for x in lines} == {engine_fingerprint()}


def one_game_played(tmp_path, engine: str) -> tuple:
    """A two-game match whose folder holds its first game, played by ``engine``."""
    config = write(tmp_path, """
        players: [{name: mp, instance: MP}]
        games: 2
        time_control: {nodes: 2000}
        max_plies: 10
    """)
    folder = tmp_path / "out"
    folder.mkdir()
    played = {"id": "0-0", "pairing": 0, "round": 1, "white": "mp", "black": "full", "player": "mp",
              "player_is_white": True, "result": "1/2-1/2", "points": 0.5, "termination": "max plies", "plies": 10,
              "opening": "", "pgn": "[Result \"1/2-1/2\"]\n\n*", "engine": engine}
    (folder / "games.jsonl").write_text(json.dumps(played) + "\n")
    return config, folder, played


def test_a_match_played_by_another_engine_is_not_resumed(tmp_path):
    from tournaments.match.run import EngineChangedError
    config, folder, played = one_game_played(tmp_path, "0123456789ab")
    with pytest.raises(EngineChangedError, match=r"games.jsonl: 1 game\(s\) were played by engine 0123456789ab"):
        run_match(config, progress=False, out=lambda line: None)
    assert json.loads((folder / "games.jsonl").read_text()) == played  # nothing finished is lost
    played["engine"] = ""  # a game from before engines were recorded: resumed as before
    (folder / "games.jsonl").write_text(json.dumps(played) + "\n")
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert outcome.played == 1 and len(outcome.records) == 2


def test_a_match_another_process_plays_is_left_alone_and_a_game_written_twice_counts_once(tmp_path):
    import os
    import socket

    from base.errors import ConcilioError
    from tournaments.match.claim import PLAYING, claimed
    config, folder, played = one_game_played(tmp_path, "")
    text = json.dumps(played) + "\n"
    (folder / "games.jsonl").write_text(text * 2)  # the same game twice, as a hand-merged copy leaves it
    assert [r.id for r in read_records(folder)] == ["0-0"]
    with claimed(folder / PLAYING):  # as a lane still playing the match holds it
        with pytest.raises(ConcilioError, match=rf"out: another process \({socket.gethostname()}:{os.getpid()}\) "
                                                r"is playing this match"):
            run_match(config, progress=False, out=lambda line: None)
    assert (folder / "games.jsonl").read_text() == text * 2  # untouched while the other one plays
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert outcome.played == 1 and [r.id for r in outcome.records] == ["0-0", "0-1"]
    assert [json.loads(x)["id"] for x in (folder / "games.jsonl").read_text().splitlines()] == ["0-0", "0-1"]


def test_an_instance_player_is_loaded_before_its_first_timed_move():
    """Numba loads the search on its first call (seconds); a match player that paid it inside
    its first move would lose clock time, or the game on a short clock. A fresh process shows it:
    after ``build()`` the compiled search is already loaded."""
    code = textwrap.dedent("""
        from players.core.search import search_root
        from tournaments.match.players import PlayerEntry
        assert not search_root.signatures
        PlayerEntry("instance", "full", "MBXKPAR").build()
        print(len(search_root.signatures))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 1


def test_each_game_line_shows_the_sprt_so_far(tmp_path, data_dir):
    """A long SPRT is watched from its log: every finished game reports the LLR on the pairs so
    far, and the last line's LLR is the one the match decides on."""
    config = write(tmp_path, f"""
        players: [{{name: mb, instance: MB}}, {{name: mx, instance: MX}}]
        baseline: mx
        games: 4
        openings: {{file: {data_dir / 'openings' / '8moves_v3-1000.epd'}, seed: 3}}
        time_control: {{depth: 1}}
        max_plies: 12
        sprt: {{elo0: 0, elo1: 10}}
    """)
    lines: list[str] = []
    outcome = run_match(config, progress=False, out=lines.append)
    games = [line for line in lines if line.startswith("game ")]
    assert len(games) == 4
    assert all(line.endswith("[-2.94, 2.94]") and "; LLR " in line for line in games)
    assert games[-1].endswith(outcome.summaries[0].sprt(config).format())


def test_a_player_can_have_its_own_budget(tmp_path):
    """Node odds, as cutechess gives each engine its own time control: the full engine at eight
    times the nodes of its opponent, every move of each side within its own budget."""
    config = write(tmp_path, """
        players: [{name: big, full: true, time_control: {nodes: 4000}}]
        games: 2
        time_control: {nodes: 500}
        max_plies: 12
    """)
    assert config.time_control("big").per_move.nodes == 4000 and config.time_control("full").per_move.nodes == 500
    outcome = run_match(config, progress=False, out=lambda line: None)
    handle = io.StringIO((tmp_path / "out" / "games.pgn").read_text())
    spent: dict[str, list[int]] = {"big": [], "full": []}
    for _ in range(2):
        game = chess.pgn.read_game(handle)
        assert "TimeControl" not in game.headers
        sides = {chess.WHITE: game.headers["White"], chess.BLACK: game.headers["Black"]}
        assert game.headers["WhiteTimeControl"] == f"{4000 if sides[chess.WHITE] == 'big' else 500} nodes per move"
        for node in game.mainline():
            spent[sides[not node.board().turn]].append(int(node.comment.split("nodes ")[1].split()[0]))
    assert len(spent["big"]) == len(spent["full"]) == 12
    assert max(spent["full"]) <= 500 < min(spent["big"]) and max(spent["big"]) <= 4000
    assert "big: 4000 nodes per move" in (tmp_path / "out" / "summary.md").read_text()
    assert outcome.summaries[0].games == 2


def test_a_match_whose_openings_moved_is_not_resumed(tmp_path):
    """Resuming skips games by id: after the book's order changed (here its seed; a growing
    exclusion does the same), finished ids would stand for other openings."""
    from tournaments.match.run import ScheduleChangedError
    body = """
        players: [{name: mkp, instance: MKP}]
        games: 2
        openings: {file: data:openings/8moves_v3-1000.epd, seed: SEED}
        time_control: {nodes: 300}
        max_plies: 4
    """
    run_match(write(tmp_path, body.replace("SEED", "1")), progress=False, out=lambda line: None)
    played = (tmp_path / "out" / "games.jsonl").read_text()
    with pytest.raises(ScheduleChangedError, match=r"2 finished game\(s\) no longer match .* game 0-0 was"):
        run_match(write(tmp_path, body.replace("SEED", "2")), progress=False, out=lambda line: None)
    assert (tmp_path / "out" / "games.jsonl").read_text() == played  # nothing finished is lost
    again = run_match(write(tmp_path, body.replace("SEED", "1").replace("games: 2", "games: 4")),
                      progress=False, out=lambda line: None)
    assert again.played == 2 and len(again.records) == 4


def test_an_sprt_with_min_games_does_not_stop_the_match_early():
    from types import SimpleNamespace

    from tournaments.match.config import Sprt
    from tournaments.match.run import PairingSummary, _decided
    summary = PairingSummary("a", "b")
    for i in range(60):  # 30 pairs, 20 won 2-0 and 10 won 1.5-0.5: decided long before 100 games
        white, won = i % 2 == 0, i % 6 != 5
        result = "1/2-1/2" if not won else "1-0" if white else "0-1"
        summary.add(SimpleNamespace(points=1.0 if won else 0.5, player_is_white=white, result=result), i)
    config = SimpleNamespace(sprt=Sprt(0, 20), openings=("x",))
    assert summary.sprt(config).decision == "H1" and _decided(config, [summary])
    config.sprt = Sprt(0, 20, min_games=100)
    assert not _decided(config, [summary])


def test_a_draw_the_thesis_scored_0_38_is_a_draw_and_its_points_are_shown_apart(tmp_path):
    """The PGN says 1/2-1/2 for a game stopped at the move limit whatever the evaluation, so
    W-D-L, points and Elo are the PGN's; the thesis adjudication's 0.38 is shown beside, labelled."""
    from tournaments.games.game import GameRecord
    from tournaments.match.run import summarise, write_summary
    config = write(tmp_path, """
        players: [{name: mkp, instance: MKP}]
        games: 4
        time_control: {nodes: 800}
        max_plies: 100
    """)

    def game(i, result, points, termination):
        white = i % 2 == 0
        return GameRecord(f"0-{i}", 0, i + 1, "mkp" if white else "full", "full" if white else "mkp", "mkp", white,
                          result, points, termination, 100, "", f'[Result "{result}"]\n\n{result}')
    records = [game(0, "1-0", 1.0, "checkmate"),
               game(1, "1/2-1/2", 0.38, "adjudication: 100 half-moves, full evaluation -24 cp for mkp"),
               game(2, "0-1", 0.0, "checkmate"), game(3, "1-0", 0.0, "checkmate")]
    s = summarise(config, records)[0]
    assert (s.wdl, s.points, s.thesis_points) == ((1, 1, 2), 1.5, 1.38)
    assert s.elo().score == pytest.approx(1.5 / 4)  # what Ordo or BayesElo makes of games.pgn
    line = s.line(config)
    assert line.startswith("mkp vs full: 1.5/4  +1 =1 -2") and "(thesis points 1.38/4)" in line
    (tmp_path / "out").mkdir()
    write_summary(config, [s], tmp_path / "out", records)
    table = (tmp_path / "out" / "summary.md").read_text()
    assert "| points | games | W-D-L |" in table and table.count(" thesis points |") == 1
    row = next(line for line in table.splitlines() if line.startswith("| mkp | full |"))
    assert row.startswith("| mkp | full | 1.5 | 4 | 1-1-2 | 1-0-1 | 0-1-1 |") and row.endswith("| 1.38 |")


def test_a_game_that_fails_on_its_worker_is_named_logged_and_replayed(tmp_path, monkeypatch, capsys):
    import tournaments.match.run as match_run
    config = write(tmp_path, """
        players: [{name: mp, instance: MP}]
        games: 4
        time_control: {nodes: 1000}
        max_plies: 10
    """)
    task = match_run.play_game_task

    def fails_once(spec, *args):
        if spec.id == "0-2":
            return [][0]  # an IndexError deep in a game, as a worker would raise it
        return task(spec, *args)

    monkeypatch.setattr(match_run, "play_game_task", fails_once)
    outcome = run_match(config, progress=False, out=lambda line: None)
    assert sorted(r.id for r in outcome.records) == ["0-0", "0-1", "0-3"]  # the others are kept
    said = capsys.readouterr().err
    assert "game 0-2 failed on its worker (IndexError: list index out of range at test_run.py:" in said
    log = (tmp_path / "out" / "failed-games.log").read_text()
    assert log.startswith("game 0-2:\nTraceback") and "in fails_once" in log
    monkeypatch.setattr(match_run, "play_game_task", task)
    again = run_match(config, progress=False, out=lambda line: None)
    assert again.played == 1 and len(again.records) == 4  # only the failed game is played again


def test_games_pair_by_opening_and_an_unfinished_pair_is_left_out_of_the_pentanomial():
    from tournaments.games.game import GameRecord
    from tournaments.match.run import PairingSummary

    def game(round_: int, player_white: bool, result: str, points: float) -> GameRecord:
        return GameRecord(f"0-{round_ - 1}", 0, round_, "p" if player_white else "q", "q" if player_white else "p",
                          "p", player_white, result, points, "", 80, "", "")
    summary = PairingSummary("p", "q")
    # rounds 1-2 share opening 0, 3-4 opening 1, 5 is opening 2's first game; by hand, p scores
    # 1 + 0 = 1 (middle bucket), then 1/2 + 1 = 1.5, though the thesis scored round 3's cut game
    # 0.8 for p: 1.8, rounded to 2 points; round 5 has no partner yet and counts in neither
    for r, white, result, points in [(1, True, "1-0", 1.0), (2, False, "1-0", 0.0),
                                     (3, True, "1/2-1/2", 0.8), (4, False, "0-1", 1.0), (5, True, "1-0", 1.0)]:
        summary.add(game(r, white, result, points), r - 1)
    assert summary.wdl == (3, 1, 1) and summary.points == 3.5 and summary.thesis_points == pytest.approx(3.8)
    assert summary.pair_counts() == [0, 0, 1, 1, 0]
    assert summary.pair_counts(thesis=True) == [0, 0, 1, 0, 1]
    assert summary.pentanomial().games == 4  # the two whole pairs
