"""The master tree's other policies (``players.decomposition.tree_policies``): Fishburn and
Finkel's tree splitting, with and without window reduction, and Akl's mandatory work first.
Hand-checked plans on the two-ply tree of ``test_master_tree``, random trees answering in any
order, the sequential score in the exact mode on 1 to 16 workers, the YAML, the speedup rows
and the UCI engine."""
import random
import sys
from dataclasses import replace
from pathlib import Path

import chess
import chess.engine
import pytest

from base.config import ConfigError
from players.core.search import INF
from players.decomposition.config import load_decomposition
from players.decomposition.master_clock import MasterTreeConfig, run_master_tree
from players.decomposition.master_tree import Node, dispatch, record, sent
from players.decomposition.master_worker import Team
from players.decomposition.tree_policies import (
    MandatoryFirst,
    TreeSplit,
    make_policy,
    processor_tree,
)
from players.limits import Limit
from tournaments.speedup.nodes import NodeRow
from tournaments.speedup.run import load_speedup, run_speedup

from .test_master_tree import BK02, SMALL, _minimax, _random_tree, hand_tree

SPEEDUP = Path(__file__).resolve().parents[3] / "configs" / "decomposition" / "speedup-cluster.yaml"
POLICIES = [("tree_split", False), ("tree_split", True), ("mandatory_first", False)]


def send(orders, running: dict) -> None:
    """What the master does with ``dispatch``'s orders (``master_clock._Master._replan``)."""
    for w in orders.aborts:
        running.pop(w)
    for w, want in orders.windows + orders.jobs:
        sent(want)
        running[w] = (want.leaf, (want.alpha, want.beta))


def test_the_processor_tree_spreads_the_workers_over_the_master_plies():
    assert processor_tree(16, 2) == (4, 4) and processor_tree(8, 2) == (4, 2) and processor_tree(4, 2) == (2, 2)
    assert processor_tree(2, 2) == (2, 1) and processor_tree(1, 2) == (1, 1) and processor_tree(12, 2) == (4, 3)
    assert processor_tree(16, 3) == (4, 2, 2) and processor_tree(7, 1) == (7,)
    for k in range(1, 17):
        for levels in (1, 2, 3):
            fan = processor_tree(k, levels)
            product = 1
            for f in fan:
                product *= f
            assert len(fan) == levels and product == k
    with pytest.raises(ValueError, match="unknown master policy"):
        make_policy("ybwc", 4, 2)


def test_tree_splitting_hands_each_node_its_processors_children_with_its_window():
    """2 x 2 processors: the root's first two children, each with its first two children, all in
    the full window; a slave that returns takes its node's next child in the narrower window."""
    root, n = hand_tree()
    policy = TreeSplit((2, 2))
    wants = policy.plan(root)
    assert [(w.leaf.move, w.alpha, w.beta) for w in wants] == [(m, -INF, INF) for m in ("a1", "a2", "b1", "b2")]
    running: dict = {}
    send(dispatch(wants, running, 4), running)
    record(n["a1"], -INF, INF, 30)  # a >= −30
    del running[0]
    wants = {w.leaf.move: w for w in policy.plan(root)}
    assert (wants["a3"].alpha, wants["a3"].beta) == (-INF, 30)  # a's free slave, a's new window
    assert (wants["a2"].alpha, wants["a2"].beta) == (-INF, INF)  # without window reduction: kept
    assert "c1" not in wants  # the root's two slaves are both busy (a and b)
    orders = dispatch(list(wants.values()), running, 4)
    assert not orders.windows and [want.leaf.move for _, want in orders.jobs] == ["a3"]


def test_window_reduction_narrows_running_windows_and_makes_cut_offs_the_frozen_windows_miss():
    """a's value (−30) gives the root alpha 30.  With window reduction b's running children are
    sent (30, ∞) and b1's 25 cuts b off (b <= −30 is all the root needs; b >= −25 is worse): b2
    is aborted.  Without, b keeps (−∞, ∞): it does not know the root's alpha, b2 runs on and b3
    starts."""
    for reduction in (False, True):
        root, n = hand_tree()
        policy = TreeSplit((2, 2), reduction)
        running: dict = {}
        send(dispatch(policy.plan(root), running, 4), running)  # a1 a2 b1 b2 on workers 0-3
        for w, leaf, score in ((0, "a1", 30), (1, "a2", 35)):
            record(n[leaf], *running.pop(w)[1], score)
            send(dispatch(policy.plan(root), running, 4), running)  # a2 may be re-windowed, then a3
        w3 = next(w for w, (leaf, _) in running.items() if leaf is n["a3"])
        record(n["a3"], *running.pop(w3)[1], 40)
        assert (n["a"].lo, n["a"].hi, root.lo) == (-30, -30, 30)
        orders = dispatch(policy.plan(root), running, 4)
        if reduction:
            assert sorted((want.leaf.move, want.alpha, want.beta) for _, want in orders.windows) == \
                   [("b1", 30, INF), ("b2", 30, INF)]
        else:
            assert not orders.windows
        send(orders, running)
        record(n["b1"], *running.pop(2)[1], 25)
        orders = dispatch(policy.plan(root), running, 4)
        if reduction:
            assert orders.aborts == (3,) and n["b"].lo >= -root.lo and not orders.jobs  # c1, c2 run already
        else:
            assert not orders.aborts and [want.leaf.move for _, want in orders.jobs] == ["b3"]


def test_mandatory_work_first_then_the_second_stage_then_speculation_left_to_right():
    root, n = hand_tree()
    policy = MandatoryFirst()
    wants = policy.plan(root)
    # The minimal tree (a's children, the CUT nodes' eldest) first, then the speculative leaves
    # left to right: b's before c's (Jurčovič's rank order is b2 c2 b3 c3).
    assert [(w.leaf.move, w.pv) for w in wants] == [("a1", True), ("a2", True), ("a3", True), ("b1", True),
                                                    ("c1", True), ("b2", False), ("b3", False), ("c2", False),
                                                    ("c3", False)]
    assert all((w.alpha, w.beta) == (-INF, INF) for w in wants)  # nothing is known yet
    running: dict = {}
    send(dispatch(wants, running, 6), running)  # the 5 mandatory leaves and b2, speculatively
    record(n["b1"], *running.pop(3)[1], 25)  # b1 does not refute b (the root knows no alpha yet)
    wants = policy.plan(root)
    assert [(w.leaf.move, w.pv) for w in wants] == [("a1", True), ("a2", True), ("a3", True), ("b2", True),
                                                    ("b3", True), ("c1", True), ("c2", False), ("c3", False)]
    b2, b3 = wants[3], wants[4]
    assert (b2.alpha, b2.beta) == (-INF, INF)  # running: its window is never moved
    assert (b3.alpha, b3.beta) == (-INF, 25)  # started now: bounded by b's value, no deeper bound
    send(dispatch(wants, running, 6), running)
    for leaf, score in (("a1", 30), ("a2", 35), ("a3", 40)):
        w = next(w for w, (x, _) in running.items() if x is n[leaf])
        record(n[leaf], *running.pop(w)[1], score)
    assert root.lo == 30 and n["b"].lo == -25  # b's 25 is refuted by a's 30: a shallow cut-off
    orders = dispatch(policy.plan(root), running, 6)
    assert sorted(running[w][0].move for w in orders.aborts) == ["b2", "b3"] and not orders.windows


@pytest.mark.parametrize("name,reduction", POLICIES)
def test_any_fail_soft_answers_in_any_order_back_up_to_the_minimax_value(name, reduction):
    """Random trees, leaves answering in any order with any fail-soft bound (some after their
    abort): the root's value is always the minimax value, there is always something to search
    until it is known, a frozen window never moves and tree splitting never wants more leaves
    than it has workers."""
    for seed in range(300):
        rng = random.Random(seed)
        root, values = _random_tree(rng)
        truth = _minimax(root, values)
        k = rng.choice([1, 2, 4, 8, 16])
        policy = make_policy(name, k, max(n.ply for n in values) if values else 1, reduction)
        running: dict[int, tuple[Node, tuple[int, int]]] = {}
        late = []
        for _ in range(10_000):
            if root.settled:
                break
            wants = policy.plan(root, None, 25)
            if name == "tree_split":
                assert len(wants) <= k, seed
            orders = dispatch(wants, running, k)
            assert reduction or not orders.windows, seed
            late.extend(running[w] for w in orders.aborts)
            send(orders, running)
            assert running, seed
            if late and rng.random() < 0.2:
                leaf, (a, b) = late.pop(rng.randrange(len(late)))
            else:
                leaf, (a, b) = running.pop(rng.choice(sorted(running)))
            v = values[leaf]
            score = v if a < v < b else rng.randint(v, a) if v <= a else rng.randint(b, v)
            record(leaf, a, b, score)
        assert root.settled and root.lo == truth, seed


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16])
def test_the_exact_mode_answers_the_sequential_search(bk, k):
    """Every policy, 3 positions at depths 3 and 4 (one at 5): the sequential score."""
    for i, depth in ((0, 3), (1, 4), (2, 4), (4, 5)):
        fen = bk[i].fen
        seq = SMALL.make_searcher().search(fen, Limit(depth=depth))
        for name, reduction in POLICIES:
            config = MasterTreeConfig(workers=k, slice=400, sequential_depth=3, latency=1 + i % 2, policy=name,
                                      window_reduction=reduction)
            r = run_master_tree(Team(SMALL, k), config, fen, depth=depth)
            assert (r.score, r.depth) == (seq.score_cp, depth), (name, reduction, i, k)
            assert r.pv[0] == r.move and r.leaves > 0 and r.algorithm == name


def test_window_reduction_sends_new_windows_and_saves_nodes(bk):
    """Bratko-Kopec 5 at depth 4 on 4 workers (measured: 8 new windows, 68,522 nodes against
    76,167 without): the same answer, fewer nodes and no later."""
    runs = {}
    for reduction in (False, True):
        config = MasterTreeConfig(workers=4, slice=400, sequential_depth=3, policy="tree_split",
                                  window_reduction=reduction)
        runs[reduction] = run_master_tree(Team(SMALL, 4), config, bk[4].fen, depth=4)
    off, on = runs[False], runs[True]
    assert off.messages.windows == 0 and on.messages.windows > 0
    assert on.score == off.score and on.nodes < off.nodes and on.slices <= off.slices


def test_the_policies_files_are_checked(tmp_path):
    for name, policy, reduction in (("tree-split", "tree_split", False),
                                    ("tree-split-window-reduction", "tree_split", True),
                                    ("mandatory-first", "mandatory_first", False)):
        shipped = load_decomposition(name)
        assert shipped.algorithm == policy and shipped.in_process
        assert shipped.options == MasterTreeConfig(4, 2, 1000, 1, 1000, 5, 25, policy, reduction)
    for text, field in (("algorithm: master_tree\nwindow_reduction: true", "window_reduction: only tree_split"),
                        ("algorithm: tree_split\nwindow_reduction: 1", "window_reduction: expected true or false"),
                        ("algorithm: mandatory_first\nexchange_depth: 3", "exchange_depth: mandatory_first sends"),
                        ("algorithm: tree_split\ncluster: {scheduler: 'tcp://10.0.0.1:8786'}", "cluster: tree_split")):
        bad = tmp_path / "tree.yaml"
        bad.write_text(text + "\n")
        with pytest.raises(ConfigError) as info:
            load_decomposition(bad)
        assert any(p.startswith(f"{bad}:2: {field}") for p in info.value.problems), info.value.problems


def test_the_speedup_file_gives_every_policy_node_clock_rows():
    settings, variants = load_speedup(SPEEDUP)
    variants = [v for v in variants if isinstance(v.options, MasterTreeConfig)]
    assert [(v.name, v.options.policy, v.options.window_reduction) for v in variants] == [
        ("master-tree", "master_tree", False), ("tree-split", "tree_split", False),
        ("tree-split+window-reduction", "tree_split", True), ("mandatory-first", "mandatory_first", False)]
    assert settings["clock_workers"] == [1, 2, 4, 8, 16] and settings["depth"] == 6
    small = [replace(v, search=replace(v.search, hash_mb=2), options=replace(v.options, sequential_depth=3,
                                                                                 slice=300)) for v in variants[1:]]
    rows = run_speedup({**settings, "depth": 4, "limit": 2, "clock_workers": [1, 4]}, small, out=lambda _: None)
    assert [(r.algorithm, r.workers) for r in rows] == [(v.name, k) for v in small for k in (1, 4)]
    for r in rows:
        assert isinstance(r, NodeRow) and r.agree == r.positions == 2 and r.T % 300 == 0 and r.messages > 0


def test_the_decomposition_player_plays_a_policy():
    from players.decomposition.player import DecompositionPlayer
    config = load_decomposition("mandatory-first")
    config = replace(config.with_workers(2), search=replace(config.search, hash_mb=2))
    board = chess.Board(BK02)
    with DecompositionPlayer(config) as player:
        player.new_game()
        played = player.play(board, Limit(nodes=6000))
        player.new_game()
        again = run_master_tree(Team(config.search, 2), config.options, BK02, nodes=6000)
        assert played.move == again.move and played.nodes == again.nodes
        assert any(line.startswith("master tree, mandatory_first:") for line in played.report)


@pytest.mark.parametrize("name", ["tree-split", "tree-split-window-reduction", "mandatory-first"])
def test_uci_answers_go_nodes(name):
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "concilio", "uci", name], timeout=120)
    try:
        assert name.split("-window")[0].replace("-", "_") in engine.id["name"]
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(nodes=20000))
        assert result.move in board.legal_moves
        board.push(result.move)
        assert engine.play(board, chess.engine.Limit(nodes=20000)).move in board.legal_moves
    finally:
        engine.quit()
