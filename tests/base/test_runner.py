"""The one runner: jobs reach their slots and find what earlier jobs left there, failures are
reported without losing finished work, a worker that dies is named and its job run again,
the state plugin's teardown quits the engines the jobs started, and nothing outside
``base/`` submits to Dask by itself."""
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from base.runner import InlineRunner, Resident, ThreadRunner, WorkerLost, current_state

ROOT = Path(__file__).resolve().parents[2]
_ITEMS: Resident[list] = Resident("test.items")
_ENGINES = Resident("test.engines", close=lambda handle: handle.quit())


def _keep(key: str, value) -> int:
    """Make (or find) ``key`` here; how many objects of the kind this runner keeps here."""
    _ITEMS.get_or_create(key, lambda: [value])
    return sum(1 for _ in _ITEMS)


def _where() -> str:
    from base.cluster import worker_address
    return worker_address()


def _half(x: int) -> int:
    if x == 2:
        raise RuntimeError("boom")
    return x * 10


def test_resident_objects_are_built_once_per_runner_and_dropped_by_prefix():
    built = []
    with InlineRunner() as runner, runner.here():
        def make():
            built.append(1)
            return ["searcher"]
        first = _ITEMS.get_or_create("game1-0", make)
        assert _ITEMS.get_or_create("game1-0", make) is first and len(built) == 1
        _ITEMS.put("game1-1", ["other"])
        _ITEMS.put("game2-0", ["kept"])
        assert sorted(map(tuple, _ITEMS.pop_prefix("game1-"))) == [("other",), ("searcher",)]
        assert _ITEMS.get("game1-0") is None and _ITEMS.get("game2-0") == ["kept"]
        assert _ITEMS.pop_all() == [["kept"]] and list(_ITEMS) == []
    assert current_state().name == "this process"  # outside any runner's job


def test_each_runner_keeps_its_own_objects_and_closing_it_lets_them_go():
    class Engine:
        closed = stopped = False

        def stop(self):
            self.stopped = True

        def close(self):
            self.closed = True
    engines = Resident("test.closing")  # the default closer: stop, then close
    a, b = InlineRunner(), InlineRunner()
    made = a.submit_to(0, lambda: engines.get_or_create("e", Engine)).result()
    assert b.submit_to(0, lambda: engines.get("e")).result() is None  # another runner's state
    assert a.submit_to(0, lambda: engines.get("e")).result() is made
    a.close()
    assert made.stopped and made.closed
    with pytest.raises(Exception, match="closed"):  # a closed runner's jobs start nothing more
        a.submit_to(0, lambda: engines.get_or_create("e", Engine)).result()
    b.close()


def test_map_reports_a_failed_job_keeps_the_others_and_runs_only_what_is_asked(caplog):
    with InlineRunner() as runner, caplog.at_level(logging.ERROR, logger="concilio.runner"):
        got = [(args[0], value) for args, value in runner.map(_half, [(1,), (2,), (3,)])]
        assert got == [(1, 10), (3, 30)]
        assert "_half failed (boom); rerun to retry it" in caplog.text
        calls = []
        results = runner.map(lambda x: calls.append(x) or x, [(1,), (2,), (3,)])
        assert next(results) == ((1,), 1) and calls == [1]  # the rest waits until asked for


def _declares_the_protocol(runner) -> None:
    """Every member of ``Runner`` is there (what the decomposition's master and player call)."""
    from base.runner import Runner
    members = set(Runner.__annotations__) | {n for n in vars(Runner) if not n.startswith("_")}
    assert not [m for m in sorted(members) if not hasattr(runner, m)], type(runner).__name__


def test_thread_slots_run_at_the_same_time_and_share_their_process():
    with InlineRunner() as runner:
        _declares_the_protocol(runner)
    with ThreadRunner(2) as runner:
        _declares_the_protocol(runner)
        jobs = [runner.submit(time.sleep, 0.3) for _ in range(2)]
        started = time.perf_counter()
        assert runner.wait(jobs, timeout=5)
        assert time.perf_counter() - started < 0.55
        assert sorted(v for _, v in runner.map(_keep, [("a", 1), ("b", 2)])) == [1, 2]
        assert runner.everywhere(_keep, "c", 3) == [3]
        assert runner.messages > 0 and runner.processes == 1


# --- on Dask ---------------------------------------------------------------------------------------

FAKE_ENGINE = """\
import sys
for line in sys.stdin:
    command = line.strip()
    if command == "uci":
        print("id name fake", flush=True)
        print("uciok", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
    elif command == "quit":
        break
"""


@pytest.fixture
def fake_engine(tmp_path) -> str:
    script = tmp_path / "fake.py"
    script.write_text(FAKE_ENGINE)
    engine = tmp_path / "fake-engine"
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    engine.chmod(0o755)
    return str(engine)


def _start_engine(command: str) -> int:
    """Start a UCI engine resident on this worker; its process id."""
    from players.external import open_engine
    return _ENGINES.get_or_create("fake", lambda: open_engine(command)).transport.get_pid()


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pids: list[int], seconds: float = 10) -> bool:
    deadline = time.time() + seconds
    while any(map(_running, pids)) and time.time() < deadline:
        time.sleep(0.1)
    return not any(map(_running, pids))


def test_dask_slots_keep_their_objects_and_the_plugin_teardown_quits_their_engines(fake_engine):
    """A runner on its own cluster: each slot finds what its earlier jobs left on its worker;
    closing the runner closes the workers, whose plugin teardown quits the engines."""
    from base.runner.dask import DaskRunner
    runner = DaskRunner.start(2)
    try:
        assert runner.workers == 2 and runner.processes == 2 and runner.local
        assert runner.direct == [0, 1]  # plain TCP: every job on its slot's channel
        _declares_the_protocol(runner)
        assert [runner.submit_to(i, _where).result() for i in range(2)] == [runner.where(0), runner.where(1)]
        assert [runner.submit_to(0, _keep, k, 0).result() for k in "ab"] == [1, 2]
        assert runner.submit_to(1, _keep, "c", 0).result() == 1  # the other worker's own
        pids = [runner.submit_to(i, _start_engine, fake_engine).result() for i in range(2)]
        assert all(map(_running, pids)) and len(set(pids)) == 2
        got = sorted((args[0], v) for args, v in runner.map(_half, [(i,) for i in range(1, 7)], on_error=lambda a, e: None))
        assert got == [(1, 10), (3, 30), (4, 40), (5, 50), (6, 60)]
    finally:
        runner.close()
    assert _gone(pids), "an engine outlived its worker"


def test_without_channels_jobs_travel_as_actor_calls_with_the_same_answers():
    from base.runner.dask import DaskRunner
    with DaskRunner.start(2, direct=False) as runner:
        assert runner.direct == []
        assert [runner.submit_to(i, _where).result(timeout=30) for i in range(2)] == [runner.where(0), runner.where(1)]
        assert [runner.submit_to(0, _keep, k, 0).result(timeout=30) for k in "ab"] == [1, 2]
        with pytest.raises(RuntimeError, match="boom"):
            runner.submit_to(1, _half, 2).result(timeout=30)


def test_a_lent_cluster_outlives_the_runner_but_not_its_engines(fake_engine):
    """Closing a runner on a lent cluster unregisters its plugin: the teardown quits what the
    runner's jobs started, and the workers stay for their owner."""
    from base.cluster import open_cluster
    from base.runner.dask import DaskRunner
    with open_cluster(1, dashboard=False) as cluster:
        runner = DaskRunner(cluster)
        pid = runner.submit_to(0, _start_engine, fake_engine).result()
        other = DaskRunner(cluster)  # a second runner on the same workers keeps its own state
        assert other.submit_to(0, _keep, "x", 0).result() == 1
        runner.close()
        assert _gone([pid]) and len(cluster.workers()) == 1
        assert other.submit_to(0, _keep, "y", 0).result() == 2  # untouched
        other.close()


def _die_once(marker: str, value: int) -> int:
    """Kill this worker the first time (as an out-of-memory kill would), answer afterwards."""
    if not os.path.exists(marker):
        Path(marker).write_text("died")
        os.kill(os.getpid(), signal.SIGKILL)
    return value


def test_a_worker_that_dies_is_named_and_its_job_runs_again(tmp_path, caplog):
    from base.runner.dask import DaskRunner
    with DaskRunner.start(2) as runner, caplog.at_level(logging.WARNING, logger="concilio.runner"):
        victim = runner.where(0)
        lost = runner.submit_to(0, _die_once, str(tmp_path / "first"), 0)
        with pytest.raises(WorkerLost, match=f"worker {victim} is gone"):
            lost.result(timeout=30)
        assert runner.where(0) is None
        with pytest.raises(WorkerLost, match="is gone"):  # the slot stays lost
            runner.submit_to(0, _where).result(timeout=30)
        # In a map the lost job runs again on a live worker; every other result is kept.
        jobs = [(str(tmp_path / "second"), 7)] + [(str(tmp_path / "first"), i) for i in range(4)]
        got = sorted(v for _, v in runner.map(_die_once, jobs))
        assert got == [0, 1, 2, 3, 7]
        assert re.search(r"worker tcp://\S+ is gone .*running its job again on another worker", caplog.text)
        # The nanny restarts the dead workers; the runner puts slots on them.
        deadline = time.time() + 30
        while len(runner.live()) < 2 and time.time() < deadline:
            time.sleep(0.2)
        assert len(runner.live()) == 2 and victim not in {runner.where(i) for i in runner.live()}


def test_nothing_outside_base_submits_to_dask_by_itself():
    """Every part that runs work on workers goes through the runner (base/runner/): no
    client.submit, client.run, client.map or distributed.as_completed
    of its own."""
    pattern = re.compile(r"(client|cluster)\.(submit|run|map|gather|scatter|register_plugin)\(|actor=True"
                         r"|from distributed import .*\b(as_completed|wait)\b|distributed\.(as_completed|wait)\(")
    offenders = []
    for folder in ("concilio", "ensemble", "players", "evaluation", "tournaments", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == [], "\n".join(offenders)


def test_the_runner_package_knows_nothing_of_chess():
    paths = sorted((ROOT / "base" / "runner").glob("*.py"))
    assert len(paths) >= 8
    for path in paths:
        imports = [line for line in path.read_text().splitlines() if re.match(r"\s*(from|import) ", line)]
        assert not [i for i in imports if re.search(r"\b(chess|players|evaluation|ensemble|tournaments)\b", i)], path.name


def test_the_runner_package_loads_no_dask_and_the_old_dask_path_is_the_module_itself():
    """``from base.runner import ...`` is cheap (``distributed`` loads with the Dask runner
    only), and ``base.dask_runner`` is the very module ``base.runner.dask``, so that a setting
    changed through either name is the runner's."""
    code = ("import sys, base.runner; assert 'distributed' not in sys.modules; "
            "import base.dask_runner, base.runner.dask; assert base.dask_runner is base.runner.dask")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)



def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _nap(value: int) -> int:
    time.sleep(0.5)
    return value


def test_a_scheduler_that_dies_stops_the_run_with_its_finished_work_kept():
    import subprocess
    from base.cluster import open_cluster
    from base.runner.dask import DaskRunner
    from base.runner import SchedulerLost
    address = f"tcp://127.0.0.1:{_free_port()}"
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", address.rsplit(":", 1)[1], "--no-dashboard"], **quiet)
    worker = None
    try:
        time.sleep(2)
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                   "--no-dashboard"], **quiet)
        # The client waits connect_timeout for a lost scheduler to come back, 30 s by default.
        runner = DaskRunner(open_cluster(scheduler=address, connect_timeout=5), own=True)
        done = []
        started = time.time()
        with pytest.raises(SchedulerLost, match="the Dask scheduler is gone.*finished work is kept"):
            for args, value in runner.map(_nap, [(i,) for i in range(40)]):
                done.append(value)
                if len(done) == 2:
                    scheduler.kill()
        assert done[:2] == [0, 1] and time.time() - started < 30
        runner.close()
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                proc.kill()
                proc.wait()
