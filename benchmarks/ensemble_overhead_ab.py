"""The ensemble's coordination cost in two checkouts, measured in turn on the same machine.

A shared machine's load drifts over minutes, so one checkout measured after the other compares
the load as much as the code.  This runs this folder's ``ensemble_overhead.py`` against each
checkout's code (``PYTHONPATH`` pointing at it) alternately, ``--rounds`` times per size, and prints the median
of the per-move medians for each checkout and size.

Usage: python benchmarks/ensemble_overhead_ab.py BEFORE AFTER [--sizes 2 4] [--nodes 20000] [--repeats 3]
e.g. python benchmarks/ensemble_overhead_ab.py /work/main . --nodes 20000
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def run(checkout: Path, size: int, nodes: int, positions: int, rounds: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, str(Path(__file__).with_name("ensemble_overhead.py")), "--nodes", str(nodes),
               "--sizes", str(size), "--positions", str(positions), "--rounds", str(rounds), "--json"]
    out = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True, check=True).stdout
    return json.loads(next(line[5:] for line in out.splitlines() if line.startswith("JSON ")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3, help="times each position is played per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per checkout and size, interleaved")
    args = parser.parse_args(argv)
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    medians: dict[tuple[str, int], list[float]] = {}
    for repeat in range(args.repeats):
        for size in args.sizes:
            order = list(checkouts.items()) if repeat % 2 == 0 else list(reversed(checkouts.items()))
            for name, path in order:
                r = run(path, size, args.nodes, args.positions, args.rounds)
                medians.setdefault((name, size), []).append(r["coordination_median_ms"])
                print(f"run {repeat + 1} {name:6s} n={size}: median {r['coordination_median_ms']:.1f} ms, mean "
                      f"{r['coordination_ms']:.1f} ms over {r['moves']} moves, same work {r['same_work']}",
                      flush=True)
    print(f"\ncoordination per move (ms; median over runs of each run's per-move median), {args.nodes} nodes")
    print(f"{'n':>3s} " + " ".join(f"{name:>8s}" for name in checkouts))
    for size in args.sizes:
        print(f"{size:3d} " + " ".join(f"{statistics.median(medians[(name, size)]):8.1f}" for name in checkouts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
