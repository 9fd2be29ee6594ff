"""What a move costs outside the search: the round trip of ``position … moves …`` + ``go``
with an almost empty clock, late in a long game, as a GUI sends it.

Near the end of a fast game the increment is all an engine has; if the round trip costs more
than the increment, the clock drains and the engine flags however little it searches.  Each
tree named is started as ``python -P -m concilio uci`` with its own code; the game is a
seeded random game of 250 half-moves, replayed one move at a time as a GUI would resend it.

Usage: python benchmarks/uci_latency.py [TREE ...] [--clock-ms 60] [--increment-ms 30]
(the trees default to this repository's; name two to compare them in one run).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent


def long_game(plies: int = 250, seed: int = 0) -> list[str]:
    """A random legal game of exactly ``plies`` half-moves (the first seed that lasts)."""
    while True:
        rng, board = random.Random(seed), chess.Board()
        while len(board.move_stack) < plies and not board.is_game_over(claim_draw=False):
            board.push(rng.choice(list(board.legal_moves)))
        if len(board.move_stack) == plies:
            return [m.uci() for m in board.move_stack]
        seed += 1


def round_trips(tree: Path, game: list[str], first: int, clock_ms: int, increment_ms: int) -> list[float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.Popen([sys.executable, "-P", "-m", "concilio", "uci"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1, env=env)

    def send(line: str) -> None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def wait(token: str) -> None:
        while not proc.stdout.readline().startswith(token):
            pass

    send("uci"), wait("uciok"), send("isready"), wait("readyok")
    times = []
    for k in range(first, len(game)):
        start = time.perf_counter()
        send(f"position startpos moves {' '.join(game[:k])}")
        send(f"go wtime {clock_ms} btime {clock_ms} winc {increment_ms} binc {increment_ms}")
        wait("bestmove")
        times.append(1000 * (time.perf_counter() - start))
    send("quit")
    proc.wait(timeout=30)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--clock-ms", type=int, default=60)
    parser.add_argument("--increment-ms", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds over the trees")
    args = parser.parse_args()
    game = long_game()
    results: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    for r in range(args.rounds):
        for tree in (args.trees if r % 2 == 0 else args.trees[::-1]):
            results[tree] += round_trips(tree, game, 200, args.clock_ms, args.increment_ms)
    print(f"position + go after 200-249 half-moves, clock {args.clock_ms} ms + {args.increment_ms} ms:")
    for tree, times in results.items():
        times.sort()
        print(f"  {str(tree):<40} median {statistics.median(times):6.1f} ms  p90 {times[int(0.9 * len(times))]:6.1f} ms"
              f"  max {times[-1]:6.1f} ms  ({len(times)} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
