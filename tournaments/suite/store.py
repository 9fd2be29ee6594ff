"""SQLite store of test-suite searches: one row per (position, instance, budget).

Every finished search is committed at once, so a killed run loses at most the batch
in flight and a rerun (or another suite config sharing positions, instances and the
budget) reuses everything already there.  Posterior searches of candidate moves are
cached the same way.  Rows hold what the selection criteria need: move, score, PV,
D, N, nodes, time, the moves of every iteration, the margin probe, and the
per-category terms of the PV's end position.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from players.result import IterationInfo, SearchResult
from players.trace import PositionTerms
from tournaments.records.sqlite_file import SqliteFile

SCHEMA = """
CREATE TABLE IF NOT EXISTS searches (
    fen TEXT NOT NULL,
    instance TEXT NOT NULL,
    budget TEXT NOT NULL,
    move TEXT NOT NULL,
    score INTEGER NOT NULL,
    mate INTEGER,
    pv TEXT NOT NULL,
    depth INTEGER NOT NULL,
    root_done INTEGER NOT NULL,
    root_moves INTEGER NOT NULL,
    seldepth INTEGER NOT NULL,
    nodes INTEGER NOT NULL,
    time REAL NOT NULL,
    iteration_moves TEXT NOT NULL,
    second_score INTEGER,
    leaf_nets TEXT NOT NULL,
    leaf_result INTEGER,
    PRIMARY KEY (fen, instance, budget)
);
CREATE TABLE IF NOT EXISTS positions (
    fen TEXT PRIMARY KEY,
    nets TEXT NOT NULL,
    result INTEGER
);
CREATE TABLE IF NOT EXISTS posterior (
    fen TEXT NOT NULL,
    move TEXT NOT NULL,
    depth INTEGER NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (fen, move, depth)
);
"""


@dataclass(frozen=True)
class StoredSearch:
    """A search as the store holds it: the result plus its PV end's terms."""

    fen: str
    instance: str
    budget: str
    result: SearchResult
    leaf: PositionTerms


class SearchStore(SqliteFile):
    SCHEMA = SCHEMA

    # --- searches ---------------------------------------------------------------------------------
    def done(self, instance: str, budget: str) -> set[str]:
        """FENs already searched by this instance under this budget."""
        rows = self.db.execute("SELECT fen FROM searches WHERE instance = ? AND budget = ?", (instance, budget))
        return {r[0] for r in rows}

    def add_searches(self, items: Iterable[StoredSearch]) -> int:
        rows = []
        for s in items:
            r = s.result
            rows.append((s.fen, s.instance, s.budget, r.bestmove, r.score_cp, r.mate, " ".join(r.pv), r.depth,
                         r.root_moves_searched, r.root_moves, r.seldepth, r.nodes, r.time,
                         json.dumps([it.move for it in r.iterations]), r.second_score, json.dumps(list(s.leaf.nets)),
                         s.leaf.result))
        with self.db:
            cur = self.db.executemany("INSERT OR IGNORE INTO searches VALUES "
                                      "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        return cur.rowcount

    def searches(self, instance: str, budget: str) -> dict[str, StoredSearch]:
        rows = self.db.execute("SELECT * FROM searches WHERE instance = ? AND budget = ?", (instance, budget))
        return {row[0]: _stored(row) for row in rows}

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM searches").fetchone()[0]

    # --- root positions ---------------------------------------------------------------------------
    def add_position(self, fen: str, terms: PositionTerms) -> None:
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO positions VALUES (?,?,?)",
                            (fen, json.dumps(list(terms.nets)), terms.result))

    def position_terms(self) -> dict[str, PositionTerms]:
        return {fen: PositionTerms(tuple(json.loads(nets)), result)
                for fen, nets, result in self.db.execute("SELECT fen, nets, result FROM positions")}

    # --- posterior searches -----------------------------------------------------------------------
    def posterior(self, fen: str, depth: int) -> dict[str, int]:
        rows = self.db.execute("SELECT move, score FROM posterior WHERE fen = ? AND depth = ?", (fen, depth))
        return dict(rows.fetchall())

    def add_posterior(self, fen: str, depth: int, scores: dict[str, int]) -> None:
        with self.db:
            self.db.executemany("INSERT OR IGNORE INTO posterior VALUES (?,?,?,?)",
                                [(fen, m, depth, s) for m, s in scores.items()])


def _stored(row: tuple) -> StoredSearch:
    (fen, instance, budget, move, score, mate, pv, depth, root_done, root_moves, seldepth, nodes, elapsed,
     iteration_moves, second, leaf_nets, leaf_result) = row
    iterations = tuple(IterationInfo(i + 1, i + 1, 0, None, 0, 0.0, (m,))
                       for i, m in enumerate(json.loads(iteration_moves)))
    result = SearchResult(move, score, mate, tuple(pv.split()), depth, root_done, root_moves, seldepth, nodes,
                          elapsed, iterations, fen, second)
    return StoredSearch(fen, instance, budget, result, PositionTerms(tuple(json.loads(leaf_nets)), leaf_result))
