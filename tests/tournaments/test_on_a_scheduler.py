"""Experiments on an existing Dask cluster (issue 63): a ``dask scheduler`` and ``dask worker``
processes on loopback (``tests.loopback``), used as a cluster of machines is, through the
``cluster: {scheduler: …}`` of the experiment's file.  Under node budgets the results equal a
local run's; a worker or the scheduler lost costs no finished work."""
from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import chess.pgn
import pytest
import yaml

from tests.loopback import ROOT, loopback, stop

pytestmark = pytest.mark.slow

MATCH = """
players:
  - {name: mkp, instance: MKP}
baseline: full
games: GAMES
time_control: {nodes: 2000}
max_plies: PLIES
"""

SUITE = """
suites:
  - {path: data:suites/wac.epd, first: 3}
players:
  instances: [MB]
  full: true
budget: {nodes: 2000}
criteria: [majority]
workers: 1
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler with two single-threaded workers, shared by the tests that kill nothing."""
    yield from loopback(tmp_path_factory.mktemp("dask-logs"))


def _file(folder: Path, name: str, text: str, remote: str | None = None, **values) -> Path:
    for key, value in values.items():
        text = text.replace(key.upper(), str(value))
    text = textwrap.dedent(text) + (f"cluster: {{scheduler: {remote}}}\n" if remote else "")
    path = folder / name
    path.write_text(text)
    return path


def _match(folder: Path, remote: str | None = None, games: int = 2, plies: int = 12):
    from tournaments.match.config import load_match
    folder.mkdir(parents=True, exist_ok=True)
    path = _file(folder, "m.yaml", MATCH + f"output: {folder / 'out'}\n", remote, games=games, plies=plies)
    return load_match(path)


def _games(records) -> dict[str, tuple]:
    """Each game's moves and result, by id (the PGN's headers hold dates and times)."""
    def moves(pgn: str) -> list[str]:
        return [m.uci() for m in chess.pgn.read_game(io.StringIO(pgn)).mainline_moves()]
    return {r.id: (r.white, r.black, r.result, r.termination, r.plies, moves(r.pgn)) for r in records}


def test_a_match_on_the_scheduler_plays_the_local_games(cluster, tmp_path):
    from tournaments.match.run import run_match
    said: list[str] = []
    here = run_match(_match(tmp_path / "here"), progress=False, out=lambda line: None)
    there = run_match(_match(tmp_path / "there", cluster.address), progress=False, out=said.append)
    assert len(here.records) == 2
    assert _games(there.records) == _games(here.records)
    assert said[0].startswith(f"on the Dask cluster at {cluster.address}: 2 worker(s), 2 thread(s)"), said


def _searches(store: Path) -> list[tuple]:
    """The stored searches without their wall time (the only field a machine changes)."""
    with sqlite3.connect(store) as db:
        columns = [c[1] for c in db.execute("PRAGMA table_info(searches)") if c[1] != "time"]
        return sorted(db.execute(f"SELECT {', '.join(columns)} FROM searches").fetchall())


def test_a_suite_on_the_scheduler_stores_the_local_searches(cluster, tmp_path):
    from tournaments.suite.config import load_suite
    from tournaments.suite.run import run_suite
    stores = []
    for where, remote in (("here", None), ("there", cluster.address)):
        folder = tmp_path / where
        folder.mkdir()
        text = SUITE + f"store: {folder / 's.sqlite'}\nreport: {folder / 'report'}\n"
        outcome = run_suite(load_suite(_file(folder, "s.yaml", text, remote)), progress=False, warn=lambda line: None)
        assert outcome.searches_added == 6
        stores.append(_searches(folder / "s.sqlite"))
    assert stores[0] == stores[1] and len(stores[0]) == 6


def test_a_worker_that_joins_late_gets_slots_and_a_cap_is_kept(tmp_path):
    from base.cluster import WORKERS_ASKED_EVERY_S, Remote
    from base.runner import open_runner
    logs = tmp_path / "logs"
    logs.mkdir()
    gen = loopback(logs, workers=1)
    cluster = next(gen)
    said: list[str] = []
    try:
        runner, own = open_runner(1, remote=Remote(cluster.address), tell=said.append)
        capped, _ = open_runner(1, remote=Remote(cluster.address, slots=1), tell=said.append)
        try:
            assert own and runner.live() == [0]
            cluster.add_worker()
            deadline = time.monotonic() + WORKERS_ASKED_EVERY_S + 2
            while runner.live() != [0, 1] and time.monotonic() < deadline:
                time.sleep(0.1)
            assert runner.live() == [0, 1]  # the newcomer's slot, within the second the worker list may be stale
            assert capped.live() == [0] and capped.workers == 1  # at most one slot, however many join
        finally:
            runner.close()
            capped.close()
        from distributed import Client
        with Client(cluster.address) as client:  # the workers stay up, holding nothing of the runners
            held = client.run(lambda dask_worker: [n for n in dask_worker.plugins if n.startswith("concilio-runner")])
        assert held and not any(held.values()), held
    finally:
        gen.close()
    assert said[0].startswith(f"on the Dask cluster at {cluster.address}: 1 worker(s), 1 thread(s)"), said


def test_a_worker_killed_mid_match_costs_only_its_game(tmp_path, caplog):
    """The game running on the killed worker is played again on the other; the finished ones are kept."""
    from tournaments.match.run import read_records, run_match
    logs = tmp_path / "logs"
    logs.mkdir()
    gen = loopback(logs, workers=2)
    cluster = next(gen)
    said: list[str] = []

    def out(line: str) -> None:
        said.append(line)
        if line.startswith("game ") and cluster.workers[0].poll() is None:
            cluster.workers[0].kill()  # a game is under way on each worker: one of them is lost
    try:
        config = _match(tmp_path / "m", cluster.address, games=6, plies=40)
        outcome = run_match(config, progress=False, out=out)
    finally:
        gen.close()
    ids = [r.id for r in read_records(config.output)]
    assert sorted(ids) == sorted(s.id for s in config.schedule()) and len(set(ids)) == 6, said
    assert outcome.played == 6
    assert any("running its job again on another worker" in r.getMessage() for r in caplog.records), said


def _concilio(*args: str, cwd: Path) -> subprocess.Popen:
    # A lost scheduler is given Dask's connect timeout to come back (30 s by default): 5 s here.
    env = dict(os.environ, PYTHONPATH=str(ROOT), DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="5s")
    return subprocess.Popen([sys.executable, "-m", "concilio", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("resume", ["here", "on a new scheduler"])
def test_a_lost_scheduler_stops_the_match_which_resumes(tmp_path, resume):
    """The scheduler killed after the first game: exit 2, a line on how to go on; the same
    command finishes the match, here (without ``--scheduler``) or on a new scheduler, the games
    played kept and none played twice."""
    logs = tmp_path / "logs"
    logs.mkdir()
    path = _match(tmp_path / "m", games=6, plies=40).source
    gen = loopback(logs, workers=2)
    cluster = next(gen)
    try:
        run = _concilio("match", path, "--scheduler", cluster.address, "--quiet", cwd=tmp_path)
        lines = []
        for line in run.stdout:
            lines.append(line)
            if line.startswith("game "):
                stop(cluster.scheduler, kill=True)
                break
        rest, err = run.communicate(timeout=300)
    finally:
        gen.close()
    assert run.returncode == 2, (lines, rest, err)
    assert "concilio match: error: " in err and "finished work is kept: rerun the same command to resume" in err, err
    played = [json.loads(line)["id"] for line in (tmp_path / "m" / "out" / "games.jsonl").read_text().splitlines()]
    assert 1 <= len(played) < 6
    (tmp_path / "logs2").mkdir()
    gen = loopback(tmp_path / "logs2", workers=1) if resume != "here" else iter([None])
    anew = next(gen)
    try:
        again = _concilio("match", path, "--quiet", *(["--scheduler", anew.address] if anew else []), cwd=tmp_path)
        out, err = again.communicate(timeout=600)
    finally:
        if anew:
            gen.close()
    assert again.returncode == 0, out + err
    assert f"{len(played)} games already played, {6 - len(played)} to go" in out, out
    assert ("on the Dask cluster at" + (f" {anew.address}" if anew else "") in out) == bool(anew), out
    finished = [json.loads(line)["id"] for line in (tmp_path / "m" / "out" / "games.jsonl").read_text().splitlines()]
    assert finished[:len(played)] == played and sorted(finished) == sorted(set(finished)) and len(finished) == 6


SWEEP = """\
name: t
nodes: 1000
workers: [2, 4]
games: 2
openings: {file: data:openings/sf-multipv-16plies-1000.epd, seed: 43}
max_plies: 12
concurrency: 1
output: OUT
arms:
  F: {label: full at k N, player: MBXKPAR, budget: total}
"""


def test_a_sweep_point_and_a_duel_on_the_scheduler_play_the_local_games(cluster, tmp_path):
    from dataclasses import replace

    from tournaments.scaling.config import load_sweep
    from tournaments.scaling.run import _play, play_points
    from tournaments.match.run import read_records
    games = []
    for where, remote in (("here", None), ("there", cluster.address)):
        path = _file(tmp_path, f"{where}.yaml", SWEEP, remote, out=tmp_path / where)
        sweep = load_sweep(path)
        said: list[str] = []
        play_points(sweep, ("F",), (2,), progress=False, out=said.append)
        duel = replace(sweep.duel_match("F4", "F2"), games=2)
        _play(duel, "duel", None, False, said.append, sweep.remote)
        assert any(line.startswith("on the Dask cluster at") for line in said) == (remote is not None), said
        games.append([_games(read_records(folder)) for folder in (sweep.folder(sweep.arm("F"), 2), duel.output)])
    assert games[0] == games[1] and all(len(g) == 2 for g in games[0])


def test_a_tune_on_the_scheduler_searches_and_chooses_as_here(cluster, data_dir, tmp_path):
    from tests.tournaments.autotune.tune_files import tiny_set, write_config
    from tournaments.autotune.config import load_autotune
    from tournaments.autotune.run import run_autotune
    results = []
    for where, remote in (("here", None), ("there", cluster.address)):
        folder = tmp_path / where
        folder.mkdir()
        extra = f"cluster: {{scheduler: {remote}}}\n" if remote else ""
        config = load_autotune(write_config(folder, tiny_set(data_dir, folder), extra))
        assert (config.remote is not None) == bool(remote)
        outcome = run_autotune(config, progress=False, warn=lambda line: None)
        assert outcome.searches_added > 0
        results.append((yaml.safe_load((folder / "tuned.yaml").read_text()),  # its comment names the folder
                        _searches(folder / "store.sqlite")))
    assert results[0] == results[1]


SPEEDUP = """\
name: tiny
positions: POSITIONS
depth: 4
limit: 3
workers: [1, 2]
node_workers: []
search: {exact: true, null_move: false, lmr: false, futility: false}
algorithms:
  - {name: root-split+pvs, algorithm: root_split}
"""


def test_a_speedup_s_parallel_searches_run_on_the_scheduler(cluster, data_dir, tmp_path):
    from base.cluster import Remote
    from base.config import ConfigError
    from tournaments.speedup.run import load_speedup, run_speedup
    path = _file(tmp_path, "tiny.yaml", SPEEDUP, positions=data_dir / "suites" / "bratko-kopec.epd")
    settings, variants = load_speedup(path)
    said: list[str] = []
    rows = run_speedup(settings, variants, out=said.append, remote=Remote(cluster.address))
    assert [(r.algorithm, r.workers, r.agree) for r in rows] == [("root-split+pvs", 1, 3), ("root-split+pvs", 2, 3)]
    assert f"2 workers on the Dask cluster at {cluster.address}" in said, said
    path.write_text(path.read_text() + "  - {name: abdada, algorithm: abdada, shared_table: true}\n")
    with pytest.raises(ConfigError, match="abdada: a shared table or the threads of one process need the workers"):
        run_speedup(*load_speedup(path), out=said.append, remote=Remote(cluster.address))


def test_workers_of_another_engine_are_refused(cluster, monkeypatch):
    import base.fingerprint
    from base.cluster import ClusterError, Remote
    from base.runner import open_runner
    monkeypatch.setattr(base.fingerprint, "engine_fingerprint", lambda: "0123456789ab")  # here only
    with pytest.raises(ClusterError, match=f"the workers of {cluster.address} run engine [0-9a-f]{{12}} "
                                           r"\(base.fingerprint\) and this checkout engine 0123456789ab"):
        open_runner(1, remote=Remote(cluster.address), tell=lambda line: None)


LABELLER = """\
import sys
import chess
board, lines = chess.Board(), 1
for line in sys.stdin:
    words = line.split()
    if words == ["uci"]:
        print("id name sorted")
        print("option name MultiPV type spin default 1 min 1 max 500")
        print("uciok", flush=True)
    elif words[:1] == ["isready"]:
        print("readyok", flush=True)
    elif words[:4] == ["setoption", "name", "MultiPV", "value"]:
        lines = int(words[4])
    elif words[:1] == ["position"]:
        at = words.index("moves") if "moves" in words else len(words)
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:at]))
        for move in words[at + 1:]:
            board.push_uci(move)
    elif words[:1] == ["go"]:
        moves = sorted(m.uci() for m in board.legal_moves)[:lines]
        for k, move in enumerate(moves, 1):
            print(f"info depth 1 multipv {k} score cp {-k} nodes 1 pv {move}")
        print(f"bestmove {moves[0]}", flush=True)
    elif words[:1] == ["quit"]:
        break
"""


def test_labelling_on_the_scheduler_stores_the_local_positions_and_labels(cluster, data_dir, tmp_path):
    """Self-play games and labels as the workers' tasks (a labeller that lists the sorted legal
    moves stands in for Stockfish: every worker runs it, as every machine needs the engine)."""
    from base.cluster import Remote
    from tournaments.training.label_store import LabelStore
    from tournaments.training.labelling import LabelPlan, run_label
    script = tmp_path / "sorted.py"
    script.write_text(LABELLER)
    engine = tmp_path / "sorted"
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    engine.chmod(0o755)
    stores = []
    for where, remote in (("here", None), ("there", Remote(cluster.address))):
        plan = LabelPlan(tmp_path / f"{where}.sqlite", data_dir / "openings" / "8moves_v3-1000.epd", games=2,
                         per_game=3, budgets=(200,), engine=str(engine), nodes=10, multipv=2, workers=1, remote=remote)
        outcome = run_label(plan, progress=False)
        assert outcome.games == 2 and outcome.labels == outcome.positions >= 1
        with LabelStore(plan.store) as store:
            stores.append(sorted(store.labelled()))
    assert stores[0] == stores[1]
