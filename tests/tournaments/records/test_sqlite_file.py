"""The stores' SQLite file: its folders made, its schema applied, write-ahead logging on,
and closed when the ``with`` block ends."""
import sqlite3

import pytest

from tournaments.records.sqlite_file import SqliteFile


class Notes(SqliteFile):
    SCHEMA = "CREATE TABLE IF NOT EXISTS notes (text TEXT NOT NULL);"


def test_a_store_opens_in_new_folders_with_its_schema_and_wal(tmp_path):
    path = tmp_path / "a" / "b" / "notes.sqlite"
    with Notes(path) as notes:
        with notes.db:
            notes.db.execute("INSERT INTO notes VALUES ('kept')")
        assert notes.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.ProgrammingError):  # closed by the with block
        notes.db.execute("SELECT 1")
    with Notes(path) as again:  # the schema is applied again without harm
        assert again.db.execute("SELECT text FROM notes").fetchall() == [("kept",)]
