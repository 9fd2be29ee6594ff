"""What farming an experiment out to a running Dask scheduler costs per task (issue 63):
tasks per second on a local cluster of 2 workers (what ``concilio match --concurrency 2``
starts) against a ``dask scheduler`` with 2 ``dask worker`` processes on loopback (what
``--scheduler tcp://…`` uses), for empty jobs (the pure per-task overhead) and for the games
of a short match under node budgets (the same games on both sides: checked).

Each runner is opened and warmed (the engine compiled on its workers) before the clock runs.

Usage: python benchmarks/cluster_tasks.py [--games 8] [--nodes 1000] [--plies 8] [--jobs 400] [--out FILE]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MATCH = """
players:
  - {{name: mkp, instance: MKP}}
baseline: full
games: {games}
time_control: {{nodes: {nodes}}}
max_plies: {plies}
"""


def nothing(i: int) -> int:
    return i


def rates(runner, args: argparse.Namespace, folder: Path) -> tuple[float, float, dict]:
    """Empty jobs per second, games per second, and the games (to compare)."""
    from tournaments.match.config import load_match
    from tournaments.match.run import run_match
    list(runner.map(nothing, [(i,) for i in range(20)]))  # the channels warm
    started = time.perf_counter()
    done = sum(1 for _ in runner.map(nothing, [(i,) for i in range(args.jobs)]))
    jobs = done / (time.perf_counter() - started)
    match = load_match(text=MATCH.format(games=args.games, nodes=args.nodes, plies=args.plies))
    run_match(replace(match, games=2, output=folder / "warm"), progress=False, out=lambda _: None, runner=runner)
    started = time.perf_counter()
    outcome = run_match(replace(match, output=folder / "timed"), progress=False, out=lambda _: None, runner=runner)
    games = outcome.played / (time.perf_counter() - started)
    return jobs, games, {r.id: _moves(r.pgn) for r in outcome.records}


def _moves(pgn: str) -> list[str]:
    import io

    import chess.pgn
    return [m.uci() for m in chess.pgn.read_game(io.StringIO(pgn)).mainline_moves()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games of the timed match")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes per move")
    parser.add_argument("--plies", type=int, default=8, help="half-moves per game (then adjudicated)")
    parser.add_argument("--jobs", type=int, default=400, help="empty jobs timed")
    parser.add_argument("--out", help="also write the result here (markdown)")
    args = parser.parse_args()
    from base.cluster import Remote
    from base.runner import open_runner
    from benchmarks.provenance import header
    from tests.loopback import loopback
    head = header("Tasks per second: a local cluster against a running scheduler, 2 workers each (issue 63)",
                  "cluster_tasks.py")
    print("\n".join(head), flush=True)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        runner, _ = open_runner(2, dashboard=False)
        try:
            rows["local cluster, 2 workers"] = rates(runner, args, Path(tmp) / "local")
        finally:
            runner.close()
        (Path(tmp) / "logs").mkdir()
        cluster = loopback(Path(tmp) / "logs", workers=2)
        try:
            remote = next(cluster)
            runner, _ = open_runner(2, remote=Remote(remote.address), tell=lambda line: None)
            try:
                rows["scheduler on loopback, 2 workers"] = rates(runner, args, Path(tmp) / "remote")
            finally:
                runner.close()
        finally:
            cluster.close()
    (local, there) = rows.values()
    same = "identical" if local[2] == there[2] else "DIFFERENT"
    table = ["", f"{args.games} games of MKP against the full engine at {args.nodes:,} nodes a move, {args.plies} "
                 f"half-moves; {args.jobs} empty jobs; the games on both: {same}.", "",
             "| where | empty jobs/s | games/s |", "|---|---|---|"]
    table += [f"| {name} | {jobs:,.0f} | {games:.2f} |" for name, (jobs, games, _) in rows.items()]
    table += ["", f"Scheduler / local: empty jobs {there[0] / local[0]:.2f}, games {there[1] / local[1]:.2f}."]
    print("\n".join(table))
    if args.out:
        Path(args.out).write_text("\n".join(head + table) + "\n")


if __name__ == "__main__":
    main()
