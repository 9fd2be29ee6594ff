"""An SQLite file the way every Concilio store opens it: folders made, a long busy
timeout (Dask callbacks and a second command may write at once), the schema applied,
write-ahead logging so readers never block the writer."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Self


class SqliteFile:
    """Base of the stores: a subclass names its ``SCHEMA``."""

    SCHEMA = ""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=60)
        self.db.executescript(self.SCHEMA)
        self.db.execute("PRAGMA journal_mode=WAL")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
