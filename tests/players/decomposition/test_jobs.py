"""Worker-side jobs: a stop order that arrives before its job is remembered."""
import time

import chess

from players.decomposition.jobs import SearcherConfig

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)  # as in conftest


def test_a_job_stopped_before_it_starts_does_not_search():
    """The master may stop a lazy SMP job before the worker has started it (the deadline came
    first); the job must then answer at once instead of searching to its full depth."""
    import asyncio

    from players.decomposition import jobs
    asyncio.run(jobs.stop_jobs(["early-job"]))
    started = time.perf_counter()
    r = jobs.run_search("early-key", "early-job", EXACT, chess.STARTING_FEN, (), 60)
    assert r.depth == 0 and r.nodes == 0 and time.perf_counter() - started < 1.0
