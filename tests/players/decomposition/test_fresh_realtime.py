"""The fresh lazy cluster in real time (issue 58 item 3): workers exchange while they search, the
entries they receive are stored, an injected delay holds messages back, one worker searches the
plain searcher's tree, and a lost worker or a stop order still gives an answer."""
import threading
import time

import chess
import pytest

from base.cluster import ClusterError
from base.runner import Done, InlineRunner, ThreadRunner, WorkerLost
from players.decomposition.fresh_cluster import FreshClusterConfig
from players.decomposition.fresh_realtime import FreshClusterRealtime, RealtimeConfig, search_realtime
from players.decomposition.fresh_cluster import adapt
from players.decomposition.fresh_realtime_worker import rt_exchange, rt_holds
from players.decomposition.options import SearcherConfig
from players.limits import Limit
from tests.test_real_cluster import scheduler  # noqa: F401 - the external scheduler's fixture

SMALL = SearcherConfig(hash_mb=2)
MIDGAME = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def config(workers: int = 2, **options) -> RealtimeConfig:
    topology = options.pop("topology", "ring")
    return RealtimeConfig(FreshClusterConfig(workers=workers, topology=topology), searcher=SMALL, **options)


def legal(fen: str, move: str) -> bool:
    return chess.Move.from_uci(move) in chess.Board(fen).legal_moves


@pytest.mark.parametrize("topology", ["ring", "all"])
def test_two_workers_exchange_and_store_what_they_receive(topology):
    with ThreadRunner(2) as runner:
        cluster = FreshClusterRealtime(runner, config(topology=topology, interval_ms=1))
        r = cluster.search(MIDGAME, Limit(nodes=40_000))
        assert legal(MIDGAME, r.move)
        x, rt = r.exchange, r.real_time
        assert rt.lost == () and r.worker_nodes == (40_000, 40_000)
        assert x.rounds > 0 and r.messages > 0 and x.originated > 0 and r.entries_sent > 0
        assert rt.delivered > 0 and x.bytes == 16 * r.entries_sent and x.fresh == x.originated
        assert rt.pauses > 0 and rt.round_trip_ms > 0 and rt.take_ms > 0 and r.nps > 0
        receiver, keys = next(iter(cluster.last_delivered.items()))
        assert runner.submit_to(0, rt_holds, cluster.key(receiver), keys).result() > 0
        cluster.close()


def test_an_injected_delay_holds_every_message_back():
    with ThreadRunner(2) as runner:
        r = search_realtime(runner, config(interval_ms=2, delay_ms=40), MIDGAME, Limit(movetime=400))
    assert legal(MIDGAME, r.move) and r.real_time.delivered > 0
    assert r.real_time.min_latency_ms >= 40 and r.real_time.latency_ms >= r.real_time.min_latency_ms


def test_one_worker_searches_the_plain_searchers_tree():
    plain = SMALL.build().search(MIDGAME, Limit(nodes=30_000))
    with ThreadRunner(1) as runner:
        r = search_realtime(runner, config(workers=1, interval_ms=0.5), MIDGAME, Limit(nodes=30_000))
    assert r.real_time.pauses > 0  # paused while searching, and the tree unchanged
    assert (r.move, r.score, r.depth, r.pv, r.worker_nodes) == (plain.bestmove, plain.score_cp, plain.depth,
                                                                plain.pv, (plain.nodes,))
    assert r.messages == r.entries_sent == r.real_time.delivered == 0


def test_an_inline_runner_runs_the_workers_one_job_at_a_time():
    with InlineRunner() as runner:
        r = search_realtime(runner, config(interval_ms=1), MIDGAME, Limit(nodes=20_000))
    assert legal(MIDGAME, r.move) and r.exchange.rounds > 0 and r.real_time.lost == ()


class LosesWorker:
    """A runner whose slot 1 is lost after its worker's first exchange (as a dead Dask worker's jobs fail)."""

    def __init__(self, runner, lose=(1,)) -> None:
        self.runner, self.lose, self.exchanges = runner, lose, 0

    def __getattr__(self, name):
        return getattr(self.runner, name)

    def submit_to(self, slot, fn, *args, key=""):
        if fn is rt_exchange and slot in self.lose:
            self.exchanges += 1
            if self.exchanges > 1:
                return Done(key, error=WorkerLost(f"worker of slot {slot} is gone"))
        return self.runner.submit_to(slot, fn, *args, key=key)

    def first_done(self, jobs):
        done = [j for j in jobs if isinstance(j, Done)]
        return done[0] if done else self.runner.first_done(jobs)


def test_a_lost_worker_leaves_the_vote_and_the_others_answer():
    with ThreadRunner(2) as threads:
        cluster = FreshClusterRealtime(LosesWorker(threads), config(interval_ms=1))
        r = cluster.search(MIDGAME, Limit(nodes=30_000))
        assert legal(MIDGAME, r.move) and r.real_time.lost == (1,) and r.worker == 0
        assert [a.worker for a in r.answers] == [0]
        assert cluster.stopped == [1]  # told to stop, in case its search still runs


def test_a_ring_relays_past_a_lost_worker():
    with ThreadRunner(3) as threads:
        cluster = FreshClusterRealtime(LosesWorker(threads), config(workers=3, interval_ms=1))
        r = cluster.search(MIDGAME, Limit(nodes=20_000))
        assert legal(MIDGAME, r.move) and r.real_time.lost == (1,) and [a.worker for a in r.answers] == [0, 2]
        assert r.real_time.delivered > 0


def test_every_worker_lost_is_a_clear_error():
    with ThreadRunner(2) as threads:
        cluster = FreshClusterRealtime(LosesWorker(threads, lose=(0, 1)), config(interval_ms=1))
        with pytest.raises(ClusterError, match="no worker"):
            cluster.search(MIDGAME, Limit(nodes=10 ** 9))


def test_a_stop_order_ends_the_move_with_an_answer():
    with ThreadRunner(2) as runner:
        cluster = FreshClusterRealtime(runner, config(interval_ms=2))
        threading.Timer(0.3, cluster.stop).start()
        start = time.perf_counter()
        r = cluster.search(MIDGAME, Limit(nodes=10 ** 9))
        assert time.perf_counter() - start < 10
        assert legal(MIDGAME, r.move) and r.real_time.lost == () and all(a.depth > 0 for a in r.answers)
        cluster.close()


def test_a_game_keeps_the_tables_and_counts_fresh_entries_by_move():
    board = chess.Board(MIDGAME)
    with ThreadRunner(2) as runner:
        cluster = FreshClusterRealtime(runner, config(interval_ms=1))
        first = cluster.search(board, Limit(nodes=20_000))
        board.push_uci(first.move)
        board.push(next(iter(board.legal_moves)))
        second = cluster.search(board, Limit(nodes=20_000))
        assert second.move in {m.uci() for m in board.legal_moves}
        assert second.exchange.fresh <= second.exchange.originated  # carried leftovers of move 1 are not fresh
        cluster.close()


def test_texels_rule():
    assert adapt(4, 16, 3, 16) == 5 and adapt(4, 7, 0, 16) == 3 and adapt(1, 0, 0, 16) == 1
    assert adapt(4, 8, 0, 16) == 4


@pytest.mark.slow
def test_on_a_local_dask_cluster_a_killed_worker_leaves_the_other_to_answer():
    import os
    import signal
    from base.runner.dask import DaskRunner
    with DaskRunner.start(2) as runner:
        r = search_realtime(runner, config(interval_ms=2, delay_ms=5), MIDGAME, Limit(nodes=100_000))
        rt = r.real_time
        assert legal(MIDGAME, r.move) and rt.lost == () and rt.delivered > 0 and rt.min_latency_ms >= 5
        cluster = FreshClusterRealtime(runner, config(interval_ms=2))
        victim = runner.where(cluster.homes[1])
        pid = runner.client.run(os.getpid, workers=[victim])[victim]
        threading.Timer(1.0, os.kill, (pid, signal.SIGKILL)).start()
        threading.Timer(3.0, cluster.stop).start()
        r = cluster.search(MIDGAME, Limit(nodes=10 ** 9))
        assert legal(MIDGAME, r.move) and r.real_time.lost == (1,) and [a.worker for a in r.answers] == [0]


@pytest.mark.slow
def test_on_an_external_scheduler(scheduler):
    from base.runner.dask import DaskRunner
    with DaskRunner.start(2, scheduler, min_workers=2) as runner:
        assert len({runner.where(s) for s in runner.live()}) == 2
        r = search_realtime(runner, config(interval_ms=2), MIDGAME, Limit(nodes=100_000))
    assert legal(MIDGAME, r.move) and r.real_time.lost == () and r.real_time.delivered > 0


def test_with_the_exchange_off_the_workers_search_alone():
    with ThreadRunner(2) as runner:
        r = search_realtime(runner, config(exchange=False), MIDGAME, Limit(nodes=20_000))
    assert legal(MIDGAME, r.move) and r.worker_nodes == (20_000, 20_000)
    assert r.exchange.rounds == 2 and r.messages == r.exchange.originated == r.real_time.delivered == 0
