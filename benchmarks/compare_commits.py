"""The working tree against an earlier commit, in one script: bench signature and nodes/s.

The earlier commit is checked out into a temporary git worktree with a numba cache of its
own; ``concilio bench`` then runs alternately in the two trees (A B A B ...), so that the
drift of a shared machine falls on both alike.  The signature (node count) must be equal
for a change that claims not to alter the search; the nodes/s ratio is the median of the
pairs, with their interquartile range and range for the spread (a bench searches for about a
second, so on a shared machine single pairs scatter by several percent: take enough pairs).

With ``--cpu`` a run times the bench's searches by the searching thread's CPU time instead of
the wall clock, ``--repeats`` times in one process, and keeps the best: another process taking
the core then costs the search its time slice but not its measurement (what it still costs,
through the caches, the alternation shares out).  With ``--speed`` each tree also runs
``benchmarks/speed.py``'s search measurement against GNU Chess once.

Usage: python benchmarks/compare_commits.py [REV] [--pairs N] [--depth D] [--cpu [--repeats R]] [--speed]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = re.compile(r"Bench: (\d+) nodes (\d+) nps")
# Run in a tree (its own code on the path): the bench's searches, each from a fresh searcher as
# ``players.bench.run_bench`` does, timed by this thread's CPU time (the search runs in the
# calling thread); the best of the repeats.  Only names every tree since the bench has are used.
CPU_BENCH = """
import sys, time
from players.bench import BENCH_DEPTH, BENCH_FENS, BENCH_HASH_MB
try:
    from players.limits import Limit as SearchLimits
except ImportError:  # a tree from before one Limit replaced the four limit types
    from players.result import SearchLimits
from players.searcher import Searcher
depth = int(sys.argv[2]) or BENCH_DEPTH
Searcher(hash_mb=1).search(BENCH_FENS[0], SearchLimits(depth=1))
best = 0.0
for _ in range(int(sys.argv[1])):
    nodes, cpu = 0, 0.0
    for fen in BENCH_FENS:
        searcher = Searcher(hash_mb=BENCH_HASH_MB)
        start = time.thread_time()
        nodes += searcher.search(fen, SearchLimits(depth=depth)).nodes
        cpu += time.thread_time() - start
    best = max(best, nodes / cpu)
print(f"Bench: {nodes} nodes {int(best)} nps")
"""


def bench(tree: Path, cache: Path, depth: int | None, cpu_repeats: int = 0) -> tuple[int, int]:
    """(signature, nodes/s) of one bench run in ``tree``: ``concilio bench``'s wall-clock figure,
    or with ``cpu_repeats`` the best of that many runs timed by CPU time (``CPU_BENCH``)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(tree))
    if cpu_repeats:
        args = [sys.executable, "-c", CPU_BENCH, str(cpu_repeats), str(depth or 0)]
    else:
        args = [sys.executable, "-m", "concilio", "bench"] + (["--depth", str(depth)] if depth else [])
    done = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True, timeout=1800)
    found = BENCH.search(done.stdout)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"bench failed in {tree}: {done.stderr[-2000:]}")
    return int(found.group(1)), int(found.group(2))


def speed(tree: Path, cache: Path) -> str:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "benchmarks/speed.py", "--seconds", "0.5"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if "search" in line.lower() or "gnu" in line.lower()]
    return "\n".join(lines) or done.stdout[-1500:] + done.stderr[-500:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", default="HEAD", help="the earlier commit (default HEAD)")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--depth", type=int, help="bench depth (default: the bench's own)")
    parser.add_argument("--cpu", action="store_true", help="time by the search thread's CPU time, not the wall clock")
    parser.add_argument("--repeats", type=int, default=3, help="with --cpu: bench runs per process, the best kept")
    parser.add_argument("--speed", action="store_true", help="also run benchmarks/speed.py in both trees")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="concilio-ab-") as scratch:
        base = Path(scratch) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.rev], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            caches = {"base": Path(scratch) / "cache-base", "work": Path(scratch) / "cache-work"}
            trees = {"base": base, "work": ROOT}
            for name in trees:  # compile both before timing anything
                bench(trees[name], caches[name], 1)
            runs: dict[str, list[tuple[int, int]]] = {"base": [], "work": []}
            for pair in range(args.pairs):
                # Alternate who goes first: a machine whose clock drifts during the run would
                # otherwise favour whichever tree always runs first.
                for name in (("base", "work") if pair % 2 == 0 else ("work", "base")):
                    runs[name].append(bench(trees[name], caches[name], args.depth, args.repeats if args.cpu else 0))
            signatures = {name: {n for n, _ in r} for name, r in runs.items()}
            ratios = sorted(w[1] / b[1] for b, w in zip(runs["base"], runs["work"]))
            for name in ("base", "work"):
                label = args.rev if name == "base" else "working tree"
                nps = ", ".join(f"{v:,}" for _, v in runs[name])
                print(f"{label:>14}: signature {sorted(signatures[name])}  nps {nps}")
            same = signatures["base"] == signatures["work"]
            quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
            print(f"signature {'unchanged' if same else 'CHANGED'}; nps ratio working/base"
                  f"{' (CPU time)' if args.cpu else ''}: median {statistics.median(ratios):.3f}, interquartile "
                  f"{quartiles[0]:.3f}-{quartiles[2]:.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f} "
                  f"(pairs, sorted: {', '.join(f'{r:.3f}' for r in ratios)})")
            if args.speed:
                for name in ("base", "work"):
                    print(f"--- speed.py, {args.rev if name == 'base' else 'working tree'}")
                    print(speed(trees[name], caches[name]))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
