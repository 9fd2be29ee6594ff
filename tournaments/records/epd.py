"""Test-suite EPD files: positions with their best moves (``bm``), avoid moves (``am``),
an ``id`` and, for STS, points per move (``c0 "f5=10, Be5+=2"``, cross-checked with the
UCI moves of ``c9``); a labelled training set adds each position's source (``c1``) and the
opening its game began from (``c2 "opening …"``, ``tournaments.records.opening_record``).

Real files have quirks the loader copes with (``data/README.md``): NUL bytes
and CRLF at line ends, ``bm Qd1 + ;`` with the check sign detached, FENs with move
counters before ``;`` (or before the operations), pv fields with illegal SAN.  A line that
still cannot be read is skipped and named with its number and reason; the rest of the file is
used, and a file with no usable position is an error.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import chess

from tournaments.records.file_lines import LineProblem, data_lines, nothing_usable, read_text
from tournaments.records.opening_record import OPCODE, is_opening, parse_opening


@dataclass(frozen=True)
class SuitePosition:
    """One test position; moves are UCI so that results compare without a board."""

    fen: str
    best: tuple[str, ...]
    avoid: tuple[str, ...] = ()
    id: str = ""
    points: dict[str, int] = field(default_factory=dict)  # STS: move -> points (best = 10)
    line: int = 0
    theme: str = ""
    source: str = ""  # c1 of a labelled set: "selfplay:SEED:PLY" or "pgn:FILE:GAME:PLY"
    opening: str = ""  # c2 of a labelled set: the position key of the opening its game began from

    @property
    def game(self) -> str:
        """The game a labelled position comes from (its source without the ply), so that
        positions of one game fall on the same side of a train/validation split; a
        position with no source is its own group."""
        return self.source.rsplit(":", 1)[0] if self.source.count(":") >= 2 else self.source or self.fen

    @property
    def opening_group(self) -> str:
        """What a split that judges held-out play keeps on one side: the opening the
        position's game began from, when recorded (games from one opening are alike in
        their early plies, and a match may start from it again), else its game."""
        return self.opening or self.game

    def solved_by(self, move: str) -> bool:
        """A move solves the position if it is a best move (or, with only ``am``, not an avoided one)."""
        if self.best:
            return move in self.best
        return bool(self.avoid) and move not in self.avoid

    def points_for(self, move: str) -> int:
        return self.points.get(move, 0)


@dataclass
class Suite:
    name: str
    path: str
    positions: list[SuitePosition]
    problems: list[LineProblem]  # every unreadable line

    @property
    def skipped(self) -> list[str]:
        """"file:line: reason" for every unreadable line."""
        return [f"{self.path}:{p.line}: {p.reason}" for p in self.problems]


DETACHED_CHECK = re.compile(r"(\b(?:bm|am)\s[^;]*?)\s+([+#])")
# A FEN's move counters after EPD's four fields, then ";" or the operations or nothing.
COUNTERS = re.compile(r"^(\S+\s+\S+\s+\S+\s+\S+)\s+(\d+)\s+(\d+)(?=[\s;]|$)\s*(.*)$")
PV_FIELD = re.compile(r"\bpv\s[^;]*;")
GLUED_COUNTERS = re.compile(r"^(\S+\s+[wb]\s+\S+)\s+-(\d+)\s+(\d+)\s*;")  # "w - -1 12 ;"
UNQUOTED_ID = re.compile(r"\bid\s+([^\s\";]+)\s*(?:;|$)")


def split_counters(line: str) -> tuple[str, tuple[int, int] | None]:
    """A line with a full FEN (six fields) as EPD (four), and the FEN's halfmove clock and
    fullmove number; None when the line has no counters."""
    found = COUNTERS.match(line)
    if found is None:
        return line, None
    fen4, halfmove, fullmove, rest = found.groups()
    return f"{fen4} {rest}".rstrip(), (int(halfmove), int(fullmove))


def clean_line(raw: str) -> str:
    line = raw.replace("\x00", "").strip()
    line = GLUED_COUNTERS.sub(r"\1 - \2 \3 ;", line)  # an ep square glued to the halfmove clock
    line = UNQUOTED_ID.sub(r'id "\1";', line)
    line, _ = split_counters(line)  # "fen 0 1 ; bm x" -> "fen ; bm x"
    line = re.sub(r"^(\S+\s+[wb]\s+\S+\s+\S+)\s*;\s*", r"\1 ", line)  # "fen ; bm" -> "fen bm"
    while DETACHED_CHECK.search(line):
        line = DETACHED_CHECK.sub(r"\1\2", line)
    return line


def parse_line(line: str, number: int = 0, labelled: bool = True) -> SuitePosition:
    """One EPD record; ``ValueError`` with the reason if it cannot be used (a test suite's
    record needs a ``bm`` or ``am``; ``labelled=False`` reads bare positions)."""
    check_position(line)
    try:
        board, ops = chess.Board.from_epd(line)
    except ValueError:
        # A pv (or other SAN field) with an illegal move should not cost the position.
        board, ops = chess.Board.from_epd(PV_FIELD.sub("", line))
    check_board(board)
    best = tuple(m.uci() for m in ops.get("bm", []) or [])
    avoid = tuple(m.uci() for m in ops.get("am", []) or [])
    if labelled and not best and not avoid:
        raise ValueError("no bm or am operation")
    points: dict[str, int] = {}
    c0 = ops.get("c0")
    if isinstance(c0, str) and "=" in c0:
        uci_moves = str(ops.get("c9", "")).split()
        for i, item in enumerate(c0.split(",")):
            if "=" not in item:
                continue
            san, value = item.strip().rsplit("=", 1)
            try:
                uci = board.parse_san(san.strip()).uci()
            except ValueError:
                if i < len(uci_moves):
                    uci = uci_moves[i]  # c9 lists the same moves in UCI
                else:
                    raise ValueError(f"c0: {san!r} is not a legal move") from None
            points[uci] = int(value)
    ident = str(ops.get("id", "") or "")
    theme = ident.split(")", 1)[1].strip().rsplit(".", 1)[0] if ident.startswith("STS") and ")" in ident else ""
    source = str(ops.get("c1", "") or "")
    record = str(ops.get(OPCODE, "") or "")
    opening = parse_opening(record).key if is_opening(record) else ""
    return SuitePosition(board.fen(), best, avoid, ident, points, number, theme, source, opening)


def check_position(line: str) -> None:
    """Name a bad position (EPD's first four fields) as such, before its moves fail to parse
    against it: ``ValueError`` with the reason."""
    fields = line.split()
    if len(fields) < 4:
        raise ValueError("not an EPD record (fewer than four position fields)")
    try:
        board = chess.Board(" ".join(fields[:4]) + " 0 1")
    except ValueError as exc:
        raise ValueError(f"invalid position: {exc}") from None
    check_board(board)


def check_board(board: chess.Board) -> None:
    """``ValueError`` naming python-chess's reasons when the position is illegal."""
    status = board.status()
    if status != chess.STATUS_VALID:
        reasons = [flag.name.lower().replace("_", " ") for flag in chess.Status if flag & status and flag.name]
        raise ValueError(f"illegal position ({', '.join(reasons)})")


def read_suite(path: str | Path, name: str | None = None, labelled: bool = True) -> Suite:
    """Every readable position of an EPD file; unreadable lines are listed in ``problems``,
    and a file with no usable position is a ``DataFileError`` showing its first bad lines.
    ``labelled=False``: positions without ``bm``/``am`` are kept (a speedup table needs none)."""
    path = Path(path)
    positions, problems = [], []
    for number, raw in data_lines(read_text(path)):
        try:
            positions.append(parse_line(clean_line(raw), number, labelled))
        except ValueError as exc:
            problems.append(LineProblem(number, str(exc)))
    if not positions:
        raise nothing_usable(path, "position", problems)
    return Suite(name or path.stem, str(path), positions, problems)
