"""The lines of a data file (an opening book, a test suite) and the ones that cannot be read.

A file in a format the reader does not know would otherwise come out empty, or nearly so,
with no word why; so every unreadable line is named with its number and reason, and a file
with no usable line is an error that shows its first bad lines.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from base.errors import ConcilioError

SHOWN = 5  # bad lines a message shows; the rest are counted


@dataclass(frozen=True)
class LineProblem:
    """A line of a file that cannot be used, and why (for a PGN game: its first line)."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


class DataFileError(ConcilioError, ValueError):
    """A book or suite that cannot be read or holds nothing usable: the message names the
    file and shows its first bad lines."""

    def __init__(self, message: str, problems: Sequence[LineProblem] = ()) -> None:
        self.problems = tuple(problems)
        super().__init__(message)


def read_text(path: Path) -> str:
    """The file's text, NUL bytes dropped (some published files carry them at line ends)."""
    try:
        return path.read_text(errors="replace").replace("\x00", "")
    except OSError as exc:
        raise DataFileError(f"{path}: cannot read: {exc.strerror or exc}") from None


def data_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, stripped line) of every line but blank ones and ``#`` comments; CRLF
    line ends are split like LF ones."""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield number, line


def listing(problems: Sequence[LineProblem]) -> str:
    """The first few problems, one after another on one line, and how many more there are."""
    shown = "; ".join(str(p) for p in problems[:SHOWN])
    more = len(problems) - SHOWN
    return shown + (f"; and {more} more" if more > 0 else "")


def left_out(path: Path | str, problems: Sequence[LineProblem]) -> str:
    """The one warning for a file some of whose lines are unusable."""
    lines = "line" if len(problems) == 1 else "lines"
    return f"{path}: {len(problems)} unreadable {lines} left out: {listing(problems)}"


def nothing_usable(path: Path | str, what: str, problems: Sequence[LineProblem]) -> DataFileError:
    """The error for a file that holds no usable ``what`` (opening, position)."""
    why = f"{len(problems)} unreadable: {listing(problems)}" if problems else "the file holds none"
    separator = "; " if problems else ": "
    return DataFileError(f"{path}: no usable {what}{separator}{why}", problems)
