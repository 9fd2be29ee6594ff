"""``Searcher``: one instance of the engine — an evaluation spec, a hash table and
search options — with the iterative-deepening driver around the jitted search.

Iterative deepening and aspiration windows run here in Python: one call into
numba per iteration costs microseconds and lets every completed iteration reach
an info callback.  Time is kept by a timer thread that raises the stop flag; the
jitted search releases the GIL and polls the flag.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from typing import Callable, Sequence

import chess
import numpy as np

from evaluation.spec import FULL_ENGINE, EvalSpec
from .clock import IterationClock
from .core.context import (C_EVAL_CACHE, C_HISTORY, C_KILLERS, C_MOVES, C_PV, C_PV_LEN, C_SCORES, C_STATS, C_STOP,
                           MAX_PLY, S_NODE_LIMIT, S_NODES, S_ROOT_DONE, S_SELDEPTH, S_STOPPED, new_context)
from .core.exchange import arm_pauses, disarm_pauses
from .core.movegen import generate_moves
from .core.movepick import score_moves
from .core.moves import MAX_MOVES, ST_PLY, move_to_uci
from .core.search import INF, MATE, MATE_BOUND, search_root
from .core.tt import BOUND_EXACT, clear_table, entry_move, new_table, tt_probe, tt_store
from .limits import Limit
from .position import Position
from .result import IterationInfo, SearchResult

InfoCallback = Callable[[IterationInfo], None]
MARGIN_CAP = 200  # centipawns: a best move this far ahead of the rest is simply 'clear'


def mate_in_moves(score: int) -> int | None:
    """Moves to mate for a mate score (negative when the side to move is mated)."""
    if score > MATE_BOUND:
        return (MATE - score + 1) // 2
    if score < -MATE_BOUND:
        return -((MATE + score + 1) // 2)
    return None


def as_position(position: Position | chess.Board | str | None) -> Position:
    if position is None:
        return Position()
    if isinstance(position, Position):
        return position.copy()
    if isinstance(position, chess.Board):
        return Position(position)
    return Position.from_fen(position)


class Searcher:
    """One engine instance.  Keep it for a whole game so its hash table stays warm.

    It searches alone, over a table of its own; a searcher that works on one tree together
    with others (a shared table, ABDADA, score sharing) is
    :class:`players.decomposition.shared_searcher.SharedSearcher`."""

    def __init__(self, spec: EvalSpec = FULL_ENGINE, hash_mb: float = 16, *, null_move: bool = True,
                 lmr: bool = True, futility: bool = True, aspiration: int = 30,
                 depth_cap: int | None = None, params: np.ndarray | None = None, exact: bool = False) -> None:
        if aspiration <= 0:
            raise ValueError(f"aspiration window must be positive, got {aspiration}")
        if depth_cap is not None and not 1 <= depth_cap < MAX_PLY:
            raise ValueError(f"depth cap must lie in 1..{MAX_PLY - 1}, got {depth_cap}")
        self.spec = spec
        self.aspiration = aspiration
        self.depth_cap = depth_cap
        self.tt = new_table(hash_mb, 1)  # no busy marks: no other search shares this table
        self.ctx = new_context(spec.mask, spec.weight_array(), null_move, lmr, futility, params, exact)
        # A deadline timer may fire just as its search ends: it must not stop the next one.
        self._deadline_lock = threading.Lock()
        self._deadline_id = 0

    @property
    def hash_mb(self) -> float:
        return self.tt[0].nbytes / 2 ** 20

    def new_game(self) -> None:
        """Forget everything learnt: hash table, killers, history."""
        clear_table(self.tt)
        self.ctx[C_EVAL_CACHE][:] = 0
        self.ctx[C_HISTORY][:] = 0
        self.ctx[C_KILLERS][:] = 0

    def resize_hash(self, hash_mb: float) -> None:
        self.tt = new_table(hash_mb, 1)

    def stop(self) -> None:
        """Ask a running search (in another thread) to return as soon as it can."""
        self.ctx[C_STOP][0] = 1

    def reset_stop(self) -> None:
        """Forget a stop order, before a search that must keep the ones given later, even
        before it starts (``search(..., clear_stop=False)``)."""
        self.ctx[C_STOP][0] = 0

    @contextmanager
    def _deadline(self, seconds: float | None):
        """Stop the search inside this block after ``seconds`` (None: never).  The timer
        stops only the search it was started for: one that fires while its search returns
        finds its id outdated and leaves the flag alone."""
        if seconds is None:
            yield
            return
        with self._deadline_lock:
            self._deadline_id += 1
            own = self._deadline_id

        def expire() -> None:
            with self._deadline_lock:
                if self._deadline_id == own:
                    self.ctx[C_STOP][0] = 1

        timer = threading.Timer(max(0.0, seconds), expire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            with self._deadline_lock:
                self._deadline_id += 1

    def search(self, position: Position | chess.Board | str | None, limits: Limit,
               info: InfoCallback | None = None, *, searchmoves: Sequence[str] | None = None,
               margin_probe: bool = False, clear_stop: bool = True, multipv: int = 1,
               skip: Callable[[int], bool] | None = None) -> SearchResult:
        """Iterative deepening until a limit is reached.

        ``searchmoves`` restricts the root to these UCI moves (UCI ``go searchmoves``;
        the posterior-search selection criterion).  ``margin_probe`` spends up to an
        eighth of the budget after the main search on a null-window-ish search of the
        other root moves, so the result says by how much the best move beat the
        second (``second_score``): the confidence criterion needs it.  ``clear_stop=False``
        keeps a stop order given before the call (a parallel job stopped before it started).
        ``multipv`` above 1 reports that many best root moves each iteration (UCI's MultiPV), each
        line numbered in its ``IterationInfo.multipv``: see :meth:`_more_lines`.
        ``skip(depth)`` True leaves that iteration out (lazy SMP's depth skipping for a helper
        worker); a pause point set in the context (``players.core.exchange``) is armed here.
        """
        pos = as_position(position)
        ctx = self.ctx
        stats = ctx[C_STATS]
        stats[:] = 0
        stats[S_NODE_LIMIT] = (limits.nodes * 7 // 8 if margin_probe else limits.nodes) if limits.nodes else 0
        arm_pauses(ctx)
        if clear_stop:
            ctx[C_STOP][0] = 0
        ctx[C_KILLERS][:] = 0
        ctx[C_HISTORY][:] //= 8
        max_depth = min(limits.depth or MAX_PLY - 1, self.depth_cap or MAX_PLY - 1, MAX_PLY - 1)

        start = time.perf_counter()
        share = 0.875 if margin_probe else 1.0
        try:
            with self._deadline(None if limits.movetime is None else share * limits.movetime / 1000.0):
                result = self._iterate(pos, max_depth, limits, start, info, searchmoves, multipv, skip)
        finally:
            disarm_pauses(ctx)
        if margin_probe:
            result = self._probe_margin(pos, result, limits, start)
        return result

    def iteration(self, arrays: tuple, root_moves: np.ndarray, n_root: int, depth: int,
                  guess: int) -> tuple[int, int, int, int]:
        """One iteration of the iterative deepening: from depth 4 an aspiration window around
        ``guess`` (the previous score), widened on the failing side until the score falls
        inside or the search is stopped.  A new best move goes to the front of ``root_moves``.
        Returns the score, the index the best move had, and the last window (alpha, beta)."""
        stats = self.ctx[C_STATS]
        window = self.aspiration
        if depth >= 4 and abs(guess) < MATE_BOUND:
            alpha, beta = guess - window, guess + window
        else:
            alpha, beta = -INF, INF
        while True:
            score, index = self._search_root(arrays, root_moves, n_root, depth, alpha, beta)
            if index > 0 and score > alpha:  # a new best move: search it first from now on
                root_moves[: index + 1] = np.roll(root_moves[: index + 1], 1)
            if stats[S_STOPPED]:
                break
            if score <= alpha:
                alpha = max(-INF, alpha - window)
            elif score >= beta:
                beta = min(INF, beta + window)
            else:
                break
            window *= 2
        return score, index, alpha, beta

    def _search_root(self, arrays: tuple, root_moves: np.ndarray, n_root: int, depth: int, alpha: int,
                     beta: int) -> tuple[int, int]:
        """One search of the root moves (``players.core.search.search_root``)."""
        return search_root(arrays, self.tt, self.ctx, root_moves, n_root, depth, alpha, beta)

    def _root_moves(self, pos: Position, searchmoves: Sequence[str] | None) -> tuple[np.ndarray, int]:
        """Legal root moves, hash move first, then by the usual ordering; only
        ``searchmoves`` if given (an illegal one is an error, not silently dropped)."""
        arrays = pos.arrays
        ctx = self.ctx
        root_moves = np.zeros(MAX_MOVES, np.int64)
        n_root = generate_moves(arrays, ctx[C_MOVES][0], False)
        if searchmoves is not None:
            legal = {move_to_uci(int(m)): int(m) for m in ctx[C_MOVES][0][:n_root]}
            wanted = list(dict.fromkeys(searchmoves))
            bad = [m for m in wanted if m not in legal]
            if bad or not wanted:
                raise ValueError(f"searchmoves: {', '.join(bad) or '(none)'} not legal in {pos.fen()}")
            ctx[C_MOVES][0][:len(wanted)] = [legal[m] for m in wanted]
            n_root = len(wanted)
        if n_root == 0:
            return root_moves, 0
        entry = tt_probe(self.tt, arrays[4][arrays[2][ST_PLY]])  # np.uint64: keys exceed int64
        score_moves(arrays, ctx, 0, n_root, entry_move(entry) if entry else 0)
        order = np.argsort(-ctx[C_SCORES][0][:n_root], kind="stable")
        root_moves[:n_root] = ctx[C_MOVES][0][:n_root][order]
        return root_moves, int(n_root)

    def _probe_margin(self, pos: Position, result: SearchResult, limits: Limit,
                      start: float) -> SearchResult:
        """Search every root move but the best at depth D−2 in the window
        [score − MARGIN_CAP, score]: the fail-soft result bounds the second-best
        score, so the margin is exact below the cap and "at least the cap" above."""
        if result.root_moves < 2 or result.depth < 1 or result.mate is not None:
            return result
        ctx = self.ctx
        stats = ctx[C_STATS]
        arrays = pos.arrays
        root_moves, n_root = self._root_moves(pos, None)
        others = np.array([m for m in root_moves[:n_root] if move_to_uci(int(m)) != result.bestmove], np.int64)
        probe_moves = np.zeros(MAX_MOVES, np.int64)
        probe_moves[:len(others)] = others
        nodes_before = int(stats[S_NODES])
        stats[S_STOPPED] = 0
        ctx[C_STOP][0] = 0
        stats[S_NODE_LIMIT] = limits.nodes if limits.nodes else nodes_before + max(2000, nodes_before // 7)
        if stats[S_NODE_LIMIT] <= nodes_before:
            return result
        left = None
        if limits.movetime is not None:
            left = limits.movetime / 1000.0 - (time.perf_counter() - start)
            if left <= 0:
                return result
        with self._deadline(left):
            alpha = max(-INF, result.score_cp - MARGIN_CAP)
            score, _ = self._search_root(arrays, probe_moves, len(others), max(1, result.depth - 2), alpha,
                                         result.score_cp + 1)
        nodes = int(stats[S_NODES])
        stopped = bool(stats[S_STOPPED])
        # The probe stored its (second-best) move at the root key: put the real best back.
        best_code = next(int(m) for m in root_moves[:n_root] if move_to_uci(int(m)) == result.bestmove)
        tt_store(self.tt, arrays[4][arrays[2][ST_PLY]], best_code, BOUND_EXACT, result.depth,
                 result.score_cp, 0)
        second = None if stopped else max(int(min(score, result.score_cp)), result.score_cp - MARGIN_CAP)
        return replace(result, second_score=second, nodes=nodes, time=time.perf_counter() - start)

    def _iterate(self, pos: Position, max_depth: int, limits: Limit, start: float,
                 info: InfoCallback | None, searchmoves: Sequence[str] | None = None,
                 multipv: int = 1, skip: Callable[[int], bool] | None = None) -> SearchResult:
        arrays = pos.arrays
        ctx = self.ctx
        stats = ctx[C_STATS]
        fen = pos.fen()
        root_moves, n_root = self._root_moves(pos, searchmoves)
        if n_root == 0:
            checked = pos.to_board().is_check()
            return SearchResult("0000", -MATE if checked else 0, 0 if checked else None, (), 0, 0, 0, 0, 0,
                                time.perf_counter() - start, (), fen)
        best_move, best_score, best_pv = int(root_moves[0]), 0, (move_to_uci(int(root_moves[0])),)
        clock = None if limits.soft_movetime is None else IterationClock(limits.soft_movetime / 1000.0)
        completed = 0
        root_done = 0
        iterations: list[IterationInfo] = []
        lines = min(multipv, int(n_root))
        line_scores: list[int] = []
        for depth in range(1, max_depth + 1):
            if skip is not None and skip(depth):
                continue
            score, index, alpha, beta = self.iteration(arrays, root_moves, n_root, depth, best_score)
            root_done = int(stats[S_ROOT_DONE])
            if stats[S_STOPPED]:
                # Keep an interrupted iteration's move only if it was searched to an exact score.
                if index >= 0 and alpha < score < beta:
                    best_move, best_score = int(root_moves[0]), int(score)
                    best_pv = self._pv()
                break
            completed = depth
            best_move, best_score, best_pv = int(root_moves[0]), int(score), self._pv()
            it = IterationInfo(depth, int(stats[S_SELDEPTH]), best_score, mate_in_moves(best_score),
                               int(stats[S_NODES]), time.perf_counter() - start, best_pv)
            found = [it]
            if lines > 1:
                found = self._more_lines(arrays, root_moves, n_root, depth, lines, it, line_scores, start)
                line_scores = [line.score_cp for line in found]
                it = found[0]
                best_move, best_score, best_pv = int(root_moves[0]), it.score_cp, it.pv
            iterations.append(it)
            if info is not None:
                for line in found:
                    info(line)
            if lines > 1 and stats[S_STOPPED]:
                break  # stopped during the other lines: the first stands, complete
            mate = mate_in_moves(best_score)
            if mate is not None and depth >= 2 * abs(mate) + 1:
                break  # a mate found and confirmed: deeper search cannot change it
            elapsed = time.perf_counter() - start
            if limits.movetime is not None and elapsed >= limits.movetime / 1000.0:
                break
            if clock is not None:
                if n_root == 1:
                    break  # the only legal move: keep the clock's time for the moves that need it
                clock.update(move_to_uci(best_move), best_score)
                if clock.should_stop(depth, elapsed):
                    break
        elapsed = time.perf_counter() - start
        if not best_pv or best_pv[0] != move_to_uci(best_move):
            best_pv = (move_to_uci(best_move),)
        return SearchResult(
            bestmove=move_to_uci(best_move), score_cp=best_score, mate=mate_in_moves(best_score), pv=best_pv,
            depth=completed, root_moves_searched=root_done, root_moves=int(n_root),
            seldepth=int(stats[S_SELDEPTH]), nodes=int(stats[S_NODES]), time=elapsed,
            iterations=tuple(iterations), fen=fen)

    def _more_lines(self, arrays: tuple, root_moves: np.ndarray, n_root: int, depth: int, lines: int,
                    first: IterationInfo, guesses: list[int], start: float) -> list[IterationInfo]:
        """MultiPV, as Stockfish does it: after the iteration's search of every root move (its
        best is ``first``), line i searches the root moves left once the i - 1 better ones are
        taken out, with an aspiration window around line i's last score.  The lines completed
        before a stop come back best first, numbered; ``root_moves`` starts with their moves
        in that order, and the table's root entry is the best line's again."""
        stats = self.ctx[C_STATS]
        found = [first]
        for i in range(1, lines):
            rest = np.zeros(MAX_MOVES, np.int64)
            rest[:n_root - i] = root_moves[i:n_root]
            guess = guesses[i] if i < len(guesses) else found[-1].score_cp
            score, _, _, _ = self.iteration(arrays, rest, n_root - i, depth, guess)
            if stats[S_STOPPED]:
                break
            root_moves[i:n_root] = rest[:n_root - i]
            move = move_to_uci(int(rest[0]))
            pv = self._pv()
            found.append(IterationInfo(depth, int(stats[S_SELDEPTH]), int(score), mate_in_moves(int(score)),
                                       int(stats[S_NODES]), time.perf_counter() - start,
                                       pv if pv and pv[0] == move else (move,)))
        order = sorted(range(len(found)), key=lambda j: -found[j].score_cp)  # stable: ties keep their order
        root_moves[:len(found)] = root_moves[:len(found)][order]
        found = [replace(found[j], multipv=rank) for rank, j in enumerate(order, 1)]
        best = found[0]
        tt_store(self.tt, arrays[4][arrays[2][ST_PLY]], int(root_moves[0]), BOUND_EXACT, depth, best.score_cp, 0)
        return found

    def _pv(self) -> tuple[str, ...]:
        pv = self.ctx[C_PV]
        n = int(self.ctx[C_PV_LEN][0])
        return tuple(move_to_uci(int(pv[0, j])) for j in range(n) if pv[0, j] != 0)
