"""The ``concilio`` command: one front door with a subcommand per job, each a module of
``concilio.commands`` (its parser and what it does); this module only dispatches.

Every subcommand turns bad input (a FEN, a mask, a limit) into one clear line on
stderr and exit code 2, the convention of command-line tools for usage errors.
"""
from __future__ import annotations

import argparse
import sys

from base.errors import ConcilioError
from base.interrupts import Interrupted, stop_on_signals
from base.logs import set_verbosity
from concilio.commands import (autotune, bench, book, eval_trace, fit, label, match, openings, perft, play, scaling,
                               search, speed_table, speedup, speedup_summary, suite, uci)
from concilio.commands.parsing import HelpFormatter, Parser, examples

EXIT_USAGE = 2
EXIT_SIGINT = 130  # the shell's 128 + SIGINT
# Long commands: Ctrl-C or SIGTERM stops them cleanly.  Those that resume from what they
# wrote are rerun to finish; the others start again.
RESUMABLE = {"match", "suite", "label", "autotune", "book", "fit positions"}
LONG = {"match", "scaling", "suite", "label", "autotune", "book", "fit", "speedup", "speed-table"}
# The commands, in the order their help lists them.
COMMANDS = (perft, search, eval_trace, play, suite, speed_table, autotune, label, book, fit, openings, match, scaling,
            uci, speedup, speedup_summary, bench)


class VersionAction(argparse.Action):
    """``--version``: the installed package's version and the engine's fingerprint (the hash of
    the search and evaluation code that stores and matches are keyed by), read only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(version_text())
        parser.exit()


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from base.fingerprint import engine_fingerprint
    try:
        installed = version("concilio")
    except PackageNotFoundError:  # run from a checkout that was never installed
        installed = "(not installed)"
    return f"concilio {installed} (engine {engine_fingerprint()})"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="concilio", description="Knowledge-distribution chess players.",
                    formatter_class=HelpFormatter, epilog=examples("concilio play MKP --movetime 500",
                                                                   "concilio match quick"))
    parser.add_argument("--version", action=VersionAction, help="print the version and the engine's fingerprint")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="say more on stderr: -v Concilio's and Dask's INFO logs, -vv their DEBUG logs")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    set_verbosity(args.verbose)
    try:
        if args.command in LONG:
            with stop_on_signals():
                return args.func(args)
        return args.func(args)
    except ConcilioError as exc:  # every error about the input or the surroundings: one message, exit 2
        print(f"concilio {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # the workers are closed by now, the finished work written
        print(_stopped(args, exc), file=sys.stderr)
        return exc.exit_code if isinstance(exc, Interrupted) else EXIT_SIGINT


def _stopped(args: argparse.Namespace, exc: KeyboardInterrupt) -> str:
    """The one line a stopped command prints: what stopped it, and how to go on."""
    by = str(exc) if isinstance(exc, Interrupted) else "SIGINT"
    command = args.command + (f" {args.step}" if getattr(args, "step", None) else "")
    if command in RESUMABLE:
        return f"concilio {command}: stopped ({by}); what it finished is kept: run the same command to resume"
    if args.command in LONG:
        return f"concilio {command}: stopped ({by}); run the same command to start it again"
    return f"concilio {command}: stopped ({by})"


if __name__ == "__main__":
    sys.exit(main())
