"""The root policies (UIDPABS, Devesa's mixed and exhaustive strategies) on the node clock
(``docs/design/node-clock.md``): how a move of theirs begins on the node clock's workers
(:class:`.master_worker.Worker`, :class:`.master_worker.Team`).

Both policies split the root's moves among workers that then search without talking to each
other until they answer, so no slices are needed: a worker's search is a deterministic
function of (position, its table, its share of the root, its window), the k workers run one
after another in this process, and the parallel time is read off their node counts (T_k).

A worker is a plain :class:`players.searcher.Searcher` with a table of its own, kept from
search to search and move to move (no shared memory).  One call of :meth:`.master_worker.Worker.search`
is one search of *its* root moves (a subset of the root's, in its order) to a depth in a
window, with at most ``limit`` nodes: the sequential root search (``search_root``) over fewer
moves, so every move's value, check extension included, is the one the sequential search
gives it.
"""
from __future__ import annotations

from players.core.search import MAX_PLY

from .master_worker import Team


def begin_root(team: Team, algorithm: str, fen: str, moves: tuple[str, ...], nodes: int | None, depth: int | None,
               searchmoves: tuple[str, ...] = ()) -> tuple[list[tuple[str, ...]], int, int]:
    """A root policy's move begun on every worker: their root moves in their order, the
    deepest iteration and the node budget per worker (0: none)."""
    if nodes is None and depth is None:
        raise ValueError(f"{algorithm} needs a node budget per worker or a depth")
    orders = team.begin(fen, moves, searchmoves)
    if not orders[0]:
        raise ValueError(f"no legal move in {fen} after {' '.join(moves) or 'no moves'}")
    return orders, min(depth or MAX_PLY - 1, MAX_PLY - 1), nodes or 0
