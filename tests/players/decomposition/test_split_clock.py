"""Root, PV and dynamic splitting on the node clock (``players.decomposition.split_clock``,
``.split_policies``): the sequential answer in the exact mode at 1 to 16 workers, the clock's
determinism, the desk's messages counted by hand, node budgets, the YAML, the speedup rows'
source and the player."""
import random
from dataclasses import replace
from functools import cache

import chess
import pytest

from base.config import ConfigError
from players.core.search import INF, search_node
from players.decomposition.config import load_decomposition
from players.decomposition.master_worker import Abort, Job, Rewindow, Team
from players.decomposition.split_clock import Desk, SplitClockConfig, run_split_clock
from players.limits import Limit
from players.position import Position

from .conftest import EXACT

SMALL = replace(EXACT, hash_mb=2)
BK02 = "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1"

VARIANTS = {
    "root-split": {"algorithm": "root_split", "score_sharing": False, "null_window": False},
    "root-split+sharing": {"algorithm": "root_split", "score_sharing": True, "null_window": False},
    "root-split+pvs": {"algorithm": "root_split"},
    "root-split+speculative": {"algorithm": "root_split", "speculative": True},
    "pv-split+pvs": {"algorithm": "pv_split"},
    "dynamic-split+pvs": {"algorithm": "dynamic_split"},
}


@cache
def _sequential(fen: str, depth: int) -> tuple[str, int]:
    r = SMALL.make_searcher().search(fen, Limit(depth=depth))
    return r.bestmove, r.score_cp


def _tie_value(fen: str, move: str, depth: int) -> int:
    """The exact value of the root move ``move`` at ``depth`` (check extension included)."""
    pos = Position.from_fen(fen, (move,))
    child_depth = depth - 1 + (1 if pos.to_board().is_check() else 0)
    s = SMALL.make_searcher()
    return -int(search_node(pos.arrays, s.tt, s.ctx, child_depth, 1, -INF, INF))


def _run(name: str, k: int, fen: str, depth: int, **settings):
    config = SplitClockConfig(workers=k, **{"slice": 400, "min_split_depth": 3, **VARIANTS[name], **settings})
    return run_split_clock(Team(SMALL, k), config, fen, depth=depth)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_exact_mode_answers_the_sequential_search(bk, name, k):
    """Splits from depth 3 on (PV splitting: at plies 0 to 2 at depth 5), depths 3 and 5, latency 1
    and 2: the sequential score at every worker count, and its move or one worth as much."""
    for i in (0, 1, 2, 3):
        fen = bk[i].fen
        for depth in (3, 5):
            move, score = _sequential(fen, depth)
            r = _run(name, k, fen, depth, latency=1 + i % 2)
            assert (r.score, r.depth) == (score, depth) or (r.score == score and abs(score) > 29000), (name, i, depth)
            assert r.move == move or _tie_value(fen, r.move, depth) == score, (name, i, depth)
            assert r.pv[0] == r.move and r.messages.jobs > 0
            assert r.slices * r.slice_nodes >= max(r.worker_nodes) and len(r.worker_nodes) == k


def test_dynamic_splitting_subcontracts_where_pv_splitting_does_not():
    """With 16 workers and few siblings left, DPVSplit splits a sibling too: more jobs, the same answer."""
    pv = _run("pv-split+pvs", 16, BK02, 5)
    dynamic = _run("dynamic-split+pvs", 16, BK02, 5)
    assert dynamic.score == pv.score == _sequential(BK02, 5)[1]
    assert dynamic.messages.jobs > pv.messages.jobs
    assert _run("dynamic-split+pvs", 1, BK02, 5).messages.jobs == _run("pv-split+pvs", 1, BK02, 5).messages.jobs


@pytest.mark.parametrize("name", list(VARIANTS))
def test_runs_are_a_pure_function_of_position_and_config(name):
    """Twice the same, and the same whatever order the workers run in within a slice."""
    k = 4
    orders = (None, None, list(reversed(range(k))), random.Random(7).sample(range(k), k))
    config = SplitClockConfig(workers=k, slice=300, latency=2, min_split_depth=3, **VARIANTS[name])
    runs = [run_split_clock(Team(SMALL, k), config, BK02, depth=5, order=order) for order in orders]
    first = runs[0]
    for r in runs[1:]:
        assert (r.move, r.score, r.pv, r.slices, r.worker_nodes, r.messages, r.overruns) == \
               (first.move, first.score, first.pv, first.slices, first.worker_nodes, first.messages, first.overruns)
        assert [(it.depth, it.score_cp, it.nodes, it.pv) for it in r.iterations] == \
               [(it.depth, it.score_cp, it.nodes, it.pv) for it in first.iterations]


@pytest.mark.parametrize("k", [1, 2, 16])
def test_plain_root_splitting_sends_one_job_and_one_result_per_root_move(k):
    """No null window, no sharing: iterations 1 and 2 are one root job (two results, one per
    iteration), then iterations 3 and 4 one job per root move each, each answering once; the
    root's window is never cut, so no aborts and no new windows."""
    n = chess.Board(BK02).legal_moves.count()
    r = _run("root-split", k, BK02, 4)
    assert r.score == _sequential(BK02, 4)[1]
    m = r.messages
    assert (m.jobs, m.results, m.aborts, m.windows) == (1 + 2 * n, 2 + 2 * n, 0, 0)
    assert m.total == 3 + 4 * n


def test_the_desk_counts_what_it_sends():
    """Jobs leave only when a worker is idle; a queued job's new window or abort costs nothing."""
    desk = Desk(k=2, max_depth=5, start=0.0)
    a, b, c = desk.submit(("e2e4",), 3, -5, 5), desk.submit(("d2d4",), 3), desk.submit(("c2c4",), 3)
    assert desk.idle() == -1
    desk.dispatch()
    assert [(w, type(m).__name__, m.id) for w, m in desk.outbox] == [(0, "Job", a), (1, "Job", b)]
    desk.rewindow(c, 10, 11)  # queued: it will leave with the new window
    desk.rewindow(a, -5, 5)  # no change: no message
    desk.rewindow(a, -5, 2)  # running: a message
    desk.abort(b)  # running: a message, its worker idle at once
    assert desk.outbox[2:] == [(0, Rewindow(a, -5, 2)), (1, Abort(b))]
    desk.dispatch()
    assert desk.outbox[4] == (1, Job(c, ("c2c4",), 3, 10, 11))
    desk.abort(desk.submit(("g1f3",), 3))  # queued: dropped without a message
    assert (desk.counts.jobs, desk.counts.windows, desk.counts.aborts) == (3, 1, 1) and len(desk.outbox) == 5
    # a path goes back to the worker that searched it last, if that one is idle
    desk.abort(a)
    desk.abort(c)
    desk.submit(("e2e4",), 4)
    desk.dispatch()
    assert desk.outbox[-1][0] == 0


def test_a_node_budget_is_per_worker_on_the_clock():
    config = SplitClockConfig("pv_split", 4, slice=700, min_split_depth=3)
    r = run_split_clock(Team(SMALL, 4), config, BK02, nodes=5000)
    assert r.slices * r.slice_nodes >= 5000 > (r.slices - 1) * r.slice_nodes
    assert r.nodes <= 4 * 5000 and all(n <= 5000 for n in r.worker_nodes) and r.depth >= 2
    assert r.iterations[-1].depth == r.depth and r.iterations[-1].pv == r.pv
    with pytest.raises(ValueError, match="node budget per worker or a depth"):
        run_split_clock(Team(SMALL, 1), SplitClockConfig(workers=1), BK02)


def test_searchmoves_restrict_the_root():
    config = SplitClockConfig("root_split", 2, slice=500, min_split_depth=3)
    r = run_split_clock(Team(SMALL, 2), config, BK02, depth=4, searchmoves=("c3c2", "b3d2"))
    assert r.move in ("c3c2", "b3d2") and r.depth == 4
    seq = SMALL.make_searcher().search(BK02, Limit(depth=4), searchmoves=["c3c2", "b3d2"])
    assert r.score == seq.score_cp
    with pytest.raises(ValueError, match="searchmoves"):
        run_split_clock(Team(SMALL, 2), config, BK02, depth=3, searchmoves=("e1e8",))


CLOCKED_FILE = """algorithm: root_split
node_clock: true
workers: 2
score_sharing: true
speculative: true
margin: 30
min_split_depth: 3
slice: 600
latency: 2
search: {mask: MBXKPAR, hash_mb: 2}
"""


def test_node_clock_files_are_checked(tmp_path):
    config = load_decomposition(text=CLOCKED_FILE)
    assert config.options == SplitClockConfig("root_split", 2, 600, 2, 3, True, True, True, 30)
    assert config.with_workers(16).options.workers == 16
    assert load_decomposition(text="algorithm: root_split\n").options is None  # over Dask, as before
    for text, field in (("algorithm: lazy_smp\nnode_clock: true", "node_clock: only root_split"),
                        ("algorithm: master_tree\nnode_clock: true", "node_clock: only root_split"),
                        ("algorithm: pv_split\nnode_clock: true\nshared_table: true", "shared_table: pv_split"),
                        ("algorithm: pv_split\nnode_clock: true\ncluster: {scheduler: 'tcp://h:1'}", "cluster: pv"),
                        ("algorithm: pv_split\nslice: 500", "slice: only lazy_cluster"),
                        ("algorithm: pv_split\nnode_clock: true\nexchange_size: 5", "exchange_size: only"),
                        ("algorithm: pv_split\nnode_clock: true\nlatency: 0", "latency")):
        bad = tmp_path / "bad.yaml"
        bad.write_text(text + "\n")
        with pytest.raises(ConfigError) as info:
            load_decomposition(bad)
        assert any(field in p for p in info.value.problems), (text, info.value.problems)


def test_the_decomposition_player_plays_root_splitting_on_the_clock():
    from players.decomposition.player import DecompositionPlayer
    config = load_decomposition(text=CLOCKED_FILE)
    board = chess.Board(BK02)
    with DecompositionPlayer(config) as player:
        assert player.clocked and "threads of this process" in player.describe()
        player.new_game()
        played = player.play(board, Limit(nodes=6000))
        again = run_split_clock(Team(config.search, 2), config.options, BK02, nodes=6000)
        assert played.move == again.move and played.nodes == again.nodes
        assert any(line.startswith("root_split (node clock):") and "messages" in line for line in played.report)
        player.new_game()
        deep = player.play(board, Limit(depth=4))
        assert deep.move in [m.uci() for m in board.legal_moves]
        only = player.search(board, Limit(depth=4), searchmoves=("c1c2",))
        assert only.bestmove == "c1c2" and only.depth == 4
        timed = player.search(board, Limit(movetime=300))
        assert timed.depth >= 1


def test_cut_offs_abort_and_score_sharing_sends_new_windows(bk):
    """A dynamic split below the root cuts off (its siblings still running are aborted); score
    sharing lowers running jobs' beta, and without it no window is ever sent."""
    r = _run("dynamic-split+pvs", 16, bk[0].fen, 5)
    assert r.messages.aborts > 0 and r.score == _sequential(bk[0].fen, 5)[1]
    shared = [_run("root-split+sharing", 4, bk[i].fen, 5) for i in range(6)]
    plain = [_run("root-split", 4, bk[i].fen, 5) for i in range(6)]
    assert sum(r.messages.windows for r in shared) > 0 and all(r.messages.windows == 0 for r in plain)
    assert [r.score for r in shared] == [r.score for r in plain] == [_sequential(bk[i].fen, 5)[1] for i in range(6)]
