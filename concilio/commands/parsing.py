"""How every ``concilio`` parser looks: each option's default beside its help, an example in
every epilog, and a subcommand's ``-v`` accepted after it as before it."""
from __future__ import annotations

import argparse
import textwrap


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option's default beside its help, and the epilog's example kept as written.
    A flag's False, an empty list and None say nothing, so they are left out."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        shown = action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE)
        if (not shown or action.nargs == 0 or default in (None, argparse.SUPPRESS) or default == []
                or "%(default)" in text):
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose description may be a function, called only when the help is
    shown (``fit``'s recipe lives in a module that loads the engine)."""

    def format_help(self) -> str:
        if callable(self.description):
            self.description = self.description()
        return super().format_help()


def examples(*lines: str) -> str:
    """An epilog: the command lines, one a line, as a user would type them."""
    return ("example:\n" if len(lines) == 1 else "examples:\n") + "\n".join(f"  {line}" for line in lines)


def command(group, name: str, helptext: str, *example: str, **kwargs) -> argparse.ArgumentParser:
    """A subcommand (or a step of one) whose --help says what it does, its defaults and an
    example."""
    kwargs.setdefault("description", textwrap.fill(helptext[0].upper() + helptext[1:] + ".", 100))
    q = group.add_parser(name, help=helptext, formatter_class=HelpFormatter, epilog=examples(*example), **kwargs)
    # also after the subcommand (concilio play MKP -v); SUPPRESS keeps a -v given before it
    q.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return q


def steps(parser: argparse.ArgumentParser):
    """The steps of a command that has several (``concilio fit positions``, ``fit terms``)."""
    return parser.add_subparsers(dest="step", required=True, metavar="STEP")
