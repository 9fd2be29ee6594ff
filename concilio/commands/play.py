"""``concilio play``: one move of any player of the catalog, with what the player can say
about it (an ensemble's votes and values, a cascade's phases, a search's iterations and PV)."""
from __future__ import annotations

import argparse
import sys

from concilio.commands.inputs import UsageError, add_position_args, position, print_info
from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "play", "let any player choose a move and show why (an ensemble its votes, "
                             "an instance its search)", "concilio play 3b --nodes 20000", "concilio play MKP --depth 8")
    p.add_argument("config", help="a player: a mask (MKP, 76), or a name or file of configs/ensembles, "
                                  "decomposition, cascade or engines (3b, abdada, cascade, gnuchess, ...)")
    add_position_args(p)
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, help="milliseconds (an ensemble's: per instance; default: "
                                                    "an ensemble's file, else 1000)")
    limit.add_argument("--nodes", type=int, help="nodes (an ensemble's: per instance)")
    limit.add_argument("--depth", type=int, help="depth")
    p.add_argument("--hash", type=float, help="MB of each searcher's transposition table")
    p.add_argument("--budget-mode", choices=["per_instance", "equal_total"], help="ensembles")
    p.add_argument("--criterion", help="selection criterion (ensembles; overrides the file)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://host:port (ensembles, "
                                       "decomposition)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ensemble.catalog import build, default_limit, describe
    from players.limits import Limit
    board = position(args.fen, args.moves).to_board()
    if not any(board.legal_moves):
        raise UsageError(f"no legal move in {board.fen()}: the game is over")
    spec = describe(args.config)
    if args.criterion:
        spec = spec.with_criterion(args.criterion)
    if args.scheduler:
        spec = spec.with_scheduler(args.scheduler, "--scheduler")  # ConfigError, exit 2: a host without a port
    if args.movetime or args.nodes or args.depth:
        limit = Limit(movetime=args.movetime, nodes=args.nodes, depth=args.depth)
    else:
        limit = default_limit(spec)
    player = build(spec, events=lambda m: print(f"  ! {m}", file=sys.stderr))
    if args.budget_mode:
        player.configure(budget_mode=args.budget_mode)  # PlayerOptionError (exit 2) for a player without one
    if args.hash:
        player.configure(hash_mb=args.hash)
    with player:
        print(player.describe())
        print(f"Limit: {limit}")
        print()
        played = player.play(board, limit, info=print_info)
    text = played.explain()
    if text:
        print(text)
    print(f"bestmove {played.move or '0000'}")
    return 0 if played.move else 1
