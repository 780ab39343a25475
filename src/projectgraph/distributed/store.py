"""The shared summary store: unit summaries keyed by unit and versions, and the state of each job.

One schema, two databases: PostgreSQL (``postgresql://...``, through psycopg 3), the store many
machines share, and a SQLite file (any other location, or ``sqlite:///path``), the same records on
one machine. The SQL is written once with ``?`` placeholders (psycopg's ``%s`` is put in for
PostgreSQL) and upserts that both databases read alike.

Records:

- ``summaries``: one row per package version (``lookup``: ecosystem, normalized name, version, as a
  job list names it) and versions of the rules it was built under (fileindex, graph (the link),
  reach, summary): the unit's name as its own metadata writes it, the compact form
  (``Summary.dumps``: what a project's SQLite ``summaries`` table keeps), its size, the seconds
  the job took to fetch and build it, and the packages it requires to run (a JSON list of
  normalized names, ``null`` when its metadata does not say). A summary already stored under the
  current versions is never rebuilt.
- ``jobs``: per lookup and versions, the state of its last attempt (``running``, ``built``,
  ``failed``), the number of attempts, the error of a failure, the process and host of the running
  attempt. A failure is a record, never a silent skip; ``status`` counts each state.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from projectgraph import summary

SCHEMA_VERSION = 1
_KEY = ("fileindex", "projectgraph", "reach", "summary")  # summary.versions() names, in key order
_TABLES = (
    "CREATE TABLE IF NOT EXISTS store_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS summaries (
           lookup TEXT NOT NULL, fileindex INTEGER NOT NULL, graph INTEGER NOT NULL,
           reach INTEGER NOT NULL, summary INTEGER NOT NULL, unit TEXT NOT NULL, data {blob} NOT NULL,
           bytes INTEGER NOT NULL, seconds DOUBLE PRECISION NOT NULL, written_at DOUBLE PRECISION NOT NULL,
           requires TEXT NOT NULL,
           PRIMARY KEY (lookup, fileindex, graph, reach, summary))""",
    "CREATE INDEX IF NOT EXISTS summaries_unit ON summaries (unit)",
    """CREATE TABLE IF NOT EXISTS jobs (
           lookup TEXT NOT NULL, fileindex INTEGER NOT NULL, graph INTEGER NOT NULL,
           reach INTEGER NOT NULL, summary INTEGER NOT NULL, state TEXT NOT NULL,
           attempts INTEGER NOT NULL, error TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
           updated_at DOUBLE PRECISION NOT NULL,
           PRIMARY KEY (lookup, fileindex, graph, reach, summary))""",
)
_WHERE = "lookup = ? AND fileindex = ? AND graph = ? AND reach = ? AND summary = ?"


class Stored(NamedTuple):
    """A stored summary and what its package requires to run (None: its metadata does not say)."""

    summary: summary.Summary
    requires: tuple[str, ...] | None


class StoreError(RuntimeError):
    """A summary store that cannot be opened or used, with its location named."""


@dataclass(frozen=True)
class JobState:
    lookup: str
    state: str  # running | built | failed
    attempts: int
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"lookup": self.lookup, "state": self.state, "attempts": self.attempts, "error": self.error}


@dataclass(frozen=True)
class StoreStatus:
    """What a store holds under the current versions: counts, sizes, and every failure."""

    location: str
    summaries: int
    bytes: int
    by_ecosystem: dict[str, dict[str, int]]  # ecosystem -> {"summaries", "bytes"}
    states: dict[str, int]
    failures: tuple[JobState, ...]
    other_versions: int  # summaries stored under other rule versions (kept; never served)

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.location,
            "versions": summary.versions(),
            "summaries": self.summaries,
            "bytes": self.bytes,
            "by_ecosystem": self.by_ecosystem,
            "states": self.states,
            "failures": [f.to_json() for f in self.failures],
            "other_versions": self.other_versions,
        }


def is_postgres(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def redacted(location: str) -> str:
    """A location without its password, for messages and output."""
    if is_postgres(location) and "@" in location:
        scheme, rest = location.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return location


class SummaryStore:
    """One connection to a shared summary store (``open_store``); one per process or worker."""

    def __init__(self, location: str, connection: Any, postgres: bool) -> None:
        self.location = location
        self._connection = connection
        self._postgres = postgres

    # ---- plumbing ---------------------------------------------------------------------------------
    def _sql(self, text: str) -> str:
        return text.replace("?", "%s") if self._postgres else text

    def _execute(self, text: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            cursor = self._connection.execute(self._sql(text), tuple(parameters))
            rows = list(cursor.fetchall()) if cursor.description is not None else []
            if not self._postgres:
                self._connection.commit()
            return rows
        except Exception as error:
            if _database_error(error):
                raise StoreError(f"summary store {redacted(self.location)}: {error}") from None
            raise

    @contextmanager
    def _schema_lock(self) -> Iterator[None]:
        """Serialise schema creation between workers opening a new store at once."""
        if self._postgres:
            with self._connection.transaction():
                self._connection.execute("SELECT pg_advisory_xact_lock(2323)")
                yield
        else:
            yield

    def _create(self) -> None:
        blob = "BYTEA" if self._postgres else "BLOB"
        with self._schema_lock():
            for statement in _TABLES:
                self._connection.execute(statement.format(blob=blob))
            self._connection.execute(
                self._sql("INSERT INTO store_meta (name, value) VALUES ('schema', ?) ON CONFLICT DO NOTHING"),
                (SCHEMA_VERSION,),
            )
            found = self._connection.execute("SELECT value FROM store_meta WHERE name = 'schema'").fetchone()
        if not self._postgres:
            self._connection.commit()
        if found is None or found[0] != SCHEMA_VERSION:
            raise StoreError(
                f"summary store {redacted(self.location)} has schema {found[0] if found else None}, "
                f"this projectgraph reads {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> SummaryStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ---- records ----------------------------------------------------------------------------------
    @staticmethod
    def _versions() -> tuple[int, ...]:
        current = summary.versions()
        return tuple(current[name] for name in _KEY)

    def stored_unit(self, lookup: str) -> str | None:
        """The unit name of the summary stored for ``lookup`` under the current versions, or None."""
        rows = self._execute(f"SELECT unit FROM summaries WHERE {_WHERE}", (lookup, *self._versions()))
        return str(rows[0][0]) if rows else None

    def begin(self, lookup: str, pid: int, host: str) -> int:
        """Mark an attempt of ``lookup`` running; returns its number (1 for the first)."""
        rows = self._execute(
            "INSERT INTO jobs (lookup, fileindex, graph, reach, summary, state, attempts, error, pid, host, "
            "updated_at) VALUES (?, ?, ?, ?, ?, 'running', 1, '', ?, ?, ?) "
            "ON CONFLICT (lookup, fileindex, graph, reach, summary) DO UPDATE SET state = 'running', "
            "attempts = jobs.attempts + 1, pid = excluded.pid, host = excluded.host, "
            "updated_at = excluded.updated_at RETURNING attempts",
            (lookup, *self._versions(), pid, host, time.time()),
        )
        return int(rows[0][0])

    def put(
        self, lookup: str, built: summary.Summary, seconds: float, requires: tuple[str, ...] | None = None
    ) -> int:
        """Keep a summary (first writer wins: the same versions give the same summary); its size."""
        data = built.dumps()
        versions = tuple(built.versions[name] for name in _KEY)
        needs = json.dumps(None if requires is None else sorted(requires))
        self._execute(
            "INSERT INTO summaries (lookup, fileindex, graph, reach, summary, unit, data, bytes, seconds, "
            "written_at, requires) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (lookup, *versions, built.unit, data, len(data), seconds, time.time(), needs),
        )
        self._set_state(lookup, "built", "")
        return len(data)

    def fail(self, lookup: str, error: str) -> None:
        """Record a failed attempt with its error (kept until an attempt succeeds)."""
        self._set_state(lookup, "failed", error)

    def _set_state(self, lookup: str, state: str, error: str) -> None:
        self._execute(
            f"UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE {_WHERE}",
            (state, error, time.time(), lookup, *self._versions()),
        )

    def job(self, lookup: str) -> JobState | None:
        rows = self._execute(
            f"SELECT lookup, state, attempts, error FROM jobs WHERE {_WHERE}", (lookup, *self._versions())
        )
        return JobState(*rows[0]) if rows else None

    def running(self) -> list[tuple[str, int, str]]:
        """(lookup, pid, host) of the attempts running now, sorted."""
        rows = self._execute(
            "SELECT lookup, pid, host FROM jobs WHERE state = 'running' AND fileindex = ? AND graph = ? "
            "AND reach = ? AND summary = ? ORDER BY lookup",
            self._versions(),
        )
        return [(str(a), int(b), str(c)) for a, b, c in rows]

    def summaries(self, lookups: Iterable[str]) -> dict[str, Stored]:
        """The stored summaries (current versions) of these lookups that the store has, by lookup."""
        found: dict[str, Stored] = {}
        for lookup in sorted(set(lookups)):
            rows = self._execute(
                f"SELECT data, requires FROM summaries WHERE {_WHERE}", (lookup, *self._versions())
            )
            if rows:
                needs = json.loads(rows[0][1])
                found[lookup] = Stored(
                    summary.Summary.loads(bytes(rows[0][0])), None if needs is None else tuple(needs)
                )
        return found

    def status(self) -> StoreStatus:
        versions = self._versions()
        current = "fileindex = ? AND graph = ? AND reach = ? AND summary = ?"
        by_ecosystem: dict[str, dict[str, int]] = {}
        total = size = 0
        for lookup, stored in self._execute(f"SELECT lookup, bytes FROM summaries WHERE {current}", versions):
            ecosystem = str(lookup).split(":", 1)[0]
            entry = by_ecosystem.setdefault(ecosystem, {"summaries": 0, "bytes": 0})
            entry["summaries"] += 1
            entry["bytes"] += int(stored)
            total += 1
            size += int(stored)
        all_rows = self._execute("SELECT COUNT(*) FROM summaries")[0][0]
        states = {
            str(state): int(count)
            for state, count in self._execute(
                f"SELECT state, COUNT(*) FROM jobs WHERE {current} GROUP BY state ORDER BY state", versions
            )
        }
        failures = tuple(
            JobState(str(a), str(b), int(c), str(d))
            for a, b, c, d in self._execute(
                f"SELECT lookup, state, attempts, error FROM jobs WHERE state = 'failed' AND {current} "
                "ORDER BY lookup",
                versions,
            )
        )
        return StoreStatus(
            redacted(self.location),
            total,
            size,
            dict(sorted(by_ecosystem.items())),
            states,
            failures,
            int(all_rows) - total,
        )


def open_store(location: str) -> SummaryStore:
    """Open (creating its tables if needed) the store at ``location``: a PostgreSQL URL, else a
    SQLite file (``sqlite:///path`` or a path)."""
    if is_postgres(location):
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                "a PostgreSQL summary store needs psycopg 3: pip install 'projectgraph[distributed]'"
            ) from None
        try:
            connection: Any = psycopg.connect(location, autocommit=True, connect_timeout=30)
        except psycopg.Error as error:
            raise StoreError(f"cannot connect to the summary store {redacted(location)}: {error}") from None
        store = SummaryStore(location, connection, postgres=True)
    else:
        path = Path(location.removeprefix("sqlite://")).expanduser()
        if not path.parent.is_dir():
            raise StoreError(f"summary store {location}: no folder {path.parent}")
        try:
            connection = sqlite3.connect(os.fspath(path), timeout=60, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the summary store {location}: {error}") from None
        store = SummaryStore(location, connection, postgres=False)
    try:
        store._create()
    except Exception as error:
        store.close()
        if isinstance(error, StoreError) or not _database_error(error):
            raise
        raise StoreError(f"summary store {redacted(location)}: {error}") from None
    return store


def _database_error(error: BaseException) -> bool:
    if isinstance(error, sqlite3.Error):
        return True
    return type(error).__module__.startswith("psycopg")
