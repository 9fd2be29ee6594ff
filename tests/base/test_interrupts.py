"""Ctrl-C and SIGTERM stop a long command: once, in the main process, within seconds, with
every finished game and search kept, its workers and engines gone, one line saying how to
resume, and exit code 128 + the signal.  The signal goes to the whole process group, as a
terminal sends Ctrl-C."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from base.interrupts import Interrupted, deaf_children, held_signals, stop_on_signals

STOP_WITHIN_S = 15  # generous: a loaded 2-core machine; about 2-5 s is usual
RESUME_HINT = "run the same command to resume"


# --- the signal handling, in this process -----------------------------------------------------------

@pytest.fixture
def foreground_sigint():
    """SIGINT handled as in a terminal's foreground process, whatever this pytest inherited
    (a shell's ``command &`` starts it with SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_first_signal_stops_and_later_ones_let_the_cleanup_finish(foreground_sigint):
    with pytest.raises(Interrupted) as info:
        with stop_on_signals():
            try:
                signal.raise_signal(signal.SIGTERM)
            finally:
                signal.raise_signal(signal.SIGINT)  # a second Ctrl-C during the cleanup: ignored
    assert info.value.signum == signal.SIGTERM and info.value.exit_code == 143 and str(info.value) == "SIGTERM"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_a_signal_while_held_is_raised_once_the_work_is_whole(foreground_sigint):
    done = []
    with pytest.raises(KeyboardInterrupt):
        with held_signals():
            signal.raise_signal(signal.SIGINT)
            done.append("rest of the start")
    assert done == ["rest of the start"]


def _blocked_in_thread() -> set:
    seen = set()
    thread = threading.Thread(target=lambda: seen.update(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
    thread.start()
    thread.join()
    return seen


def test_threads_and_processes_started_deaf_ignore_a_ctrl_c():
    with deaf_children():
        inside = _blocked_in_thread()
        child = subprocess.Popen(["sleep", "30"])
    try:
        status = Path(f"/proc/{child.pid}/status").read_text()
        blocked = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
        assert blocked & (1 << signal.SIGINT - 1) and blocked & (1 << signal.SIGTERM - 1)
    finally:
        child.kill()
        child.wait()
    assert {signal.SIGINT, signal.SIGTERM} <= inside
    assert not {signal.SIGINT, signal.SIGTERM} & _blocked_in_thread()  # this thread listens again


# --- real commands, stopped as a terminal stops them ---------------------------------------------

def _start(args: list[str], out: Path, ignore_sigint: bool = False) -> subprocess.Popen:
    """``concilio`` in a process group of its own, as a shell starts a foreground job; with
    ``ignore_sigint``, as a shell's ``command &`` starts it (SIGINT ignored from the start)."""
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    with (out / "stdout").open("w") as stdout, (out / "stderr").open("w") as stderr:
        return subprocess.Popen([sys.executable, "-m", "concilio", *args], start_new_session=True, stdout=stdout,
                                stderr=stderr, preexec_fn=ignore)


def _wait_for(count: Callable[[], int], at_least: int, proc: subprocess.Popen, seconds: float = 180) -> int:
    """Wait until ``count()`` reaches ``at_least`` (the command has committed that much work)."""
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        n = count()
        if n >= at_least:
            return n
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"only {count()} committed in {seconds} s (exit {proc.poll()})")


def _alive_in_group(pgid: int) -> list[str]:
    """The processes of the group still running (a zombie has exited: it only awaits its reaper)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(f"{stat.parent.name} {(stat.parent / 'cmdline').read_bytes()[:80]!r}")
        except OSError:  # gone meanwhile
            continue
    return alive


def _stop(proc: subprocess.Popen, signum: int, out: Path) -> None:
    """Send ``signum`` to the whole group and check the command stops as promised."""
    os.killpg(proc.pid, signum)
    started = time.time()
    try:
        code = proc.wait(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError(f"still running {STOP_WITHIN_S} s after {signal.Signals(signum).name}") from None
    took = time.time() - started
    deadline = time.time() + 10  # the resource tracker leaves once the command is gone
    while _alive_in_group(proc.pid) and time.time() < deadline:
        time.sleep(0.2)
    left = _alive_in_group(proc.pid)
    for line in left:
        os.kill(int(line.split()[0]), signal.SIGKILL)
    stderr = (out / "stderr").read_text()
    assert code == 128 + signum, f"exit {code} after {took:.1f} s; stderr:\n{stderr[-3000:]}"
    assert not left, f"left running: {left}"
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr[-3000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines[-1].endswith(RESUME_HINT) and signal.Signals(signum).name in lines[-1], stderr[-3000:]
    assert stderr.count(RESUME_HINT) == 1


def _games(folder: Path) -> list[str]:
    """The ids of the games committed (a line being written is not one yet)."""
    index = folder / "games.jsonl"
    lines = index.read_text().splitlines(keepends=True) if index.exists() else []
    return [json.loads(line)["id"] for line in lines if line.endswith("\n")]


@pytest.mark.slow
@pytest.mark.parametrize("signum, ignored", [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c", "ctrl-c-to-a-background-job", "sigterm"])
def test_a_stopped_match_keeps_its_games_and_resumes(tmp_path, signum, ignored):
    from tournaments.match.config import load_match
    from tournaments.match.run import run_match
    games, body = 200, """
        players: [{name: mp, instance: MP}]
        time_control: {nodes: 2000}
        max_plies: 20
        concurrency: 2
    """
    path = tmp_path / "m.yaml"
    path.write_text(textwrap.dedent(body) + f"games: {games}\noutput: {tmp_path / 'out'}\n")
    proc = _start(["match", str(path), "--quiet"], tmp_path, ignore_sigint=ignored)
    _wait_for(lambda: len(_games(tmp_path / "out")), 4, proc)
    before = _games(tmp_path / "out")
    _stop(proc, signum, tmp_path)
    kept = _games(tmp_path / "out")
    assert set(before) <= set(kept) and len(kept) == len(set(kept)) < games
    # The same command resumes; here a shorter schedule of the same match, to keep it short.
    path.write_text(path.read_text().replace(f"games: {games}", f"games: {len(kept) + 2}")
                    .replace("concurrency: 2", "concurrency: 1"))
    config = load_match(path)
    outcome = run_match(config, progress=False, out=lambda line: None)
    schedule = {s.id for s in config.schedule()}
    assert outcome.played == len(schedule - set(kept))  # no game played twice
    assert sorted(_games(tmp_path / "out")) == sorted(set(kept) | schedule)


def _searches(store: Path) -> int:
    try:
        with sqlite3.connect(store) as db:
            return db.execute("SELECT COUNT(*) FROM searches").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


@pytest.mark.slow
def test_a_stopped_suite_keeps_its_searches_and_resumes(tmp_path):
    from tournaments.suite.store import SearchStore
    from tournaments.suite.config import load_suite
    from tournaments.suite.run import read_suites, run_suite
    store = tmp_path / "store.sqlite"
    path = tmp_path / "run.yaml"
    path.write_text(textwrap.dedent(f"""
        name: stopped
        suites: [{{path: data:suites/wac.epd}}]
        players: {{instances: [MB, MX], full: true}}
        budget: {{nodes: 20000}}
        criteria: [majority]
        store: {store}
        report: {tmp_path / "report"}
        workers: 2
    """))
    proc = _start(["suite", str(path), "--quiet"], tmp_path)
    before = _wait_for(lambda: _searches(store), 16, proc)
    _stop(proc, signal.SIGINT, tmp_path)
    kept = _searches(store)
    assert before <= kept < 300 * 3
    # The same command resumes; here on the first 16 positions, to keep it short.
    path.write_text(path.read_text().replace("path: data:suites/wac.epd", "path: data:suites/wac.epd, first: 16")
                    .replace("workers: 2", "workers: 1"))
    config = load_suite(path)
    fens = {p.fen for p in read_suites(config)[0].positions}
    with SearchStore(store) as db:
        missing = sum(len(fens - db.done(key, config.budget_key)) for key in config.instances())
    resumed = run_suite(config, progress=False)
    assert resumed.searches_added == missing  # nothing finished is searched again
    with sqlite3.connect(store) as db:
        total, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT fen || instance || budget) FROM searches").fetchone()
    assert total == distinct == kept + missing
