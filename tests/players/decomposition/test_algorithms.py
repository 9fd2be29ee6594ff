"""Every parallel algorithm reproduces the sequential fixed-depth score on the 24
Bratko-Kopec positions; cut-offs stop the work still running; shared bounds and a shared
table keep the scores exact; ABDADA puts off what another worker searches."""
import time

import chess
import pytest

from players.decomposition.algorithms import Master, iterate
from players.decomposition.options import SearcherConfig
from base.runner import InlineRunner
from players.decomposition.runner import drop_prefix, new_table, open_runner, release_table
from players.limits import Limit

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)  # as in conftest


VARIANTS = [("root_split", False, {}), ("root_split", True, {}), ("root_split", True, {"speculative": True}),
            ("peer", True, {}), ("pv_split", True, {}), ("pv_split", True, {"null_window": False}),
            ("dynamic_split", True, {}), ("lazy_smp", True, {})]


def check(runner, bk, sequential, algorithm, sharing, tag, options):
    wrong = []
    for i, p in enumerate(bk):
        master = Master(runner, EXACT, f"{tag}-{algorithm}-{sharing}-{i}-{time.time_ns()}", sharing, **options)
        r = iterate(master, algorithm, p.fen, (), 4)
        if r.score != sequential[i][0]:
            wrong.append((i, r.score, sequential[i][0]))
    return wrong


@pytest.mark.parametrize("algorithm,sharing,options", VARIANTS)
def test_inline_algorithms_reproduce_the_sequential_score(bk, sequential, algorithm, sharing, options):
    assert check(InlineRunner(), bk, sequential, algorithm, sharing, "inline", options) == []


def test_parallel_algorithms_on_dask_reproduce_the_sequential_score(bk, sequential):
    # The inline test holds every variant to all 24 positions; on Dask, what can differ is the
    # transport (pickled jobs, answers, shared bounds and tables across processes): a quarter
    # of the positions exercises it for each variant in a quarter of the time.
    runner = open_runner(2)
    try:
        for algorithm, sharing, options in VARIANTS:
            assert check(runner, bk[:6], sequential[:6], algorithm, sharing, "dask", options) == [], (algorithm,
                                                                                                  options)
    finally:
        runner.close()



class TwoInlineWorkers(InlineRunner):
    """Two workers whose jobs run at once in this process; keeps every job's path."""

    workers = 2

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[tuple[str, ...]] = []

    def submit(self, fn, *args, key="", home=None):
        self.paths.append(home[1])
        return super().submit(fn, *args, key=key, home=home)


def test_dynamic_split_subcontracts_a_last_sibling_to_the_idle_workers():
    """DPVSplit's point against PV splitting: a sibling handed out when more workers are idle
    than siblings are left is split among them (its children become the jobs) instead of
    going whole to one worker while the other waits.  Same value either way."""
    from players.core.search import INF
    board = chess.Board()
    legal_replies = {m.uci() for m in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                     .legal_moves}
    answers = {}
    for dynamic in (False, True):
        runner = TwoInlineWorkers()
        master = Master(runner, EXACT, f"dynamic-{dynamic}-{time.time_ns()}", True, min_split_depth=2,
                        dynamic=dynamic)
        # d2d4, the eldest, is searched alone first; then e2e4 is the last sibling and both workers are idle
        value, move, _, _ = master.split(chess.STARTING_FEN, (), board, 3, 0, -INF, INF, ["d2d4", "e2e4"])
        answers[dynamic] = value, move
        assert runner.paths[0] == ("d2d4",)
        later = set(runner.paths[1:])
        if dynamic:
            # e2e4's replies are the jobs (until one refutes e2e4 against d2d4's score)
            assert {path[:1] for path in later} == {("e2e4",)} and {len(path) for path in later} == {2}
            assert len(later) > 1 and {path[1] for path in later} <= legal_replies
        else:
            assert later == {("e2e4",)}  # the whole subtree, one job (and its re-search after a fail high)
    assert answers[True] == answers[False]


def test_peer_workers_take_every_root_move_once_from_the_shared_agenda(bk, sequential):
    """Peer cooperation on Dask: the workers draw root moves from one shared counter with no
    master handing them out; each move is searched by exactly one worker."""
    from players.decomposition.trees import board_after, ordered_moves
    runner = open_runner(2)
    try:
        for i, p in enumerate(bk[:4]):
            master = Master(runner, EXACT, f"peer-{i}-{time.time_ns()}", True)
            order = ordered_moves(board_after(p.fen, ()))
            value, move, _, _ = master.peer(p.fen, (), 4, order)
            assert master.tally.jobs == len(order), p.fen  # the eldest, then each other move once
            assert value == sequential[i][0], p.fen
    finally:
        runner.close()

def test_a_cutoff_cancels_the_jobs_still_running():
    runner = open_runner(2)
    try:
        # The first root move of this position refutes everything at a null window above it:
        # searching the node with beta below the eldest's value cuts after one job.
        fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8 mates
        master = Master(runner, EXACT, f"cut-{time.time_ns()}", True)
        board = chess.Board(fen)
        children = ["a1a8"] + [m.uci() for m in board.legal_moves if m.uci() != "a1a8"]
        value, move, _, _ = master.split(fen, (), board, 6, 0, -30000, 0, children)
        assert move == "a1a8" and value > 30000 - 10
        assert master.tally.jobs == 1  # the eldest alone: the others were never needed
        # With the mate second, it is searched beside a younger brother; the mate's cut-off
        # stops that brother mid-search, and the others are never sent.
        master2 = Master(runner, EXACT, f"cut2-{time.time_ns()}", True)
        others = [m for m in children if m != "a1a8"]
        children2 = others[:1] + ["a1a8"] + others[1:]
        value2, move2, _, _ = master2.split(fen, (), board, 6, 0, -30000, 5000, children2)
        assert move2 == "a1a8" and value2 > 30000 - 10
        assert master2.tally.cancelled >= 1 and master2.tally.jobs < len(children2) - 1
    finally:
        runner.close()


def test_a_shared_beta_below_alpha_leaves_the_probe_a_true_bound(bk):
    """Score sharing may announce a bound below a null-window probe's alpha; the job must
    still answer with a bound of its true value (an empty window once returned values that
    bound nothing, and the table kept them)."""
    from players.core.context import C_STATS
    from players.core.shared_search import follow_shared_bound, new_shared_state, search_node_shared
    from players.position import Position
    for p in bk[:8]:
        board = chess.Board(p.fen)
        move = next(iter(board.legal_moves))
        exact = EXACT.make_searcher()
        value, _, _ = exact.search_node(Position.from_fen(p.fen, (move.uci(),)), 3, 1, -32001, 32001)
        probe = EXACT.make_searcher()
        for alpha, beta in ((value - 1, value), (value, value + 1)):
            probe.ctx[C_STATS][:] = 0
            state = new_shared_state()
            follow_shared_bound(state, 1, value - 200)  # below the window: as if the master had moved on
            result = search_node_shared(Position.from_fen(p.fen, (move.uci(),)).arrays, probe.tt, probe.ctx, state,
                                        3, 1, alpha, beta)
            if beta == value:
                assert result >= value, (p.fen, move.uci(), value, result)  # a fail high: value >= result
            else:
                assert result <= value, (p.fen, move.uci(), value, result)  # a fail low: value <= result


@pytest.mark.parametrize("algorithm,options,threads", [("root_split", {}, False),
                                                       ("root_split", {"speculative": True}, False),
                                                       ("lazy_smp", {}, False), ("abdada", {}, False),
                                                       ("abdada", {}, True), ("ybw", {}, True),
                                                       ("ybw", {"min_split_depth": 3}, True)])
def test_a_table_shared_by_the_workers_keeps_the_sequential_score(bk, sequential, algorithm, options, threads):
    """Workers writing one lockless table in shared memory (torn entries fail the key test),
    or search threads writing one in their process's memory; ABDADA's workers also defer
    each other's moves through it; YBW's threads split nodes (here from depth 1 or 3) in it."""
    from dataclasses import replace

    runner = open_runner(2, threads=threads)
    try:
        nodes = 0
        for i, p in enumerate(bk):
            table = new_table(runner, f"concilio-test-{time.time_ns()}", 4)
            search = replace(EXACT, table=table, defer=algorithm == "abdada")
            master = Master(runner, search, f"shared-{i}-{time.time_ns()}", True, **options)
            r = iterate(master, algorithm, p.fen, (), 4, 0)
            drop_prefix(runner, master.key)
            release_table(runner, table)
            assert r.score == sequential[i][0], (i, algorithm, options)
            assert r.depth == 4
            nodes += r.tally.nodes
        assert nodes > 0  # every worker's nodes are counted, the stopped ones' too
    finally:
        runner.close()


def test_a_move_another_search_is_busy_with_is_deferred_and_the_score_kept(bk):
    """ABDADA's deferral in the search core: mark a root move's position busy (as if another
    worker searched it), one other than the best, so that it is not the first one searched; the
    search puts it off, still searches it (its mark is cleared afterwards) and returns the same
    fixed-depth score."""
    from players.core.moves import ST_PLY
    from players.core.tt import busy_with, mark_busy, new_table
    from players.decomposition.shared_searcher import SharedSearcher
    from players.position import Position
    changed = 0
    for p in bk[:12]:
        plain = EXACT.make_searcher()
        expected = plain.search(p.fen, Limit(depth=4))
        # A table with busy marks that no other search shares: only the mark made here is set.
        deferring = SharedSearcher(table=new_table(16), defer=True, null_move=False, lmr=False, futility=False,
                                   exact=True)
        others = [m.uci() for m in chess.Board(p.fen).legal_moves if m.uci() != expected.bestmove]
        if len(others) < 2:
            continue
        child = Position.from_fen(p.fen, (others[0],)).arrays
        key = child[4][child[2][ST_PLY]]
        mark_busy(deferring.tt[1], key)
        result = deferring.search(p.fen, Limit(depth=4))
        assert result.score_cp == expected.score_cp, p.fen
        assert not busy_with(deferring.tt[1], key)
        changed += result.nodes != expected.nodes
    assert changed > 0  # the order changed, so did the tree


class Scripted:
    """A splitting policy's context (``split_policies.Context``) whose jobs the test answers;
    ``peers``: whether it can run a peer round."""

    k = 2
    max_depth = 4
    lookahead = 2
    shallow = "per_iteration"
    share_subcontracted = False

    def __init__(self, peers: bool) -> None:
        self.peers = peers
        self.jobs: list[tuple] = []

    def submit(self, path, depth, alpha, beta, first=1, guess=0):
        self.jobs.append((path, depth, alpha, beta))
        return len(self.jobs) - 1

    def share(self, running, alpha):
        pass

    def abort(self, running):
        pass

    def idle(self, running):
        return self.k - running

    def record(self, depth, score, pv):
        return False


def test_peer_searches_the_eldest_then_hands_the_other_moves_to_a_peer_round():
    """Peer cooperation as the splitting policy yields it: the eldest root move alone with the
    full window, then one ``Peers`` round with every other move and the eldest's value; the
    round's answers (in the workers' order) fold into the best, the better ones into
    ``improved``.  Without a round (in process) the others are split with the eldest known."""
    from players.core.search import INF
    from players.decomposition.node_clock import Wait
    from players.decomposition.options import SplitClockConfig
    from players.decomposition.split_policies import Peers, Splitting
    from players.decomposition.trees import BoardTree
    from players.decomposition.result import JobResult
    children = [("e2e4", 2), ("d2d4", 2), ("g1f3", 2), ("c2c4", 2)]
    ctx = Scripted(peers=True)
    round_ = Splitting(ctx, SplitClockConfig("peer"), BoardTree(chess.STARTING_FEN, ())).peer(3, children)
    assert isinstance(next(round_), Wait) and ctx.jobs == [(("e2e4",), 2, -INF, INF)]
    request = round_.send(JobResult(0, "here", -10, ("e7e5",), 100))  # the eldest: 10 for the root
    assert request == Peers((("d2d4", 2), ("g1f3", 2), ("c2c4", 2)), 10, "e2e4") and len(ctx.jobs) == 1
    with pytest.raises(StopIteration) as done:
        round_.send([("d2d4", 5, ("d2d4",)), ("c2c4", 30, ("c2c4", "e7e5")), ("g1f3", 20, ("g1f3",))])
    assert done.value.value == (30, "c2c4", ("c2c4", "e7e5"), ["c2c4"])

    ctx = Scripted(peers=False)
    split = Splitting(ctx, SplitClockConfig("peer"), BoardTree(chess.STARTING_FEN, ())).peer(3, children)
    next(split)
    request = split.send(JobResult(0, "here", -10, ("e7e5",), 100))
    assert isinstance(request, Wait) and request.jobs == {1, 2}  # two younger brothers, probed at once
    assert ctx.jobs[1:] == [(("d2d4",), 2, -11, -10), (("g1f3",), 2, -11, -10)]
