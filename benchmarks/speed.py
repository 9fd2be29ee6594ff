"""Speed of Concilio's move generator and search against reference engines, in one run.

Every figure is a ratio against a reference measured in this same script, because
the machine is shared and absolute times drift:

* perft: nodes/s of ``concilio perft`` (start position depth 6, Kiwipete depth 5)
  divided by Stockfish's ``go perft`` on the same positions; python-chess's perft
  speed is the other anchor;
* search: nodes/s of each instance on the bench positions, analysing each for the
  same time as GNU Chess 6 (``gnuchess --uci``) does.

Usage: python benchmarks/speed.py [--seconds S] [--masks MBXKPAR M MB ...]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

import chess
import chess.engine

from evaluation.spec import EvalSpec
from players.bench import BENCH_FENS
from players.core.movegen import perft
from players.external import EngineNotFoundError, find_engine_binary
from players.position import Position
from players.result import SearchLimits
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


def concilio_search_nps(spec: EvalSpec, seconds: float) -> float:
    searcher = Searcher(spec, 64)
    searcher.search(None, SearchLimits(depth=2))  # load compiled code
    nodes = 0
    elapsed = 0.0
    for fen in BENCH_FENS:
        searcher.new_game()
        result = searcher.search(fen, SearchLimits(movetime=int(seconds * 1000)))
        nodes += result.nodes
        elapsed += result.time
    return nodes / elapsed


def gnuchess_search_nps(binary: str, seconds: float) -> float:
    nodes = 0
    elapsed = 0.0
    with chess.engine.SimpleEngine.popen_uci([binary, "--uci"]) as engine:
        for fen in BENCH_FENS:
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=seconds), game=object())
            nodes += info.get("nodes", 0)
            elapsed += info.get("time", seconds)
    return nodes / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="analysis time per bench position")
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

    print(f"\n== search on {len(BENCH_FENS)} bench positions, {args.seconds:g} s each (nodes/s) ==")
    try:
        gnuchess = find_engine_binary("gnuchess")
        gnu = gnuchess_search_nps(gnuchess, args.seconds)
        print(f"GNU Chess 6: {gnu / 1e3:8.0f} k", flush=True)
    except EngineNotFoundError as exc:
        print(f"skipped GNU Chess: {exc}")
        gnu = None
    for mask in args.masks:
        spec = EvalSpec.parse(mask)
        ours = concilio_search_nps(spec, args.seconds)
        line = f"concilio {spec.letters:8s}: {ours / 1e3:8.0f} k"
        if gnu:
            line += f"  concilio/gnuchess {ours / gnu:.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
