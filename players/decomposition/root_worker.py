"""The workers of the root policies (UIDPABS, Devesa's mixed and exhaustive strategies) on
the node clock (``docs/node-clock.md``): what they share, one worker, and one result.

Both policies split the root's moves among workers that then search without talking to each
other until they answer, so no slices are needed: a worker's search is a deterministic
function of (position, its table, its share of the root, its window), the k workers run one
after another in this process, and the parallel time is read off their node counts (T_k).

A worker is a plain :class:`players.searcher.Searcher` with a table of its own, kept from
search to search and move to move (no shared memory).  One call of :meth:`ClockWorker.search`
is one search of *its* root moves (a subset of the root's, in its order) to a depth in a
window, with at most ``limit`` nodes: the sequential root search (``search_root``) over fewer
moves, so every move's value, check extension included, is the one the sequential search
gives it.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from players.core.context import C_HISTORY, C_KILLERS, C_STATS, C_STOP, S_NODE_LIMIT, S_NODES, S_STOPPED
from players.core.moves import move_to_uci
from players.core.search import INF
from players.position import Position
from players.result import IterationInfo
from players.searcher import Searcher

from .options import ROOT_POLICIES, RootPolicyConfig, SearcherConfig  # noqa: F401 (ROOT_POLICIES: re-exported)

POLL_SECONDS = 0.005  # how often a running search looks at its stop condition


@dataclass(frozen=True)
class RootSearch:
    """One search of a worker's root moves: a fail-soft score in (alpha, beta)."""

    score: int
    move: str  # its best root move ('' when stopped before any was searched)
    pv: tuple[str, ...]
    nodes: int
    stopped: bool  # by its node limit or a stop order: the score means nothing
    alpha: int
    beta: int

    @property
    def exact(self) -> bool:
        return not self.stopped and self.alpha < self.score < self.beta


class ClockWorker:
    """One worker: a searcher with a table of its own, and its share of the root."""

    def __init__(self, index: int, options: SearcherConfig) -> None:
        from evaluation.spec import EvalSpec
        self.index = index
        self.searcher = Searcher(EvalSpec.parse(options.mask, options.weights), options.hash_mb,
                                 null_move=options.null_move, lmr=options.lmr, futility=options.futility,
                                 exact=options.exact)
        self.pos: Position | None = None
        self.root_moves = np.zeros(0, np.int64)
        self.n_root = 0

    def new_game(self) -> None:
        self.searcher.new_game()

    def begin(self, fen: str, moves: tuple[str, ...], searchmoves: Sequence[str] = ()) -> tuple[str, ...]:
        """A new move: the root (only ``searchmoves`` where given); returns the root moves in
        the searcher's order (hash move first).  An illegal search move raises ``ValueError``."""
        s = self.searcher
        self.pos = Position.from_fen(fen, moves)
        s.ctx[C_KILLERS][:] = 0
        s.ctx[C_HISTORY][:] //= 8
        self.root_moves, self.n_root = s._root_moves(self.pos, list(searchmoves) or None)
        return self.order()

    def restrict(self, moves: Sequence[str]) -> None:
        """Search only ``moves`` (root moves, in this order) from now on."""
        self.root_moves, self.n_root = self.searcher._root_moves(self.pos, list(moves))
        codes = {move_to_uci(int(m)): int(m) for m in self.root_moves[:self.n_root]}
        self.root_moves[:self.n_root] = [codes[m] for m in dict.fromkeys(moves)]

    def order(self) -> tuple[str, ...]:
        """Its root moves, best first as far as its searches know."""
        return tuple(move_to_uci(int(m)) for m in self.root_moves[:self.n_root])

    def search(self, depth: int, alpha: int, beta: int, limit: int = 0,
               stopped: Callable[[], bool] | None = None) -> RootSearch:
        """Its root moves to ``depth`` in (alpha, beta), at most ``limit`` nodes (0: no limit),
        stopped early once ``stopped()`` holds.  A new best move goes to the front."""
        s = self.searcher
        stats = s.ctx[C_STATS]
        stats[:] = 0
        stats[S_NODE_LIMIT] = limit
        s.ctx[C_STOP][0] = 0
        alpha, beta = max(-INF, alpha), min(INF, max(beta, alpha + 1))
        with _watching(s, stopped):
            score, index = s._search_root(self.pos.arrays, self.root_moves, self.n_root, depth, alpha, beta)
        halted = bool(stats[S_STOPPED])
        if index > 0 and score > alpha and not halted:
            self.root_moves[: index + 1] = np.roll(self.root_moves[: index + 1], 1)
        move = move_to_uci(int(self.root_moves[0])) if index >= 0 and not halted else ""
        pv = s._pv() if move else ()
        if move and (not pv or pv[0] != move):
            pv = (move,)
        return RootSearch(int(score), move, pv, int(stats[S_NODES]), halted, alpha, beta)


    def iterate(self, depth: int, guess: int, limit: int = 0, stopped: Callable[[], bool] | None = None) -> RootSearch:
        """One iteration of the sequential search over its moves, with the sequential search's
        own aspiration windows (``Searcher.iteration``): the exact score, unless stopped."""
        s = self.searcher
        stats = s.ctx[C_STATS]
        stats[:] = 0
        stats[S_NODE_LIMIT] = limit
        s.ctx[C_STOP][0] = 0
        with _watching(s, stopped):
            score, index, alpha, beta = s.iteration(self.pos.arrays, self.root_moves, self.n_root, depth, guess)
        halted = bool(stats[S_STOPPED])
        move = "" if halted or index < 0 else move_to_uci(int(self.root_moves[0]))
        pv = s._pv() if move else ()
        if move and (not pv or pv[0] != move):
            pv = (move,)
        return RootSearch(int(score), move, pv, int(stats[S_NODES]), halted, alpha, beta)


class _watching:
    """While a search runs, a thread that raises its stop flag once ``stopped()`` holds (a
    deadline or a UCI stop): the jitted search polls the flag, not Python callables."""

    def __init__(self, searcher: Searcher, stopped: Callable[[], bool] | None) -> None:
        self.searcher, self.stopped = searcher, stopped
        self.done = threading.Event()

    def __enter__(self) -> None:
        if self.stopped is not None:
            threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while not self.done.wait(POLL_SECONDS):
            if self.stopped():
                self.searcher.stop()
                return

    def __exit__(self, *exc) -> None:
        self.done.set()


class ClockTeam:
    """The k workers of a root policy, in this process (run one after another)."""

    def __init__(self, options: SearcherConfig, workers: int) -> None:
        self.options = options
        self.workers = [ClockWorker(w, options) for w in range(workers)]

    def new_game(self) -> None:
        for w in self.workers:
            w.new_game()

    def close(self) -> None:
        self.workers = []


@dataclass(frozen=True)
class RootPolicyResult:
    """A root policy's answer and its node-clock metrics (nodes for seconds)."""

    algorithm: str
    move: str
    score: int
    depth: int  # the depth the answer was searched to
    pv: tuple[str, ...]
    worker: int  # whose search answers
    time: int  # T_k: nodes on the clock until the answer
    nodes: int  # N_k: all workers' nodes
    worker_nodes: tuple[int, ...]
    messages: int  # jobs handed out and answers sent back
    depths: tuple[int, ...] = ()  # UIDPABS: every worker's last completed iteration
    researches: int = 0  # searches again after a window failed
    fallbacks: int = 0  # full-window searches after contradictory answers (a selective search)
    iterations: tuple[IterationInfo, ...] = ()
    seconds: float = 0.0
    schedule: tuple[tuple[str, int, int, int], ...] = field(default=(), repr=False)  # mixed: (move, worker, start, end)

    def metrics(self) -> str:
        depths = f"; depths {'/'.join(map(str, self.depths))}" if self.depths else ""
        return (f"{self.algorithm}: T_k {self.time} nodes, {self.nodes} nodes "
                f"({'/'.join(map(str, self.worker_nodes))}), {self.messages} messages, {self.researches} "
                f"re-searches{depths}; worker {self.worker} answers {self.move} ({self.score}) at depth {self.depth}")
