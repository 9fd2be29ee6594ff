"""Parallel aspiration (``players.decomposition.aspiration``): disjoint windows that cover every
score, the exact value from the worker whose window holds it, and the sequential answer at a
fixed depth whatever the worker count."""
import time

import numpy as np
import pytest

from players.core.search import INF
from players.decomposition.algorithms import Master, iterate
from players.decomposition.aspiration import boundaries, holding, windows
from base.runner import _finish, current_state, in_state
from players.decomposition import worker
from base.runner import InlineRunner
from players.decomposition.runner import drop_prefix, open_runner
from players.decomposition.worker import WindowJob, run

from .conftest import EXACT


def drop_searchers(prefix: str) -> None:
    """Free the searchers a test's jobs left in this process."""
    with in_state(current_state()):
        _finish(worker.drop_prefix(prefix))


@pytest.mark.parametrize("guess", [0, 73, -250, 31990, -31999])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 8, 16])
def test_the_windows_are_disjoint_and_cover_every_score(k, guess):
    wins = windows(guess, k, 25)
    scores = np.arange(-INF + 1, INF)  # every score a search can return
    held = np.zeros(scores.size, np.int64)
    for lo, hi in wins:
        held += (scores > lo) & (scores < hi)  # the scores this window answers exactly
    assert (held == 1).all()
    assert wins[0][0] == -INF and wins[-1][1] == INF
    if abs(guess) < 10_000:
        assert len(wins) == k  # clipped only near mate scores
        if k >= 3:  # a narrow window at the guess (with two, the guess is their boundary)
            assert any(lo < guess < hi and hi - lo <= 2 * 25 + 1 for lo, hi in wins)


def test_the_boundaries_are_dense_at_the_guess_and_geometric_outwards():
    assert boundaries(10, 2, 25) == [10]
    assert boundaries(10, 3, 25) == [-15, 35]
    assert boundaries(0, 8, 25) == [-100, -50, -25, 0, 25, 50, 100]
    assert boundaries(0, 16, 10)[0] == -640 and boundaries(0, 16, 10)[-1] == 640


def test_only_the_window_holding_the_value_answers_it_exactly(bk, sequential):
    fen, (value, _) = bk[1].fen, sequential[1]
    wins = windows(value - 30, 8, 25)  # a guess off the value: the value is not in the central window
    right = holding(wins, value)
    key = f"asp-exact-{time.time_ns()}"
    try:
        for i, (lo, hi) in enumerate(wins):
            r = run(f"{key}-{i}", EXACT, f"{key}-job{i}", WindowJob(fen, (), 4, lo, hi))
            if i == right:
                assert r.score == value and r.pv  # exact, with its line
            elif i < right:
                assert r.score >= hi  # fails high: the value is above this window
            else:
                assert r.score <= lo  # fails low
    finally:
        drop_searchers(key)


@pytest.mark.parametrize("k", [1, 2, 5, 16])
def test_parallel_aspiration_answers_the_sequential_search(bk, sequential, k):
    for i in range(6):
        runner = InlineRunner()
        runner.workers = k
        key = f"asp-seq-{k}-{i}-{time.time_ns()}"
        try:
            r = iterate(Master(runner, EXACT, key), "aspiration", bk[i].fen, (), 4)
        finally:
            drop_searchers(key)
        assert r.score == sequential[i][0] and r.depth == 4
        c = r.clock
        assert c.fallbacks == 0 and len(c.iterations) == 4
        for depth, counted, decider in c.iterations:
            assert len(counted) <= k and counted[decider] == max(counted)  # the others stop at T
        assert c.time == sum(it[1][it[2]] for it in c.iterations)
        assert c.nodes == sum(sum(it[1]) for it in c.iterations) == r.tally.nodes
        if k == 1:
            assert c.nodes == c.time  # one full window: plain alpha-beta


def test_the_node_clock_does_not_depend_on_the_run(bk):
    """Deterministic: the same search twice gives the same clock, node for node."""
    clocks = []
    for _ in range(2):
        runner = InlineRunner()
        runner.workers = 4
        key = f"asp-det-{time.time_ns()}"
        try:
            clocks.append(iterate(Master(runner, EXACT, key), "aspiration", bk[2].fen, (), 4).clock)
        finally:
            drop_searchers(key)
    assert clocks[0] == clocks[1]


def test_parallel_aspiration_over_dask_answers_the_sequential_search(bk, sequential):
    runner = open_runner(2, threads=True)
    try:
        for i in (0, 3):
            master = Master(runner, EXACT, f"asp-dask-{i}-{time.time_ns()}")
            r = iterate(master, "aspiration", bk[i].fen, (), 4)
            drop_prefix(runner, master.key)
            assert r.score == sequential[i][0] and r.tally.jobs >= 2 * 4
    finally:
        runner.close()


def test_the_windows_searchers_are_freed_with_the_runners_key(bk):
    """The node clock's windows search in the runner's state, so dropping the master's key frees
    their tables; a speedup run otherwise kept k tables per position (13 GB at 16 workers)."""
    runner = InlineRunner()
    runner.workers = 4
    key = f"asp-free-{time.time_ns()}"
    iterate(Master(runner, EXACT, key), "aspiration", bk[0].fen, (), 3)
    with runner.here():
        assert worker._SEARCHERS.get(f"{key}-w0") is not None
    with in_state(current_state()):
        assert worker._SEARCHERS.get(f"{key}-w0") is None  # not in the calling process's own state
    drop_prefix(runner, key)
    with runner.here():
        assert all(worker._SEARCHERS.get(f"{key}-w{i}") is None for i in range(4))
