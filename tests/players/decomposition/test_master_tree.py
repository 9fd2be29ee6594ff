"""Jurčovič's master tree (``players.decomposition.master_tree``, ``.master_worker``,
``.master_clock``): node types and ranks on a hand-built tree, the dispatch order, an abort
when a CUT node cuts, the bounds' back-up, the sequential answer in the exact mode, the
node clock's determinism, the exchange, the YAML and the player."""
import random
from dataclasses import replace

import chess
import chess.engine
import pytest

from base.config import ConfigError
from players.core.search import INF, search_node
from players.decomposition.config import load_decomposition
from players.decomposition.master_clock import MasterTreeConfig, run_master_tree
from players.decomposition.master_tree import ALL, CUT, PV, Node, back_up_all, dispatch, number, plan, record, walk
from players.decomposition.master_worker import Team
from players.limits import Limit
from players.position import Position

from .conftest import EXACT
from tests.uci_checks import answers_two_go_nodes

SMALL = replace(EXACT, hash_mb=2)
BK02 = "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1"


def hand_tree() -> tuple[Node, dict[str, Node]]:
    """Root r with children a (eldest), b, c; each with children 1, 2, 3 (a1 .. c3): two plies."""
    root = Node("", 4)
    named = {}
    for x in "abc":
        child = root.add(x, 3)
        named[x] = child
        for i in "123":
            named[x + i] = child.add(x + i, 2)
    number(root)
    back_up_all(root)
    return root, named


def test_nodes_are_typed_knuth_moore_style_and_ranked_as_jurcovic_does():
    root, n = hand_tree()
    assert (root.kind, root.rank) == (PV, 1)
    assert [(n[x].kind, n[x].rank) for x in "abc"] == [(PV, 1), (CUT, 2), (CUT, 2)]
    assert [(n["a" + i].kind, n["a" + i].rank) for i in "123"] == [(PV, 1), (CUT, 2), (CUT, 2)]
    # A CUT node's eldest is ALL; its younger children are off the minimal tree: 3 + their number.
    assert [(n["b" + i].kind, n["b" + i].rank, n["b" + i].minimal) for i in "123"] == \
           [(ALL, 3, True), (ALL, 5, False), (ALL, 6, False)]
    # An ALL node's children are CUT; below a speculative node the rank is passed down.
    assert [(c.kind, c.rank) for c in (n["b1"].add("x", 1), n["b1"].add("y", 1))] == [(CUT, 2), (CUT, 2)]
    assert [(c.kind, c.rank) for c in (n["b2"].add("x", 1), n["b2"].add("y", 1))] == [(CUT, 5), (CUT, 5)]
    assert n["c3"].path() == ("c", "c3")


def test_dispatch_goes_minimal_tree_first():
    root, _ = hand_tree()
    wants = plan(root, guess=10, margin=5)
    assert [w.leaf.move for w in wants] == ["a1", "a2", "a3", "b1", "c1", "b2", "c2", "b3", "c3"]
    pv = wants[0]
    assert pv.pv and (pv.alpha, pv.beta) == (-INF, INF)
    # Before the PV leaf answers, the others are probed with null windows at the previous score
    # less the margin: a's children from a's side (−10 − 5), b's and c's from the root's.
    assert {(w.leaf.move, w.alpha, w.beta) for w in wants[1:3]} == {("a2", 14, 15), ("a3", 14, 15)}
    assert {(w.leaf.move, w.alpha, w.beta) for w in wants[3:]} == {(m, 5, 6) for m in
                                                                   ("b1", "c1", "b2", "c2", "b3", "c3")}
    orders = dispatch(wants, {}, 4)
    assert [(w, want.leaf.move) for w, want in orders.jobs] == [(0, "a1"), (1, "a2"), (2, "a3"), (3, "b1")]
    # A leaf goes back to the worker that searched it before, if that one is idle.
    again = dispatch(wants, {}, 4, home={("b", "b1"): 0})
    assert [(w, want.leaf.move) for w, want in again.jobs] == [(1, "a1"), (2, "a2"), (3, "a3"), (0, "b1")]


def test_the_windows_move_to_the_real_alpha_and_a_fail_that_matters_is_searched_again():
    root, n = hand_tree()
    running = {0: (n["a2"], (14, 15)), 1: (n["b1"], (5, 6))}
    record(n["a1"], -INF, INF, 30)  # the PV leaf, exact: a >= −30, its alpha
    assert (n["a"].lo, n["a"].hi, root.lo) == (-30, INF, -INF)
    wants = {w.leaf.move: w for w in plan(root, guess=10, margin=5)}
    assert (wants["a2"].alpha, wants["a2"].beta) == (29, 30)  # a's null window at −30, seen from a2
    assert (wants["b1"].alpha, wants["b1"].beta) == (5, 6)  # the root's alpha is not known yet
    orders = dispatch(list(wants.values()), running, 3)
    assert [(w, x.alpha) for w, x in orders.windows] == [(0, 29)] and not orders.aborts
    record(n["a2"], 29, 30, 12)  # a2 fails low: better for a than a1 (−12 > −30), a's new PV child
    re = next(w for w in plan(root, guess=10, margin=5) if w.leaf is n["a2"])
    assert re.pv and (re.alpha, re.beta) == (-INF, 13)  # the full window, narrowed by a2's bound 12
    record(n["a2"], -INF, 13, 12)
    a3 = next(w for w in plan(root, guess=10, margin=5) if w.leaf is n["a3"])
    assert (a3.alpha, a3.beta) == (11, 12)
    record(n["a3"], 11, 12, 15)  # a3 >= 15: no better than a2, so a = −12 and the root's alpha is 12
    assert (n["a"].lo, n["a"].hi, root.lo, root.hi) == (-12, -12, 12, INF)
    b1 = next(w for w in plan(root, guess=10, margin=5) if w.leaf is n["b1"])
    assert (b1.alpha, b1.beta) == (12, 13)
    record(n["c1"], 12, 13, 5)
    record(n["c1"], 12, 13, 20)  # contradicts c1 <= 5: the exact mode never does; the new answer wins
    assert (n["c1"].lo, n["c1"].hi, n["c1"].contradictions) == (20, INF, 1)


def test_a_cut_at_a_cut_node_aborts_its_outstanding_jobs():
    root, n = hand_tree()
    record(n["a1"], -INF, INF, 30)
    record(n["a2"], 29, 30, 35)
    record(n["a3"], 29, 30, 31)  # a's younger children are no better: a = −30, the root's alpha 30
    assert (n["a"].lo, n["a"].hi, root.lo) == (-30, -30, 30)
    wants = plan(root, guess=10, margin=5)
    orders = dispatch(wants, {}, 6)
    assert [want.leaf.move for _, want in orders.jobs] == ["b1", "c1", "b2", "c2", "b3", "c3"]
    running = {w: (want.leaf, (want.alpha, want.beta)) for w, want in orders.jobs}
    record(n["b1"], 30, 31, 25)  # b's eldest fails low: b >= −25 ... a cut-off, b is worse than a
    assert n["b"].lo == -25 and -n["b"].lo < root.lo
    after = dispatch(plan(root, guess=10, margin=5), running, 6)
    assert sorted(after.aborts) == [0, 2, 4]  # b1 (answered, still counted as running here), b2, b3
    assert {n["b2"], n["b3"]} <= {running[w][0] for w in after.aborts}
    assert not after.jobs  # c's children are all running already


def _random_tree(rng: random.Random) -> tuple[Node, dict[Node, int]]:
    root = Node("", 5)
    values: dict[Node, int] = {}

    def grow(node: Node, plies: int) -> None:
        for i in range(rng.randint(1, 4)):
            if plies > 1 and rng.random() < 0.1:
                node.add(f"m{i}", node.depth - 1, value=rng.randint(-50, 50))  # a mate or a draw
                continue
            child = node.add(f"m{i}", node.depth - 1)
            if plies > 1:
                grow(child, plies - 1)
            else:
                values[child] = rng.randint(-60, 60)
    grow(root, rng.randint(1, 3))
    number(root)
    back_up_all(root)
    return root, values


def _minimax(node: Node, values: dict[Node, int]) -> int:
    if node.leaf:
        return node.lo if node.terminal else values[node]
    return max(-_minimax(c, values) for c in node.children)


def test_any_fail_soft_answers_in_any_order_back_up_to_the_minimax_value():
    """Random trees, leaves answering with any fail-soft bound, up to k jobs in flight answering
    in any order (some after their abort): the root's value is always the minimax value, and
    there is always something to search until it is known."""
    for seed in range(400):
        rng = random.Random(seed)
        root, values = _random_tree(rng)
        truth = _minimax(root, values)
        guess = truth + rng.randint(-40, 40)
        k = rng.choice([1, 2, 4, 16])
        running: dict[int, tuple[Node, tuple[int, int]]] = {}
        late = []
        for _ in range(10_000):
            if root.settled:
                break
            orders = dispatch(plan(root, guess, 25), running, k)
            for w in orders.aborts:
                late.append(running.pop(w))
            for w, want in orders.windows + orders.jobs:
                running[w] = (want.leaf, (want.alpha, want.beta))
            assert running, seed
            if late and rng.random() < 0.2:
                leaf, (a, b) = late.pop(rng.randrange(len(late)))
            else:
                leaf, (a, b) = running.pop(rng.choice(sorted(running)))
            v = values[leaf]
            score = v if a < v < b else rng.randint(v, a) if v <= a else rng.randint(b, v)
            record(leaf, a, b, score)
        assert root.settled and root.lo == truth, seed


def _tie_value(fen: str, move: str, depth: int) -> int:
    """The exact value of the root move ``move`` at ``depth`` (check extension included)."""
    pos = Position.from_fen(fen, (move,))
    child_depth = depth - 1 + (1 if pos.to_board().is_check() else 0)
    s = SMALL.make_searcher()
    return -int(search_node(pos.arrays, s.tt, s.ctx, child_depth, 1, -INF, INF))


@pytest.mark.parametrize("k", [1, 2, 4])
def test_the_exact_mode_answers_the_sequential_search(bk, k):
    """Trees from depth 3 on (sequential_depth 3), at depths 3 to 5: the sequential score, and
    its move or one worth as much."""
    for i in range(6):
        fen = bk[i].fen
        for depth in (3, 4, 5):
            seq = SMALL.make_searcher().search(fen, Limit(depth=depth))
            config = MasterTreeConfig(workers=k, master_depth=2 if depth != 4 else 1, slice=400, sequential_depth=3,
                                      latency=1 if i % 2 else 2)
            r = run_master_tree(Team(SMALL, k), config, fen, depth=depth)
            assert (r.score, r.depth) == (seq.score_cp, depth), (i, depth, k)
            assert r.move == seq.bestmove or _tie_value(fen, r.move, depth) == seq.score_cp, (i, depth, k)
            assert r.pv[0] == r.move and r.leaves > 0


def test_three_master_plies_answer_the_sequential_search():
    seq = SMALL.make_searcher().search(BK02, Limit(depth=4))
    r = run_master_tree(Team(SMALL, 16), MasterTreeConfig(16, 3, 2000, sequential_depth=4), BK02, depth=4)
    assert (r.move, r.score) == (seq.bestmove, seq.score_cp)


def test_runs_are_a_pure_function_of_position_and_config():
    """Twice the same on 2 and on 4 workers, and the same whatever order the workers run in
    within a slice."""
    for k in (2, 4):
        config = MasterTreeConfig(workers=k, slice=500, sequential_depth=4, latency=2)
        runs = [run_master_tree(Team(SMALL, k), config, BK02, depth=5, order=order)
                for order in (None, None, list(reversed(range(k))))]
        first = runs[0]
        for r in runs[1:]:
            assert (r.move, r.score, r.pv, r.slices, r.worker_nodes, r.messages, r.overruns) == \
                   (first.move, first.score, first.pv, first.slices, first.worker_nodes, first.messages,
                    first.overruns)
        assert first.messages.jobs > 0 and first.messages.table > 0


def test_the_exchange_counts_its_messages_and_none_without_it():
    on = run_master_tree(Team(SMALL, 4), MasterTreeConfig(4, slice=500, sequential_depth=4), BK02, depth=5)
    off = run_master_tree(Team(SMALL, 4), MasterTreeConfig(4, slice=500, sequential_depth=4,
                                                                     exchange_size=0), BK02, depth=5)
    # after the shallow job and after depth 4's tree: a request, a selection and the merged selection each
    assert on.messages.table == 2 * 3 * 4 and on.messages.entries > 0
    assert off.messages.table == off.messages.entries == 0
    assert on.score == off.score
    assert on.messages.total == (on.messages.jobs + on.messages.results + on.messages.aborts + on.messages.windows
                                 + on.messages.table)


def test_a_node_budget_is_per_worker_on_the_clock():
    r = run_master_tree(Team(SMALL, 4), MasterTreeConfig(4, slice=700), BK02, nodes=5000)
    assert r.slices * r.slice_nodes >= 5000 > (r.slices - 1) * r.slice_nodes
    assert r.nodes <= 4 * 5000 and all(n <= 5000 for n in r.worker_nodes) and r.depth >= 3
    with pytest.raises(ValueError, match="node budget per worker or a depth"):
        run_master_tree(Team(SMALL, 1), MasterTreeConfig(1), BK02)


def test_searchmoves_restrict_the_root():
    config = MasterTreeConfig(2, slice=500, sequential_depth=3)
    r = run_master_tree(Team(SMALL, 2), config, BK02, depth=4, searchmoves=("c3c2", "b3d2"))
    assert r.move in ("c3c2", "b3d2") and r.depth == 4
    seq = SMALL.make_searcher().search(BK02, Limit(depth=4), searchmoves=["c3c2", "b3d2"])
    assert r.score == seq.score_cp
    with pytest.raises(ValueError, match="searchmoves"):
        run_master_tree(Team(SMALL, 2), config, BK02, depth=3, searchmoves=("e1e8",))


def test_master_tree_files_are_checked(tmp_path):
    shipped = load_decomposition("master-tree")
    assert shipped.algorithm == "master_tree" and shipped.in_process
    assert shipped.options == MasterTreeConfig(workers=4, master_depth=2, slice=1000, latency=1,
                                                   exchange_size=1000, sequential_depth=5, margin=25)
    assert shipped.with_workers(16).options.workers == 16
    for text, line, field in (("master_depth: 0", 2, "master_depth: 0 is out of range"),
                              ("master_depth: 4", 2, "master_depth: 4 is out of range"),
                              ("slice: 0", 2, "slice"), ("latency: 0", 2, "latency"),
                              ("exchange_size: -1", 2, "exchange_size"),
                              ("exchange_depth: 3", 2, "exchange_depth: master_tree sends"),
                              ("min_split_depth: 2", 2, "min_split_depth: 2: the iterations"),
                              ("shared_table: true", 2, "shared_table: master_tree workers share no memory"),
                              ("cluster: {scheduler: 'tcp://10.0.0.1:8786'}", 2, "cluster: master_tree runs")):
        bad = tmp_path / "tree.yaml"
        bad.write_text(f"algorithm: master_tree\n{text}\n")
        with pytest.raises(ConfigError) as info:
            load_decomposition(bad)
        assert any(p.startswith(f"{bad}:{line}: {field}") for p in info.value.problems), info.value.problems
    with pytest.raises(ConfigError, match="master_depth: only master_tree"):
        load_decomposition(text="algorithm: lazy_cluster\nmaster_depth: 2\n")


def test_the_decomposition_player_plays_the_master_tree():
    from players.decomposition.player import DecompositionPlayer
    config = load_decomposition("master-tree")
    config = replace(config.with_workers(2), search=replace(config.search, hash_mb=2))
    board = chess.Board(BK02)
    with DecompositionPlayer(config) as player:
        player.new_game()
        played = player.play(board, Limit(nodes=6000))
        player.new_game()
        again = run_master_tree(Team(config.search, 2), config.options, BK02, nodes=6000)
        assert played.move == again.move and played.nodes == again.nodes
        assert any(line.startswith("master tree:") and "messages" in line for line in played.report)
        only = player.search(board, Limit(depth=4), searchmoves=("c1c2",))
        assert only.bestmove == "c1c2" and only.depth == 4


def test_uci_master_tree_answers_go_nodes():
    answers_two_go_nodes("master-tree", "master_tree", 10000)


def test_every_node_of_a_chess_tree_has_the_sequential_depth():
    """The master's tree: check extensions as the sequential search gives them, terminal
    positions valued without a job."""
    r = run_master_tree(Team(SMALL, 1), MasterTreeConfig(1, slice=5000, sequential_depth=2), BK02, depth=2)
    assert r.depth == 2
    from players.decomposition import master_clock
    team = Team(SMALL, 1)
    master = master_clock._Master(team, MasterTreeConfig(1, master_depth=2, sequential_depth=2), BK02, (), 3, (),
                                  master_clock.Messages(), 0.0)
    tree = master._build(3)
    board = chess.Board(BK02)
    for node in walk(tree):
        if node.parent is None:
            continue
        b = board.copy()
        for m in node.path():
            b.push_uci(m)
        assert node.depth == node.parent.depth - 1 + b.is_check()
        assert node.terminal == (node.ply < 2 and b.is_game_over())
