"""The one Player interface: the instance player answering through it, its settings, and
what it says about its move (the other kinds: tests/ensemble/test_catalog.py)."""
import chess
import pytest

from players.limits import Limit
from players.player import InstancePlayer, Played, Player, PlayerOptionError
from players.result import MATE_CP, SearchResult
from players.decomposition.team import TeamSearcher
from players.searcher import Searcher


def test_a_search_under_a_soft_time_stops_between_iterations_long_before_the_hard_time():
    searcher = Searcher()
    result = searcher.search(chess.Board(), Limit(movetime=600_000, soft_movetime=1))
    assert 1 <= result.depth < 8 and result.mate is None
    only_move = chess.Board("k7/8/8/8/8/8/1q6/K7 w - - 0 1")  # Kxb2 is the only legal move
    result = searcher.search(only_move, Limit(movetime=600_000, soft_movetime=100_000))
    assert result.bestmove == "a1b2" and result.depth == 1


def test_instance_player_answers_with_its_search_and_reports_mates_as_mate_cp():
    player = InstancePlayer()
    assert isinstance(player, Player) and player.name == "full engine (MBXKPAR)"
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    seen = []
    played = player.play(board, Limit(depth=4), info=seen.append)
    assert played.move == "a1a8" and played.result is not None and played.result.mate == 1
    assert played.score == MATE_CP and played.depth == played.result.depth
    assert [it.depth for it in seen] == list(range(1, len(seen) + 1)) and played.error is None
    assert played.explain().splitlines()[-1] == "pv a1a8" and "score mate 1" in played.explain()
    only = player.play(chess.Board(), Limit(depth=2, searchmoves=("a2a3",)))
    assert only.move == "a2a3"


def test_instance_settings_apply_to_its_table_and_bad_ones_are_named():
    with InstancePlayer(name="mkp", hash_mb=4, team=TeamSearcher) as player:
        assert player.settings.hash_mb == 4 and player.settings.move_overhead_ms == 50
        player.configure(hash_mb=8, move_overhead_ms=20)
        assert player._searcher.hash_mb == pytest.approx(8, rel=0.01)  # resized at once
        assert player.settings.move_overhead_ms == 20
        with pytest.raises(PlayerOptionError, match="mkp: budget_mode is an ensemble's setting"):
            player.configure(budget_mode="equal_total")
        with pytest.raises(PlayerOptionError, match="mkp: threads must be an integer of at least 1"):
            player.configure(threads=0)
        player.configure(threads=2)  # ABDADA on two threads of this process
        played = player.play(chess.Board(), Limit(depth=4))
        assert chess.Move.from_uci(played.move) in chess.Board().legal_moves and played.depth == 4
        assert isinstance(player._searcher, TeamSearcher) and player._searcher.threads == 2


def test_threads_need_the_parallel_search_the_catalog_gives():
    """The players layer does not know the parallel searches above it: an instance built alone
    refuses threads, saying where to get them, and keeps its settings."""
    player = InstancePlayer(name="mkp")
    with pytest.raises(PlayerOptionError, match="mkp: threads 2 needs a parallel search .* ensemble.catalog"):
        player.configure(threads=2)
    assert player.settings.threads == 1
    with pytest.raises(PlayerOptionError, match="threads 3 needs a parallel search"):
        InstancePlayer(threads=3)


def test_played_of_counts_a_losing_mate_as_minus_mate_cp():
    losing = SearchResult(bestmove="g8h8", score_cp=-31_996, mate=-2, pv=("g8h8",), depth=5, root_moves_searched=2,
                          root_moves=2, seldepth=7, nodes=900, time=0.01)
    played = Played.of(losing, losing.bestmove, 0.01)
    assert played.score == -MATE_CP and played.depth == 5 and played.result is losing
    assert Played.of(None, "e2e4", 0.0).score is None


def test_an_instance_reports_its_best_lines_with_multipv_and_refuses_it_where_it_cannot():
    """MultiPV n: every iteration reports n lines, the i-th best root move first in line i."""
    player = InstancePlayer(name="mkp")
    assert player.settings.multipv == 1
    player.configure(multipv=3)
    seen = []
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")  # Ra8 mates
    played = player.play(board, Limit(depth=3), info=seen.append)
    for depth in {it.depth for it in seen}:
        lines = [it for it in seen if it.depth == depth]
        assert [it.multipv for it in lines] == [1, 2, 3] and len({it.move for it in lines}) == 3
        assert [it.score_cp for it in lines] == sorted((it.score_cp for it in lines), reverse=True)
        assert all(chess.Move.from_uci(it.move) in board.legal_moves for it in lines)
    assert seen[-3].move == "a1a8" == played.move and seen[-3].mate == 1
    with pytest.raises(PlayerOptionError, match="mkp: multipv must be an integer of at least 1"):
        player.configure(multipv=0)
    with pytest.raises(PlayerOptionError, match="mkp: multipv needs threads 1"):
        player.configure(threads=2)
    assert player.settings.threads == 1 and player.settings.multipv == 3
    player.configure(multipv=1)
    seen.clear()
    player.play(board, Limit(depth=2), info=seen.append)
    assert [it.multipv for it in seen] == [None, None]  # one line, reported as always
