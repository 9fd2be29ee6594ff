"""``SharedSearcher``: what it shares is given when it is made; a shared bound reaches only the
node that follows it."""
import pytest

from players.core.search import INF
from players.core.tt import new_table
from players.decomposition.shared_searcher import SharedSearcher
from players.position import Position
from players.limits import Limit


def test_deferral_needs_a_table_with_busy_marks_and_a_shared_table_keeps_its_size():
    with pytest.raises(ValueError, match="busy marks"):
        SharedSearcher(hash_mb=1, defer=True)
    with pytest.raises(ValueError, match="busy marks"):
        SharedSearcher(hash_mb=1, table=new_table(1, busy_entries=1), defer=True)
    table = new_table(1)
    searcher = SharedSearcher(hash_mb=64, table=table, defer=True)
    assert searcher.tt is table and searcher.hash_mb == 1
    with pytest.raises(ValueError, match="shared"):
        searcher.resize_hash(8)
    own = SharedSearcher(hash_mb=1)
    own.resize_hash(2)
    assert own.hash_mb == 2


def test_two_searchers_over_one_table_see_each_others_entries():
    """The second search of a position over the first one's table finds its entries: fewer nodes
    than alone."""
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    table = new_table(4)
    first = SharedSearcher(table=table).search(fen, Limit(depth=6))
    again = SharedSearcher(table=table).search(fen, Limit(depth=6))
    alone = SharedSearcher(hash_mb=4).search(fen, Limit(depth=6))
    assert alone.nodes == first.nodes and again.nodes < first.nodes // 2


def test_a_shared_beta_is_ignored_unless_a_node_follows_it():
    """Lowered between jobs (the job it was meant for has finished), the shared beta must not cut
    the next job's node (``tests/players/test_shared_search.py``: one that follows it does)."""
    child = Position.from_fen(moves=("e2e4",))
    searcher = SharedSearcher(hash_mb=4)
    expected = SharedSearcher(hash_mb=4).search_node(child, 5, 1, -INF, INF)
    searcher.set_shared_beta(-INF + 1)  # no job running: ignored
    assert searcher.search_node(child, 5, 1, -INF, INF, share_bound=True) == expected
