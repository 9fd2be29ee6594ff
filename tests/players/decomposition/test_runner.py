"""The Dask runner: search threads of one worker process really search at once."""
import time


from players.decomposition.algorithms import Master, iterate
from players.decomposition.jobs import SearcherConfig
from players.decomposition.runner import DaskRunner

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)  # as in conftest


def test_search_threads_of_one_worker_search_at_the_same_time(bk):
    """``threads``: two actors in one worker process, each with its own thread.  Were they one
    thread (Dask's default for actors), the second job would start only after the first had
    answered, find its stop order and return at once: busy time would be the wall time, not
    twice it."""
    from dataclasses import replace

    runner = DaskRunner(2, threads=True)
    try:
        assert runner.workers == 2 and len(runner.addresses) == 1 and len(runner.signal_actors) == 1
        table = runner.new_table(f"concilio-test-{time.time_ns()}", 4)
        master = Master(runner, replace(EXACT, table=table, defer=True), f"threads-{time.time_ns()}", True)
        r = iterate(master, "abdada", bk[3].fen, (), 6, 0)
        assert r.tally.jobs == 2 and r.tally.busy > 1.5 * r.wall, (r.tally.busy, r.wall)
        runner.drop_prefix(master.key)
        runner.release_table(table)

        from players.decomposition.tables import local_table_names
        assert runner.client.run(local_table_names) == {runner.addresses[0]: []}
    finally:
        runner.close()
