"""The decomposition on the Dask runner: search threads of one worker process really search at
once, and their table lives in that process until released."""
import time


from players.decomposition.algorithms import Master, iterate
from players.decomposition.options import SearcherConfig
from players.decomposition.runner import drop_prefix, new_table, open_runner, release_table
from players.decomposition.tables import local_table_names

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)  # as in conftest


def test_search_threads_of_one_worker_search_at_the_same_time(bk):
    """``threads``: two slots in one worker process, each with its own thread.  Were they one
    thread (Dask's default for actors), the second job would start only after the first had
    answered, find its stop order and return at once: busy time would be the wall time, not
    twice it."""
    from dataclasses import replace

    runner = open_runner(2, threads=True)
    try:
        assert runner.workers == 2 and runner.processes == 1
        table = new_table(runner, f"concilio-test-{time.time_ns()}", 4)
        assert runner.everywhere(local_table_names) == [[table]]  # in the worker's memory, not shared
        master = Master(runner, replace(EXACT, table=table, defer=True), f"threads-{time.time_ns()}", True)
        r = iterate(master, "abdada", bk[3].fen, (), 6, 0)
        assert r.tally.jobs == 2 and r.tally.busy > 1.5 * r.seconds, (r.tally.busy, r.seconds)
        drop_prefix(runner, master.key)
        release_table(runner, table)
        assert runner.everywhere(local_table_names) == [[]]
    finally:
        runner.close()


def test_the_master_and_player_use_only_what_the_runner_protocol_declares():
    """The decomposition talks to its workers through ``base.runner.Runner`` alone: every
    member it calls on a runner is one the protocol declares."""
    import re
    from pathlib import Path

    from base.runner import Runner
    declared = set(Runner.__annotations__) | {n for n in vars(Runner) if not n.startswith("_")}
    folder = Path(__file__).resolve().parents[3] / "players" / "decomposition"
    files = [folder / name for name in ("algorithms.py", "wall.py", "smp.py", "aspiration.py", "peer.py", "player.py",
                                        "session.py", "runner.py", "worker.py", "tables.py")]
    used = {m for path in files for m in re.findall(r"(?<!base\.)\b_?runner\.(\w+)", path.read_text())}
    assert used and used <= declared, sorted(used - declared)
