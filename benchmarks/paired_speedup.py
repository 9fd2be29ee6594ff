"""Speedup of one decomposition algorithm, measured in pairs: for every Bratko-Kopec position
the sequential search and then the parallel one, so that the machine's drift (10-20 % within
minutes here) hits both alike.  ``concilio speedup`` measures the sequential reference once per
worker count; this script is the check on its time-based rows, repeated as often as asked.

Per run: T1 and Tn summed over the positions, S = T1/Tn, E = S/n, SO = Nn/N1 - 1, and the
workers' speed (nodes per second of search, each) against the sequential search's.

Usage: python benchmarks/paired_speedup.py [CONFIG] [--depth 7] [--runs 3] [--limit N]
CONFIG is a decomposition file (default ``abdada``); its search options are replaced by the
exact mode, whose fixed-depth answers must equal the sequential ones.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

from players.decomposition.config import load_decomposition
from base.runner import Runner
from players.decomposition.runner import open_runner
from tournaments.speedup.run import timed_search
from players.limits import Limit
from base.resources import data_file
from tournaments.records.epd import read_suite

ROOT = Path(__file__).resolve().parents[1]
SUITE = data_file("suites/bratko-kopec.epd")


def one_run(runner: Runner, config, fens: list[str], depth: int, run: int) -> dict:
    exact = replace(config.search, exact=True, null_move=False, lmr=False, futility=False)
    reference = replace(exact, table="", defer=False)
    t1 = tn = n1 = nn = busy = 0.0
    wrong = 0
    for i, fen in enumerate(fens):
        searcher = reference.make_searcher()
        started = time.perf_counter()
        expected = searcher.search(fen, Limit(depth=depth))
        t1 += time.perf_counter() - started
        n1 += expected.nodes
        result, seconds = timed_search(runner, config, exact, fen, depth, f"paired-{run}-{i}-{time.time_ns()}",
                                       f"concilio-paired-{os.getpid()}-{run}-{i}")
        tn += seconds
        nn += result.tally.nodes
        busy += result.tally.busy
        wrong += result.score != expected.score_cp
    n = runner.workers
    return {"T1": t1, "Tn": tn, "S": t1 / tn, "E": t1 / tn / n, "SO": nn / n1 - 1,
            "speed": (nn / busy) / (n1 / t1) if busy else float("nan"), "wrong": wrong}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="abdada")
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="the first N positions only")
    args = parser.parse_args()
    config = load_decomposition(args.config)
    fens = [p.fen for p in read_suite(SUITE).positions][: args.limit]
    runner = open_runner(config.workers, threads=config.threads)
    try:
        runs = []
        for run in range(args.runs):
            r = one_run(runner, config, fens, args.depth, run)
            runs.append(r)
            print(f"run {run + 1}: T1 {r['T1']:.2f} s  T{runner.workers} {r['Tn']:.2f} s  S {r['S']:.2f}  "
                  f"E {r['E']:.2f}  SO {r['SO']:.3f}  worker speed {r['speed']:.2f}  "
                  f"answers off the sequential score: {r['wrong']}", flush=True)
        if len(runs) > 1:
            es = [r["E"] for r in runs]
            print(f"{config.name}, {runner.workers} workers, depth {args.depth}, {len(fens)} positions: "
                  f"E median {statistics.median(es):.2f} (min {min(es):.2f}, max {max(es):.2f})")
    finally:
        runner.close()


if __name__ == "__main__":
    main()
