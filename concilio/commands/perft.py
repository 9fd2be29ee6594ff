"""``concilio perft``: count the leaf nodes of the legal move tree (the move generator's check)."""
from __future__ import annotations

import argparse
import time

from concilio.commands.inputs import UsageError, position
from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "perft", "count leaf nodes of the legal move tree", "concilio perft --depth 5 --divide")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--depth", type=int, required=True, help="half-moves to count to")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from players.core.movegen import perft, perft_divide
    from players.core.moves import MAX_MOVES, move_to_uci
    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    pos = position(args.fen)
    perft(pos.arrays, 1)  # load the compiled code before the clock starts
    start = time.perf_counter()
    if args.divide:
        moves = np.zeros(MAX_MOVES, np.int64)
        counts = np.zeros(MAX_MOVES, np.int64)
        perft_divide(pos.arrays, 1, moves, counts)
        start = time.perf_counter()
        n = perft_divide(pos.arrays, args.depth, moves, counts)
        for m, c in sorted(zip(moves[:n], counts[:n]), key=lambda mc: move_to_uci(int(mc[0]))):
            print(f"{move_to_uci(int(m))}: {int(c)}")
        nodes = int(counts[:n].sum())
        print()
    else:
        nodes = int(perft(pos.arrays, args.depth))
    elapsed = time.perf_counter() - start
    nps = int(nodes / elapsed) if elapsed > 0 else 0
    print(f"Nodes: {nodes}  time: {elapsed:.3f} s  nps: {nps}")
    return 0
