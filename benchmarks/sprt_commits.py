"""The working tree against an earlier commit in games, until an SPRT decides (fishtest's and
OpenBench's gate for an engine-strength change).

The earlier commit is checked out into a temporary git worktree with a numba cache of its own;
both trees play as UCI engines (``python -m concilio uci``, each with its own PYTHONPATH and
cache), so neither gets the in-process advantage.  Games come from the 8-move book (or --book), each opening
twice with colours swapped, at a short time control (100 ms per move by default, or a clock such
as 10+0.1); the SPRT runs on game pairs (pentanomial) and stops the match by itself.  The output
folder resumes like any match.  The last lines are what a kept change's commit message carries:
the SPRT result and both bench signatures.

Usage: python benchmarks/sprt_commits.py REV [--movetime MS | --clock 10+0.1] [--elo0 0] [--elo1 5] [--book FILE]
       [--games 4000] [--concurrency 2] [--overhead 10] [--output runs/sprt-REV]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.compare_commits import bench  # noqa: E402
from players.clock import MOVETIME_MARGIN_MS  # noqa: E402


def engine(tree: Path, cache: Path) -> list[str]:
    """The command line of one tree's UCI engine.  ``-P``: without it ``python -m`` puts the
    current folder (the working tree) first on the path, and both engines would run its code."""
    return ["env", f"PYTHONPATH={tree}", f"NUMBA_CACHE_DIR={cache}", sys.executable, "-P", "-m", "concilio", "uci"]


def check_runs_its_tree(command: list[str], tree: Path) -> None:
    """Fail unless the engine command imports the engine from ``tree`` (a match of the working
    tree against itself would pass every SPRT's H0 silently)."""
    where = "import importlib.util; print(importlib.util.find_spec('players').origin)"
    probe = command[:command.index("-m")] + ["-c", where]
    found = subprocess.run(probe, cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    if not Path(found).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"the engine for {tree} imports {found}")


DEFAULT_BOOK = "data:openings/8moves_v3-1000.epd"


def match_file(rev: str, work: list[str], base: list[str], time_control: dict, elo0: float, elo1: float,
               games: int, concurrency: int, output: Path, book: str = DEFAULT_BOOK,
               overhead_ms: int = MOVETIME_MARGIN_MS) -> dict:
    """The match: the working tree against REV, SPRT on game pairs, stopping by itself.  Both
    engines get the same Move Overhead, so that a commit whose default differs (the default
    has changed: CHANGELOG.md) does not play with a different share of the time."""
    options = {"Move Overhead": overhead_ms}
    return {"name": f"sprt-{rev}",
            "description": f"working tree against {rev}: SPRT({elo0:g}, {elo1:g}) on game pairs",
            "players": [{"name": "work", "uci": work, "options": options, "timeout": 5.0},
                        {"name": "base", "uci": base, "options": options, "timeout": 5.0}],
            "baseline": "base", "mode": "gauntlet", "games": games,
            "openings": {"file": book, "seed": 18},
            "time_control": time_control, "max_plies": 400,
            "adjudication": {"resign": {"moves": 3, "score": 1000}, "draw": {"moves": 8, "score": 5, "after": 80}},
            "concurrency": concurrency, "sprt": {"elo0": elo0, "elo1": elo1, "alpha": 0.05, "beta": 0.05},
            "output": str(output)}


def parse_clock(text: str) -> dict:
    base, _, inc = text.partition("+")
    return {"base": float(base), "increment": float(inc or 0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the earlier commit")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--movetime", type=int, default=100, help="ms per move (default 100)")
    how.add_argument("--clock", help="a clock, BASE+INCREMENT in seconds, e.g. 10+0.1")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--games", type=int, default=4000, help="at most (the SPRT usually stops first)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--overhead", type=int, default=MOVETIME_MARGIN_MS,
                        help=f"both engines' Move Overhead in ms (default {MOVETIME_MARGIN_MS}; it comes off a movetime and a "
                             "clock allocation alike)")
    parser.add_argument("--output", help="match folder (default runs/sprt-REV-TC)")
    parser.add_argument("--book", default=DEFAULT_BOOK,
                        help="openings (EPD or PGN; data:... for a packaged one); a change fitted on the 8-move "
                             "book's games is better judged on another (concilio book)")
    args = parser.parse_args()
    tc = parse_clock(args.clock) if args.clock else {"movetime": args.movetime}
    label = args.clock or f"{args.movetime}ms"
    output = Path(args.output or ROOT / "runs" / f"sprt-{args.rev}-{label}").resolve()
    with tempfile.TemporaryDirectory(prefix="concilio-sprt-") as scratch:
        base = Path(scratch) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.rev], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            caches = {"base": Path(scratch) / "cache-base", "work": Path(scratch) / "cache-work"}
            signatures = {name: bench(tree, caches[name], None)[0] for name, tree in (("base", base), ("work", ROOT))}
            for name, tree in (("base", base), ("work", ROOT)):
                check_runs_its_tree(engine(tree, caches[name]), tree)
            config = Path(scratch) / "sprt.yaml"
            config.write_text(yaml.safe_dump(match_file(
                args.rev, engine(ROOT, caches["work"]), engine(base, caches["base"]), tc, args.elo0, args.elo1,
                args.games, args.concurrency, output, args.book, args.overhead), sort_keys=False))
            done = subprocess.run([sys.executable, "-m", "concilio", "match", str(config), "--quiet"], cwd=ROOT)
            if done.returncode != 0:
                return done.returncode
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    summary = (output / "summary.md").read_text().splitlines()
    row = next((line for line in summary if line.startswith("| work |")), "")
    sprt = next((line for line in summary if line.startswith("* work vs base:")), "")
    print(f"SPRT({args.elo0:g}, {args.elo1:g}) at {label} against {args.rev}: {sprt[2:]}\n{row}")
    print(f"Bench: {signatures['work']} (was {signatures['base']} at {args.rev})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
