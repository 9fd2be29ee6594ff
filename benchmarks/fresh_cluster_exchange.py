"""What the fresh lazy cluster (issue 58, ``players.decomposition.fresh_cluster``) exchanges, move
by move through a game, with tables kept from move to move as in play: per move the exchange
rounds, messages, bytes, entries sent (every hop) and originated (taken from outboxes), the share
of those stored during this move, and the depth the cluster answers at against one worker's (a
plain searcher with the same budget, its table kept too).

The positions are one side's moves of a recorded game (``--games``, a ``games.jsonl.xz`` of the
sweep or the map; ``--game`` picks it, ``--side`` the side, default the recorded player's).

Usage: python benchmarks/fresh_cluster_exchange.py [--workers 2 4 8 16] [--nodes 10000 100000] [--moves 10]
       [--game 0 1 2] [--out docs/results/fresh-cluster-exchange.md]
       [--batch 1000] [--latency 1000] [--topology ring] [--threshold 4] [--adaptive] [--buffer 16]
       [--no-carry]
"""
from __future__ import annotations

import argparse
import io
import json
import lzma
import sys
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GAMES = ROOT / "data" / "games" / "map" / "F-4" / "games.jsonl.xz"


def game_positions(games: Path, index: int, side: str | None, moves: int) -> list[str]:
    """FENs one side was to move in, the first ``moves`` of them, of game ``index``."""
    with lzma.open(games, "rt") as lines:
        for i, line in enumerate(lines):
            if i == index:
                game = json.loads(line)
                break
        else:
            raise SystemExit(f"{games} has no game {index}")
    pgn = chess.pgn.read_game(io.StringIO(game["pgn"]))
    own = {"white": chess.WHITE, "black": chess.BLACK}.get(side or "",
                                                         chess.WHITE if game["player_is_white"] else chess.BLACK)
    board = pgn.board()
    fens = []
    for move in pgn.mainline_moves():
        if board.turn == own:
            fens.append(board.fen())
        board.push(move)
    return fens[:moves]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--nodes", type=int, nargs="+", default=[10000], help="node budgets per worker")
    parser.add_argument("--moves", type=int, default=10, help="moves of each game")
    parser.add_argument("--games", type=Path, default=GAMES)
    parser.add_argument("--game", type=int, nargs="+", default=[0], help="which games of the file")
    parser.add_argument("--side", choices=("white", "black"))
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--latency", type=int, default=1000)
    parser.add_argument("--topology", choices=("ring", "all"), default="ring")
    parser.add_argument("--threshold", type=int, default=4)
    parser.add_argument("--adaptive", action="store_true")
    parser.add_argument("--buffer", type=int, default=16)
    parser.add_argument("--no-carry", action="store_true", help="drop a move's leftover outboxes at the next move")
    parser.add_argument("--hash-mb", type=float, default=16)
    parser.add_argument("--out", type=Path, help="write the result document here (its per-move rows beside, .csv)")
    args = parser.parse_args()

    from players.decomposition.fresh_cluster import FreshCluster, FreshClusterConfig
    from players.limits import Limit
    from players.searcher import Searcher

    games = {g: game_positions(args.games, g, args.side, args.moves) for g in args.game}
    setting = (f"batch {args.batch}, latency {args.latency} nodes, {args.topology}, threshold {args.threshold}"
               f"{' (adaptive)' if args.adaptive else ''}, buffer {args.buffer}"
               f"{', outboxes dropped between moves' if args.no_carry else ', outboxes carried between moves'}")
    print(f"{sum(map(len, games.values()))} positions of games {args.game} of {args.games.relative_to(ROOT)}; {setting}")
    print("N      k game move rounds messages    bytes   sent originated fresh depth one depths")
    rows, summary = [], []
    for nodes in args.nodes:
        for k in args.workers:
            config = FreshClusterConfig(workers=k, batch=args.batch, latency=args.latency, topology=args.topology,
                                        threshold=args.threshold, adaptive=args.adaptive, buffer=args.buffer,
                                        carry=not args.no_carry)
            per = []
            for g, fens in games.items():
                # A game as it is played: the cluster's and the lone worker's tables kept from move to move.
                cluster = FreshCluster(config, lambda: Searcher(hash_mb=args.hash_mb))
                alone = Searcher(hash_mb=args.hash_mb)
                for i, fen in enumerate(fens, 1):
                    r = cluster.search(fen, nodes)
                    one = alone.search(fen, Limit(nodes=nodes))
                    x = r.exchange
                    row = dict(nodes=nodes, k=k, game=g, move=i, rounds=x.rounds, messages=r.messages, bytes=x.bytes,
                               sent=r.entries_sent, originated=x.originated, fresh=round(x.fresh_share, 3),
                               depth=r.depth, one=one.depth, depths="/".join(map(str, r.depths)))
                    rows.append(row)
                    per.append(row)
                    print(f"{nodes:<6} {k:<2} {g:>4} {i:>4} {x.rounds:>6} {r.messages:>8} {x.bytes:>8} "
                          f"{r.entries_sent:>6} {x.originated:>10} {x.fresh_share:>5.2f} {r.depth:>5} "
                          f"{one.depth:>3} {row['depths']}", flush=True)
            later = [r["fresh"] for r in per if r["move"] > 1 and r["sent"]]
            summary.append(dict(
                nodes=nodes, k=k, moves=len(per), rounds=_mean(r["rounds"] for r in per),
                messages=_mean(r["messages"] for r in per), bytes=_mean(r["bytes"] for r in per),
                sent=_mean(r["sent"] for r in per), originated=_mean(r["originated"] for r in per),
                first=_mean(r["fresh"] for r in per if r["move"] == 1), later=_mean(later),
                depth=_mean(r["depth"] for r in per), one=_mean(r["one"] for r in per)))
            s = summary[-1]
            print(f"N = {nodes}, k = {k}: {s['moves']} moves, depth {s['depth']:.2f} against one worker's "
                  f"{s['one']:.2f}, {s['messages']:.0f} messages and {s['sent']:.0f} entries a move, fresh share "
                  f"{s['first']:.2f} at a game's first move, {s['later']:.2f} from the second on", flush=True)
    if args.out:
        write(args, setting, summary, rows)
    return 0


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def write(args: argparse.Namespace, setting: str, summary: list[dict], rows: list[dict]) -> None:
    """The result document (summary table) and its per-move rows as CSV beside it."""
    import csv
    from benchmarks.provenance import header
    out: Path = args.out
    with open(out.with_suffix(".csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = header("What the fresh lazy cluster exchanges, move by move through games (issue 58)",
                   "fresh_cluster_exchange.py") + [
        f"* Positions: the first {args.moves} moves of one side in games {', '.join(map(str, args.game))} of "
        f"`{args.games.relative_to(ROOT)}`, searched in order with every table kept from move to move, as in play "
        f"(the cluster's, and the lone worker's it is compared with). Node clock, {setting}.",
        "* Columns, means over the moves: exchange rounds; messages and bytes (every hop of the ring); entries "
        "sent (every hop) and originated (taken from outboxes); *fresh*: the share of the entries sent that were "
        "stored during this move, at a game's first move and from the second on; the depth the cluster answers at "
        "(its vote's) against one worker alone at the same N.",
        f"* Per-move rows: `{out.with_suffix('.csv').name}`.", "",
        "| N / worker | k | moves | rounds | messages | bytes | entries sent | originated | fresh, 1st move "
        "| fresh, later | depth | one worker's depth |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summary:
        lines.append(f"| {s['nodes']:,} | {s['k']} | {s['moves']} | {s['rounds']:.1f} | {s['messages']:.0f} | "
                     f"{s['bytes']:,.0f} | {s['sent']:.0f} | {s['originated']:.0f} | {s['first']:.2f} | "
                     f"{s['later']:.2f} | {s['depth']:.2f} | {s['one']:.2f} |")
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
