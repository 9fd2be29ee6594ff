"""Young Brothers Wait on k search threads of one process (``algorithm: ybw``): the Python side
of ``players.threads.ybw_search``.

``YbwSearcher`` is a searcher like any other (iterative deepening, aspiration, limits, stop)
whose root search runs on k threads: its own (thread 0, the team's master at the root) and
k - 1 helper threads it keeps, each with a search record and position slots of its own, all
over one transposition table and one team record (the split points).  A helper thread sleeps
on an event between two searches and spins in compiled code (``idle_loop``, without the GIL)
during one, waiting for a split point to work at.

In the decomposition player the whole search is one job (``worker.SearchJob``) on one worker: its
process holds the k threads (``threads: true``: one worker process with k threads; one
worker: this process).  Its cost in the thesis's measures: the team's nodes, its busy time
(the threads' time less their idle spinning), and its messages — for a shared-memory
algorithm the split points opened and the threads that joined them.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from evaluation.spec import FULL_ENGINE, EvalSpec
from players.core.context import (C_EVAL_CACHE, C_HISTORY, C_KILLERS, C_STATS, C_STOP, S_NODE_LIMIT, S_NODES,
                                  S_SELDEPTH, S_STOPPED, new_context)
from players.threads.ybw_search import (K_RUNNING, K_STOP, MAX_THREADS, T_ACTIVE_SP,
                                     T_CYCLES, T_HELPS, T_IDLE_CYCLES, T_JOINS, T_LATE_JOINS, T_SEARCHING, T_SPLITS,
                                     THREAD_FIELDS, idle_loop, new_own, new_team, search_root_ybw)
from players.limits import Limit
from .shared_searcher import SharedSearcher


def stockfish_split_depth(threads: int) -> int:
    """Stockfish 6's minimum split depth: 4 plies, 7 with 8 threads or more (more threads
    split more often, and a split costs the same whatever the subtree)."""
    return 7 if threads >= 8 else 4


@dataclass(frozen=True)
class TeamCounts:
    """What the split points cost over a search: split points opened, threads that joined
    one (given by its master, or on their own: late joins; some of them masters waiting for
    their slaves), and the share of the threads' time spent searching (the production factor;
    the rest is spinning idle)."""

    splits: int = 0
    joins: int = 0
    late_joins: int = 0
    production: float = 1.0
    helps: int = 0  # of the joins, those of a master waiting for its slaves (the helpful master)

    @property
    def messages(self) -> int:
        """Messages, for a shared-memory algorithm: split points opened and threads joining."""
        return self.splits + self.joins + self.late_joins


class YbwSearcher(SharedSearcher):
    """A searcher whose root search is Young Brothers Wait on ``threads`` threads (module docstring)."""

    def __init__(self, spec: EvalSpec = FULL_ENGINE, hash_mb: float = 16, *, threads: int = 2,
                 min_split_depth: int | None = None, table: tuple | None = None, null_move: bool = True,
                 lmr: bool = True, futility: bool = True, exact: bool = False, **options) -> None:
        """``min_split_depth``: None for Stockfish's (``stockfish_split_depth``)."""
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"YBW runs 1 to {MAX_THREADS} threads, not {threads}")
        super().__init__(spec, hash_mb, table=table, null_move=null_move, lmr=lmr, futility=futility, exact=exact,
                         **options)
        self.threads = threads
        self.min_split_depth = min_split_depth or stockfish_split_depth(threads)
        self.team = new_team(threads, self.min_split_depth)
        self.contexts = [self.ctx] + [new_context(spec.mask, spec.weight_array(), null_move, lmr, futility,
                                                  options.get("params"), exact) for _ in range(threads - 1)]
        self.owns = [new_own() for _ in range(threads)]
        self._go = [threading.Event() for _ in range(threads)]
        self._done = [threading.Event() for _ in range(threads)]
        self._helpers: list[threading.Thread] = []
        self._closing = False

    # --- the helper threads --------------------------------------------------------------------
    def _start_helpers(self) -> None:
        self._closing = False  # (a closed searcher searching again gets new helpers)
        for t in range(1, self.threads):
            thread = threading.Thread(target=self._helper, args=(t,), name=f"ybw-{t}", daemon=True)
            thread.start()
            self._helpers.append(thread)

    def _helper(self, t: int) -> None:
        """Helper thread ``t``: one compiled idle loop per root search, asleep in between."""
        while True:
            self._go[t].wait()
            self._go[t].clear()
            if self._closing:
                return
            try:
                idle_loop(self.tt, self.contexts[t], self.team, self.owns[t], t)
            finally:
                self._done[t].set()

    def close(self) -> None:
        """End the helper threads (a searcher left unclosed keeps them asleep, as daemons)."""
        self._closing = True
        for t in range(1, self.threads):
            self._go[t].set()
        for thread in self._helpers:
            thread.join()
        self._helpers.clear()

    # --- a search ---------------------------------------------------------------------------------
    def stop(self) -> None:
        super().stop()
        self.team["control"][K_STOP] = 1

    def reset_stop(self) -> None:
        super().reset_stop()
        self.team["control"][K_STOP] = 0

    def new_game(self) -> None:
        super().new_game()
        for ctx in self.contexts[1:]:
            ctx[C_EVAL_CACHE][:] = 0
            ctx[C_HISTORY][:] = 0
            ctx[C_KILLERS][:] = 0

    def search(self, position, limits: Limit, info=None, *, searchmoves=None, margin_probe: bool = False,
               clear_stop: bool = True):
        """``Searcher.search`` with the team: the helpers' records start fresh like the master's,
        a stop order given before the call stops them all (``clear_stop=False``), and the answer
        counts every thread's nodes.  The helpers spin in their idle loops for the whole search
        (every iteration and re-search), not one root search at a time: waking a sleeping
        thread costs up to milliseconds on a busy machine, as much as a shallow iteration."""
        if self.ctx[C_STOP][0] and not clear_stop:
            self.team["control"][K_STOP] = 1
        elif clear_stop:
            self.team["control"][K_STOP] = 0
        for ctx in self.contexts[1:]:
            ctx[C_STATS][:] = 0
            ctx[C_STOP][0] = 0
            ctx[C_KILLERS][:] = 0
            ctx[C_HISTORY][:] //= 8
        threads = self.team["threads"]
        for t in range(self.threads):
            for f in (T_SPLITS, T_JOINS, T_LATE_JOINS, T_IDLE_CYCLES, T_CYCLES, T_HELPS):
                threads[t * THREAD_FIELDS + f] = 0
            threads[t * THREAD_FIELDS + T_SEARCHING] = int(t == 0)
            threads[t * THREAD_FIELDS + T_ACTIVE_SP] = -1
        if self.threads > 1 and not self._helpers:
            self._start_helpers()
        control = self.team["control"]
        control[K_RUNNING] = 1
        for t in range(1, self.threads):
            self._done[t].clear()
            self._go[t].set()
        try:
            return super().search(position, limits, info, searchmoves=searchmoves, margin_probe=margin_probe,
                                  clear_stop=clear_stop)
        finally:
            control[K_RUNNING] = 0  # every split point is closed: the helpers are idle, and leave
            for t in range(1, self.threads):
                self._done[t].wait()

    def _search_root(self, arrays: tuple, root_moves: np.ndarray, n_root: int, depth: int, alpha: int,
                     beta: int) -> tuple[int, int]:
        """One search of the root by the team (its helpers are in their idle loops).  The
        helpers' node counts are folded into the master's after it, so that iterations and the
        node limit see the team's nodes, and each helper may search a k-th of what is left of
        the node limit.  (Between two root searches the helpers are idle: their counters are
        not being written.)"""
        stats = self.ctx[C_STATS]
        team = self.team
        control = team["control"]
        limit = int(stats[S_NODE_LIMIT])
        share = max(1, (limit - int(stats[S_NODES])) // self.threads) if limit else 0
        for ctx in self.contexts[1:]:
            ctx[C_STATS][S_NODES] = 0
            ctx[C_STATS][S_STOPPED] = 0
            ctx[C_STATS][S_NODE_LIMIT] = share
        control[K_STOP] = int(self.ctx[C_STOP][0] != 0)  # a stop order stands; a spent one (a margin probe's) not
        score, index = search_root_ybw(arrays, self.tt, self.ctx, team, self.owns[0], root_moves, n_root, depth,
                                       alpha, beta)
        for ctx in self.contexts[1:]:
            helper = ctx[C_STATS]
            stats[S_NODES] += helper[S_NODES]
            stats[S_SELDEPTH] = max(stats[S_SELDEPTH], helper[S_SELDEPTH])
            helper[S_NODES] = 0
        if control[K_STOP]:
            stats[S_STOPPED] = 1
        return int(score), int(index)

    def counts(self) -> TeamCounts:
        """The split points' cost since the search began."""
        threads = self.team["threads"].reshape(MAX_THREADS, THREAD_FIELDS)[: self.threads]
        total = int(threads[:, T_CYCLES].sum())
        idle = int(threads[:, T_IDLE_CYCLES].sum())
        return TeamCounts(int(threads[:, T_SPLITS].sum()), int(threads[:, T_JOINS].sum()),
                          int(threads[:, T_LATE_JOINS].sum()), 1.0 - idle / total if total > 0 else 1.0,
                          int(threads[:, T_HELPS].sum()))


def ybw_min_split(configured: int, threads: int) -> int:
    """The file's ``min_split_depth`` for ybw, where 0 (not given) is Stockfish's rule."""
    return configured or stockfish_split_depth(threads)
