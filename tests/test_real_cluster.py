"""A real cluster (issue 42 item 6): every Dask-using player, unchanged, against an external
``dask scheduler`` and two ``dask worker`` processes started here on loopback, the way a
cluster of machines is used (``cluster: {scheduler: tcp://...}`` in the player's file).

The cluster is ``tests.loopback``'s; the experiments' own tests on it are in
``tests/tournaments/test_on_a_scheduler.py``."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
import pytest
import yaml

from ensemble.catalog import build, describe
from players.limits import Limit
from tests.loopback import free_port, loopback, stop

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory) -> str:
    """``tcp://127.0.0.1:port`` of a scheduler with two single-threaded worker processes."""
    yield from (c.address for c in loopback(tmp_path_factory.mktemp("dask-logs")))


def _on_scheduler(tmp_path: Path, config: Path, kind: str, address: str) -> Path:
    """A copy of ``config`` that names its kind and uses the scheduler at ``address``."""
    data = yaml.safe_load(config.read_text())
    data["kind"] = kind
    data["cluster"] = {"scheduler": address}
    path = tmp_path / config.name
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("config, kind, nodes", [
    ("ensembles/3b.yaml", "ensemble", 2000),
    ("decomposition/pv-split.yaml", "decomposition", 4000),
    ("decomposition/lazy-cluster.yaml", "decomposition", 2000),
])
def test_player_plays_on_an_external_scheduler(scheduler, tmp_path, config, kind, nodes):
    spec = describe(_on_scheduler(tmp_path, CONFIGS / config, kind, scheduler))
    assert spec.kind == kind
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    with build(spec) as player:
        played = player.play(board, Limit(nodes=nodes))
        if kind == "ensemble":  # its instances live on the scheduler's two workers, not inline
            assert len(player.workers()) == 2, player.workers()
        else:
            assert scheduler in player.describe(), player.describe()
    assert chess.Move.from_uci(played.move) in board.legal_moves, played


def test_with_scheduler_plays_a_shipped_file_unchanged(scheduler):
    """The CLI's ``--scheduler`` route: the shipped file, the address from outside."""
    spec = describe("pv-split").with_scheduler(scheduler)
    board = chess.Board()
    with build(spec) as player:
        played = player.play(board, Limit(nodes=2000))
    assert chess.Move.from_uci(played.move) in board.legal_moves, played


def test_three_instances_on_two_worker_threads_are_told_so_and_all_vote(scheduler):
    """3b on the scheduler's two single-threaded workers: a warning up front; on a timed move
    the two instances that share a thread search one after the other, so none misses the
    deadline on every move (as one once did)."""
    said: list[str] = []
    board = chess.Board()
    with build(describe("3b").with_scheduler(scheduler), events=said.append) as player:
        assert any(line.startswith("3 instances on 2 worker thread(s)") for line in said), said
        voted = []
        for _ in range(2):
            played = player.play(board, Limit(movetime=800))
            assert chess.Move.from_uci(played.move) in board.legal_moves
            voted.append({r.label for r in player.last_decision.reports if r.excluded is None})
        places = player.placement
    shared = {label for label, where in places.items() if list(places.values()).count(where) == 2}
    assert len(shared) == 2 and any(shared <= v for v in voted), (said, voted)


def test_a_scheduler_without_workers_is_waited_for_aloud_then_named(tmp_path, monkeypatch):
    import base.runner.dask
    from base.cluster import ClusterError
    monkeypatch.setattr(base.runner.dask, "START_TIMEOUT_S", 3.0)
    monkeypatch.setattr(base.runner.dask, "WAITING_SAID_EVERY_S", 1.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    lone = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                             address.rsplit(":", 1)[1], "--no-dashboard"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    said: list[str] = []
    try:
        player = build(describe("3b").with_scheduler(address), events=said.append)
        with pytest.raises(ClusterError, match=f"0 of 1 Dask worker\\(s\\) joined in 3 s; start them with "
                                               f"`dask worker {address} --nthreads 1`"):
            player.start()
    finally:
        stop(lone)
    assert said and said[0] == f"waiting for workers (0/3) on the scheduler {address}", said
    assert len(said) >= 2
