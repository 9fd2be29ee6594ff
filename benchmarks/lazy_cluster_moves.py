"""Where the lazy cluster's compute goes in the scaling sweep's games (issue 43, "where the time
goes"): for positions the L arm was to move in, its k workers at N nodes each (the sweep's
config and budget), and per move the depth it answered at, the messages and table entries the
workers sent each other, and the share of its nodes that were overhead: 1 − N_seq(d) / N_k,
where N_k is all workers' nodes and N_seq(d) the nodes the full engine's sequential search
needs to reach the same depth d from an empty table.  A share of 0.75 at k = 4 means the team
reached the depth one worker alone would have reached with a quarter of the nodes.

Every position starts from empty tables (the games keep them from move to move, so depths in
games are a little higher); the positions are every ``--every``-th move the L player made in the
point's games (``data/games/sweep/L-<k>/games.jsonl.xz``), replayed with python-chess.

Usage: python benchmarks/lazy_cluster_moves.py --workers 2 4 8 16 [--positions 60] [--nodes 10000]
       [--out docs/results/scaling/lazy-cluster-moves.md]
"""
from __future__ import annotations

import argparse
import io
import json
import lzma
import statistics
import sys
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def positions(games: Path, every: int, limit: int) -> list[str]:
    """FENs the L player was to move in, every ``every``-th of its moves, in game order."""
    fens: list[str] = []
    with lzma.open(games, "rt") as lines:
        for line in lines:
            game = json.loads(line)
            pgn = chess.pgn.read_game(io.StringIO(game["pgn"]))
            own = chess.WHITE if game["player_is_white"] else chess.BLACK
            board = pgn.board()
            mine = 0
            for move in pgn.mainline_moves():
                if board.turn == own:
                    if mine % every == 0:
                        fens.append(board.fen())
                    mine += 1
                board.push(move)
            if len(fens) >= limit:
                return fens[:limit]
    return fens


def spread(values: list[float]) -> str:
    qs = statistics.quantiles(values, n=20) if len(values) > 1 else values * 19
    return f"{statistics.median(values):.2f} [{qs[0]:.2f}, {qs[-1]:.2f}]"


def measure(k: int, fens: list[str], nodes: int, config_name: str) -> dict:
    from players.decomposition.config import load_decomposition
    from players.decomposition.lockstep import run_lockstep
    from players.decomposition.master_worker import Team
    from players.limits import Limit
    from players.searcher import Searcher
    config = load_decomposition(config_name).with_workers(k)
    depths, shares, messages, entries, gains = [], [], [], [], []
    sequential = Searcher(hash_mb=config.search.hash_mb)
    for fen in fens:
        transport = Team(config.search, k)
        try:
            r = run_lockstep(transport, config.options, fen, nodes=nodes)
        finally:
            transport.close()
        sequential.new_game()
        alone = sequential.search(fen, Limit(nodes=nodes))
        sequential.new_game()
        seq = sequential.search(fen, Limit(depth=r.depth))
        depths.append(r.depth)
        gains.append(r.depth - alone.depth)
        shares.append(1 - seq.nodes / r.nodes)
        messages.append(r.messages)
        entries.append(r.entries_sent)
    return {"k": k, "positions": len(fens), "depth": spread(depths), "depth_gain": spread(gains),
            "overhead": spread(shares), "messages": spread(messages), "entries": spread(entries)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--every", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=10_000, help="nodes per worker (the sweep's N)")
    parser.add_argument("--config", default="lazy-cluster-in-process")
    parser.add_argument("--games", default="data/games/sweep", help="the sweep's archived games")
    parser.add_argument("--out", help="a Markdown table to write as well")
    args = parser.parse_args()
    rows = []
    for k in args.workers:
        games = ROOT / args.games / f"L-{k}" / "games.jsonl.xz"
        if not games.exists():
            games = ROOT / args.games / "L-2" / "games.jsonl.xz"  # no point yet: the k = 2 games' positions
        fens = positions(games, args.every, args.positions)
        row = measure(k, fens, args.nodes, args.config)
        rows.append(row)
        print(json.dumps(row), flush=True)
    table = ["| k | positions | depth, median [5%, 95%] | depth − one worker's at N | overhead share of N_k | "
             "messages | entries sent |", "|---|---|---|---|---|---|---|"]
    table += [f"| {r['k']} | {r['positions']} | {r['depth']} | {r['depth_gain']} | {r['overhead']} | "
              f"{r['messages']} | {r['entries']} |" for r in rows]
    print("\n".join(table))
    if args.out:
        Path(args.out).write_text("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
