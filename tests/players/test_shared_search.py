"""The shared search (``players.core.shared_search``) is the sequential search with hooks for
searches that share a table or a bound: with nothing shared it must visit the same tree as
``players.core.search``, node for node, so that a change made to one and not the other fails
here."""
import pytest

from players.bench import BENCH_FENS
from players.core.search import INF
from players.core.context import C_STATS, S_NODES
from players.core.shared_search import follow_shared_bound, new_shared_state, search_node_shared, search_root_shared
from players.decomposition.shared_searcher import SharedSearcher
from players.position import Position
from players.limits import Limit
from players.searcher import Searcher


class _SharedRoot(Searcher):
    """Iterative deepening over ``search_root_shared`` with nothing shared: no deferral, and no
    node following a shared beta."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.state = new_shared_state(defer=False)

    def _search_root(self, arrays, root_moves, n_root, depth, alpha, beta):
        return search_root_shared(arrays, self.tt, self.ctx, self.state, root_moves, n_root, depth, alpha, beta)


def _summary(result):
    return result.bestmove, result.score_cp, result.nodes, result.pv, [(i.depth, i.nodes) for i in result.iterations]


@pytest.mark.parametrize("options", [{}, {"null_move": False, "lmr": False, "futility": False, "exact": True}])
def test_with_nothing_shared_the_root_search_visits_the_sequential_tree(options):
    for fen in BENCH_FENS:
        limits = Limit(depth=6)
        expected = Searcher(hash_mb=4, **options).search(fen, limits)
        assert _summary(_SharedRoot(hash_mb=4, **options).search(fen, limits)) == _summary(expected), fen


def test_a_node_following_a_shared_beta_nobody_lowers_is_the_sequential_node():
    for fen in BENCH_FENS[1:12]:
        position = Position.from_fen(fen)
        move = position.to_board().legal_moves
        child = Position.from_fen(fen, (next(iter(move)).uci(),))
        plain = SharedSearcher(hash_mb=4).search_node(child, 6, 1, -INF, INF)
        following = SharedSearcher(hash_mb=4).search_node(child, 6, 1, -INF, INF, share_bound=True)
        assert following == plain, fen
        assert plain[1] > 500


def test_a_node_following_a_shared_beta_cuts_off_at_it():
    """A shared beta below the node's value (another job found a better sibling): the node stops
    as soon as a move reaches it, answering a lower bound at or above it, in fewer nodes."""
    child = Position.from_fen(moves=("e2e4",))
    value, nodes, _ = SharedSearcher(hash_mb=4).search_node(child, 6, 1, -INF, INF)
    searcher = SharedSearcher(hash_mb=4)
    state = new_shared_state()
    follow_shared_bound(state, 1, value - 50)
    bound = search_node_shared(child.arrays, searcher.tt, searcher.ctx, state, 6, 1, -INF, INF)
    assert value - 50 <= bound <= value
    assert searcher.ctx[C_STATS][S_NODES] < nodes
