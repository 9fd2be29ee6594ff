"""The openings a labelled training set was played from.

:func:`training_openings` reads them from an exported set (``c2``) or a label store, so
that a match can leave them out and judge a criterion on openings it never trained on.
:func:`annotate_epd` writes them into a set exported before openings were recorded, by
replaying ``concilio label``'s own draws (``labelling.selfplay_openings``); each position
is checked against its recorded opening (``tournaments.openings.reachable``) before it is written.

The shipped ``data/training/selfplay-5k.epd`` was annotated with::

    concilio openings annotate data/training/selfplay-5k.epd \\
        --book data/openings/8moves_v3-1000.epd --seed 1 --games 800

and ``concilio openings shared TRAINING MATCH.yaml…`` says how many
of a match's openings began training games.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import chess

from base.errors import ConcilioError
from tournaments.openings.books import read_book
from tournaments.openings.reachable import cannot_follow
from tournaments.openings.selection import book_keys
from tournaments.records.opening_record import OPCODE, Opening, format_opening, is_opening, parse_opening
from tournaments.training.label_store import LabelStore
from tournaments.training.labelling import LabelPlan, selfplay_openings

SELFPLAY = re.compile(r'\bc1 "(selfplay:(\d+)):(\d+)"')
RECORD = re.compile(rf'\b{OPCODE} "([^"]*)"')


class ProvenanceError(ConcilioError, ValueError):
    """A training set whose openings cannot be read or written as asked."""


def game_openings(path: str | Path) -> dict[str, Opening]:
    """The opening of every self-play game of a training set, by game (``selfplay:SEED``):
    from its ``c2`` records (an exported ``.epd``) or its openings table (a ``.sqlite``
    label store).  A self-play position without a record is an error, not a gap: a
    caller leaving these openings out must not miss one."""
    path = Path(path)
    if path.suffix == ".sqlite":
        if not path.is_file():
            raise ProvenanceError(f"{path}: no such label store")
        with LabelStore(path) as store:
            return store.openings()
    openings: dict[str, Opening] = {}
    parsed: dict[str, Opening] = {}  # the positions of a game repeat its record
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        source = SELFPLAY.search(line)
        if source is None:
            continue
        record = RECORD.search(line)
        if record is None or not is_opening(record.group(1)):
            raise ProvenanceError(f"{path}:{number}: a self-play position without its opening ({OPCODE} "
                                  f'"opening ..."); annotate the file (concilio openings annotate)')
        text = record.group(1)
        if text not in parsed:
            try:
                parsed[text] = parse_opening(text)
            except ValueError as exc:
                raise ProvenanceError(f"{path}:{number}: {exc}") from None
        opening = parsed[text]
        game = source.group(1)
        if openings.setdefault(game, opening).key != opening.key:
            raise ProvenanceError(f"{path}:{number}: {game} has two openings, {openings[game].key} and {opening.key}")
    return openings


def training_openings(path: str | Path) -> set[str]:
    """The position keys (``opening_record.position_key``) of the openings a training set's
    self-play games began from, read from an exported ``.epd`` or a ``.sqlite`` store."""
    return {opening.key for opening in game_openings(path).values()}


def excluded_openings(path: str | Path) -> set[str]:
    """The position keys a match leaves out for ``path``: the openings a training set's games
    began from (an exported ``.epd`` with self-play lines, or a ``.sqlite`` label store), or
    else every opening of a book (a position, or a PGN line's end).  Read once per process
    while the file is unchanged (every point of a sweep excludes the same training set)."""
    path = Path(path)
    stat = path.stat()
    return set(_excluded_openings(path.resolve(), stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=16)
def _excluded_openings(path: Path, mtime_ns: int, size: int) -> frozenset[str]:
    keys = training_openings(path)
    if keys or path.suffix == ".sqlite":
        return frozenset(keys)
    return frozenset(book_keys(read_book(path)))


@dataclass(frozen=True)
class Annotation:
    """What :func:`annotate_epd` did: lines given an opening, lines that had one (checked),
    the games and their distinct openings."""

    added: int
    kept: int
    games: int
    openings: int


def annotate_epd(path: Path, book: Path, seed: int, games: int, out: Path | None = None) -> Annotation:
    """Write each self-play line's opening, as ``concilio label`` with this book, seed and
    number of games drew it, at the end of the line (``c2``); the rest of every line is
    left byte for byte.  A line that already has one must agree.  Fails, writing nothing,
    when a game is not one of the plan's or a position cannot follow its opening."""
    plan = LabelPlan(path, book, games=games, seed=seed)  # the plan's draws only: no store is opened
    drawn = selfplay_openings(plan, read_book(book))
    lines = path.read_text().split("\n")
    added = kept = 0
    used: set[int] = set()
    for i, line in enumerate(lines):
        source = SELFPLAY.search(line)
        if source is None:
            continue
        game_seed, ply = int(source.group(2)), int(source.group(3))
        where = f"{path}:{i + 1}"
        if game_seed not in drawn:
            raise ProvenanceError(f"{where}: selfplay:{game_seed} is not one of the {games} games of seed {seed}")
        opening = drawn[game_seed]
        used.add(game_seed)
        reason = cannot_follow(chess.Board(opening.start_fen), chess.Board(" ".join(line.split()[:4]) + " 0 1"), ply)
        if reason:
            raise ProvenanceError(f"{where}: cannot come from {opening.book}:{opening.entry} at ply {ply}: {reason}")
        record = RECORD.search(line)
        if record is not None:
            if not is_opening(record.group(1)) or parse_opening(record.group(1)).key != opening.key:
                raise ProvenanceError(f"{where}: its {OPCODE} is not the draw's opening {opening.key}")
            kept += 1
            continue
        if not line.rstrip().endswith(";"):
            raise ProvenanceError(f"{where}: not an EPD line ending in an operation")
        lines[i] = line.rstrip() + f' {OPCODE} "{format_opening(opening)}";' + line[len(line.rstrip()):]
        added += 1
    (out or path).write_text("\n".join(lines))
    return Annotation(added, kept, len(used), len({drawn[s].key for s in used}))
