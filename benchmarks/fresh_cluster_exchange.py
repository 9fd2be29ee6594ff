"""What the fresh lazy cluster (issue 58, ``players.decomposition.fresh_cluster``) exchanges, move
by move through a game, with tables kept from move to move as in play: per move the exchange
rounds, messages, bytes, entries sent (every hop) and originated (taken from outboxes), the share
of those stored during this move, and the depth the cluster answers at against one worker's (a
plain searcher with the same budget, its table kept too).

The positions are one side's moves of a recorded game (``--games``, a ``games.jsonl.xz`` of the
sweep or the map; ``--game`` picks it, ``--side`` the side, default the recorded player's).

Usage: python benchmarks/fresh_cluster_exchange.py [--workers 2 4 8 16] [--nodes 10000] [--moves 10]
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
    parser.add_argument("--nodes", type=int, default=10000, help="node budget per worker")
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--games", type=Path, default=GAMES)
    parser.add_argument("--game", type=int, default=0)
    parser.add_argument("--side", choices=("white", "black"))
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--latency", type=int, default=1000)
    parser.add_argument("--topology", choices=("ring", "all"), default="ring")
    parser.add_argument("--threshold", type=int, default=4)
    parser.add_argument("--adaptive", action="store_true")
    parser.add_argument("--buffer", type=int, default=16)
    parser.add_argument("--no-carry", action="store_true", help="drop a move's leftover outboxes at the next move")
    parser.add_argument("--hash-mb", type=float, default=16)
    args = parser.parse_args()

    from players.decomposition.fresh_cluster import FreshCluster, FreshClusterConfig
    from players.limits import Limit
    from players.searcher import Searcher

    fens = game_positions(args.games, args.game, args.side, args.moves)
    print(f"{len(fens)} positions of game {args.game} of {args.games.relative_to(ROOT)}; N = {args.nodes} a worker, "
          f"batch {args.batch}, latency {args.latency}, {args.topology}, threshold {args.threshold}"
          f"{' (adaptive)' if args.adaptive else ''}, buffer {args.buffer}")
    print("k  move rounds messages    bytes   sent originated fresh depth one depths")
    for k in args.workers:
        config = FreshClusterConfig(workers=k, batch=args.batch, latency=args.latency, topology=args.topology,
                                    threshold=args.threshold, adaptive=args.adaptive, buffer=args.buffer,
                                    carry=not args.no_carry)
        cluster = FreshCluster(config, lambda: Searcher(hash_mb=args.hash_mb))
        alone = Searcher(hash_mb=args.hash_mb)
        gains, fresh, messages, sent = [], [], [], []
        for i, fen in enumerate(fens, 1):
            r = cluster.search(fen, args.nodes)
            one = alone.search(fen, Limit(nodes=args.nodes))
            gains.append(r.depth - one.depth)
            messages.append(r.messages)
            sent.append(r.entries_sent)
            if i > 1:
                fresh.append(r.fresh_share)
            print(f"{k:<2} {i:>4} {r.rounds:>6} {r.messages:>8} {r.bytes:>8} {r.entries_sent:>6} "
                  f"{r.entries_originated:>10} {r.fresh_share:>5.2f} {r.depth:>5} {one.depth:>3} "
                  f"{'/'.join(map(str, r.worker_depths))}", flush=True)
        later = f", fresh share from the second move on {sum(fresh) / len(fresh):.2f}" if fresh else ""
        print(f"k = {k}: over {len(gains)} moves answering depth {sum(gains) / len(gains):+.2f} against one "
              f"worker, {sum(messages) / len(messages):.0f} messages and {sum(sent) / len(sent):.0f} entries a "
              f"move{later}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
