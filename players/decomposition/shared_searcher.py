"""``SharedSearcher``: a searcher that works on one tree together with other searches at the
same time, a parallel job's worker.  What it shares is given when it is made, not swapped in:

* ``table``: the transposition table the searches have in common (``.tables``), or None for a
  table of its own;
* ``defer``: ABDADA's deferral over that table (``players.core.shared_search``);
* per node searched (``search_node(..., share_bound=True)``): a beta that another thread lowers
  while the job runs (``set_shared_beta``, score sharing).

Searches with none of the hooks on run the sequential search itself (``players.core.search``);
the others run ``players.core.shared_search``, which is kept out of the engine's own process
until a parallel search asks for it.
"""
from __future__ import annotations

import numpy as np

from evaluation.spec import FULL_ENGINE, EvalSpec
from players.core.context import C_PV, C_PV_LEN, C_STATS, C_STOP, S_NODES
from players.core.moves import move_to_uci
from players.core.search import search_node
from players.core.shared_search import (follow_shared_bound, lower_shared_bound, new_shared_state,
                                        search_node_shared, search_root_shared, stop_following)
from players.position import Position
from players.searcher import Searcher


class SharedSearcher(Searcher):
    """One engine instance of a parallel search (the module's docstring)."""

    def __init__(self, spec: EvalSpec = FULL_ENGINE, hash_mb: float = 16, *, table: tuple | None = None,
                 defer: bool = False, **options) -> None:
        """``hash_mb``: the size of a table of its own (none is needed with ``table``); ``options``
        are :class:`players.searcher.Searcher`'s (``null_move``, ``exact``, ...)."""
        if defer and (table is None or table[1].size < 2):
            raise ValueError("ABDADA's deferral needs a table with busy marks (players.core.tt.new_table)")
        super().__init__(spec, hash_mb if table is None else 1, **options)
        self.shares_table = table is not None
        if table is not None:
            self.tt = table  # (the smallest table, made above, is dropped unused)
        self.defer = defer
        self.state = new_shared_state(defer)

    def resize_hash(self, hash_mb: float) -> None:
        if self.shares_table:
            raise ValueError("a table shared with other searches is not this searcher's to resize")
        super().resize_hash(hash_mb)

    def _search_root(self, arrays: tuple, root_moves: np.ndarray, n_root: int, depth: int, alpha: int,
                     beta: int) -> tuple[int, int]:
        if not self.defer:
            return super()._search_root(arrays, root_moves, n_root, depth, alpha, beta)
        return search_root_shared(arrays, self.tt, self.ctx, self.state, root_moves, n_root, depth, alpha, beta)

    def search_node(self, position: Position, depth: int, ply: int, alpha: int, beta: int,
                    share_bound: bool = False) -> tuple[int, int, tuple[str, ...]]:
        """One alpha-beta search of ``position`` as a node ``ply`` plies below the root (a
        parallel job): (fail-soft score, nodes, PV from here).  With ``share_bound`` the node's
        beta follows ``set_shared_beta`` while the search runs."""
        ctx = self.ctx
        stats = ctx[C_STATS]
        stats[:] = 0
        ctx[C_STOP][0] = 0
        if share_bound or self.defer:
            if share_bound:
                follow_shared_bound(self.state, ply, beta)
            try:
                score = search_node_shared(position.arrays, self.tt, ctx, self.state, depth, ply, alpha, beta)
            finally:
                stop_following(self.state)
        else:
            score = search_node(position.arrays, self.tt, ctx, depth, ply, alpha, beta)
        pv = ctx[C_PV]
        n = int(ctx[C_PV_LEN][ply])
        moves = tuple(move_to_uci(int(pv[ply, j])) for j in range(ply, n) if pv[ply, j] != 0)
        return int(score), int(stats[S_NODES]), moves

    def set_shared_beta(self, beta: int) -> None:
        """Lower the running job's beta (score sharing; called from another thread).  Ignored
        when no node follows a shared bound."""
        lower_shared_bound(self.state, beta)
