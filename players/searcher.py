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
from typing import Callable

import chess
import numpy as np

from evaluation.spec import FULL_ENGINE, EvalSpec
from .core.movegen import generate_moves
from .core.moves import MAX_MOVES, ST_PLY, move_to_uci
from .core.search import (C_EVAL_KEYS, C_HISTORY, C_KILLERS, C_MOVES, C_PV, C_PV_LEN, C_SCORES, C_STATS, C_STOP,
                          INF, MATE, MATE_BOUND, MAX_PLY, S_NODE_LIMIT, S_NODES, S_ROOT_DONE, S_SELDEPTH,
                          S_STOPPED, new_context, score_moves, search_root)
from .core.tt import clear_table, entry_move, new_table, tt_probe
from .position import Position
from .result import IterationInfo, SearchLimits, SearchResult

InfoCallback = Callable[[IterationInfo], None]


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
    """One engine instance.  Keep it for a whole game so its hash table stays warm."""

    def __init__(self, spec: EvalSpec = FULL_ENGINE, hash_mb: float = 16, *, null_move: bool = True,
                 lmr: bool = True, futility: bool = True, aspiration: int = 30,
                 depth_cap: int | None = None, params: np.ndarray | None = None) -> None:
        if aspiration <= 0:
            raise ValueError(f"aspiration window must be positive, got {aspiration}")
        if depth_cap is not None and not 1 <= depth_cap < MAX_PLY:
            raise ValueError(f"depth cap must lie in 1..{MAX_PLY - 1}, got {depth_cap}")
        self.spec = spec
        self.aspiration = aspiration
        self.depth_cap = depth_cap
        self.tt = new_table(hash_mb)
        self.ctx = new_context(spec.mask, spec.weight_array(), null_move, lmr, futility, params)

    @property
    def hash_mb(self) -> float:
        return (self.tt[0].nbytes + self.tt[1].nbytes) / 2 ** 20

    def new_game(self) -> None:
        """Forget everything learnt: hash table, killers, history."""
        clear_table(self.tt)
        self.ctx[C_EVAL_KEYS][:] = 0
        self.ctx[C_HISTORY][:] = 0
        self.ctx[C_KILLERS][:] = 0

    def resize_hash(self, hash_mb: float) -> None:
        self.tt = new_table(hash_mb)

    def stop(self) -> None:
        """Ask a running search (in another thread) to return as soon as it can."""
        self.ctx[C_STOP][0] = 1

    def search(self, position: Position | chess.Board | str | None, limits: SearchLimits,
               info: InfoCallback | None = None) -> SearchResult:
        pos = as_position(position)
        ctx = self.ctx
        stats = ctx[C_STATS]
        stats[:] = 0
        stats[S_NODE_LIMIT] = limits.nodes or 0
        ctx[C_STOP][0] = 0
        ctx[C_KILLERS][:] = 0
        ctx[C_HISTORY][:] //= 8
        max_depth = min(limits.depth or MAX_PLY - 1, self.depth_cap or MAX_PLY - 1, MAX_PLY - 1)

        start = time.perf_counter()
        timer = None
        if limits.movetime is not None:
            timer = threading.Timer(limits.movetime / 1000.0, self.stop)
            timer.daemon = True
            timer.start()
        try:
            return self._iterate(pos, max_depth, limits, start, info)
        finally:
            if timer is not None:
                timer.cancel()

    def _iterate(self, pos: Position, max_depth: int, limits: SearchLimits, start: float,
                 info: InfoCallback | None) -> SearchResult:
        arrays = pos.arrays
        ctx = self.ctx
        stats = ctx[C_STATS]
        root_moves = np.zeros(MAX_MOVES, np.int64)
        n_root = generate_moves(arrays, ctx[C_MOVES][0], False)
        fen = pos.fen()
        if n_root == 0:
            checked = pos.to_board().is_check()
            return SearchResult("0000", -MATE if checked else 0, 0 if checked else None, (), 0, 0, 0, 0, 0,
                                time.perf_counter() - start, (), fen)
        entry = tt_probe(self.tt, arrays[4][arrays[2][ST_PLY]])  # np.uint64: keys exceed int64
        score_moves(arrays, ctx, 0, n_root, entry_move(entry) if entry else 0)
        order = np.argsort(-ctx[C_SCORES][0][:n_root], kind="stable")
        root_moves[:n_root] = ctx[C_MOVES][0][:n_root][order]

        best_move, best_score, best_pv = int(root_moves[0]), 0, (move_to_uci(int(root_moves[0])),)
        completed = 0
        root_done = 0
        iterations: list[IterationInfo] = []
        for depth in range(1, max_depth + 1):
            window = self.aspiration
            if depth >= 4 and abs(best_score) < MATE_BOUND:
                alpha, beta = best_score - window, best_score + window
            else:
                alpha, beta = -INF, INF
            while True:
                score, index = search_root(arrays, self.tt, ctx, root_moves, n_root, depth, alpha, beta)
                root_done = int(stats[S_ROOT_DONE])
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
            iterations.append(it)
            if info is not None:
                info(it)
            mate = mate_in_moves(best_score)
            if mate is not None and depth >= 2 * abs(mate) + 1:
                break  # a mate found and confirmed: deeper search cannot change it
            if limits.movetime is not None and time.perf_counter() - start >= limits.movetime / 1000.0:
                break
        elapsed = time.perf_counter() - start
        if not best_pv or best_pv[0] != move_to_uci(best_move):
            best_pv = (move_to_uci(best_move),)
        return SearchResult(
            bestmove=move_to_uci(best_move), score_cp=best_score, mate=mate_in_moves(best_score), pv=best_pv,
            depth=completed, root_moves_searched=root_done, root_moves=int(n_root),
            seldepth=int(stats[S_SELDEPTH]), nodes=int(stats[S_NODES]), time=elapsed,
            iterations=tuple(iterations), fen=fen)

    def _pv(self) -> tuple[str, ...]:
        pv = self.ctx[C_PV]
        n = int(self.ctx[C_PV_LEN][0])
        return tuple(move_to_uci(int(pv[0, j])) for j in range(n) if pv[0, j] != 0)
