"""``concilio eval``: the evaluation of one position, category by category."""
from __future__ import annotations

import argparse

from concilio.commands.inputs import add_position_args, add_spec_args, position, spec
from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "eval", "trace the evaluation category by category", "concilio eval --moves e2e4 e7e5 --mask MBX")
    add_position_args(p)
    add_spec_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from players.trace import trace
    evaluation = spec(args.mask, args.weights)
    pos = position(args.fen, args.moves)
    print(trace(pos, evaluation).format())
    return 0
