"""The root policies on the node clock (``players.decomposition.uidpabs``, ``.mixed``): the
sequential answer in exact mode at 1 to 16 workers, the deal of the root moves, UIDPABS's
windows and choice, the list scheduling of Devesa's jobs and its clock, the budget, the YAML,
the player and UCI."""
from dataclasses import replace
from pathlib import Path

import chess
import chess.engine
import pytest

from base.config import ConfigError
from players.core.search import INF
from players.decomposition import mixed, uidpabs
from players.decomposition.config import load_decomposition
from players.decomposition.master_worker import RootSearch, Team
from players.decomposition.options import RootPolicyConfig
from players.limits import Limit

from .conftest import EXACT
from tests.uci_checks import answers_two_go_nodes

SMALL = replace(EXACT, hash_mb=1)
BK02 = "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1"
def run_root_policy(team: Team, policy: RootPolicyConfig, fen: str, **search):
    """One move of the root policy ``policy`` names (its module's entry point)."""
    return (uidpabs.run_uidpabs if policy.algorithm == "uidpabs" else mixed.run_mixed)(team, policy, fen, **search)


POLICIES = [RootPolicyConfig("uidpabs", margin=25), RootPolicyConfig("mixed", order_depth=2, margin=25),
            RootPolicyConfig("mixed", order_depth=0)]


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16])
def test_the_exact_mode_answers_the_sequential_search(bk, sequential, k):
    """Depth 4 on six Bratko-Kopec positions and depth 5 on two: the sequential score for
    UIDPABS, mixed and exhaustive, and its move or one worth as much."""
    cases = [(i, 4, *sequential[i]) for i in range(6)]
    for i in (4, 5):
        seq = SMALL.make_searcher().search(bk[i].fen, Limit(depth=5))
        cases.append((i, 5, seq.score_cp, seq.bestmove))
    for i, depth, score, move in cases:
        for policy in POLICIES:
            r = run_root_policy(Team(SMALL, k), replace(policy, workers=k), bk[i].fen, depth=depth)
            assert (r.score, r.depth) == (score, depth), (i, depth, policy, k)
            if r.move != move:  # a tie: the sequential search's value of the other move is the same
                seq = SMALL.make_searcher().search(bk[i].fen, Limit(depth=depth), searchmoves=[r.move])
                assert seq.score_cp == score, (i, depth, policy, k)
            assert r.pv[0] == r.move


def test_the_root_moves_are_dealt_round_robin_each_to_one_worker():
    assert uidpabs.deal(list("abcdefg"), 3) == [("a", "d", "g"), ("b", "e"), ("c", "f")]
    assert uidpabs.deal(list("ab"), 4) == [("a",), ("b",), (), ()]
    team = Team(SMALL, 4)
    r = run_root_policy(team, RootPolicyConfig("uidpabs", 4), BK02, depth=4)
    shares = [set(w.order()) for w in team.workers]
    legal = {m.uci() for m in chess.Board(BK02).legal_moves}
    assert set().union(*shares) == legal and sum(map(len, shares)) == len(legal)  # each move once
    assert r.depths == (4, 4, 4, 4)


def test_uidpabs_time_is_the_shared_iterations_plus_the_slowest_worker():
    """Hand-computed: the same workers, run by hand, give T_k = depths 1-2 (once) + the
    slowest worker's own iterations; every worker searched depths 1-2 itself."""
    k = 3
    r = run_root_policy(Team(SMALL, k), RootPolicyConfig("uidpabs", k), BK02, depth=5)
    team = Team(SMALL, k)
    shared, own = [], []
    for w in team.workers:
        w.begin(BK02, ())
        shared.append(w.iterate(1, 0).nodes)
        last = w.iterate(2, 0)
        shared[-1] += last.nodes
        if w.index == 0:
            v, shares = last.score, uidpabs.deal(w.order(), k)
    for w, worker in enumerate(team.workers):
        worker.restrict(shares[w])
        own.append(sum(uidpabs.iterate_once(worker, d, v, 25, 0).nodes for d in (3, 4, 5)))
    assert shared == [shared[0]] * k  # the same search on every worker
    assert r.worker_nodes == tuple(s + o for s, o in zip(shared, own))
    assert r.time == shared[0] + max(own) == max(r.worker_nodes)
    assert r.nodes == sum(r.worker_nodes) and r.messages == 2 * k


class Scripted:
    """A worker whose root has the value ``value``: fail-soft answers at the window's edge."""

    def __init__(self, value: int, nodes: int = 10) -> None:
        self.value, self.nodes, self.windows = value, nodes, []

    def search(self, depth, alpha, beta, limit=0, stopped=None) -> RootSearch:
        self.windows.append((alpha, beta))
        score = min(max(self.value, alpha), beta)
        return RootSearch(score, "a1a2", ("a1a2",), self.nodes, False, alpha, beta)


def test_uidpabs_shifts_a_failed_window_then_opens_it():
    up = Scripted(100)
    it = uidpabs.iterate_once(up, 5, 0, 25, 0)
    assert up.windows == [(-25, 25), (24, 74), (73, INF)] and it.search.score == 100 and it.researches == 2
    down = Scripted(-40)
    it = uidpabs.iterate_once(down, 5, 0, 25, 0)
    assert down.windows == [(-25, 25), (-74, -24)] and it.search.score == -40 and it.researches == 1
    inside = Scripted(3)
    assert uidpabs.iterate_once(inside, 5, 0, 25, 0).researches == 0 and inside.windows == [(-25, 25)]


def test_uidpabs_chooses_the_best_score_whatever_the_depth():
    a = uidpabs.WorkerAnswer
    assert uidpabs.choose([a(0, 7, 30, "a", ()), a(1, 6, 45, "b", ()), a(2, 8, 10, "c", ())]).move == "b"
    assert uidpabs.choose([a(0, 6, 45, "a", ()), a(1, 7, 45, "b", ()), a(2, 7, 45, "c", ())]).move == "b"
    assert uidpabs.choose([a(0, 0, 99, "a", ()), a(1, 3, 5, "b", ())]).move == "b"  # no iteration: no vote


class Fixed:
    """A worker whose jobs cost the given nodes, in the order it gets them."""

    def __init__(self, costs: dict[str, int]) -> None:
        self.costs, self.move = costs, ""

    def restrict(self, moves) -> None:
        self.move = moves[0]

    def search(self, depth, alpha, beta, limit=0, stopped=None) -> RootSearch:
        n = self.costs[self.move]
        if limit and n > limit:
            return RootSearch(0, "", (), limit, True, alpha, beta)
        return RootSearch(0, self.move, (self.move,), n, False, alpha, beta)


def test_mixed_hands_every_job_to_the_worker_idle_first():
    """List scheduling by hand: costs 5, 3, 4, 2, 1 on two workers from clock 10 (the ordering
    search): a→w0 [10, 15), b→w1 [10, 13), c→w1 [13, 17), d→w0 [15, 17), e→w0 (a tie at 17)."""
    costs = dict(zip("abcde", (5, 3, 4, 2, 1)))
    team = type("Team", (), {"workers": [Fixed(costs), Fixed(costs)]})()
    free = [10, 10]
    ran, complete = mixed.list_schedule(team, [mixed.Job(m, -INF, INF) for m in "abcde"], 6, free)
    assert complete and [(s.job.move, s.worker, s.start, s.end) for s in ran] == \
           [("a", 0, 10, 15), ("b", 1, 10, 13), ("c", 1, 13, 17), ("d", 0, 15, 17), ("e", 0, 17, 18)]
    assert free == [18, 17]
    free = [10, 10]  # a budget (the clock's end at 16) stops job c, and nothing after it runs
    ran, complete = mixed.list_schedule(team, [mixed.Job(m, -INF, INF) for m in "abcde"], 6, free, budget=16)
    assert not complete and [s.job.move for s in ran] == ["a", "b", "c"] and ran[-1].result.stopped


def test_mixed_searches_every_root_move_once_and_charges_the_ordering_search():
    for order_depth in (0, 3):
        k = 4
        r = run_root_policy(Team(SMALL, k), RootPolicyConfig("mixed", k, 25, order_depth), BK02, depth=5)
        legal = sorted(m.uci() for m in chess.Board(BK02).legal_moves)
        first = [m for m, *_ in r.schedule[:len(legal)]]
        assert sorted(first) == legal  # one job per root move (then re-searches, if any)
        assert len(r.schedule) == len(legal) + r.researches
        ordering = r.worker_nodes[0] - sum(t1 - t0 for m, w, t0, t1 in r.schedule if w == 0)
        assert (ordering > 0) == (order_depth > 0)
        assert min(t0 for _, _, t0, _ in r.schedule) == ordering  # the jobs wait for the ordering search
        assert r.time == max(t1 for *_, t1 in r.schedule)
        assert r.messages == 2 * len(r.schedule)
        if order_depth == 0:
            assert r.researches == 0 and first == [m for m in Team(SMALL, 1).workers[0].begin(BK02, ())]


def test_a_failed_root_window_is_searched_again():
    def done(move, score, alpha, beta):
        return mixed.Scheduled(mixed.Job(move, alpha, beta), 0, 0, RootSearch(score, move, (move,), 1, False,
                                                                              alpha, beta))
    assert mixed.research_jobs([done("a", 10, 0, 50), done("b", 60, 0, 50)]) == [mixed.Job("b", 59, INF)]
    assert mixed.research_jobs([done("a", -5, 0, 50), done("b", -20, 0, 50)]) == \
           [mixed.Job("a", -INF, -4), mixed.Job("b", -INF, -4)]
    assert mixed.research_jobs([done("a", 10, 0, 50), done("b", 0, 0, 50)]) == []


@pytest.mark.parametrize("policy", POLICIES[:2], ids=["uidpabs", "mixed"])
def test_a_node_budget_is_per_worker_on_the_clock(policy):
    r = run_root_policy(Team(SMALL, 4), replace(policy, workers=4), BK02, nodes=6000)
    assert r.time <= 6000 and all(n <= 6000 for n in r.worker_nodes) and r.depth >= 3
    with pytest.raises(ValueError, match="node budget per worker or a depth"):
        run_root_policy(Team(SMALL, 1), policy, BK02)


def test_searchmoves_restrict_the_root():
    for policy in POLICIES[:2]:
        r = run_root_policy(Team(SMALL, 2), replace(policy, workers=2), BK02, depth=4,
                            searchmoves=("c3c2", "b3d2"))
        seq = SMALL.make_searcher().search(BK02, Limit(depth=4), searchmoves=["c3c2", "b3d2"])
        assert r.move in ("c3c2", "b3d2") and r.score == seq.score_cp
        with pytest.raises(ValueError, match="searchmoves"):
            run_root_policy(Team(SMALL, 2), policy, BK02, depth=3, searchmoves=("e1e8",))


def test_root_policy_files_are_checked(tmp_path):
    assert load_decomposition("uidpabs").options == RootPolicyConfig("uidpabs", 4, 25, 4)
    assert load_decomposition("mixed").options == RootPolicyConfig("mixed", 4, 25, 4)
    exhaustive = load_decomposition("mixed-exhaustive")
    assert exhaustive.options.order_depth == 0 and exhaustive.in_process
    assert exhaustive.with_workers(16).options.workers == 16
    assert load_decomposition("pv-split").options is None
    for text, field in (("algorithm: uidpabs\norder_depth: 3", "order_depth: only mixed"),
                        ("algorithm: mixed\norder_depth: -1", "order_depth: -1 is out of range"),
                        ("algorithm: mixed\nshared_table: true", "shared_table: mixed workers share no memory"),
                        ("algorithm: uidpabs\ncluster: {scheduler: 'tcp://10.0.0.1:8786'}", "cluster: uidpabs runs")):
        bad = tmp_path / "policy.yaml"
        bad.write_text(text + "\n")
        with pytest.raises(ConfigError) as info:
            load_decomposition(bad)
        assert any(field in p for p in info.value.problems), info.value.problems


def test_the_decomposition_player_plays_the_root_policies():
    from players.decomposition.player import DecompositionPlayer
    board = chess.Board(BK02)
    for name in ("uidpabs", "mixed"):
        config = load_decomposition(name)
        config = replace(config.with_workers(2), search=replace(config.search, hash_mb=2))
        with DecompositionPlayer(config) as player:
            player.new_game()
            played = player.play(board, Limit(nodes=6000))
            player.new_game()
            again = run_root_policy(Team(config.search, 2), config.options, BK02, nodes=6000)
            assert played.move == again.move and played.nodes == again.nodes
            assert any(line.startswith(f"{config.options.algorithm}:") for line in played.report)
            only = player.search(board, Limit(depth=4), searchmoves=("c1c2",))
            assert only.bestmove == "c1c2" and only.depth == 4


@pytest.mark.parametrize("name", ["uidpabs", "mixed"])
def test_uci_root_policies_answer_go_nodes(name):
    answers_two_go_nodes(name, name, 20000)


def test_speedup_rows_of_the_root_policies():
    """Node-clock rows only, every answer the sequential one, the shipped file readable."""
    from tournaments.speedup.nodes import NodeRow
    from tournaments.speedup.run import load_speedup, run_speedup
    root = Path(__file__).resolve().parents[3]
    settings, variants = load_speedup(root / "configs" / "decomposition" / "speedup-cluster.yaml")
    variants = [v for v in variants if isinstance(v.options, RootPolicyConfig)]
    assert [v.name for v in variants] == ["uidpabs", "mixed", "mixed-exhaustive"]
    assert settings["clock_workers"] == [1, 2, 4, 8, 16] and settings["depth"] == 6
    settings = {**settings, "depth": 3, "clock_workers": [1, 4], "limit": 2}
    rows = run_speedup(settings, variants, out=lambda line: None)
    assert [(r.algorithm, r.workers) for r in rows] == [(n, k) for n in ("uidpabs", "mixed", "mixed-exhaustive")
                                                       for k in (1, 4)]
    for r in rows:
        assert isinstance(r, NodeRow) and r.agree == r.positions == 2 and r.messages > 0
        assert 0 < r.production <= 1
