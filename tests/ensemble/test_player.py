"""The ensemble on real Dask clusters: instances on workers give exactly the
searches a single process would, a worker killed mid-move costs its vote but not
the move or the deadline, and a file runs unchanged against an external scheduler."""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import chess
import pytest

from ensemble.config import Budget, load_ensemble
from ensemble.player import EnsemblePlayer
from players.limits import Limit

pytest.importorskip("distributed")

FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def config_text(extra: str) -> str:
    return "instances: [MBXP, MXKA]\nselection: {criterion: majority}\ncluster: {workers: 2, dashboard: false}\n" + extra


def test_instances_on_workers_search_exactly_like_one_process():
    config = load_ensemble(text=config_text("budget: {nodes: 30000}\n"))
    with EnsemblePlayer(config) as player:
        assert len(set(player.placement.values())) == 2  # one instance per worker
        decision = player.choose(FEN, ["e1g1", "f8c5"])
    board = chess.Board(FEN)
    board.push_uci("e1g1")
    board.push_uci("f8c5")
    assert chess.Move.from_uci(decision.move) in board.legal_moves
    assert not decision.excluded and decision.fallback is None
    for inst, report in zip(config.instances, decision.reports):
        alone = inst.make_searcher().search(board, Limit(nodes=30000))
        assert (report.result.bestmove, report.result.nodes, report.result.score_cp) == \
               (alone.bestmove, alone.nodes, alone.score_cp)
    assert sum(decision.votes.values()) == 2


def test_equal_total_splits_the_node_budget():
    config = load_ensemble(text=config_text("budget: {nodes: 20000, budget_mode: equal_total}\n"))
    with EnsemblePlayer(config) as player:
        decision = player.choose(FEN)
    assert all(r.result.nodes <= 10000 for r in decision.reports)
    assert all(r.result.nodes >= 9000 for r in decision.reports)


def test_a_worker_killed_mid_move_loses_its_vote_not_the_move():
    config = load_ensemble(text=config_text("budget: {movetime: 3000}\n"))
    with EnsemblePlayer(config) as player:
        victim_label = config.instances[0].label
        victim = player.placement[victim_label]
        pids = player.client.run(os.getpid)
        box = {}
        thread = threading.Thread(target=lambda: box.setdefault("d", player.choose(FEN)))
        started = time.perf_counter()
        thread.start()
        time.sleep(1.0)
        os.kill(pids[victim], signal.SIGKILL)
        thread.join(timeout=10)
        elapsed = time.perf_counter() - started
        decision = box["d"]
        assert elapsed < 3.0 + 0.3  # never late (a little slack for the thread join)
        assert chess.Move.from_uci(decision.move) in chess.Board(FEN).legal_moves
        excluded = {r.label: r.excluded for r in decision.excluded}
        assert list(excluded) == [victim_label]
        assert "lost" in excluded[victim_label] or "deadline" in excluded[victim_label] or \
            "Error" in excluded[victim_label]
        assert decision.fallback is None  # the other instance still voted
        # The nanny restarts the worker; the next move rebuilds the lost instance there.
        deadline = time.time() + 30
        while len(player.workers()) < 2 and time.time() < deadline:
            time.sleep(0.2)
        player.config = player.config.with_budget(Budget(Limit(nodes=5000)))
        again = player.choose(FEN)
        assert not again.excluded


def test_no_worker_answers_then_the_coordinator_searches_alone():
    config = load_ensemble(text=config_text("budget: {movetime: 600}\n"))
    with EnsemblePlayer(config) as player:
        for address in set(player.placement.values()):
            player.client.run(_hang_instances, workers=[address], wait=False)
        time.sleep(0.2)
        started = time.perf_counter()
        decision = player.choose(FEN)
        assert time.perf_counter() - started < 0.6 + 0.15
    assert decision.fallback is not None
    assert chess.Move.from_uci(decision.move) in chess.Board(FEN).legal_moves
    assert len(decision.excluded) == 2


async def _hang_instances():
    """Make every search on this worker unable to answer in time (simulates a hung worker)."""
    from players.searcher import Searcher

    def hung(self, *args, **kwargs):
        time.sleep(5)
    Searcher.search = hung


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_same_file_runs_against_an_external_scheduler(tmp_path):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        time.sleep(2)
        for _ in range(2):
            procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                           "--nthreads", "1", "--no-dashboard"], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        path = tmp_path / "remote.yaml"
        path.write_text(f"instances: [MBXP, MXKA]\nselection: {{criterion: majority}}\nbudget: {{nodes: 20000}}\n"
                        f"cluster: {{scheduler: '{address}'}}\n")
        config = load_ensemble(path)
        from distributed import Client
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        with EnsemblePlayer(config) as player:
            assert player.cluster_description == f"scheduler {address}"
            assert len(set(player.placement.values())) == 2
            decision = player.choose(FEN)
        assert chess.Move.from_uci(decision.move) in chess.Board(FEN).legal_moves
        assert not decision.excluded
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_inline_mode_decides_exactly_like_the_cluster_under_a_node_budget():
    text = "instances: [MBXP, MXKA, MBKR]\nselection: {criterion: global_minimax}\nbudget: {nodes: 15000}\n"
    distributed = load_ensemble(text=text + "cluster: {workers: 3, dashboard: false}\n")
    inline = load_ensemble(text=text + "cluster: {inline: true}\n")
    with EnsemblePlayer(inline) as player:
        a = player.choose(FEN)
    with EnsemblePlayer(distributed) as player:
        b = player.choose(FEN)
    assert [(r.result.bestmove, r.result.nodes) for r in a.reports] == \
           [(r.result.bestmove, r.result.nodes) for r in b.reports]
    assert (a.move, a.values) == (b.move, b.values)
    assert {r.worker for r in a.reports} == {"inline"}
