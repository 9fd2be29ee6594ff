"""The ensemble on real Dask clusters: instances on workers give exactly the
searches a single process would, a worker killed mid-move costs its vote but not
the move or the deadline, and a file runs unchanged against an external scheduler."""
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import chess
import pytest

import base.runner.dask
from base.cluster import ClusterError, open_cluster
from ensemble.config import Budget, load_ensemble
from ensemble.decision import Decision, InstanceReport
from ensemble.player import EnsemblePlayer, report_lines
from ensemble.progress import leading
from players.limits import Limit
from players.result import IterationInfo, SearchResult

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
    # A node budget, not a movetime: the survivor's vote must not depend on how loaded the
    # machine is (the movetime deadline is test_no_worker_answers_...'s).  2.5 million nodes
    # keep the victim searching when it is killed, half a second in (over a second at 2 M nodes/s).
    config = load_ensemble(text=config_text("budget: {nodes: 2500000}\n"))
    with EnsemblePlayer(config) as player:
        victim_label = config.instances[0].label
        victim = player.placement[victim_label]
        pids = player.client.run(os.getpid)
        box = {}
        thread = threading.Thread(target=lambda: box.setdefault("d", player.choose(FEN)))
        thread.start()
        time.sleep(0.5)
        os.kill(pids[victim], signal.SIGKILL)
        thread.join(timeout=120)
        decision = box["d"]
        assert chess.Move.from_uci(decision.move) in chess.Board(FEN).legal_moves
        excluded = {r.label: r.excluded for r in decision.excluded}
        assert list(excluded) == [victim_label]
        assert excluded[victim_label] == f"worker {victim} died"  # in a user's words, not the runner's
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
    assert all(re.fullmatch(r"searched past the deadline: no answer \d+ ms after its \d+ ms were up", r.excluded)
               for r in decision.excluded), decision.excluded


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


def test_an_ensemble_waiting_for_workers_says_so_then_fails_clearly(monkeypatch):
    """A scheduler nobody has started workers for: the wait is told every few seconds with
    the count, and ends in one sentence saying how to start them."""
    monkeypatch.setattr(base.runner.dask, "START_TIMEOUT_S", 1.5)
    monkeypatch.setattr(base.runner.dask, "WAITING_SAID_EVERY_S", 0.5)
    config = load_ensemble(text="instances: [MBXP, MXKA, MBKR]\nselection: {criterion: majority}\n")
    said = []
    with open_cluster(0, dashboard=False) as cluster:  # a scheduler with no worker
        player = EnsemblePlayer(config, cluster=cluster, on_event=said.append)
        with pytest.raises(ClusterError, match=r"0 of 1 Dask worker\(s\) joined in 1.5 s; start them with "
                                               r"`dask worker tcp://127.0.0.1:\d+ --nthreads 1`"):
            player.start()
    assert len(said) >= 2 and all(line.startswith("waiting for workers (0/3) on the local cluster") for line in said)


def test_instances_sharing_a_thread_are_told_so_and_share_a_timed_move():
    """Three instances on two worker threads: a warning up front, and on a timed move the two
    that share a thread search one after the other in halves of it, so both vote."""
    said = []
    config = load_ensemble(text="instances: [MBXP, MXKA, MBKR]\nselection: {criterion: majority}\n"
                                "cluster: {workers: 2, dashboard: false}\nbudget: {movetime: 800}\n")
    with EnsemblePlayer(config, on_event=said.append) as player:
        assert any(line.startswith("3 instances on 2 worker thread(s)") for line in said), said
        voted = []
        for _ in range(2):
            started = time.perf_counter()
            decision = player.choose(FEN)
            assert time.perf_counter() - started < 0.8 + 0.15
            voted.append({r.label for r in decision.reports if r.excluded is None})
        places = player.placement
    shared = [label for label, where in places.items() if list(places.values()).count(where) == 2]
    assert len(shared) == 2 and any(set(shared) <= v for v in voted), (said, voted)


def _report(label: str, move: str | None, excluded: str | None = None) -> InstanceReport:
    result = None if move is None else SearchResult(move, 20, None, (move,), 8, 20, 20, None, 1000, 0.1)
    return InstanceReport(label, "M=1", "tcp://127.0.0.1:1", result, excluded)


def test_a_move_decided_by_fewer_than_half_the_instances_carries_a_warning():
    reports = (_report("(MBXP)", "e2e4"), _report("(MXKA)", None, "worker tcp://127.0.0.1:1 died"),
               _report("(MBKR)", None, "searched past the deadline: no answer 40 ms after its 900 ms were up"))
    lonely = Decision("e2e4", "majority", chess.STARTING_FEN, reports, {"e2e4": 1.0}, {"e2e4": 1})
    assert report_lines(lonely)[-1] == ("warning: decided by 1 of 3 instances; left out: (MXKA) (worker "
                                        "tcp://127.0.0.1:1 died), (MBKR) (searched past the deadline: no answer "
                                        "40 ms after its 900 ms were up)")
    two = Decision("e2e4", "majority", chess.STARTING_FEN, (_report("(MXKA)", "e2e4"),) + reports[:2] + reports[3:],
                   {"e2e4": 2.0}, {"e2e4": 2})
    assert not any(line.startswith("warning") for line in report_lines(two))


def test_the_leading_candidate_is_the_one_most_instances_prefer_now():
    def it(depth: int, move: str, nodes: int) -> IterationInfo:
        return IterationInfo(depth, None, 10 * depth, None, nodes, 0.5, (move, "e7e5"))
    info, words = leading({"(MBXP)": it(9, "e2e4", 100), "(MXKA)": it(11, "d2d4", 200),
                           "(MBKR)": it(10, "e2e4", 300)}, 3, 0.75)
    assert (info.depth, info.pv[0], info.nodes, info.time) == (10, "e2e4", 600, 0.75)
    assert words == "leading e2e4, preferred by 2 of 3 instances: (MBKR) depth 10, (MBXP) depth 9"
    assert leading({}, 3, 0.1) is None
