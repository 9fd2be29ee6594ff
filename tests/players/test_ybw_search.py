"""Young Brothers Wait on search threads (``players.threads.ybw_search``, ``players.decomposition.ybw``):
with one thread it is the sequential search node for node; with more, in the exact mode, it
answers the sequential score; and the split points do happen."""
import chess
import pytest

from players.bench import BENCH_FENS
from players.decomposition.ybw import YbwSearcher, stockfish_split_depth
from players.limits import Limit
from players.searcher import Searcher

EXACT = {"null_move": False, "lmr": False, "futility": False, "exact": True}


def _summary(result):
    return result.bestmove, result.score_cp, result.nodes, result.pv, [(i.depth, i.nodes) for i in result.iterations]


def _ybw(threads: int, min_split_depth: int | None = 2, **options) -> YbwSearcher:
    return YbwSearcher(hash_mb=4, threads=threads, min_split_depth=min_split_depth, **options)


@pytest.mark.parametrize("options", [{}, EXACT])
def test_one_thread_is_the_sequential_search_node_for_node(options):
    for fen in BENCH_FENS[:12]:
        limits = Limit(depth=6)
        expected = Searcher(hash_mb=4, **options).search(fen, limits)
        searcher = _ybw(1, **options)
        assert _summary(searcher.search(fen, limits)) == _summary(expected), fen
        assert searcher.counts().splits == 0


@pytest.mark.parametrize("threads", [2, 4])
@pytest.mark.parametrize("min_split_depth", [2, 4])
def test_the_exact_mode_answers_the_sequential_score(threads, min_split_depth):
    """At fixed depth the parallel search returns the minimax value whatever the order the
    threads finish in (the best move may differ between equal scores)."""
    for fen in BENCH_FENS[:10]:
        expected = Searcher(hash_mb=4, **EXACT).search(fen, Limit(depth=5))
        searcher = _ybw(threads, min_split_depth, **EXACT)
        try:
            result = searcher.search(fen, Limit(depth=5))
        finally:
            searcher.close()
        assert result.score_cp == expected.score_cp, fen
        assert result.depth == 5
        assert chess.Move.from_uci(result.bestmove) in chess.Board(fen).legal_moves


def test_more_threads_than_cores_neither_deadlock_nor_change_the_value():
    for fen in BENCH_FENS[:4]:
        expected = Searcher(hash_mb=4, **EXACT).search(fen, Limit(depth=5))
        searcher = _ybw(8, **EXACT)
        try:
            assert searcher.search(fen, Limit(depth=5)).score_cp == expected.score_cp, fen
        finally:
            searcher.close()


def test_split_points_happen_and_threads_join_them():
    searcher = _ybw(2, 4, **EXACT)
    try:
        result = searcher.search(BENCH_FENS[1], Limit(depth=6))
        counts = searcher.counts()
    finally:
        searcher.close()
    assert result.depth == 6
    assert counts.splits > 0 and counts.joins + counts.late_joins > 0
    assert counts.messages == counts.splits + counts.joins + counts.late_joins
    assert 0.0 < counts.production <= 1.0


def test_a_node_limit_stops_every_thread_and_the_last_iteration_answers():
    searcher = _ybw(2)
    try:
        result = searcher.search(None, Limit(nodes=20_000))
        again = searcher.search(None, Limit(depth=4))  # a stopped search leaves the team ready
    finally:
        searcher.close()
    assert result.depth >= 1 and result.nodes < 40_000
    assert chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves
    assert again.depth == 4


def test_stockfish_split_depth():
    assert [stockfish_split_depth(k) for k in (1, 2, 7, 8, 16)] == [4, 4, 4, 7, 7]


def test_a_deadline_stops_the_team_on_time():
    """The deadline reaches the master's record only; the master, searching or waiting for its
    slaves, passes it on to the team."""
    import time
    searcher = _ybw(2, 4)
    try:
        started = time.perf_counter()
        result = searcher.search(None, Limit(movetime=300))
        elapsed = time.perf_counter() - started
    finally:
        searcher.close()
    assert elapsed < 0.8 and result.depth >= 1
    assert chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves


def test_a_closed_team_searches_again_with_new_helpers():
    searcher = _ybw(2, **EXACT)
    expected = Searcher(hash_mb=4, **EXACT).search(BENCH_FENS[2], Limit(depth=4)).score_cp
    try:
        for _ in range(2):
            assert searcher.search(BENCH_FENS[2], Limit(depth=4)).score_cp == expected
            searcher.close()
    finally:
        searcher.close()


def test_waiting_masters_help_their_slaves():
    """With more threads than one split point takes, masters out of moves work at their slaves'
    split points (the helpful master), and the value stays the sequential one."""
    helps = 0
    for fen in BENCH_FENS[:6]:
        expected = Searcher(hash_mb=4, **EXACT).search(fen, Limit(depth=6))
        searcher = _ybw(6, 2, **EXACT)
        try:
            assert searcher.search(fen, Limit(depth=6)).score_cp == expected.score_cp, fen
            helps += searcher.counts().helps
        finally:
            searcher.close()
    assert helps > 0
