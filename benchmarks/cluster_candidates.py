"""Which decomposition without shared memory is the scaling sweep's L arm (issue 43)?  Every
candidate the seeds describe, on the node clock at the sweep's budget (N nodes per worker), on
positions the L arm was to move in: the depth each answers at, the nodes its workers spent,
and the depth one worker alone reaches with N (the baseline the sweep plays against).

A candidate that answers shallower than one worker alone cannot turn k × N into strength at
this budget, whatever its speedup on deep searches (``docs/results/parallel-search.md`` measures those at
depth 6-7, trees of ~230,000 nodes; a move here is 10,000 nodes a worker).  The master-worker
algorithms (root, PV and dynamic splitting, the master tree) search the iterations below
``min_split_depth`` as one job and wait a slice for every dispatch; the lazy cluster starts all
k workers at once.  Every position starts from empty tables, as in
``benchmarks/lazy_cluster_moves.py``, whose positions this reads.

Usage: python benchmarks/cluster_candidates.py [--workers 2 4 8 16] [--positions 40] [--nodes 10000]
       [--out docs/results/scaling/cluster-candidates.md]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lazy_cluster_moves import positions  # noqa: E402

# (label, decomposition file, overrides): every algorithm without shared memory that plays games
CANDIDATES = (
    ("lazy cluster (the L arm)", "lazy-cluster-in-process", {}),
    ("master tree", "master-tree", {}),
    ("root splitting, speculative", "root-split", {"node_clock": True}),
    ("PV splitting + score sharing", "pv-split", {"node_clock": True}),
    ("dynamic splitting", "pv-split", {"node_clock": True, "algorithm": "dynamic_split"}),
    # the same with a tenth of the latency (a 100-node slice: 0.1 ms at a million nodes a second, a
    # fast interconnect, not Dask) and splitting from depth 2: the most these algorithms can get here
    ("root splitting, speculative, slice 100", "root-split", {"node_clock": True, "slice": 100, "min_split_depth": 2}),
    ("PV splitting, slice 100", "pv-split", {"node_clock": True, "slice": 100, "min_split_depth": 2}),
    ("master tree, slice 250", "master-tree", {"slice": 250, "min_split_depth": 3}),
)


def spread(values: list[float]) -> str:
    """Median [5%, 95%], the sweep table's convention."""
    qs = statistics.quantiles(values, n=20) if len(values) > 1 else values * 19
    return f"{statistics.median(values):g} [{qs[0]:g}, {qs[-1]:g}]"


_ALONE: dict[tuple[str, int], int] = {}  # (FEN, N) -> one worker's depth: the same for every candidate


def one_worker_depth(fen: str, nodes: int) -> int:
    """The depth the full engine alone reaches with N from an empty table (the yardstick)."""
    if (fen, nodes) not in _ALONE:
        from players.decomposition.config import load_decomposition
        from players.decomposition.player import DecompositionPlayer
        from players.limits import Limit
        with DecompositionPlayer(load_decomposition(ROOT / "configs" / "decomposition" /
                                                    "lazy-cluster-in-process.yaml", workers=1)) as alone:
            alone.new_game()
            _ALONE[(fen, nodes)] = alone.search(chess.Board(fen), Limit(nodes=nodes)).depth
    return _ALONE[(fen, nodes)]


def measure(name: str, overrides: dict, k: int, fens: list[str], nodes: int) -> dict:
    """One candidate at k workers: depth, nodes and depth over one worker's, per position."""
    from players.decomposition.config import load_decomposition
    from players.decomposition.player import DecompositionPlayer
    from players.limits import Limit
    config = load_decomposition(ROOT / "configs" / "decomposition" / f"{name}.yaml", workers=k, **overrides)
    depths, spent, gains = [], [], []
    with DecompositionPlayer(config) as player:
        for fen in fens:
            player.new_game()
            r = player.search(chess.Board(fen), Limit(nodes=nodes))
            depths.append(r.depth)
            spent.append(r.nodes)
            gains.append(r.depth - one_worker_depth(fen, nodes))
    return {"k": k, "depth": spread(depths), "nodes": spread(spent), "gain": spread(gains),
            "shallower": sum(g < 0 for g in gains) / len(gains)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--every", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=10_000, help="nodes per worker (the sweep's N)")
    parser.add_argument("--games", default="data/games/sweep/L-4/games.jsonl.xz",
                        help="the games whose L-player positions are searched")
    parser.add_argument("--out", help="a Markdown table to write as well")
    args = parser.parse_args()
    fens = positions(ROOT / args.games, args.every, args.positions)
    if not fens:
        parser.error(f"{args.games}: no positions of the L player there")
    rows = []
    for label, name, overrides in CANDIDATES:
        for k in args.workers:
            row = {"candidate": label, **measure(name, overrides, k, fens, args.nodes)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    table = [f"{len(fens)} positions, N = {args.nodes:,} nodes per worker; median [5%, 95%].", "",
             "| candidate | k | depth | nodes, all workers | depth − one worker's at N | share shallower than one worker |",
             "|---|---|---|---|---|---|"]
    table += [f"| {r['candidate']} | {r['k']} | {r['depth']} | {r['nodes']} | {r['gain']} | {r['shallower']:.0%} |"
              for r in rows]
    print("\n".join(table))
    if args.out:
        Path(args.out).write_text("\n".join(header(args.every, args.games) + table) + "\n")


def header(every: int, games: str) -> list[str]:
    """The result document's provenance and what its positions are."""
    from benchmarks.provenance import header as provenance
    return provenance("Decompositions without shared memory at the sweep's budget: which one is L (issue 43)",
                      "cluster_candidates.py") + [
        f"* Positions: every {every}th move the L player made in `{games}`, each from empty tables; "
        "\"one worker\" is the full engine alone at N, the sweep's baseline.", ""]

if __name__ == "__main__":
    main()
