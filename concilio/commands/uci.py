"""``concilio uci``: be a UCI engine on stdin/stdout (the protocol itself is ``concilio.uci``)."""
from __future__ import annotations

import argparse
import sys

from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "uci", "be a UCI engine on stdin/stdout", "concilio uci 3b   (then: uci, isready, "
                "position startpos, go nodes 20000)")
    p.add_argument("config", nargs="?", help="a player: an instance mask (MKP), or a name or file of an ensemble, "
                   "decomposition, cascade or external engine; default: the full engine")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Speak UCI on stdin/stdout (the full engine, an instance mask or an ensemble file)."""
    from concilio.uci import UciEngine
    engine = UciEngine(args.config)
    engine.run(sys.stdin)
    return 0
