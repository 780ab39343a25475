"""The SQLite store: all of projectgraph's SQL lives in this module.

One file per project, ``.projectgraph/graph.db`` (the folder ignores itself with its own
``.gitignore``). The schema has a version in ``metadata``, checked at open; ``MIGRATIONS`` is an
ordered list, each step run in one transaction, so a database of any older schema opens and is
brought forward, and a newer one is refused with a clear message. WAL lets readers read while a
writer writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from projectgraph.fileindex import FileIndex, Key

SCHEMA_VERSION = 1

PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA cache_size=-65536",
    "PRAGMA busy_timeout=5000",
)

# Each entry moves the schema from version i to i+1 (the first from an empty database).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS metadata (
               name TEXT PRIMARY KEY,
               value TEXT NOT NULL
           )""",
        """CREATE TABLE file_index (
               key TEXT PRIMARY KEY,
               path TEXT NOT NULL,
               data TEXT NOT NULL,
               read_at REAL NOT NULL
           )""",
        "CREATE INDEX file_index_read_at ON file_index(read_at)",
        """CREATE TABLE plugin_artifact (
               key TEXT NOT NULL,
               plugin TEXT NOT NULL,
               version TEXT NOT NULL,
               data TEXT NOT NULL,
               read_at REAL NOT NULL,
               PRIMARY KEY (key, plugin, version)
           )""",
    ),
)


class SchemaError(RuntimeError):
    """The database was made by a newer projectgraph, or is not a projectgraph database."""


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    for pragma in PRAGMAS:
        connection.execute(pragma)
    return connection


def schema_version(connection: sqlite3.Connection) -> int:
    has_metadata = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='metadata'"
    ).fetchone()
    if not has_metadata:
        return 0
    row = connection.execute("SELECT value FROM metadata WHERE name='schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(connection: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema to ``target``, one transaction per step. Returns the version reached."""
    current = schema_version(connection)
    if current > SCHEMA_VERSION:
        raise SchemaError(
            f"the database has schema {current}, newer than this projectgraph knows ({SCHEMA_VERSION}); "
            "upgrade projectgraph or delete the .projectgraph folder"
        )
    while current < target:
        statements = MIGRATIONS[current]
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements:
                connection.execute(statement)
            connection.execute(
                "INSERT INTO metadata(name, value) VALUES('schema_version', ?) "
                "ON CONFLICT(name) DO UPDATE SET value=excluded.value",
                (str(current + 1),),
            )
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        current += 1
    return current


def _encode(index: FileIndex) -> str:
    return json.dumps(index.to_json(), separators=(",", ":"), ensure_ascii=False)


class SqliteStore:
    """Indexes and plugin artifacts by key in one SQLite file; a pruner like ``MemoryStore``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.connection = _connect(self.path)
            migrate(self.connection)
        except sqlite3.DatabaseError as error:
            raise SchemaError(f"{self.path}: not a projectgraph database ({error})") from None

    def get_many(self, keys: Iterable[Key]) -> dict[Key, FileIndex]:
        by_text = {key.text(): key for key in keys}
        found: dict[Key, FileIndex] = {}
        texts = list(by_text)
        now = time.time()
        for start in range(0, len(texts), 500):
            chunk = texts[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.connection.execute(
                f"SELECT key, data FROM file_index WHERE key IN ({marks})", chunk
            ).fetchall()
            for text, data in rows:
                found[by_text[text]] = FileIndex.from_json(json.loads(data))
        if found:
            self.connection.execute("BEGIN")
            self.connection.executemany(
                "UPDATE file_index SET read_at=? WHERE key=?", [(now, k.text()) for k in found]
            )
            self.connection.execute("COMMIT")
        return found

    def put_many(self, items: Iterable[tuple[Key, FileIndex]]) -> None:
        now = time.time()
        rows = [(key.text(), key.path, _encode(index), now) for key, index in items]
        if not rows:
            return
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            self.connection.executemany(
                "INSERT OR REPLACE INTO file_index(key, path, data, read_at) VALUES (?, ?, ?, ?)", rows
            )
            self.connection.execute("COMMIT")
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise

    def get_artifact(self, key: Key, plugin: str, version: str) -> Any | None:
        row = self.connection.execute(
            "SELECT data FROM plugin_artifact WHERE key=? AND plugin=? AND version=?",
            (key.text(), plugin, version),
        ).fetchone()
        if row is None:
            return None
        self.connection.execute(
            "UPDATE plugin_artifact SET read_at=? WHERE key=? AND plugin=? AND version=?",
            (time.time(), key.text(), plugin, version),
        )
        return json.loads(row[0])

    def put_artifact(self, key: Key, plugin: str, version: str, artifact: Any) -> None:
        self.connection.execute(
            "INSERT OR REPLACE INTO plugin_artifact(key, plugin, version, data, read_at) VALUES (?,?,?,?,?)",
            (key.text(), plugin, version, json.dumps(artifact, sort_keys=True), time.time()),
        )

    def prune(self, since: float) -> int:
        """Remove every index and artifact that no run read or wrote since ``since``."""
        self.connection.execute("BEGIN IMMEDIATE")
        removed = self.connection.execute("DELETE FROM file_index WHERE read_at < ?", (since,)).rowcount
        removed += self.connection.execute(
            "DELETE FROM plugin_artifact WHERE read_at < ?", (since,)
        ).rowcount
        self.connection.execute("COMMIT")
        return removed

    def __len__(self) -> int:
        return int(self.connection.execute("SELECT count(*) FROM file_index").fetchone()[0])

    def close(self) -> None:
        self.connection.close()


def open_project_store(root: str | os.PathLike[str]) -> SqliteStore:
    """The store of a project: ``ROOT/.projectgraph/graph.db``, the folder ignoring itself."""
    folder = Path(root) / ".projectgraph"
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    return SqliteStore(folder / "graph.db")
