"""The fresh lazy cluster on the node clock (issue 58): one worker searches the plain searcher's
tree, the answer does not depend on the threads' timing or cores, the exchange is used, and the
ring forwards an entry one step a round."""
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from players.decomposition.fresh_cluster import FreshCluster, FreshClusterConfig, Part, Postman, cluster_vote
from players.decomposition.lockstep import WorkerAnswer
from players.limits import Limit
from players.searcher import Searcher
from tournaments.records.epd import read_suite

ROOT = Path(__file__).resolve().parents[3]
BK02 = "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1"
BK04 = "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1"
GAME = ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3")


def small() -> Searcher:
    return Searcher(hash_mb=2)


def cluster(**options) -> FreshCluster:
    return FreshCluster(FreshClusterConfig(**options), small)


def signature(r) -> tuple:
    """Everything a run decides (not its seconds)."""
    return (r.move, r.score, r.depth, r.pv, r.worker, r.answers, r.worker_nodes, r.messages, r.entries_sent, r.exchange)


@pytest.mark.parametrize("fen", [BK02, BK04])
def test_one_worker_searches_the_plain_tree(fen):
    plain = small().search(fen, Limit(nodes=12000))
    r = cluster(workers=1, batch=700, latency=700).search(fen, 12000)
    assert r.exchange.rounds == 12000 // 700
    assert (r.move, r.score, r.depth, r.pv, r.worker_nodes) == (plain.bestmove, plain.score_cp, plain.depth,
                                                                plain.pv, (plain.nodes,))


@pytest.mark.parametrize("options", [dict(topology="ring"), dict(topology="all", adaptive=True),
                                     dict(topology="all", latency=0, buffer=64)])
def test_the_answer_does_not_depend_on_the_threads_timing(options):
    """The same game twice, the second with the coordinator sleeping at random before releases."""
    rng = random.Random(58)
    runs = []
    for perturb in (None, lambda w: time.sleep(rng.random() * 0.002)):
        c = cluster(workers=4, batch=1000, **options)
        runs.append([signature(c.search(fen, 8000, perturb=perturb)) for fen in GAME[:2]])
    assert runs[0] == runs[1]
    assert runs[0][0][8] > 0  # messages were sent


RUN = """
import json, sys
from players.decomposition.fresh_cluster import FreshCluster, FreshClusterConfig
from players.searcher import Searcher
c = FreshCluster(FreshClusterConfig(workers=4, batch=500, latency=1000), lambda: Searcher(hash_mb=2))
r = c.search(sys.argv[1], 6000)
print(json.dumps([r.move, r.score, r.pv, [str(a) for a in r.answers], r.messages, r.entries_sent]))
"""


def test_the_answer_is_the_same_on_one_core_and_on_all():
    out = []
    for prefix in (["taskset", "-c", "0"], []):
        done = subprocess.run(prefix + [sys.executable, "-c", RUN, BK04], cwd=ROOT, capture_output=True, text=True,
                              timeout=600, check=True)
        out.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert out[0] == out[1]


def test_fresh_entries_from_the_second_move_on():
    c = cluster(workers=4, batch=1000)
    results = [c.search(fen, 20000) for fen in GAME]
    assert all(r.exchange.originated > 0 for r in results)
    assert results[0].exchange.fresh_share == 1.0  # the outboxes began empty
    assert all(r.exchange.fresh_share >= 0.9 for r in results[1:])
    assert all(r.exchange.bytes == 16 * r.entries_sent for r in results)
    c = cluster(workers=4, batch=1000, carry=False)
    assert all(c.search(fen, 5000).exchange.fresh_share == 1.0 for fen in GAME)  # leftovers dropped


def test_the_exchange_is_used():
    """Over the Bratko-Kopec positions at 20,000 nodes a worker: the same four workers with the
    exchange reach deeper than with every message late past the budget, and than one worker."""
    fens = [p.fen for p in read_suite(ROOT / "data" / "suites" / "bratko-kopec.epd").positions]
    late = [cluster(workers=4, topology="all", latency=10 ** 9).search(f, 20000) for f in fens]
    on = [cluster(workers=4, topology="all").search(f, 20000) for f in fens]
    one = [cluster(workers=1).search(f, 20000) for f in fens]
    assert all(r.messages == 0 or r.entries_sent > 0 for r in on)
    assert sum(a.answers != b.answers for a, b in zip(late, on)) >= len(fens) // 2  # the trees changed
    mean_worker_depth = [statistics.mean(d for r in rs for d in r.depths) for rs in (late, on)]
    assert mean_worker_depth[1] > mean_worker_depth[0]
    assert statistics.mean(r.depth for r in on) > statistics.mean(r.depth for r in one)


def part(origin: int) -> Part:
    return Part(origin, np.array([origin + 100], np.uint64), np.array([origin], np.int64), np.array([1], np.int64))


@pytest.mark.parametrize("delay", [1, 2])
def test_the_ring_forwards_one_step_a_round(delay):
    """Worker 0's entry reaches worker j after j·delay rounds, and never comes back to 0."""
    k = 5
    postman = Postman("ring", k, delay)
    arrived: dict[int, int] = {}  # worker -> round worker 0's entry reached it
    for t in range(1, 30):
        own = {w: part(w) if (w == 0 and t == 1) else Part(w, *(np.zeros(0, d) for d in (np.uint64, np.int64,
                                                                                         np.int64)))
               for w in range(k)}
        delivered, sent = postman.exchange(t, own)
        assert all(m.receiver == (m.sender + 1) % k for m in sent)
        for w, ms in delivered.items():
            if any(p.origin == 0 for m in ms for p in m.parts):
                assert w not in arrived and w != 0
                arrived[w] = t
    assert arrived == {j: 1 + j * delay for j in range(1, k)}


def test_all_to_all_delivers_every_other_worker_at_the_latency():
    postman = Postman("all", 3, 2)
    first, sent = postman.exchange(1, {w: part(w) for w in range(3)})
    assert first == {} and len(sent) == 6
    assert postman.exchange(2, {})[0] == {}
    third, _ = postman.exchange(3, {})
    assert {w: [m.sender for m in ms] for w, ms in third.items()} == {0: [1, 2], 1: [0, 2], 2: [0, 1]}


def test_cluster_vote_is_stockfish_pick_moves():
    a = [WorkerAnswer(0, "e2e4", 20, 8, ("e2e4",)), WorkerAnswer(1, "d2d4", 30, 9, ("d2d4",)),
         WorkerAnswer(2, "d2d4", 10, 7, ("d2d4", "d7d5"))]
    # votes: e2e4 10 + 8 = 18, d2d4 (20 + 9) + (0 + 7) = 36: worker 1, the first d2d4 voter
    assert cluster_vote(a).worker == 1
    tie = [WorkerAnswer(0, "e2e4", 10, 8, ()), WorkerAnswer(1, "d2d4", 10, 8, ())]
    assert cluster_vote(tie).worker == 0  # worker 0 keeps a tie


def test_the_adaptive_threshold_follows_the_buffer():
    """Texel's rule: a small buffer that overflows raises the threshold, a large one that a send
    leaves less than half full lowers it (and more entries go out than at the fixed threshold)."""
    tight = cluster(workers=2, adaptive=True, buffer=4).search(BK04, 20000)
    roomy = cluster(workers=2, adaptive=True, buffer=256).search(BK04, 20000)
    fixed = cluster(workers=2, buffer=256).search(BK04, 20000)
    tight, roomy, fixed = tight.exchange, roomy.exchange, fixed.exchange
    assert max(tight.thresholds) > 4 and max(roomy.thresholds) < 4 and fixed.thresholds == (4, 4)
    assert roomy.originated > fixed.originated
