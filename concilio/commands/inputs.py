"""The input several commands share, and how it is read: a position and moves, an
evaluation mask and weights, a search limit, whether to draw a progress bar.  Bad input
raises :class:`UsageError`: one line on stderr, exit code 2."""
from __future__ import annotations

import argparse
import sys

from base.errors import ConcilioError

# A default the parser shows, kept here rather than imported: its owner loads the compiled
# engine (a minute on an empty numba cache), and every command, ``concilio uci`` first (a GUI
# waits ten seconds for ``uciok``), builds the parser before anything else.
# tests/concilio/test_cli.py holds it equal to its owner's constant.
CATEGORIES = "MBXKPAR"  # evaluation.spec.CATEGORIES


class UsageError(ConcilioError):
    """Bad input from the user: printed as one line, exit code 2."""


def add_position_args(q: argparse.ArgumentParser) -> None:
    """--fen and --moves, read by :func:`position`."""
    q.add_argument("--fen", help="position (default: the start position)")
    q.add_argument("--moves", nargs="*", help="UCI moves played from the position")


def position(fen: str | None, moves: list[str] | None = None):
    """The position of ``--fen`` (the start position by default) after ``--moves``."""
    import chess

    from players.position import Position
    try:  # InvalidPositionError (bad FEN) and ValueError (illegal move) both name the input
        pos = Position.from_fen(fen or chess.STARTING_FEN)
        for uci in moves or ():
            pos.push_uci(uci)
        return pos
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def add_quiet(q: argparse.ArgumentParser) -> None:
    """--quiet, read by :func:`progress`."""
    q.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")


def progress(args: argparse.Namespace) -> bool:
    """A progress bar only where a person watches: not with --quiet, and not into a file or
    pipe (a log of carriage returns)."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def add_spec_args(q: argparse.ArgumentParser) -> None:
    """--mask and --weights, read by :func:`spec`."""
    q.add_argument("--mask", default=CATEGORIES, help="categories, as letters (MKP) or the 7-bit integer (76)")
    q.add_argument("--weights", nargs="+", help="seven weights in the order M B X K P A R")


def spec(mask: str, weights: list[str] | None):
    from evaluation.spec import EvalSpec
    values = None
    if weights:
        values = [w for item in weights for w in item.replace(",", " ").split()]
    return EvalSpec.parse(mask, values)


def limits(args: argparse.Namespace):
    from players.limits import Limit
    return Limit(depth=args.depth, nodes=args.nodes, movetime=args.movetime)


def print_info(it) -> None:
    print(it.uci(), flush=True)
