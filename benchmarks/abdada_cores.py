"""Does the sweep's A arm (ABDADA, k threads over one table, k × N nodes) search as well on k
cores as on the one core its games gave it (issue 43)?  In the sweep a point's threads share one
core, so a thread that runs ahead leaves table entries the others find before they search; on
k cores the threads start together and overlap more.  For positions of A2's own games, A2 at
2 × N on two cores and pinned to one core (``os.sched_setaffinity``), each run ``--repeats``
times (ABDADA's threads race, so a move is not a pure function of the position): the mean depth
it answers at and how often its move is a deep search's (the full engine at ``--reference``
nodes), beside the full engine alone at N and at 2 × N.

Only k = 2 can be run on a two-core machine; the measure is a proxy (depth, agreement), not
games.  Needs two free cores: pause anything else while it runs.

Usage: python benchmarks/abdada_cores.py [--positions 300] [--repeats 3] [--nodes 10000]
       [--reference 400000] [--out docs/results/scaling/abdada-cores.md]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lazy_cluster_moves import positions  # noqa: E402


def run_team(fens: list[str], nodes: int, cores: set[int], reference: dict[str, str]) -> tuple[float, float]:
    """A2 at 2 × ``nodes`` on ``cores``: mean depth, share of moves equal to the reference's."""
    from players.decomposition.config import load_decomposition
    from players.decomposition.player import DecompositionPlayer
    from players.limits import Limit
    os.sched_setaffinity(0, cores)  # the search threads started from here inherit it
    config = load_decomposition(ROOT / "configs" / "decomposition" / "abdada-whole-budget.yaml", workers=2)
    depths, agree = [], 0
    with DecompositionPlayer(config) as team:
        for fen in fens:
            team.new_game()
            r = team.search(chess.Board(fen), Limit(nodes=2 * nodes))
            depths.append(r.depth)
            agree += r.bestmove == reference[fen]
    return statistics.mean(depths), agree / len(fens)


def run_alone(fens: list[str], nodes: int, reference: dict[str, str]) -> tuple[float, float]:
    """The full engine alone: mean depth, share of moves equal to the reference's."""
    from players.limits import Limit
    from players.searcher import Searcher
    engine = Searcher()
    depths, agree = [], 0
    for fen in fens:
        engine.new_game()
        r = engine.search(fen, Limit(nodes=nodes))
        depths.append(r.depth)
        agree += r.bestmove == reference[fen]
    return statistics.mean(depths), agree / len(fens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--every", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=10_000, help="N: each thread's nodes (the sweep's)")
    parser.add_argument("--reference", type=int, default=400_000, help="the deep search's nodes")
    parser.add_argument("--games", default="data/games/sweep/A-2/games.jsonl.xz")
    parser.add_argument("--out", help="a Markdown table to write as well")
    args = parser.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        parser.error("needs two cores")
    two = set(sorted(os.sched_getaffinity(0))[:2])
    fens = positions(ROOT / args.games, args.every, args.positions)
    if not fens:
        parser.error(f"{args.games}: no positions there")
    from players.limits import Limit
    from players.searcher import Searcher
    deep = Searcher()
    reference = {}
    for fen in fens:
        deep.new_game()
        reference[fen] = deep.search(fen, Limit(nodes=args.reference)).bestmove
    runs: dict[str, list[tuple[float, float]]] = {"two cores": [], "one core": []}
    for _ in range(args.repeats):  # alternated, so that a drift in the machine's load falls on both
        for label, cores in (("two cores", two), ("one core", {min(two)})):
            runs[label].append(run_team(fens, args.nodes, cores, reference))
            print(label, runs[label][-1], flush=True)
    os.sched_setaffinity(0, two)
    rows = [(f"A2 on {label} ({args.repeats} runs)", statistics.mean(d for d, _ in r), statistics.mean(a for _, a in r),
             f"{min(a for _, a in r):.3f}-{max(a for _, a in r):.3f}") for label, r in runs.items()]
    for n in (args.nodes, 2 * args.nodes):
        depth, agree = run_alone(fens, n, reference)
        rows.append((f"full engine alone at {n:,}", depth, agree, "-"))
    table = [f"{len(fens)} positions of A2's games; N = {args.nodes:,}; reference: the full engine at "
             f"{args.reference:,} nodes.", "",
             "| player | mean depth | same move as the reference | range over runs |", "|---|---|---|---|"]
    table += [f"| {name} | {depth:.2f} | {agree:.3f} | {spread} |" for name, depth, agree, spread in rows]
    print("\n".join(table))
    if args.out:
        from benchmarks.provenance import header
        head = header("ABDADA's A2 on two cores and on one (issue 43)", "abdada_cores.py", "(nothing else running)")
        Path(args.out).write_text("\n".join(head + [""] + table) + "\n")

if __name__ == "__main__":
    main()
