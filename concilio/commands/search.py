"""``concilio search``: one instance searches one position and prints its iterations and best move."""
from __future__ import annotations

import argparse

from concilio.commands.inputs import UsageError, add_position_args, add_spec_args, limits, position, print_info, spec
from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "search", "search one position and print the best move",
                'concilio search --fen "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1" --depth 6 --mask MKP')
    add_position_args(p)
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument("--depth", type=int, help="iterations to search")
    limit.add_argument("--nodes", type=int, help="nodes to search")
    limit.add_argument("--movetime", type=int, help="milliseconds")
    p.add_argument("--hash", type=float, default=16, help="transposition table size in MB")
    add_spec_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from players.searcher import Searcher
    limit = limits(args)
    evaluation = spec(args.mask, args.weights)
    pos = position(args.fen, args.moves)
    if args.hash <= 0:
        raise UsageError(f"--hash must be positive, got {args.hash}")
    searcher = Searcher(evaluation, args.hash)
    result = searcher.search(pos, limit, info=print_info)
    print(f"bestmove {result.bestmove}")
    return 0
