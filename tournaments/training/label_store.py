"""SQLite store of a labelled training set: the positions, where each came from (and, for
self-play, the opening its game began from), and the strong engine's multipv verdict on each.

Every finished self-play game, PGN game and labelled position is committed at once, so
``concilio label`` can be killed and rerun: it finds what is done and does the rest.
Points for the moves follow the STS scale (10 for the best) from the labels, computed
when they are read (``move_points``), so a different scale needs no relabelling.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import chess

from base.errors import ConcilioError
from tournaments.records.opening_record import Opening
from tournaments.openings.reachable import cannot_follow
from tournaments.records.sqlite_file import SqliteFile

SCHEMA = """
CREATE TABLE IF NOT EXISTS positions (
    fen TEXT PRIMARY KEY,      -- EPD: board, side, castling, en passant (no move counters)
    source TEXT NOT NULL,      -- selfplay:SEED:PLY or pgn:FILE:GAME:PLY
    added INTEGER NOT NULL     -- insertion order: exports and samples are reproducible
);
CREATE TABLE IF NOT EXISTS sources (
    source TEXT PRIMARY KEY    -- a finished self-play game (selfplay:SEED) or PGN game (pgn:FILE:GAME)
);
CREATE TABLE IF NOT EXISTS labels (
    fen TEXT PRIMARY KEY,
    engine TEXT NOT NULL,      -- the labeller's id name and its limit
    lines TEXT NOT NULL,       -- JSON [[uci, centipawns], ...], best first, from the side to move
    depth INTEGER NOT NULL,
    nodes INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS openings (
    source TEXT PRIMARY KEY,   -- a self-play game (selfplay:SEED)
    book TEXT NOT NULL,        -- the book's file name
    entry INTEGER NOT NULL,    -- the opening's number in the book (1-based)
    fen TEXT NOT NULL,         -- the opening's position
    moves TEXT NOT NULL        -- UCI moves played from it before the game began, space-separated
);
"""


@dataclass(frozen=True)
class Label:
    """The labeller's multipv lines for one position: (UCI move, centipawns for the side to
    move) best first; a mate counts as ±``MATE_SCORE`` minus the distance."""

    fen: str
    engine: str
    lines: tuple[tuple[str, int], ...]
    depth: int
    nodes: int


MATE_SCORE = 32000
POINTS_PER_EXPECTED_SCORE = 100  # a point lost per percentage point of expected score


def expected_score(cp: float) -> float:
    """The Elo expectation of a centipawn score (400 cp per factor of ten in odds)."""
    return 1.0 / (1.0 + 10.0 ** (-max(-4000.0, min(4000.0, cp)) / 400.0))


def move_points(lines: Sequence[tuple[str, int]]) -> dict[str, int]:
    """STS-scale points: 10 for the best move, one point less per percentage point of
    expected score lost against it, moves worth no point left out.  Measuring the loss in
    expected score rather than centipawns means 50 cp matter in a balanced position and
    hardly at all when one side is a rook up."""
    if not lines:
        return {}
    best = expected_score(lines[0][1])
    out = {}
    for move, cp in lines:
        points = math.floor(10 - POINTS_PER_EXPECTED_SCORE * (best - expected_score(cp)) + 0.5)
        if points > 0:
            out[move] = min(points, 10)
    return out


class OpeningMismatchError(ConcilioError, ValueError):
    """A stored self-play game that cannot have started from the opening its plan draws."""


class LabelStore(SqliteFile):
    SCHEMA = SCHEMA

    # --- positions --------------------------------------------------------------------------------
    def finished_sources(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT source FROM sources")}

    def add_source(self, source: str, positions: Iterable[tuple[str, str]], opening: Opening | None = None) -> int:
        """A finished game's sampled positions (fen, source), the game itself and the opening
        it began from, in one transaction: a game is either wholly stored or redone.
        Returns positions added."""
        start = self.count_positions()
        with self.db:
            before = self.db.total_changes
            self.db.executemany("INSERT OR IGNORE INTO positions VALUES (?,?,?)",
                                [(fen, src, start + i) for i, (fen, src) in enumerate(positions)])
            added = self.db.total_changes - before
            self.db.execute("INSERT OR IGNORE INTO sources VALUES (?)", (source,))
            if opening is not None:
                self.db.execute("INSERT OR REPLACE INTO openings VALUES (?,?,?,?,?)", _opening_row(source, opening))
        return added

    # --- openings ---------------------------------------------------------------------------------
    def backfill_openings(self, openings: Iterable[tuple[str, Opening]]) -> int:
        """Record (source, opening) for games stored before openings were: a game that has
        one keeps it.  Each is first checked against the game's stored positions
        (``tournaments.openings.reachable``), so that a store filled from another book or seed is not
        given openings its games never started from: a match excluding them would then let
        the real ones in.  Returns openings added."""
        recorded = set(self.openings())
        rows = []
        for source, opening in openings:
            if source in recorded:
                continue
            start = chess.Board(opening.start_fen)
            for fen, position in self.db.execute("SELECT fen, source FROM positions WHERE source LIKE ?",
                                                 (f"{source}:%",)):
                reason = cannot_follow(start, chess.Board(f"{fen} 0 1"), int(position.rsplit(":", 1)[1]))
                if reason is not None:
                    raise OpeningMismatchError(
                        f"{self.path}: {position} cannot follow {opening.book}:{opening.entry} ({reason}); "
                        "was this store filled with another book or seed? Its games' openings are not recorded")
            rows.append(_opening_row(source, opening))
        with self.db:
            cur = self.db.executemany("INSERT OR IGNORE INTO openings VALUES (?,?,?,?,?)", rows)
        return cur.rowcount

    def openings(self) -> dict[str, Opening]:
        """The opening of every self-play game that has one recorded, by game (selfplay:SEED)."""
        rows = self.db.execute("SELECT source, book, entry, fen, moves FROM openings ORDER BY source")
        return {source: Opening(book, entry, fen, tuple(moves.split())) for source, book, entry, fen, moves in rows}

    def count_positions(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM positions").fetchone()[0]

    def unlabelled(self) -> list[str]:
        rows = self.db.execute("SELECT p.fen FROM positions p LEFT JOIN labels l ON p.fen = l.fen "
                               "WHERE l.fen IS NULL ORDER BY p.added")
        return [r[0] for r in rows]

    # --- labels -----------------------------------------------------------------------------------
    def add_labels(self, labels: Iterable[Label]) -> int:
        rows = [(x.fen, x.engine, json.dumps([list(line) for line in x.lines]), x.depth, x.nodes) for x in labels]
        with self.db:
            cur = self.db.executemany("INSERT OR IGNORE INTO labels VALUES (?,?,?,?,?)", rows)
        return cur.rowcount

    def count_labels(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM labels").fetchone()[0]

    def labelled(self) -> list[tuple[str, str, Label]]:
        """(fen, source, label) of every labelled position, in insertion order."""
        rows = self.db.execute("SELECT p.fen, p.source, l.engine, l.lines, l.depth, l.nodes FROM positions p "
                               "JOIN labels l ON p.fen = l.fen ORDER BY p.added")
        return [(fen, source, Label(fen, engine, tuple((m, int(cp)) for m, cp in json.loads(lines)), depth, nodes))
                for fen, source, engine, lines, depth, nodes in rows]


def _opening_row(source: str, opening: Opening) -> tuple[str, str, int, str, str]:
    return source, opening.book, opening.entry, opening.fen, " ".join(opening.moves)
