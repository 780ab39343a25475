"""The SQLite store: all of projectgraph's SQL lives in this module.

One file per project, ``.projectgraph/graph.db`` (the folder ignores itself with its own
``.gitignore``). The schema has a version in ``metadata``, checked at open; ``MIGRATIONS`` is an
ordered list, each step run in one transaction, so a database of any older schema opens and is
brought forward, and a newer one is refused with a clear message. WAL lets readers read while a
writer writes.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import re
import sqlite3
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from projectgraph import safefs
from projectgraph.fileindex import CODEC, FileIndex, Key, StoredIndex
from projectgraph.fileindex import VERSION as FILEINDEX_VERSION
from projectgraph.gcpause import paused_gc
from projectgraph.graph import VERSION as GRAPH_VERSION
from projectgraph.graph import Dynamic, Edge, FileEntry, Graph, Node, Root, Site, Truncation, Unresolved

SCHEMA_VERSION = 9

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
    (
        # 1 -> 2: the stored graph. Node ids follow the sorted keys, so one graph gives one database.
        """CREATE TABLE files (
               path TEXT PRIMARY KEY,
               language TEXT NOT NULL,
               status TEXT NOT NULL,
               hash TEXT NOT NULL DEFAULT '',
               reason TEXT NOT NULL DEFAULT '',
               unit TEXT NOT NULL DEFAULT '',
               size INTEGER NOT NULL DEFAULT -1,
               mtime_ns INTEGER NOT NULL DEFAULT -1
           )""",
        """CREATE TABLE nodes (
               id INTEGER PRIMARY KEY,
               key TEXT NOT NULL UNIQUE,
               kind TEXT NOT NULL,
               name TEXT NOT NULL,
               qualname TEXT NOT NULL,
               path TEXT NOT NULL,
               line INTEGER NOT NULL,
               end_line INTEGER NOT NULL,
               signature TEXT NOT NULL,
               doc TEXT NOT NULL,
               language TEXT NOT NULL,
               unit TEXT NOT NULL,
               external TEXT NOT NULL,
               words TEXT NOT NULL
           )""",
        "CREATE INDEX nodes_name ON nodes(name)",
        "CREATE INDEX nodes_qualname ON nodes(qualname)",
        "CREATE INDEX nodes_path ON nodes(path)",
        """CREATE TABLE edges (
               caller INTEGER NOT NULL REFERENCES nodes(id),
               callee INTEGER NOT NULL REFERENCES nodes(id),
               relation TEXT NOT NULL,
               kind TEXT NOT NULL,
               confidence TEXT NOT NULL,
               path TEXT NOT NULL,
               line INTEGER NOT NULL,
               col INTEGER NOT NULL,
               via TEXT NOT NULL
           )""",
        "CREATE INDEX edges_caller ON edges(caller)",
        "CREATE INDEX edges_callee ON edges(callee)",
        """CREATE TABLE unresolved (
               caller INTEGER NOT NULL REFERENCES nodes(id),
               path TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
               reason TEXT NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL,
               prefix TEXT NOT NULL, covered INTEGER NOT NULL
           )""",
        "CREATE INDEX unresolved_caller ON unresolved(caller)",
        """CREATE TABLE dynamic (
               caller INTEGER NOT NULL REFERENCES nodes(id),
               path TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
               kind TEXT NOT NULL, prefix TEXT NOT NULL
           )""",
        """CREATE TABLE roots (
               node INTEGER NOT NULL REFERENCES nodes(id),
               kind TEXT NOT NULL,
               rule TEXT NOT NULL
           )""",
        "CREATE TABLE truncations (what TEXT NOT NULL, detail TEXT NOT NULL)",
        """CREATE TABLE runs (
               id INTEGER PRIMARY KEY,
               started REAL NOT NULL,
               finished REAL NOT NULL,
               root TEXT NOT NULL,
               versions TEXT NOT NULL,
               stats TEXT NOT NULL,
               error TEXT NOT NULL DEFAULT ''
           )""",
        """CREATE VIRTUAL TABLE nodes_fts USING fts5(
               words, qualname, signature, doc,
               content='nodes', content_rowid='id', tokenize='unicode61'
           )""",
    ),
    (
        # 2 -> 3: a file index is kept in FileIndex.to_bytes form, named by its codec (rows of another
        # codec, such as the JSON text before, are misses); a run's read marks go to a narrow table,
        # so marking every index read rewrites kilobytes, not the pages of every index row.
        # file_index.read_at is now when the row was written.
        "ALTER TABLE file_index ADD COLUMN codec TEXT NOT NULL DEFAULT 'json'",
        """CREATE TABLE file_index_read (
               key TEXT PRIMARY KEY,
               read_at REAL NOT NULL
           ) WITHOUT ROWID""",
        "INSERT INTO file_index_read(key, read_at) SELECT key, read_at FROM file_index",
        "DROP INDEX file_index_read_at",
        "CREATE INDEX file_index_read_read_at ON file_index_read(read_at)",
    ),
    (
        # 3 -> 4: incremental sync. graph_groups keeps a digest of each file's rows (its nodes and the
        # rows of its nodes), so a write rewrites only the files whose digest changed; control_files
        # keeps the manifests and configs the graph was linked with. Rows are deleted by their node.
        """CREATE TABLE graph_groups (
               grp TEXT PRIMARY KEY,
               digest TEXT NOT NULL
           ) WITHOUT ROWID""",
        """CREATE TABLE control_files (
               path TEXT PRIMARY KEY,
               digest TEXT NOT NULL,
               size INTEGER NOT NULL,
               mtime_ns INTEGER NOT NULL
           ) WITHOUT ROWID""",
        "CREATE INDEX dynamic_caller ON dynamic(caller)",
        "CREATE INDEX roots_node ON roots(node)",
    ),
    (
        # 4 -> 5: per-package summaries (projectgraph.summary), one per unit and versions of the
        # index, link, search and summary rules: a bump of any of them misses.
        """CREATE TABLE summaries (
               unit TEXT NOT NULL,
               fileindex INTEGER NOT NULL,
               graph INTEGER NOT NULL,
               reach INTEGER NOT NULL,
               summary INTEGER NOT NULL,
               data BLOB NOT NULL,
               written_at REAL NOT NULL,
               PRIMARY KEY (unit, fileindex, graph, reach, summary)
           ) WITHOUT ROWID""",
    ),
    (
        # 5 -> 6: external providers' runs (projectgraph.providers). A run row is written when a
        # build starts and finished as ok, empty_build or failed; only an ok run has rows of its own.
        """CREATE TABLE provider_runs (
               id INTEGER PRIMARY KEY,
               provider TEXT NOT NULL,
               started REAL NOT NULL,
               finished REAL NOT NULL DEFAULT 0,
               root TEXT NOT NULL,
               status TEXT NOT NULL,
               files_seen INTEGER,
               files_parsed INTEGER,
               limitations TEXT NOT NULL DEFAULT '[]',
               stats TEXT NOT NULL DEFAULT '{}'
           )""",
        "CREATE INDEX provider_runs_provider ON provider_runs(provider, id)",
        """CREATE TABLE provider_nodes (
               run INTEGER NOT NULL REFERENCES provider_runs(id) ON DELETE CASCADE,
               kind TEXT NOT NULL, name TEXT NOT NULL, qualified_name TEXT NOT NULL,
               path TEXT NOT NULL, line_start INTEGER, line_end INTEGER,
               content_hash TEXT NOT NULL, language TEXT NOT NULL, provider_ref TEXT NOT NULL
           )""",
        "CREATE INDEX provider_nodes_run ON provider_nodes(run)",
        """CREATE TABLE provider_edges (
               run INTEGER NOT NULL REFERENCES provider_runs(id) ON DELETE CASCADE,
               kind TEXT NOT NULL, source_qn TEXT NOT NULL, target_qn TEXT NOT NULL,
               confidence REAL NOT NULL
           )""",
        "CREATE INDEX provider_edges_run ON provider_edges(run)",
    ),
    (
        # 6 -> 7: the incremental link's state (link.persisted), so that a fresh process re-links
        # only what read what changed: named blobs (the state's globals, each unit's output) and the
        # units that read each key (by a 64-bit hash of the key). Valid while metadata
        # 'link_state' holds the token of the globals (every graph write without it clears it).
        """CREATE TABLE link_blobs (
               name TEXT PRIMARY KEY,
               data BLOB NOT NULL
           ) WITHOUT ROWID""",
        """CREATE TABLE link_reads (
               key INTEGER PRIMARY KEY,
               units BLOB NOT NULL
           )""",
    ),
    (
        # 7 -> 8: each file's word filter (graph.FileEntry.words, hexadecimal; '' when none), which
        # reach reads to tell a name that occurs nowhere else (nothing can call it by that name)
        "ALTER TABLE files ADD COLUMN words TEXT NOT NULL DEFAULT ''",
    ),
    (
        # 8 -> 9: an index's key with its codec, so that asking whether every index of a no-op sync
        # is stored (holds_all) reads this index only: the codec column is after the data, and
        # reaching it walked each row's overflow pages (41 MB on Django: 60-90 ms of a no-op sync)
        "CREATE INDEX file_index_key_codec ON file_index(key, codec)",
    ),
)


class SchemaError(RuntimeError):
    """The database was made by a newer projectgraph, or is not a projectgraph database."""


class SchemaVersionError(ValueError):
    """The metadata's schema_version is not a number (a damaged or foreign database)."""


class DamagedStoreError(SchemaError):
    """The database is damaged: SQLite finds it malformed, or a table of the schema is gone. The
    store holds only what the sources give again, so the cure is a rebuild."""

    def __init__(self, path: str | os.PathLike[str], detail: str) -> None:
        self.path = Path(path)
        self.detail = detail
        super().__init__(
            f"the index {path} is damaged ({detail}): run `projectgraph index --rebuild` to rebuild "
            "it from the sources"
        )


# every table the schema makes: one gone (a dropped nodes_fts) is damage, not a crash later
TABLES = frozenset(
    {
        "metadata",
        "file_index",
        "file_index_read",
        "plugin_artifact",
        "files",
        "nodes",
        "edges",
        "unresolved",
        "dynamic",
        "roots",
        "truncations",
        "runs",
        "nodes_fts",
        "graph_groups",
        "control_files",
        "summaries",
        "link_blobs",
        "link_reads",
    }
)


def is_damage(error: BaseException) -> bool:
    """Whether a SQLite error says the file is damaged (malformed, not a database), not that it is
    busy, locked, read-only or cannot be opened (``OperationalError``: a rebuild would not help)."""
    return isinstance(error, sqlite3.DatabaseError) and not isinstance(error, sqlite3.OperationalError)


def damage(connection: sqlite3.Connection, check: bool = True) -> str | None:
    """Why the database is damaged, or None: the tables of the schema, and (``check``) SQLite's
    ``PRAGMA quick_check`` of every page (a fraction of a second per 100 MB)."""
    try:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        missing = sorted(TABLES - names)
        if missing:
            return f"missing table(s): {', '.join(missing)}"
        if not check:
            return None
        rows = [str(row[0]) for row in connection.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as error:
        return str(error)
    problems = [row for row in rows if row != "ok"]
    return "; ".join(problems)[:300] if problems else None


def writer_active(folder: Path) -> bool:
    """Whether a writer holds ``folder/writer.lock`` now (a shared lock on it cannot be had)."""
    from projectgraph.store.lock import lock_held

    return lock_held(folder / "writer.lock")


def remove_database(path: str | os.PathLike[str]) -> None:
    """Delete a database and its WAL and shared memory files (links are removed, never followed)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with suppress(FileNotFoundError):
            os.unlink(f"{os.fspath(path)}{suffix}")


def _check_files(path: Path) -> None:
    """Refuse a database (or its WAL, shared memory or journal file) that is a link or not a regular
    file; make an absent database as a regular file first, so SQLite never creates a link's target."""
    for suffix in ("-wal", "-shm", "-journal"):
        safefs.check_in_folder(f"{path}{suffix}")
    safefs.check_in_folder(path)
    fd = safefs.open_in_folder(path, os.O_RDWR | os.O_CREAT, 0o644)
    os.close(fd)


class _FilesTable(NamedTuple):
    """The files table as a connection last read or wrote it: its rows by path (``_FILE_COLUMNS``),
    at the connection's ``PRAGMA data_version`` of then (it moves when another connection commits)."""

    version: int
    rows: dict[str, tuple[Any, ...]]


class _Connection(sqlite3.Connection):
    """A store's connection, which keeps the files table it last read or wrote (``_files_table``)."""

    files_table: _FilesTable | None = None
    files_pending: tuple[dict[str, tuple[Any, ...]], list[str]] | None = None  # (rows, paths written)
    stored_view: tuple[dict[str, tuple[Any, ...]], dict[str, StoredFile]] | None = None  # rows, of them


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, factory=_Connection)
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
    if row is None:
        return 0
    try:
        return int(row[0])
    except (TypeError, ValueError):
        raise SchemaVersionError(f"its schema_version is {str(row[0])[:40]!r}, not a number") from None


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


class SqliteStore:
    """Indexes and plugin artifacts by key in one SQLite file; a pruner like ``MemoryStore``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _check_files(self.path)
        try:
            self.connection = _connect(self.path)
            migrate(self.connection)
        except SchemaError:
            raise
        except sqlite3.OperationalError as error:  # locked, read-only, cannot open: not damage
            raise SchemaError(f"{self.path}: cannot open the index ({error})") from None
        except (sqlite3.DatabaseError, SchemaVersionError) as error:
            raise DamagedStoreError(self.path, str(error)) from None
        # a write that did not end (its process killed, the machine down) is the moment damage is
        # likely: then, and only then, every page is checked at open
        unclean = metadata_text(self.connection, "write_state") == "writing"
        if unclean and writer_active(self.path.parent):
            unclean = False  # a writer is at it now
        problem = damage(self.connection, check=unclean)
        if problem is not None:
            self.connection.close()
            raise DamagedStoreError(self.path, problem)
        if unclean:
            set_metadata(self.connection, "write_state", "checked")

    def get_many(self, keys: Iterable[Key]) -> dict[Key, FileIndex]:
        """The stored indexes of ``keys`` (one query for all), each marked read now."""
        by_text = {key.text(): key for key in keys}
        if not by_text:
            return {}
        wanted = json.dumps(list(by_text))
        rows = self.connection.execute(
            "SELECT key, data FROM file_index WHERE codec = ? AND key IN (SELECT value FROM json_each(?))",
            (CODEC, wanted),
        ).fetchall()
        found: dict[Key, FileIndex] = {}
        # hundreds of thousands of records that outlive the call and form no cycle: without the
        # pause, the collector rescans them as they are made (on Django, 1.5 of 2.3 s)
        with paused_gc(keep=True):
            for text, data in rows:
                try:
                    found[by_text[text]] = FileIndex.from_bytes(data)
                except (EOFError, ValueError, TypeError):  # a damaged row is a miss
                    continue
        if found:
            self._mark_read(json.dumps([key.text() for key in found]))
        return found

    def get_stored(self, keys: Iterable[Key]) -> dict[Key, StoredIndex]:
        """``get_many``, each index decoded only when its records are first read (``StoredIndex``)."""
        by_text = {key.text(): key for key in keys}
        if not by_text:
            return {}
        rows = self.connection.execute(
            "SELECT key, data FROM file_index WHERE codec = ? AND key IN (SELECT value FROM json_each(?))",
            (CODEC, json.dumps(list(by_text))),
        ).fetchall()
        found: dict[Key, StoredIndex] = {}
        for text, data in rows:
            key = by_text[text]
            found[key] = StoredIndex.of(key.path, key.language, key.hash, data)
        if found:
            self._mark_read(json.dumps([key.text() for key in found]))
        return found

    def holds_all(self, keys: Iterable[Key]) -> bool:
        """Whether the store has an index of every one of ``keys`` in this codec (each then marked
        read now, as ``get_many`` marks what it gives), without decoding any."""
        texts = sorted({key.text() for key in keys})
        if not texts:
            return True
        wanted = json.dumps(texts)
        (held,) = self.connection.execute(
            "SELECT count(*) FROM file_index WHERE codec = ? AND key IN (SELECT value FROM json_each(?))",
            (CODEC, wanted),
        ).fetchone()
        if held != len(texts):
            return False
        self._mark_read(wanted)
        return True

    def _mark_read(self, keys_json: str) -> None:
        """Mark the indexes of the keys (a JSON array of their texts) read now (one transaction)."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            self.connection.execute(
                "INSERT OR REPLACE INTO file_index_read(key, read_at) SELECT value, ? FROM json_each(?)",
                (time.time(), keys_json),
            )
            self.connection.execute("COMMIT")
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise

    def put_many(self, items: Iterable[tuple[Key, FileIndex]]) -> None:
        self.put_encoded((key, index.to_bytes()) for key, index in items)

    def put_encoded(self, items: Iterable[tuple[Key, bytes]]) -> None:
        """Store indexes already in ``FileIndex.to_bytes`` form (as the worker pool hands them back)."""
        now = time.time()
        rows = [(key.text(), key.path, data, now, CODEC) for key, data in items]
        if not rows:
            return
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            self.connection.executemany(
                "INSERT OR REPLACE INTO file_index(key, path, data, read_at, codec) VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            self.connection.executemany(
                "INSERT OR REPLACE INTO file_index_read(key, read_at) VALUES (?, ?)",
                [(key, now) for key, _, _, _, _ in rows],
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

    def get_unit_link(self, key: str) -> str | None:
        """A unit's linked part (``link.units``, its text form) kept under ``key``, marked read now.

        It lives beside the plugin artifacts (plugin ``unit-link``), so ``prune`` removes it too."""
        row = self.connection.execute(
            "SELECT data FROM plugin_artifact WHERE key=? AND plugin='unit-link' AND version='1'", (key,)
        ).fetchone()
        if row is None:
            return None
        self.connection.execute(
            "UPDATE plugin_artifact SET read_at=? WHERE key=? AND plugin='unit-link' AND version='1'",
            (time.time(), key),
        )
        return str(row[0])

    def put_unit_link(self, key: str, data: str) -> None:
        self.connection.execute(
            "INSERT OR REPLACE INTO plugin_artifact(key, plugin, version, data, read_at) "
            "VALUES (?, 'unit-link', '1', ?, ?)",
            (key, data, time.time()),
        )

    def prune(self, since: float) -> int:
        """Remove every index and artifact that no run read or wrote since ``since``."""
        self.connection.execute("BEGIN IMMEDIATE")
        removed = self.connection.execute(
            "DELETE FROM file_index WHERE key NOT IN (SELECT key FROM file_index_read WHERE read_at >= ?)",
            (since,),
        ).rowcount
        self.connection.execute("DELETE FROM file_index_read WHERE read_at < ?", (since,))
        removed += self.connection.execute("DELETE FROM plugin_artifact WHERE read_at < ?", (since,)).rowcount
        self.connection.execute("COMMIT")
        return removed

    def __len__(self) -> int:
        return int(self.connection.execute("SELECT count(*) FROM file_index").fetchone()[0])

    def close(self) -> None:
        self.connection.close()


def open_project_store(root: str | os.PathLike[str]) -> SqliteStore:
    """The store of a project: ``ROOT/.projectgraph/graph.db``, the folder ignoring itself.

    Nothing in the folder is opened through a link (``safefs``): a committed ``graph.db`` link does
    not get projectgraph's tables written into another file, a dangling ``.gitignore`` link does not
    create its target."""
    folder = safefs.index_folder(root)
    safefs.create_in_folder(folder / ".gitignore", b"*\n")
    return SqliteStore(folder / "graph.db")


# ---- the stored graph ---------------------------------------------------------------------------

_WORD_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")


def search_words(*texts: str) -> str:
    """Names split on case and underscores (``parseHTTPRequest`` -> ``parse http request``)."""
    words: list[str] = []
    for text in texts:
        for part in re.split(r"[^A-Za-z0-9]+", text):
            if not part:
                continue
            words.append(part.lower())
            pieces = [w.lower() for w in _WORD_SPLIT.findall(part)]
            if len(pieces) > 1:
                words.extend(pieces)
    return " ".join(dict.fromkeys(words))


@contextmanager
def snapshot(connection: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: every SELECT inside sees the same committed graph (WAL keeps it
    while a writer replaces the graph). Nested uses join the outer snapshot."""
    if connection.in_transaction:
        yield
        return
    connection.execute("BEGIN")
    try:
        yield
    finally:
        connection.execute("COMMIT")


def _test_pause() -> None:
    """``PROJECTGRAPH_TEST_PAUSE_IN_WRITE=SECONDS`` holds ``write_graph`` after its deletes, before
    its commit, and says so on stderr: the crash-safety tests kill the process there."""
    pause = os.environ.get("PROJECTGRAPH_TEST_PAUSE_IN_WRITE")
    if pause:
        import sys

        print("projectgraph: test pause in write_graph", file=sys.stderr, flush=True)
        time.sleep(float(pause))


NODE_ID_GAP = 1 << 32
"""Node ids are spaced this far apart in key order, so a sync can give a new key an id between its
neighbours' and ordering by id stays ordering by key (the queries rely on it). When two neighbours
leave no room, the write renumbers every node (a whole rewrite)."""

KEEP_RUNS = 100  # the runs table keeps this many of the latest runs (a watcher adds one per sync)

NODE_IDS = "node_ids"
"""Metadata: the run whose write last renumbered the node ids (a whole rewrite). A reader that keeps
rows by id across runs (``query.uncertain``) follows a later run's changed groups only while it
stays; a write in place sets it only when it is absent (a store from before it)."""


def _mark_ids(connection: sqlite3.Connection, renumbered: bool) -> None:
    keep = "DO UPDATE SET value=excluded.value" if renumbered else "DO NOTHING"
    connection.execute(
        "INSERT INTO metadata(name, value) VALUES(?, (SELECT coalesce(max(id), 0) + 1 FROM runs)) "
        f"ON CONFLICT(name) {keep}",
        (NODE_IDS,),
    )


_NODE_FIELDS = "kind, name, qualname, path, line, end_line, signature, doc, language, unit, external, words"
_ROW_TABLES = (("edges", "caller"), ("unresolved", "caller"), ("dynamic", "caller"), ("roots", "node"))


class _Group:
    """The rows of one file (a node's path; "" for external nodes): its nodes, and the edges,
    unresolved sites, dynamic flags and roots of the nodes in it (by the caller's, or root's, node)."""

    __slots__ = ("dynamic", "edges", "nodes", "path", "roots", "unresolved")

    def __init__(self, path: str) -> None:
        self.path = path
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.unresolved: list[Unresolved] = []
        self.dynamic: list[Dynamic] = []
        self.roots: list[Root] = []

    def rows(self) -> tuple[list[Node], list[Edge], list[Unresolved], list[Dynamic], list[Root]]:
        return (self.nodes, self.edges, self.unresolved, self.dynamic, self.roots)

    def digest(self) -> str:
        """The group's digest, from the text of its rows (the same rows give the same digest in
        every process). A process remembers the rows and digests of its last write, and takes an
        unchanged group's digest from there: comparing rows is many times faster than their text."""
        rows = self.rows()
        known = _LAST_DIGESTS.get(self.path)
        if known is not None and known[0] == rows:
            return known[1]
        text = repr(rows)
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        _LAST_DIGESTS[self.path] = (rows, digest)
        return digest


_LAST_DIGESTS: dict[str, tuple[Any, str]] = {}


def _groups(graph: Graph) -> dict[str, _Group]:
    """The graph's rows by file; a row whose node is not in the graph is left out (as it is stored).

    The rows come sorted by their node's key, so they are handed out run by run (``groupby``):
    one lookup per node, not per row, on a graph of hundreds of thousands of edges."""
    path_of = {node.key: node.path for node in graph.nodes}
    groups: dict[str, _Group] = {}
    for node in graph.nodes:
        group = groups.get(node.path)
        if group is None:
            group = groups[node.path] = _Group(node.path)
        group.nodes.append(node)
    edges: Iterable[Edge] = graph.edges
    if not set(map(itemgetter(1), graph.edges)) <= path_of.keys():
        edges = [edge for edge in graph.edges if edge.callee in path_of]
    for part, rows in (
        ("edges", edges),
        ("unresolved", graph.unresolved),
        ("dynamic", graph.dynamic),
        ("roots", graph.roots),
    ):
        for key, run in groupby(rows, itemgetter(0)):
            path = path_of.get(key)
            if path is not None:
                getattr(groups[path], part).extend(run)
    return groups  # each list in the graph's (sorted) order


def _groups_of(graph: Graph, paths: set[str]) -> dict[str, _Group]:
    """``_groups(graph)`` for the files ``paths`` only: each node's rows found by bisection in the
    graph's sorted lists, not by a pass over them."""
    groups: dict[str, _Group] = {}
    for node in graph.nodes:
        if node.path in paths:
            group = groups.get(node.path)
            if group is None:
                group = groups[node.path] = _Group(node.path)
            group.nodes.append(node)
    known: Mapping[str, Node] | None = None
    for group in groups.values():
        for node in group.nodes:
            tables: tuple[tuple[str, Sequence[Any]], ...] = (
                ("edges", graph.edges),
                ("unresolved", graph.unresolved),
                ("dynamic", graph.dynamic),
                ("roots", graph.roots),
            )
            for part, rows in tables:
                low = bisect_left(rows, (node.key,))
                high = bisect_left(rows, (node.key + "\0",), low)  # the next key up
                if low == high:
                    continue
                run = rows[low:high]
                if part == "edges":
                    if known is None:
                        known = graph.node_by_key  # (an incremental link's graph has it made)
                    run = [e for e in run if e[1] in known]
                getattr(group, part).extend(run)
    return groups


def _node_values(node: Node) -> tuple[Any, ...]:
    """A node's columns after id and key (``_NODE_FIELDS``)."""
    words = (
        search_words(node.name, node.qualname or node.key)
        if node.kind != "module"
        else search_words(node.path)
    )
    return (
        node.kind,
        node.name,
        node.qualname,
        node.path,
        node.line,
        node.end_line,
        node.signature,
        node.doc,
        node.language,
        node.unit,
        node.external,
        words,
    )


def _fts_values(node_id: int, values: tuple[Any, ...]) -> tuple[Any, ...]:
    # nodes_fts columns: words, qualname, signature, doc
    return (node_id, values[11], values[2], values[6], values[7])


def _insert_rows(connection: sqlite3.Connection, groups: Iterable[_Group], ids: dict[str, int]) -> int:
    """Insert the edges, unresolved sites, dynamic flags and roots of ``groups``; the row count."""
    edges = [
        (ids[e.caller], ids[e.callee], e.relation, e.kind, e.confidence, *e.site, e.via)
        for g in groups
        for e in g.edges
    ]
    unresolved = [
        (ids[u.caller], *u.site, u.reason, u.name, u.text, u.prefix, int(u.covered))
        for g in groups
        for u in g.unresolved
    ]
    dynamic = [(ids[d.caller], *d.site, d.kind, d.prefix) for g in groups for d in g.dynamic]
    roots = [(ids[r.key], r.kind, r.rule) for g in groups for r in g.roots]
    connection.executemany(
        "INSERT INTO edges(caller, callee, relation, kind, confidence, path, line, col, via) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        edges,
    )
    connection.executemany(
        "INSERT INTO unresolved(caller, path, line, col, reason, name, text, prefix, covered) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        unresolved,
    )
    connection.executemany(
        "INSERT INTO dynamic(caller, path, line, col, kind, prefix) VALUES (?,?,?,?,?,?)", dynamic
    )
    connection.executemany("INSERT INTO roots(node, kind, rule) VALUES (?,?,?)", roots)
    return len(edges) + len(unresolved) + len(dynamic) + len(roots)


def _rewrite_all(connection: sqlite3.Connection, groups: dict[str, _Group], digests: dict[str, str]) -> int:
    """Replace every node and row; node ids are renumbered ``NODE_ID_GAP`` apart in key order."""
    for table in ("edges", "unresolved", "dynamic", "roots", "nodes", "graph_groups"):
        connection.execute(f"DELETE FROM {table}")
    _mark_ids(connection, renumbered=True)
    _test_pause()
    nodes = sorted(node for group in groups.values() for node in group.nodes)
    ids = {node.key: index * NODE_ID_GAP for index, node in enumerate(nodes, start=1)}
    connection.executemany(
        f"INSERT INTO nodes(id, key, {_NODE_FIELDS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(ids[n.key], n.key, *_node_values(n)) for n in nodes],
    )
    rows = _insert_rows(connection, groups.values(), ids)
    connection.execute("INSERT INTO nodes_fts(nodes_fts) VALUES('rebuild')")
    connection.executemany("INSERT INTO graph_groups(grp, digest) VALUES (?,?)", sorted(digests.items()))
    return len(nodes) + rows


class _NoRoom(Exception):
    """Two neighbouring node ids leave no room for the new keys between them."""


def _place(connection: sqlite3.Connection, keys: list[str]) -> dict[str, int]:
    """Ids for new node keys (sorted), between the ids of their stored neighbours in key order."""
    placed: dict[str, int] = {}
    run: list[str] = []
    bounds: tuple[int, int | None] = (0, None)

    def flush() -> None:
        if not run:
            return
        low, high = bounds
        top = high if high is not None else low + (len(run) + 1) * NODE_ID_GAP
        step = (top - low) // (len(run) + 1)
        if step < 1:
            raise _NoRoom
        for position, key in enumerate(run, start=1):
            placed[key] = low + step * position

    for key in keys:
        before = connection.execute(
            "SELECT id FROM nodes WHERE key < ? ORDER BY key DESC LIMIT 1", (key,)
        ).fetchone()
        after = connection.execute(
            "SELECT id FROM nodes WHERE key > ? ORDER BY key LIMIT 1", (key,)
        ).fetchone()
        neighbours = (before[0] if before else 0, after[0] if after else None)
        if neighbours != bounds:
            flush()
            run, bounds = [], neighbours
        run.append(key)
    flush()
    return placed


def _ids_of(connection: sqlite3.Connection, keys: Iterable[str]) -> dict[str, int]:
    wanted = json.dumps(sorted(set(keys)))
    return dict(
        connection.execute(
            "SELECT key, id FROM nodes WHERE key IN (SELECT value FROM json_each(?))", (wanted,)
        ).fetchall()
    )


def _rewrite_changed(
    connection: sqlite3.Connection,
    groups: dict[str, _Group],
    digests: dict[str, str],
    stored: dict[str, str],
    some: bool = False,
) -> int:
    """Rewrite the groups whose digest changed: a node keeps its id while its key stays.
    ``some``: ``groups`` are only those that may have changed (the others are as stored)."""
    changed = sorted(p for p in set(digests) | set(stored) if digests.get(p) != stored.get(p))
    if not some and len(changed) > 16 and len(changed) * 2 > len(digests):
        raise _NoRoom  # most of the graph changed: one whole rewrite is faster
    _mark_ids(connection, renumbered=False)
    old: dict[str, tuple[Any, ...]] = {}  # key -> (id, key, *_NODE_FIELDS)
    for path in changed:
        for row in connection.execute(f"SELECT id, key, {_NODE_FIELDS} FROM nodes WHERE path = ?", (path,)):
            old[row[1]] = row
    for path in changed:
        for table, column in _ROW_TABLES:
            connection.execute(
                f"DELETE FROM {table} WHERE {column} IN (SELECT id FROM nodes WHERE path = ?)", (path,)
            )
    _test_pause()
    new = {n.key: _node_values(n) for path in changed if path in groups for n in groups[path].nodes}
    gone = [row for key, row in old.items() if key not in new]
    updated = [(row, new[key]) for key, row in old.items() if key in new and tuple(row[2:]) != new[key]]
    connection.executemany(
        "INSERT INTO nodes_fts(nodes_fts, rowid, words, qualname, signature, doc) VALUES('delete',?,?,?,?,?)",
        [_fts_values(row[0], tuple(row[2:])) for row in (*gone, *(row for row, _ in updated))],
    )
    connection.executemany("DELETE FROM nodes WHERE id = ?", [(row[0],) for row in gone])
    added = sorted(key for key in new if key not in old)
    ids = _place(connection, added)
    sets = ", ".join(f"{name.strip()} = ?" for name in _NODE_FIELDS.split(","))
    connection.executemany(
        f"UPDATE nodes SET {sets} WHERE id = ?", [(*values, row[0]) for row, values in updated]
    )
    connection.executemany(
        f"INSERT INTO nodes(id, key, {_NODE_FIELDS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(ids[key], key, *new[key]) for key in added],
    )
    connection.executemany(
        "INSERT INTO nodes_fts(rowid, words, qualname, signature, doc) VALUES (?,?,?,?,?)",
        [_fts_values(row[0], values) for row, values in updated]
        + [_fts_values(ids[k], new[k]) for k in added],
    )
    rewritten = [groups[path] for path in changed if path in groups]
    referenced = {
        key
        for g in rewritten
        for key in (
            *(e.caller for e in g.edges),
            *(e.callee for e in g.edges),
            *(u.caller for u in g.unresolved),
            *(d.caller for d in g.dynamic),
            *(r.key for r in g.roots),
        )
    }
    rows = _insert_rows(connection, rewritten, _ids_of(connection, referenced))
    connection.executemany("DELETE FROM graph_groups WHERE grp = ?", [(p,) for p in changed])
    connection.executemany(
        "INSERT INTO graph_groups(grp, digest) VALUES (?,?)",
        [(p, digests[p]) for p in changed if p in digests],
    )
    return len(gone) + len(updated) + len(added) + rows


_FILE_COLUMNS = "path, language, status, hash, reason, unit, size, mtime_ns, words"


def _data_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA data_version").fetchone()[0])


def _files_table(connection: sqlite3.Connection) -> dict[str, tuple[Any, ...]]:
    """The files table's rows by path (``_FILE_COLUMNS``; not to be changed by the caller): as this
    connection last read or wrote them while no other connection has committed since (``PRAGMA
    data_version`` is the same), else read. A sync of one edit reads and compares every file's row
    twice (on Django, 2,900 rows: about 40 ms of CPU of each edit); a daemon, the one writer, keeps
    them instead. The version is read first: a commit between it and the read makes the next look
    read again."""
    kept: _FilesTable | None = getattr(connection, "files_table", None)
    version = _data_version(connection)
    if kept is not None and kept.version == version:
        return kept.rows
    rows = {row[0]: row for row in connection.execute(f"SELECT {_FILE_COLUMNS} FROM files")}
    if isinstance(connection, _Connection):
        connection.files_table = _FilesTable(version, rows)
    return rows


def _commit(connection: sqlite3.Connection) -> None:
    """COMMIT the open write transaction, keeping the files table it wrote (``_files_table``): the
    data version is read before the commit, while no other connection can commit, and a commit of
    this connection leaves it as it is."""
    pending = getattr(connection, "files_pending", None)
    version = _data_version(connection) if pending is not None else 0
    connection.execute("COMMIT")
    if isinstance(connection, _Connection) and pending is not None:
        rows, written = pending
        old, view = connection.files_table, connection.stored_view
        connection.files_table = _FilesTable(version, rows)
        connection.files_pending = None
        if old is not None and view is not None and view[0] is old.rows:  # the rows written, in it
            stored = dict(view[1])
            for path in written:
                row = rows.get(path)
                if row is None:
                    stored.pop(path, None)
                else:
                    stored[path] = StoredFile(*row[1:5], *row[6:8])
            connection.stored_view = (rows, stored)


def _rollback(connection: sqlite3.Connection) -> None:
    """ROLLBACK the open write transaction; what was kept of the files table is read again."""
    if isinstance(connection, _Connection):
        connection.files_table = connection.files_pending = None
    connection.execute("ROLLBACK")


def _write_files(
    connection: sqlite3.Connection, files: Iterable[FileEntry], stamps: dict[str, tuple[int, int]]
) -> int:
    """Make the files table hold ``files`` with their stamps, touching only the rows that differ
    (in a write transaction that ends with ``_commit`` or ``_rollback``)."""
    rows = {
        f.path: (
            f.path,
            f.language,
            f.status,
            f.hash,
            f.reason,
            f.unit,
            *stamps.get(f.path, (-1, -1)),
            format(f.words, "x") if f.words else "",
        )
        for f in files
    }
    stored = _files_table(connection)
    gone = [(path,) for path in stored if path not in rows]
    changed = [row for path, row in rows.items() if stored.get(path) != row]
    connection.executemany("DELETE FROM files WHERE path = ?", gone)
    connection.executemany(
        "INSERT OR REPLACE INTO files(path, language, status, hash, reason, unit, size, mtime_ns, words) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        changed,
    )
    if isinstance(connection, _Connection):
        connection.files_pending = (rows, [path for (path,) in gone] + [row[0] for row in changed])
    return len(gone) + len(changed)


def _write_state(
    connection: sqlite3.Connection,
    controls: Iterable[tuple[str, str, int, int]] | None,
    stamped_at: int | None,
) -> None:
    if controls is not None:
        connection.execute("DELETE FROM control_files")
        connection.executemany(
            "INSERT INTO control_files(path, digest, size, mtime_ns) VALUES (?,?,?,?)", list(controls)
        )
    connection.executemany(
        "INSERT INTO metadata(name, value) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET value=excluded.value",
        [
            ("stamped_at_ns", str(stamped_at if stamped_at is not None else -1)),
            ("synced_at_ns", str(time.time_ns())),  # a sync that found nothing to change counts too
        ],
    )


def write_graph(
    connection: sqlite3.Connection,
    graph: Graph,
    stamps: dict[str, tuple[int, int]],
    run: dict[str, Any],
    controls: Iterable[tuple[str, str, int, int]] | None = None,
    stamped_at: int | None = None,
    changed: Iterable[str] | None = None,
    link_state: Callable[[sqlite3.Connection], None] | None = None,
) -> dict[str, int]:
    """Store ``graph`` in one transaction: readers see the old graph or the new one.

    The rows are grouped by file (a node's path; an edge, unresolved site, dynamic flag or root goes
    with its node's file) and each group's digest is kept in ``graph_groups``: only the groups whose
    digest changed are rewritten, and a node keeps its id while its key stays. ``stamps`` are the
    files' (size, mtime_ns), ``controls`` the control files' (path, digest, size, mtime_ns) rows, and
    ``stamped_at`` the time (ns) the stamps were taken from (-1: unknown, so no stamp is trusted).
    ``changed``, when given, names the files (groups) that may differ from the stored graph (an
    incremental link knows them): only their rows are grouped and compared. ``link_state`` writes
    the incremental link's state of this graph (``python.link.persisted``); without it the stored state
    is no longer valid.
    Returns the rows written per table.
    """
    some = set(changed) if changed is not None else None
    groups = _groups(graph) if some is None else _groups_of(graph, some)
    digests = {path: group.digest() for path, group in groups.items()}
    if some is None:
        for path in set(_LAST_DIGESTS) - set(groups):
            del _LAST_DIGESTS[path]
    written: dict[str, int] = {}
    set_metadata(connection, "write_state", "writing")  # "clean" commits with the graph
    connection.execute("BEGIN IMMEDIATE")
    try:
        stored = dict(connection.execute("SELECT grp, digest FROM graph_groups").fetchall())
        whole = not stored or connection.execute("SELECT 1 FROM nodes LIMIT 1").fetchone() is None
        if not whole:
            connection.execute("SAVEPOINT changed_groups")
            try:
                if some is None:
                    written["graph"] = _rewrite_changed(connection, groups, digests, stored)
                else:
                    part = {path: digest for path, digest in stored.items() if path in some}
                    written["graph"] = _rewrite_changed(connection, groups, digests, part, some=True)
                connection.execute("RELEASE changed_groups")
            except (_NoRoom, sqlite3.IntegrityError):
                # no id left between two neighbours, or rows that do not fit the stored ones: rewrite all
                connection.execute("ROLLBACK TO changed_groups")
                connection.execute("RELEASE changed_groups")
                whole = True
        if whole:
            if some is not None:
                groups = _groups(graph)
                digests = {path: group.digest() for path, group in groups.items()}
            written["graph"] = _rewrite_all(connection, groups, digests)
            written["whole"] = 1
        written["files"] = _write_files(connection, graph.files, stamps)
        _finish_write(
            connection,
            graph.truncations,
            controls,
            stamped_at,
            run,
            graph.versions(),
            graph.stats,
            link_state,
        )
    except BaseException:
        _rollback(connection)
        raise
    return written


def _finish_write(
    connection: sqlite3.Connection,
    truncations: Iterable[Truncation],
    controls: Iterable[tuple[str, str, int, int]] | None,
    stamped_at: int | None,
    run: dict[str, Any],
    versions: dict[str, int],
    stats: dict[str, Any],
    link_state: Callable[[sqlite3.Connection], None] | None,
) -> None:
    """What a graph write does after its rows and file rows: the truncations, the sync state, the run,
    the incremental link's state (none: the stored one is no longer valid), the clean mark, the commit."""
    connection.execute("DELETE FROM truncations")
    connection.executemany(
        "INSERT INTO truncations(what, detail) VALUES (?,?)", [(t.what, t.detail) for t in truncations]
    )
    _write_state(connection, controls, stamped_at)
    _write_run(connection, run, versions, stats)
    _set_link_token(connection, "")
    if link_state is not None:
        link_state(connection)
    _write_clean(connection)
    _commit(connection)


def _write_clean(connection: sqlite3.Connection) -> None:
    connection.execute(
        "INSERT INTO metadata(name, value) VALUES('write_state', 'clean') "
        "ON CONFLICT(name) DO UPDATE SET value=excluded.value"
    )


def _write_run(
    connection: sqlite3.Connection, run: dict[str, Any], versions: dict[str, int], stats: dict[str, Any]
) -> None:
    connection.execute(
        "INSERT INTO runs(started, finished, root, versions, stats, error) VALUES (?,?,?,?,?,?)",
        (
            run.get("started", time.time()),
            time.time(),
            str(run.get("root", "")),
            json.dumps(versions, sort_keys=True),
            json.dumps(stats, sort_keys=True),
            str(run.get("error") or ""),
        ),
    )
    connection.execute("DELETE FROM runs WHERE id <= (SELECT max(id) FROM runs) - ?", (KEEP_RUNS,))


class GroupsDoNotFit(Exception):
    """The changed groups cannot be written in place (no node id left between two neighbours, or
    rows that do not fit the stored ones): the caller writes the whole graph instead."""


def write_groups(
    connection: sqlite3.Connection,
    rows: dict[str, tuple[list[Node], list[Edge], list[Unresolved], list[Dynamic], list[Root]]],
    files: Iterable[FileEntry],
    stats: dict[str, Any],
    stamps: dict[str, tuple[int, int]],
    run: dict[str, Any],
    controls: Iterable[tuple[str, str, int, int]] | None,
    stamped_at: int | None,
    link_state: Callable[[sqlite3.Connection], None] | None,
) -> dict[str, int]:
    """``write_graph`` of a graph known only by the rows of the groups that may have changed (every
    other group is as stored) and its stats: an incremental link from the stored state."""
    groups: dict[str, _Group] = {}
    for path, (nodes, edges, unresolved, dynamic, roots) in rows.items():
        group = groups[path] = _Group(path)
        group.nodes, group.edges, group.unresolved, group.dynamic, group.roots = (
            nodes,
            edges,
            unresolved,
            dynamic,
            roots,
        )
    digests = {path: group.digest() for path, group in groups.items() if group.nodes}
    written: dict[str, int] = {}
    set_metadata(connection, "write_state", "writing")  # "clean" commits with the graph
    connection.execute("BEGIN IMMEDIATE")
    try:
        stored = dict(connection.execute("SELECT grp, digest FROM graph_groups").fetchall())
        if not stored or connection.execute("SELECT 1 FROM nodes LIMIT 1").fetchone() is None:
            raise GroupsDoNotFit("no stored groups (a graph of an older schema): write it whole")
        part = {path: digest for path, digest in stored.items() if path in groups}
        try:
            written["graph"] = _rewrite_changed(connection, groups, digests, part, some=True)
        except (_NoRoom, sqlite3.IntegrityError, KeyError) as error:
            raise GroupsDoNotFit(str(error)) from error
        written["files"] = _write_files(connection, files, stamps)
        versions = {"fileindex": FILEINDEX_VERSION, "projectgraph": GRAPH_VERSION}
        _finish_write(connection, (), controls, stamped_at, run, versions, stats, link_state)
    except BaseException:
        _rollback(connection)
        raise
    return written


# ---- the incremental link's state (link.persisted) ----------------------------------------------
def _set_link_token(connection: sqlite3.Connection, token: str) -> None:
    connection.execute(
        "INSERT INTO metadata(name, value) VALUES('link_state', ?) "
        "ON CONFLICT(name) DO UPDATE SET value=excluded.value",
        (token,),
    )


def write_link_state(
    connection: sqlite3.Connection,
    state: bytes,
    units: Iterable[tuple[str, bytes]],
    reads: Iterable[tuple[int, bytes]],
    token: str,
) -> None:
    """Replace the stored state (inside the caller's transaction)."""
    connection.execute("DELETE FROM link_blobs")
    connection.execute("DELETE FROM link_reads")
    connection.executemany("INSERT INTO link_blobs(name, data) VALUES (?,?)", units)
    connection.executemany("INSERT INTO link_reads(key, units) VALUES (?,?)", reads)
    connection.execute("INSERT INTO link_blobs(name, data) VALUES ('globals', ?)", (state,))
    connection.execute("INSERT INTO link_blobs(name, data) VALUES ('token', ?)", (token.encode(),))
    _set_link_token(connection, token)


def patch_link_state(
    connection: sqlite3.Connection,
    state: bytes,
    units: Iterable[tuple[str, bytes]],
    reads: dict[int, list[int]],
    token: str,
) -> None:
    """Write the globals and some units' outputs again, and add units to the readers of keys."""
    connection.executemany("INSERT OR REPLACE INTO link_blobs(name, data) VALUES (?,?)", units)
    known = _readers_of(connection, reads)
    rows = []
    for key, units_of in reads.items():
        have = known.get(key)
        if have is None:
            rows.append((key, array("i", sorted(set(units_of))).tobytes()))
        else:
            more = set(units_of) - set(have)
            if more:
                rows.append((key, array("i", sorted({*have, *more})).tobytes()))
    connection.executemany("INSERT OR REPLACE INTO link_reads(key, units) VALUES (?,?)", rows)
    connection.execute("INSERT OR REPLACE INTO link_blobs(name, data) VALUES ('globals', ?)", (state,))
    connection.execute("INSERT OR REPLACE INTO link_blobs(name, data) VALUES ('token', ?)", (token.encode(),))
    _set_link_token(connection, token)


def read_link_globals(connection: sqlite3.Connection) -> bytes | None:
    """The stored state's globals, when the state is the stored graph's."""
    token = metadata_text(connection, "link_state")
    if not token:
        return None
    row = connection.execute("SELECT data FROM link_blobs WHERE name = 'token'").fetchone()
    if row is None or bytes(row[0]).decode() != token:
        return None
    found = connection.execute("SELECT data FROM link_blobs WHERE name = 'globals'").fetchone()
    return bytes(found[0]) if found is not None else None


def _rows_in(
    connection: sqlite3.Connection,
    select: str,
    column: str,
    values: Iterable[Any],
    also: str = "",
    also_params: Sequence[Any] = (),
) -> Iterator[Any]:
    """The rows of ``select WHERE column IN (values) also``, one statement per 500 of the sorted distinct
    values (a statement's parameters stay well under SQLite's limit); ``also_params`` follow each chunk."""
    wanted = sorted(set(values))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        yield from connection.execute(f"{select} WHERE {column} IN ({marks}){also}", [*chunk, *also_params])


def _readers_of(connection: sqlite3.Connection, keys: Iterable[int]) -> dict[int, array[int]]:
    found: dict[int, array[int]] = {}
    for key, blob in _rows_in(connection, "SELECT key, units FROM link_reads", "key", keys):
        units = array("i")
        units.frombytes(blob)
        found[key] = units
    return found


def read_link_readers(connection: sqlite3.Connection, keys: Iterable[int]) -> set[int]:
    """The ids of the units that read any of ``keys`` (hashes)."""
    return {unit for units in _readers_of(connection, keys).values() for unit in units}


def read_link_blobs(connection: sqlite3.Connection, names: Sequence[str]) -> list[bytes]:
    """Named blobs of the stored state, in the order asked (a missing one is an error)."""
    found = {
        name: bytes(blob)
        for name, blob in connection.execute(
            f"SELECT name, data FROM link_blobs WHERE name IN ({','.join('?' * len(names))})", tuple(names)
        )
    }
    return [found[name] for name in names]


def read_link_roots(connection: sqlite3.Connection, paths: Iterable[str]) -> dict[str, Any]:
    """The roots each of some files gives (as stored: rows of plain tuples), by path."""
    names = (f"r{path}" for path in paths)
    return {
        name[1:]: marshal.loads(blob)
        for name, blob in _rows_in(connection, "SELECT name, data FROM link_blobs", "name", names)
    }


def read_link_units(connection: sqlite3.Connection, units: Iterable[int]) -> dict[int, bytes]:
    """The stored outputs of some units, by id."""
    names = (f"u{unit}" for unit in units)
    return {
        int(name[1:]): bytes(blob)
        for name, blob in _rows_in(connection, "SELECT name, data FROM link_blobs", "name", names)
    }


def write_stamps(
    connection: sqlite3.Connection,
    stamps: dict[str, tuple[int, int]],
    controls: Iterable[tuple[str, str, int, int]] | None,
    stamped_at: int | None,
) -> dict[str, int]:
    """Record new stamps for a graph that did not change (a sync that found the same content)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        stored = _files_table(connection)
        changed = [
            (*stamp, path) for path, stamp in stamps.items() if path in stored and stored[path][6:8] != stamp
        ]
        connection.executemany("UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", changed)
        if changed and isinstance(connection, _Connection):
            rows = dict(stored)
            for size, mtime_ns, path in changed:
                rows[path] = (*rows[path][:6], size, mtime_ns, *rows[path][8:])
            connection.files_pending = (rows, [path for _, _, path in changed])
        _write_state(connection, controls, stamped_at)
        _commit(connection)
    except BaseException:
        _rollback(connection)
        raise
    return {"files": len(changed)}


def last_run(connection: sqlite3.Connection) -> dict[str, Any] | None:
    row = connection.execute(
        "SELECT id, started, finished, root, versions, stats, error FROM runs ORDER BY id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    return {
        "id": row[0],
        "started": row[1],
        "finished": row[2],
        "root": row[3],
        "versions": json.loads(row[4]),
        "stats": json.loads(row[5]),
        "error": row[6],
    }


def file_stamps(connection: sqlite3.Connection) -> dict[str, tuple[int, int, str]]:
    """Each stored project file's (size, mtime_ns, status) (a file of dependency code has none)."""
    return {
        path: (size, mtime, status)
        for path, size, mtime, status in connection.execute(
            "SELECT path, size, mtime_ns, status FROM files WHERE unit = ''"
        )
    }


class StoredFile(NamedTuple):
    language: str
    status: str
    hash: str
    reason: str
    size: int
    mtime_ns: int


def stored_files(connection: sqlite3.Connection) -> dict[str, StoredFile]:
    """Each stored file's row: what its graph entry says and the stamp it was read with."""
    rows = _files_table(connection)
    view = getattr(connection, "stored_view", None)
    if view is None or view[0] is not rows:
        view = (rows, {path: StoredFile(*row[1:5], *row[6:8]) for path, row in rows.items()})
        if isinstance(connection, _Connection):
            connection.stored_view = view
    return dict(view[1])


def stored_controls(connection: sqlite3.Connection) -> dict[str, str]:
    """The digest of each control file the stored graph was linked with, by path."""
    return dict(connection.execute("SELECT path, digest FROM control_files").fetchall())


def control_stamps(connection: sqlite3.Connection) -> dict[str, tuple[str, int, int]]:
    """Each control file's (digest, size, mtime_ns) as the stored graph saw it."""
    return {
        path: (digest, size, mtime)
        for path, digest, size, mtime in connection.execute(
            "SELECT path, digest, size, mtime_ns FROM control_files"
        )
    }


def metadata_text(connection: sqlite3.Connection, name: str) -> str | None:
    """A text of the metadata table; None when absent."""
    row = connection.execute("SELECT value FROM metadata WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def set_metadata(connection: sqlite3.Connection, name: str, value: str) -> None:
    """Set a text of the metadata table (one statement: its own transaction)."""
    connection.execute(
        "INSERT INTO metadata(name, value) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET value=excluded.value",
        (name, value),
    )


def metadata_int(connection: sqlite3.Connection, name: str) -> int | None:
    """An integer of the metadata table; None when absent or negative."""
    row = connection.execute("SELECT value FROM metadata WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    try:
        value = int(row[0])
    except ValueError:
        return None
    return value if value >= 0 else None


def read_graph(connection: sqlite3.Connection) -> Graph:
    """The stored graph, read in one snapshot."""
    with snapshot(connection):
        keys_by_id: dict[int, str] = {}
        nodes = []
        for row in connection.execute(
            "SELECT id, key, kind, path, line, end_line, language, unit, external, name, qualname, "
            "signature, doc FROM nodes ORDER BY key"
        ):
            keys_by_id[row[0]] = row[1]
            nodes.append(Node(*row[1:]))
        edges = [
            Edge(keys_by_id[c], keys_by_id[d], rel, kind, Site(p, ln, col), via)
            for c, d, rel, kind, p, ln, col, via in connection.execute(
                "SELECT caller, callee, relation, kind, path, line, col, via FROM edges"
            )
        ]
        unresolved = [
            Unresolved(keys_by_id[c], Site(p, ln, col), reason, name, text, prefix, bool(cov))
            for c, p, ln, col, reason, name, text, prefix, cov in connection.execute(
                "SELECT caller, path, line, col, reason, name, text, prefix, covered FROM unresolved"
            )
        ]
        dynamic = [
            Dynamic(keys_by_id[c], Site(p, ln, col), kind, prefix)
            for c, p, ln, col, kind, prefix in connection.execute(
                "SELECT caller, path, line, col, kind, prefix FROM dynamic"
            )
        ]
        roots = [
            Root(keys_by_id[n], kind, rule)
            for n, kind, rule in connection.execute("SELECT node, kind, rule FROM roots")
        ]
        truncations = [
            Truncation(w, d) for w, d in connection.execute("SELECT what, detail FROM truncations")
        ]
        files = [
            FileEntry(path, language, status, file_hash, reason, unit, int(words, 16) if words else 0)
            for path, language, status, file_hash, reason, unit, words in connection.execute(
                "SELECT path, language, status, hash, reason, unit, words FROM files ORDER BY path"
            )
        ]
        run = last_run(connection)
    return Graph(
        nodes=tuple(nodes),
        edges=tuple(sorted(edges)),
        roots=tuple(sorted(roots)),
        unresolved=tuple(sorted(unresolved)),
        dynamic=tuple(sorted(dynamic)),
        truncations=tuple(sorted(truncations)),
        files=tuple(files),
        stats=run["stats"] if run else {},
    )


# ---- queries over the stored graph (projectgraph.query composes these) ---------------------------

NODE_COLUMNS = "id, key, kind, name, qualname, path, line, end_line, signature, doc, language, unit, external"


def nodes_where(
    connection: sqlite3.Connection, column: str, value: str, limit: int = 1000
) -> list[tuple[Any, ...]]:
    """Nodes whose ``column`` (key, name, qualname or path) equals ``value``, in key order."""
    if column not in ("key", "name", "qualname", "path", "id"):
        raise ValueError(f"not a node lookup column: {column}")
    return connection.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE {column} = ? ORDER BY key LIMIT ?", (value, limit)
    ).fetchall()


def nodes_by_keys(connection: sqlite3.Connection, keys: Iterable[str]) -> dict[str, tuple[Any, ...]]:
    """Node rows by key, in one statement per 500 keys (a search's 30 hits were 30 statements)."""
    return {row[1]: row for row in _rows_in(connection, f"SELECT {NODE_COLUMNS} FROM nodes", "key", keys)}


def nodes_by_ids(connection: sqlite3.Connection, ids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    return {row[0]: row for row in _rows_in(connection, f"SELECT {NODE_COLUMNS} FROM nodes", "id", ids)}


def edges_touching(
    connection: sqlite3.Connection,
    ids: Iterable[int],
    direction: str,
    relations: Iterable[str] | None = None,
) -> list[tuple[Any, ...]]:
    """Edges into (``in``) or out of (``out``) the nodes: (caller, callee, relation, kind,
    confidence, path, line, col, via)."""
    column = "callee" if direction == "in" else "caller"
    rels = sorted(relations) if relations is not None else []
    also = f" AND relation IN ({','.join('?' * len(rels))})" if relations is not None else ""
    select = "SELECT caller, callee, relation, kind, confidence, path, line, col, via FROM edges"
    return list(_rows_in(connection, select, column, ids, also, rels))


def edges_by_relation(connection: sqlite3.Connection, relations: Iterable[str]) -> list[tuple[int, int]]:
    rels = sorted(relations)
    return connection.execute(
        f"SELECT DISTINCT caller, callee FROM edges WHERE relation IN ({','.join('?' * len(rels))})", rels
    ).fetchall()


def _of_files(column: str, paths: Iterable[str] | None) -> tuple[str, list[str]]:
    """A WHERE clause keeping the rows whose node (``column``) is in one of the files ``paths``
    (the rows of those groups, as ``write_graph`` groups them); none for every row."""
    if paths is None:
        return "", []
    wanted = sorted(set(paths))
    return f" WHERE {column} IN (SELECT id FROM nodes WHERE path IN ({','.join('?' * len(wanted))}))", wanted


def _rows_of_files(
    connection: sqlite3.Connection, select: str, column: str, paths: Iterable[str] | None, order: str
) -> list[Any]:
    """The rows of ``select`` whose node (``column``) is in one of the files ``paths`` (all when
    None), in ``order``."""
    where, params = _of_files(column, paths)
    return connection.execute(f"{select}{where} {order}", params).fetchall()


def unresolved_rows(
    connection: sqlite3.Connection, paths: Iterable[str] | None = None
) -> list[tuple[Any, ...]]:
    """Every unresolved site (or those of the nodes of the files ``paths``): (caller, path, line,
    col, reason, name, text, prefix, covered)."""
    return _rows_of_files(
        connection,
        "SELECT caller, path, line, col, reason, name, text, prefix, covered FROM unresolved",
        "caller",
        paths,
        "ORDER BY path, line, col, caller, reason, name, text, prefix, covered",
    )


def dynamic_rows(connection: sqlite3.Connection, paths: Iterable[str] | None = None) -> list[tuple[Any, ...]]:
    """Every dynamic flag (or those of the nodes of the files ``paths``): (caller, path, line, col,
    kind, prefix)."""
    select = "SELECT caller, path, line, col, kind, prefix FROM dynamic"
    return _rows_of_files(
        connection, select, "caller", paths, "ORDER BY path, line, col, caller, kind, prefix"
    )


def root_rows(
    connection: sqlite3.Connection, paths: Iterable[str] | None = None
) -> list[tuple[int, str, str]]:
    """The roots (or those of the nodes of the files ``paths``): (node, kind, rule)."""
    return _rows_of_files(
        connection, "SELECT node, kind, rule FROM roots", "node", paths, "ORDER BY node, kind, rule"
    )


def _walked(relations: Iterable[str]) -> tuple[str, list[str]]:
    rels = sorted(relations)
    return f"(relation IN ({','.join('?' * len(rels))}) OR kind = 'package')", rels


def walked_pairs(
    connection: sqlite3.Connection, relations: Iterable[str], paths: Iterable[str] | None = None
) -> list[tuple[int, int]]:
    """(caller, callee) of the edges of these relations or of kind package (what reach walks); of
    the callers in the files ``paths`` when given."""
    walked, rels = _walked(relations)
    where, params = _of_files("caller", paths)
    return connection.execute(
        f"SELECT caller, callee FROM edges{where or ' WHERE 1'} AND {walked}", [*params, *rels]
    ).fetchall()


def walked_callers(
    connection: sqlite3.Connection, ids: Iterable[int], relations: Iterable[str]
) -> list[tuple[int, int]]:
    """(caller, callee) of the edges into the nodes ``ids`` that reach walks (``walked_pairs``)."""
    walked, rels = _walked(relations)
    select = "SELECT caller, callee FROM edges"
    return list(_rows_in(connection, select, "callee", ids, f" AND {walked}", rels))


def node_files(connection: sqlite3.Connection, paths: Iterable[str] | None = None) -> list[tuple[int, str]]:
    """(id, path) of every node, or of the nodes of the files ``paths``."""
    if paths is None:
        return connection.execute("SELECT id, path FROM nodes").fetchall()
    wanted = sorted(set(paths))
    return connection.execute(
        f"SELECT id, path FROM nodes WHERE path IN ({','.join('?' * len(wanted))})", wanted
    ).fetchall()


def group_digests(connection: sqlite3.Connection) -> dict[str, str]:
    """Each stored group's (file's) digest: a group whose digest stayed holds the same rows."""
    return dict(connection.execute("SELECT grp, digest FROM graph_groups").fetchall())


def node_ids_mark(connection: sqlite3.Connection) -> str | None:
    """The run whose write last renumbered the node ids (``_mark_ids``); None when unknown."""
    return metadata_text(connection, NODE_IDS)


def all_node_ids(connection: sqlite3.Connection) -> list[int]:
    return [row[0] for row in connection.execute("SELECT id FROM nodes ORDER BY id")]


def run_id(connection: sqlite3.Connection) -> int:
    """The id of the latest stored run (0: none): a new one with each write of the graph."""
    row = connection.execute("SELECT max(id) FROM runs").fetchone()
    return int(row[0] or 0)


_FTS_COLUMNS = ", ".join(f"n.{c.strip()}" for c in NODE_COLUMNS.split(","))
_BM25 = "bm25(nodes_fts, 10.0, 5.0, 2.0, 1.0)"  # words (split names), qualname, signature, doc


def fts_search(
    connection: sqlite3.Connection, expression: str, limit: int, first: Iterable[int] = ()
) -> list[tuple[Any, ...]]:
    """Full-text matches by BM25 (names weigh most): (node row..., score), best first, except that
    the matches among the nodes ``first`` come before all others. One statement: BM25's term
    statistics cost a pass over each term's matches, so a second query would pay them again."""
    preferred = sorted(set(first))
    marks = ",".join("?" * len(preferred))
    order = f"nodes_fts.rowid IN ({marks}) DESC, " if preferred else ""
    return connection.execute(
        f"SELECT {_FTS_COLUMNS}, {_BM25} AS score FROM nodes_fts "
        f"JOIN nodes n ON n.id = nodes_fts.rowid WHERE nodes_fts MATCH ? ORDER BY {order}score, n.id LIMIT ?",
        (expression, *preferred, limit),
    ).fetchall()


def nodes_named(connection: sqlite3.Connection, text: str, limit: int) -> list[tuple[Any, ...]]:
    """Nodes whose name or qualified name is exactly ``text``: first-party definitions first."""
    return connection.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE id IN "
        "(SELECT id FROM nodes WHERE name = ?1 UNION SELECT id FROM nodes WHERE qualname = ?1) "
        "ORDER BY kind IN ('external', 'module'), id LIMIT ?2",
        (text, limit),
    ).fetchall()


def has_graph(connection: sqlite3.Connection) -> bool:
    return connection.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is not None


_SUMMARY_VERSIONS = ("fileindex", "projectgraph", "reach", "summary")


def write_summary(connection: sqlite3.Connection, unit: str, versions: dict[str, int], data: bytes) -> None:
    """Keep a unit's summary (its compact form) under the versions it was built with."""
    connection.execute(
        "INSERT OR REPLACE INTO summaries(unit, fileindex, graph, reach, summary, data, written_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (unit, *(versions[name] for name in _SUMMARY_VERSIONS), data, time.time()),
    )


def read_summary(connection: sqlite3.Connection, unit: str, versions: dict[str, int]) -> bytes | None:
    """A unit's stored summary for exactly these versions, or None."""
    row = connection.execute(
        "SELECT data FROM summaries WHERE unit = ? AND fileindex = ? AND graph = ? AND reach = ? "
        "AND summary = ?",
        (unit, *(versions[name] for name in _SUMMARY_VERSIONS)),
    ).fetchone()
    return bytes(row[0]) if row is not None else None


# ---- external providers' runs (projectgraph.providers) ------------------------------------------


def start_provider_run(connection: sqlite3.Connection, provider: str, root: str, started: float) -> int:
    """The run row a build writes when it starts; ``finish_provider_run`` closes it."""
    cursor = connection.execute(
        "INSERT INTO provider_runs(provider, started, root, status) VALUES(?, ?, ?, 'running')",
        (provider, started, root),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def finish_provider_run(
    connection: sqlite3.Connection,
    run: int,
    status: str,
    limitations: Sequence[dict[str, str]],
    stats: dict[str, Any],
    files: tuple[int | None, int | None] = (None, None),
    rows: tuple[Sequence[tuple[Any, ...]], Sequence[tuple[Any, ...]]] = ((), ()),
) -> None:
    """Close a run and write its node and edge rows, all in one transaction."""
    nodes, edges = rows
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            "UPDATE provider_runs SET finished = ?, status = ?, files_seen = ?, files_parsed = ?, "
            "limitations = ?, stats = ? WHERE id = ?",
            (
                time.time(),
                status,
                files[0],
                files[1],
                json.dumps(list(limitations), sort_keys=True),
                json.dumps(stats, sort_keys=True),
                run,
            ),
        )
        connection.executemany(
            "INSERT INTO provider_nodes VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [(run, *n) for n in nodes]
        )
        connection.executemany("INSERT INTO provider_edges VALUES(?, ?, ?, ?, ?)", [(run, *e) for e in edges])
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def provider_runs(connection: sqlite3.Connection, provider: str | None = None) -> list[dict[str, Any]]:
    """Every run row (of one provider), oldest first."""
    where, args = ("WHERE provider = ?", (provider,)) if provider else ("", ())
    rows = connection.execute(
        "SELECT id, provider, started, finished, root, status, files_seen, files_parsed, limitations, "
        f"stats FROM provider_runs {where} ORDER BY id",
        args,
    ).fetchall()
    names = ("id", "provider", "started", "finished", "root", "status", "files_seen", "files_parsed")
    return [
        dict(zip(names, row[:8], strict=True))
        | {"limitations": json.loads(row[8]), "stats": json.loads(row[9])}
        for row in rows
    ]


def provider_rows(
    connection: sqlite3.Connection, run: int
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A run's node rows (kind, name, qualified_name, path, line_start, line_end, content_hash,
    language, provider_ref) and edge rows (kind, source_qn, target_qn, confidence), in row order."""
    nodes = connection.execute(
        "SELECT kind, name, qualified_name, path, line_start, line_end, content_hash, language, "
        "provider_ref FROM provider_nodes WHERE run = ? ORDER BY rowid",
        (run,),
    ).fetchall()
    edges = connection.execute(
        "SELECT kind, source_qn, target_qn, confidence FROM provider_edges WHERE run = ? ORDER BY rowid",
        (run,),
    ).fetchall()
    return nodes, edges


# ---- what the viewer shows beside the edges (projectgraph.query composes these) -----------------


def sites_of(
    connection: sqlite3.Connection, node: int
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[str, str]]]:
    """The unresolved sites (path, line, col, reason, name, text, prefix, covered), the dynamic flags
    (path, line, col, kind, prefix) and the roots (kind, rule) of one node, each in site order."""
    unresolved = connection.execute(
        "SELECT path, line, col, reason, name, text, prefix, covered FROM unresolved WHERE caller = ? "
        "ORDER BY path, line, col, reason, name",
        (node,),
    ).fetchall()
    dynamic = connection.execute(
        "SELECT path, line, col, kind, prefix FROM dynamic WHERE caller = ? ORDER BY path, line, col, kind",
        (node,),
    ).fetchall()
    roots = connection.execute(
        "SELECT kind, rule FROM roots WHERE node = ? ORDER BY kind, rule", (node,)
    ).fetchall()
    return unresolved, dynamic, roots


def file_rows(connection: sqlite3.Connection) -> list[tuple[str, str, str, str, str]]:
    """Every stored file: (path, language, status, reason, unit), project files first, by path."""
    return connection.execute(
        "SELECT path, language, status, reason, unit FROM files ORDER BY unit != '', unit, path"
    ).fetchall()


def sync_generation(connection: sqlite3.Connection) -> tuple[int, int]:
    """(the latest run id, the last sync's time in ns): both move when a sync commits, the second
    also when a sync found nothing to change; (0, 0) before the first."""
    row = connection.execute(
        "SELECT (SELECT max(id) FROM runs), (SELECT value FROM metadata WHERE name = 'synced_at_ns')"
    ).fetchone()
    try:
        synced = int(row[1]) if row[1] is not None else 0
    except ValueError:
        synced = 0
    return int(row[0] or 0), max(synced, 0)


def copy_with_edges(connection: sqlite3.Connection, edges: Iterable[Edge]) -> sqlite3.Connection:
    """An in-memory copy of the stored graph with ``edges`` added (an overlay's), for queries that
    must see them: the project's own store is never written. Each edge's nodes must be stored."""
    copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    connection.backup(copy)  # one step (all pages): one consistent snapshot of the source
    wanted = list(edges)
    ids = _ids_of(copy, (key for e in wanted for key in (e.caller, e.callee)))
    copy.execute("BEGIN")
    copy.executemany(
        "INSERT INTO edges(caller, callee, relation, kind, confidence, path, line, col, via) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        [(ids[e.caller], ids[e.callee], e.relation, e.kind, e.confidence, *e.site, e.via) for e in wanted],
    )
    copy.execute("COMMIT")
    return copy
