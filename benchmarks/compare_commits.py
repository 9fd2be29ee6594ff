"""The working tree against an earlier commit, in one script: bench signature and nodes/s.

The earlier commit is checked out into a temporary git worktree with a numba cache of its
own; ``concilio bench`` then runs alternately in the two trees (A B A B ...), so that the
drift of a shared machine falls on both alike.  The signature (node count) must be equal
for a change that claims not to alter the search; the nodes/s ratio is the median of the
pairs.  With ``--speed`` each tree also runs ``benchmarks/speed.py``'s search measurement
against GNU Chess once.

Usage: python benchmarks/compare_commits.py [REV] [--pairs N] [--depth D] [--speed]
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


def bench(tree: Path, cache: Path, depth: int | None) -> tuple[int, int]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(tree))
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
                    runs[name].append(bench(trees[name], caches[name], args.depth))
            signatures = {name: {n for n, _ in r} for name, r in runs.items()}
            ratios = [w[1] / b[1] for b, w in zip(runs["base"], runs["work"])]
            for name in ("base", "work"):
                label = args.rev if name == "base" else "working tree"
                nps = ", ".join(f"{v:,}" for _, v in runs[name])
                print(f"{label:>14}: signature {sorted(signatures[name])}  nps {nps}")
            same = signatures["base"] == signatures["work"]
            print(f"signature {'unchanged' if same else 'CHANGED'}; nps ratio working/base: median "
                  f"{statistics.median(ratios):.3f} (pairs {', '.join(f'{r:.3f}' for r in ratios)})")
            if args.speed:
                for name in ("base", "work"):
                    print(f"--- speed.py, {args.rev if name == 'base' else 'working tree'}")
                    print(speed(trees[name], caches[name]))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
