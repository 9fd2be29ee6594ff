"""Experiments on an existing Dask cluster (issue 63): a ``dask scheduler`` and ``dask worker``
processes on loopback (``tests.loopback``), used as a cluster of machines is, through the
``cluster: {scheduler: …}`` of the experiment's file.  Under node budgets the results equal a
local run's; a worker or the scheduler lost costs no finished work."""
from __future__ import annotations

import io
import sqlite3
import textwrap
from pathlib import Path

import chess.pgn
import pytest

from tests.loopback import loopback

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
