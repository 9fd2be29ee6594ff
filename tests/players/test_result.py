"""What a search returns: the UCI info line of an iteration, a result's margin and
stability, and the closing line an ensemble prints for all its instances."""
import pickle

from players.result import IterationInfo, SearchResult


def iteration(depth, move, score=20, mate=None, nodes=1000, time=0.5):
    return IterationInfo(depth, depth + 2, score, mate, nodes, time, (move, "e7e5"))


def result(move="e2e4", iterations=(), second=None, mate=None, score=20):
    return SearchResult(move, score, mate, (move, "e7e5"), 7, 20, 20, 11, 30_000, 1.5, tuple(iterations),
                        second_score=second)


def test_an_iteration_reads_as_the_uci_info_line():
    assert iteration(6, "e2e4", nodes=123_456, time=0.25).uci() == \
        "info depth 6 seldepth 8 score cp 20 nodes 123456 nps 493824 time 250 pv e2e4 e7e5"
    mate = IterationInfo(9, None, 31_995, 3, 10, 0.0, ("d8h4",))
    assert mate.uci() == "info depth 9 score mate 3 nodes 10 nps 0 time 0 pv d8h4"  # no seldepth, no time: nps 0
    assert IterationInfo(1, 1, 0, None, 0, 0.0, ()).move == "0000"


def test_margin_is_what_the_best_move_beat_the_rest_by():
    assert result(score=120, second=45).margin == 75
    assert result(score=120).margin is None  # not probed


def test_stability_is_the_share_of_the_last_four_iterations_on_the_final_move():
    moves = ["d2d4", "d2d4", "e2e4", "d2d4", "e2e4", "e2e4"]
    assert result("e2e4", [iteration(d + 1, m) for d, m in enumerate(moves)]).stability == 0.75
    assert result("e2e4").stability == 0.0


def test_the_summary_counts_what_the_caller_says_it_spent():
    r = result(mate=2, score=31_997)
    own = r.summary()
    assert (own.depth, own.seldepth, own.nodes, own.time, own.pv) == (7, 11, 30_000, 1.5, ("e2e4", "e7e5"))
    assert own.score_text() == "mate 2" == r.score_text()
    team = r.summary(nodes=90_000, seconds=1.5)
    assert team.nps == 60_000 and team.uci().startswith("info depth 7 seldepth 11 score mate 2 nodes 90000")


def test_a_result_crosses_a_process_boundary_unchanged():
    r = result("e2e4", [iteration(1, "e2e4")], second=0)
    assert pickle.loads(pickle.dumps(r)) == r
