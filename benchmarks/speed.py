"""Speed of Concilio's move generator and search against reference engines, in one run.

Every figure is a ratio against a reference measured in this same script, because
the machine is shared and absolute times drift:

* perft: nodes/s of ``concilio perft`` (start position depth 6, Kiwipete depth 5)
  divided by Stockfish's ``go perft`` on the same positions; python-chess's perft
  speed is the other anchor;
* search: nodes/s of each instance on the bench positions, analysing each for the
  same time as GNU Chess 6 (``gnuchess --uci``) does. The two engines take turns
  position by position (GNU Chess first on one position, ours first on the next, the
  order flipped every round), so that a change of the machine's load falls on both
  alike; the ratio is reported per round and as the median of the rounds.

Usage: python benchmarks/speed.py [--seconds S] [--rounds N] [--masks MBXKPAR M MB ...]
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import chess.engine

from evaluation.spec import EvalSpec
from players.bench import BENCH_FENS
from players.core.movegen import perft
from players.external import EngineNotFoundError, find_engine_binary
from players.limits import Limit
from players.position import Position
from players.searcher import Searcher

PERFT_CASES = (
    ("startpos", chess.STARTING_FEN, 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
)


def concilio_perft_nps(fen: str, depth: int) -> float:
    pos = Position.from_fen(fen)
    perft(pos.arrays, 1)  # compiled code loaded before timing
    start = time.perf_counter()
    nodes = perft(pos.arrays, depth)
    return nodes / (time.perf_counter() - start)


def stockfish_perft_nps(binary: str, fen: str, depth: int) -> float:
    """Stockfish's own perft, timed from the ``go`` to the node count (start-up excluded)."""
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin and proc.stdout
    proc.stdin.write("uci\nisready\n")
    while proc.stdout.readline().strip() != "readyok":
        pass
    proc.stdin.write(f"position fen {fen}\ngo perft {depth}\n")
    start = time.perf_counter()
    nodes = None
    for line in proc.stdout:
        match = re.match(r"Nodes searched: (\d+)", line)
        if match:
            nodes = int(match.group(1))
            break
    elapsed = time.perf_counter() - start
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=10)
    assert nodes is not None, "stockfish printed no node count"
    return nodes / elapsed


def python_chess_perft_nps(fen: str, depth: int = 3) -> float:
    board = chess.Board(fen)

    def count(d: int) -> int:
        if d == 1:
            return board.legal_moves.count()
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += count(d - 1)
            board.pop()
        return total

    start = time.perf_counter()
    nodes = count(depth)
    return nodes / (time.perf_counter() - start)


Timed = Callable[[str], tuple[int, float]]  # a position -> (nodes, seconds)


@dataclass(frozen=True)
class RoundSpeed:
    """One round over the bench positions: each engine's summed nodes and seconds."""

    nodes_a: int
    seconds_a: float
    nodes_b: int
    seconds_b: float

    @property
    def nps_a(self) -> float:
        return self.nodes_a / self.seconds_a

    @property
    def nps_b(self) -> float:
        return self.nodes_b / self.seconds_b

    @property
    def ratio(self) -> float:
        """B's speed over A's."""
        return self.nps_b / self.nps_a


def interleaved_rounds(run_a: Timed, run_b: Timed, fens: Sequence[str], rounds: int) -> list[RoundSpeed]:
    """Time two engines position by position, alternating which goes first.

    Timing one engine over all positions and then the other lets a change of the
    shared machine's load land on one of them only; interleaving spreads it over both.
    """
    result = []
    for r in range(rounds):
        nodes, seconds = [0, 0], [0.0, 0.0]
        for i, fen in enumerate(fens):
            order = (0, 1) if (i + r) % 2 == 0 else (1, 0)
            for which in order:
                n, t = (run_a, run_b)[which](fen)
                nodes[which] += n
                seconds[which] += t
        result.append(RoundSpeed(nodes[0], seconds[0], nodes[1], seconds[1]))
    return result


def concilio_timer(spec: EvalSpec, seconds: float) -> Timed:
    searcher = Searcher(spec, 64)
    searcher.search(None, Limit(depth=2))  # load compiled code

    def run(fen: str) -> tuple[int, float]:
        searcher.new_game()
        result = searcher.search(fen, Limit(movetime=int(seconds * 1000)))
        return result.nodes, result.time

    return run


def gnuchess_timer(engine: chess.engine.SimpleEngine, seconds: float) -> Timed:
    def run(fen: str) -> tuple[int, float]:
        info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=seconds), game=object())
        return info.get("nodes", 0), info.get("time", seconds)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="analysis time per bench position")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds over the bench positions")
    parser.add_argument("--masks", nargs="+", default=["MBXKPAR"], help="instances to time against GNU Chess")
    args = parser.parse_args(argv)

    print("== perft (nodes/s) ==")
    try:
        stockfish = find_engine_binary("stockfish")
    except EngineNotFoundError as exc:
        print(f"skipped Stockfish: {exc}")
        stockfish = None
    for name, fen, depth in PERFT_CASES:
        ours = concilio_perft_nps(fen, depth)
        pyc = python_chess_perft_nps(fen, 3)
        line = f"{name:9s} depth {depth}: concilio {ours / 1e6:8.1f} M  python-chess {pyc / 1e6:6.3f} M"
        line += f"  concilio/python-chess {ours / pyc:7.0f}x"
        if stockfish:
            sf = stockfish_perft_nps(stockfish, fen, depth)
            line += f"  stockfish {sf / 1e6:7.1f} M  concilio/stockfish {ours / sf:.2f}"
        print(line, flush=True)

    print(f"\n== search on {len(BENCH_FENS)} bench positions, {args.seconds:g} s each, "
          f"{args.rounds} interleaved rounds (nodes/s) ==")
    try:
        gnuchess = find_engine_binary("gnuchess")
    except EngineNotFoundError as exc:
        print(f"skipped GNU Chess: {exc}")
        gnuchess = None
    for mask in args.masks:
        spec = EvalSpec.parse(mask)
        ours = concilio_timer(spec, args.seconds)
        if gnuchess is None:
            nodes, seconds = map(sum, zip(*(ours(fen) for fen in BENCH_FENS)))
            print(f"concilio {spec.letters:8s}: {nodes / seconds / 1e3:8.0f} k", flush=True)
            continue
        with chess.engine.SimpleEngine.popen_uci([gnuchess, "--uci"]) as engine:
            rounds = interleaved_rounds(gnuchess_timer(engine, args.seconds), ours, BENCH_FENS, args.rounds)
        for n, r in enumerate(rounds, 1):
            print(f"round {n}: GNU Chess 6 {r.nps_a / 1e3:6.0f} k  concilio {spec.letters:8s} "
                  f"{r.nps_b / 1e3:6.0f} k  concilio/gnuchess {r.ratio:.2f}")
        ratios = [r.ratio for r in rounds]
        print(f"concilio {spec.letters:8s}: concilio/gnuchess median {statistics.median(ratios):.2f} "
              f"(rounds {min(ratios):.2f}-{max(ratios):.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
