"""The suite's search store: a search read back as it was written (but for what it does
not keep), one row per position, instance and budget, and the root positions' terms and
posterior scores cached beside them."""
from players.result import IterationInfo, SearchResult
from players.trace import PositionTerms
from tournaments.suite.store import SearchStore, StoredSearch

FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def search(move="e7e5", nodes=900, second=None):
    iterations = tuple(IterationInfo(d, d, 10 * d, None, 100 * d, 0.01 * d, (m, "g1f3"))
                       for d, m in enumerate(("c7c5", "e7e5", move), 1))
    return SearchResult(move, 15, None, (move, "g1f3"), 3, 18, 20, 7, nodes, 0.03, iterations, FEN, second)


def test_a_search_is_read_back_with_what_the_criteria_need(tmp_path):
    leaf = PositionTerms((0, -12, 3, 0, 5, 0, 0))
    with SearchStore(tmp_path / "s.sqlite") as store:
        assert store.add_searches([StoredSearch(FEN, "MB", "nodes=900", search(second=-40), leaf)]) == 1
    with SearchStore(tmp_path / "s.sqlite") as store:  # a new connection: what was committed
        back = store.searches("MB", "nodes=900")[FEN]
    r = back.result
    assert (r.bestmove, r.score_cp, r.mate, r.pv, r.depth, r.root_moves_searched, r.root_moves, r.seldepth,
            r.nodes, r.time, r.second_score, r.margin) == ("e7e5", 15, None, ("e7e5", "g1f3"), 3, 18, 20, 7, 900,
                                                           0.03, -40, 55)
    assert [it.move for it in r.iterations] == ["c7c5", "e7e5", "e7e5"]  # each iteration's move, no more
    assert r.stability == search().stability and back.leaf == leaf and back.fen == FEN


def test_one_row_per_position_instance_and_budget_the_first_kept(tmp_path):
    with SearchStore(tmp_path / "s.sqlite") as store:
        first = StoredSearch(FEN, "MB", "nodes=900", search("e7e5"), PositionTerms((0,) * 7))
        again = StoredSearch(FEN, "MB", "nodes=900", search("d7d5"), PositionTerms((0,) * 7))
        other_budget = StoredSearch(FEN, "MB", "nodes=2000", search("d7d5", nodes=2000), PositionTerms((0,) * 7))
        assert store.add_searches([first, again, other_budget]) == 2
        assert store.searches("MB", "nodes=900")[FEN].result.bestmove == "e7e5"
        assert store.done("MB", "nodes=900") == {FEN} and store.done("MX", "nodes=900") == set()
        assert store.count() == 2


def test_root_terms_and_posterior_scores_are_cached(tmp_path):
    with SearchStore(tmp_path / "s.sqlite") as store:
        store.add_position(FEN, PositionTerms((1, 2, 3, 4, 5, 6, 7)))
        store.add_position("8/8/8/8/8/8/8/k1K5 w - - 0 1", PositionTerms((0,) * 7, 0))
        store.add_posterior(FEN, 6, {"e7e5": 12, "c7c5": 20})
        store.add_posterior(FEN, 6, {"e7e5": 99})  # already there: kept as it was
        assert store.position_terms()[FEN] == PositionTerms((1, 2, 3, 4, 5, 6, 7))
        assert store.position_terms()["8/8/8/8/8/8/8/k1K5 w - - 0 1"].result == 0
        assert store.posterior(FEN, 6) == {"e7e5": 12, "c7c5": 20} and store.posterior(FEN, 8) == {}
