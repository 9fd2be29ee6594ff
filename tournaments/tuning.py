"""Texel-style fit of the evaluation's term values (``params.TERMS``).

Recipe (seeded, reproducible; nothing large is stored in the repository):

1. **Positions.**  From each opening of ``8moves_v3-1000.epd`` (seeded order) the
   full engine plays a short self-play game at a small node budget, with a seeded
   random choice among the root moves close to the best so that games diverge.
   Positions after the opening (ply >= 4 of the game) are kept when they are quiet
   enough for a static evaluation: not in check, no mate in sight, and the engine's
   best move is not a capture or promotion.
2. **Labels.**  Stockfish (Debian's ``stockfish``, 15.1) evaluates each position
   at a shallow fixed depth; the target is its win probability
   ``sigmoid(cp * ln 10 / 400)``.
3. **Fit.**  Minimise the mean squared error between that target and
   ``sigmoid(eval * ln 10 / 400)`` of our full evaluation, by Texel's local search:
   each middlegame and endgame value in turn moves by ±step while the error falls,
   steps halving from 8 to 1.  A value keeps the sign it starts with (a penalty
   stays a penalty, a bonus a bonus) and a value that starts at 0 stays 0 (the
   term is meant to vanish in that phase): the fit sets sizes, the design sets
   meanings, and rare features cannot flip a term on a few samples.  The error is
   computed in numba over all positions, so a pass costs milliseconds.

All categories keep one scale (centipawns, one zero point) because a single fit
of the whole evaluation sets every category against the same target.

Usage: python -m tournaments.tuning [--games N] [--depth D] [--out FILE]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import chess
import chess.engine
import numpy as np

from concilio.resources import data_file
from evaluation.evaluate import new_scratch
from evaluation.fitting import LN10_400, mean_squared_error
from evaluation.params import DEFAULT_PARAMS, PARAM_NAMES, TERMS
from players.external import find_engine_binary
from players.position import Position
from players.result import SearchLimits
from players.searcher import Searcher

OPENINGS = data_file("openings/8moves_v3-1000.epd")


def generate_positions(games: int, seed: int, nodes: int = 1500, max_plies: int = 80) -> list[str]:
    """Quiet positions from seeded self-play games of the full engine."""
    rng = random.Random(seed)
    openings = [l for l in OPENINGS.read_text().splitlines() if l.strip()]
    rng.shuffle(openings)
    searcher = Searcher(hash_mb=8)
    fens: list[str] = []
    for line in openings[:games]:
        board = chess.Board.from_epd(line)[0]
        searcher.new_game()
        for ply in range(max_plies):
            if board.is_game_over(claim_draw=True):
                break
            result = searcher.search(board, SearchLimits(nodes=nodes))
            move = chess.Move.from_uci(result.bestmove)
            quiet = not board.is_check() and not board.is_capture(move) and move.promotion is None
            if ply >= 4 and quiet and result.mate is None and abs(result.score_cp) < 1500:
                fens.append(board.fen())
            legal = list(board.legal_moves)
            if rng.random() < 0.15:
                move = rng.choice(legal)  # occasional random move: more varied, less drawish data
            board.push(move)
    return fens


def label_positions(fens: list[str], depth: int) -> np.ndarray:
    """Stockfish's centipawn score of each position, from White's point of view."""
    labels = np.zeros(len(fens), np.float64)
    with chess.engine.SimpleEngine.popen_uci(find_engine_binary("stockfish")) as engine:
        for i, fen in enumerate(fens):
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=depth))
            labels[i] = info["score"].white().score(mate_score=3000)
    return labels


def to_arrays(fens: list[str]):
    arrays = [Position.from_fen(f).arrays for f in fens]
    return (np.stack([a[0] for a in arrays]), np.stack([a[1] for a in arrays]), np.stack([a[2] for a in arrays]),
            arrays[0][3], arrays[0][4])


def fit(fens: list[str], labels: np.ndarray, start: np.ndarray = DEFAULT_PARAMS, log=print) -> np.ndarray:
    data = to_arrays(fens)
    targets = 1.0 / (1.0 + np.exp(-labels * LN10_400))
    scratch = new_scratch()
    params = start.copy()

    def error(p):
        return mean_squared_error(*data, p, targets, *scratch)

    best = error(params)
    log(f"start error {best:.6f} on {len(fens)} positions")
    for step in (8, 4, 2, 1):
        improved = True
        while improved:
            improved = False
            for i in range(params.shape[0]):
                for phase in (0, 1):
                    sign = int(np.sign(start[i, phase]))
                    if sign == 0:
                        continue
                    for delta in (step, -step):
                        if (params[i, phase] + delta) * sign < 0:
                            continue
                        params[i, phase] += delta
                        e = error(params)
                        if e < best - 1e-9:
                            best = e
                            improved = True
                            break
                        params[i, phase] -= delta
        log(f"step {step}: error {best:.6f}")
    return params


def format_terms(params: np.ndarray) -> str:
    lines = []
    for (name, cat, _, _), (mg, eg) in zip(TERMS, params):
        lines.append(f'    ("{name}", "{cat}", {int(mg)}, {int(eg)}),')
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--depth", type=int, default=8, help="Stockfish labelling depth")
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--out", type=Path, default=Path("tuned_terms.txt"))
    args = parser.parse_args(argv)
    t0 = time.time()
    fens = generate_positions(args.games, args.seed)
    print(f"{len(fens)} positions from {args.games} games in {time.time() - t0:.0f} s", flush=True)
    labels = label_positions(fens, args.depth)
    print(f"labelled in {time.time() - t0:.0f} s", flush=True)
    # Hold out every tenth position to check that the fit generalises.
    train = [i for i in range(len(fens)) if i % 10]
    test = [i for i in range(len(fens)) if i % 10 == 0]
    params = fit([fens[i] for i in train], labels[train])
    data = to_arrays([fens[i] for i in test])
    targets = 1.0 / (1.0 + np.exp(-labels[test] * LN10_400))
    before = mean_squared_error(*data, DEFAULT_PARAMS, targets, *new_scratch())
    after = mean_squared_error(*data, params, targets, *new_scratch())
    print(f"held-out error: {before:.6f} -> {after:.6f}")
    args.out.write_text(format_terms(params) + "\n")
    print(f"fitted terms written to {args.out} ({time.time() - t0:.0f} s)")
    for name, old, new in zip(PARAM_NAMES, DEFAULT_PARAMS, params):
        if (old != new).any():
            print(f"  {name:24s} {tuple(int(v) for v in old)} -> {tuple(int(v) for v in new)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
