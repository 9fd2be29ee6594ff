"""Worker-side jobs: a stop order that arrives before its job is remembered."""
import time

import chess

from players.decomposition import worker
from players.decomposition.options import SearcherConfig

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)  # as in conftest


def test_a_job_stopped_before_it_starts_does_not_search():
    """The master may stop a lazy SMP job before the worker has started it (the deadline came
    first); the job must then answer at once instead of searching to its full depth."""
    import asyncio

    from base.cluster import worker_address
    worker.searcher_for("early-key", EXACT)  # what a first job loads (the searcher, Dask's client side),
    worker_address()  # loaded before the clock starts: the bound is on the stopped job alone
    asyncio.run(worker.stop_jobs(["early-job"]))
    started = time.perf_counter()
    r = worker.run("early-key", EXACT, "early-job", worker.SearchJob(chess.STARTING_FEN, (), 60))
    assert r.depth == 0 and r.nodes == 0 and time.perf_counter() - started < 1.0


def test_a_job_at_the_root_without_score_sharing_searches_its_whole_window():
    """A whole iteration sent as one job (shallower than ``min_split_depth``) is a node at ply 0;
    without score sharing it must answer with the node's value, like the sequential search
    (its beta once followed a shared bound nobody had set, 0, and it answered a bound)."""
    from players.core.search import INF
    from players.position import Position
    from players.limits import Limit
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3"
    expected = EXACT.make_searcher().search(fen, Limit(depth=3)).score_cp
    assert expected != 0
    for share in (False, True):
        score, nodes, pv = EXACT.make_searcher().search_node(Position.from_fen(fen), 3, 0, -INF, INF, share)
        assert score == expected and len(pv) == 3, share
