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
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from projectgraph.fileindex import FileIndex, Key
from projectgraph.graph import Dynamic, Edge, FileEntry, Graph, Node, Root, Site, Truncation, Unresolved

SCHEMA_VERSION = 2

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


def write_graph(
    connection: sqlite3.Connection,
    graph: Graph,
    stamps: dict[str, tuple[int, int]],
    run: dict[str, Any],
) -> None:
    """Replace the stored graph with ``graph`` in one transaction: readers see the old or the new."""
    node_ids = {node.key: index for index, node in enumerate(graph.nodes, start=1)}
    connection.execute("BEGIN IMMEDIATE")
    try:
        for table in ("edges", "unresolved", "dynamic", "roots", "truncations", "nodes", "files"):
            connection.execute(f"DELETE FROM {table}")
        _test_pause()
        connection.executemany(
            "INSERT INTO files(path, language, status, hash, reason, unit, size, mtime_ns) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [
                (f.path, f.language, f.status, f.hash, f.reason, f.unit, *stamps.get(f.path, (-1, -1)))
                for f in graph.files
            ],
        )
        connection.executemany(
            "INSERT INTO nodes(id, key, kind, name, qualname, path, line, end_line, signature, doc, "
            "language, unit, external, words) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    node_ids[n.key],
                    n.key,
                    n.kind,
                    n.name,
                    n.qualname,
                    n.path,
                    n.line,
                    n.end_line,
                    n.signature,
                    n.doc,
                    n.language,
                    n.unit,
                    n.external,
                    search_words(n.name, n.qualname or n.key) if n.kind != "module" else search_words(n.path),
                )
                for n in graph.nodes
            ],
        )
        connection.executemany(
            "INSERT INTO edges(caller, callee, relation, kind, confidence, path, line, col, via) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (
                    node_ids[e.caller],
                    node_ids[e.callee],
                    e.relation,
                    e.kind,
                    e.confidence,
                    e.site.path,
                    e.site.line,
                    e.site.column,
                    e.via,
                )
                for e in graph.edges
                if e.caller in node_ids and e.callee in node_ids
            ],
        )
        connection.executemany(
            "INSERT INTO unresolved(caller, path, line, col, reason, name, text, prefix, covered) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (
                    node_ids[u.caller],
                    u.site.path,
                    u.site.line,
                    u.site.column,
                    u.reason,
                    u.name,
                    u.text,
                    u.prefix,
                    int(u.covered),
                )
                for u in graph.unresolved
                if u.caller in node_ids
            ],
        )
        connection.executemany(
            "INSERT INTO dynamic(caller, path, line, col, kind, prefix) VALUES (?,?,?,?,?,?)",
            [
                (node_ids[d.caller], d.site.path, d.site.line, d.site.column, d.kind, d.prefix)
                for d in graph.dynamic
                if d.caller in node_ids
            ],
        )
        connection.executemany(
            "INSERT INTO roots(node, kind, rule) VALUES (?,?,?)",
            [(node_ids[r.key], r.kind, r.rule) for r in graph.roots if r.key in node_ids],
        )
        connection.executemany(
            "INSERT INTO truncations(what, detail) VALUES (?,?)",
            [(t.what, t.detail) for t in graph.truncations],
        )
        connection.execute("INSERT INTO nodes_fts(nodes_fts) VALUES('rebuild')")
        connection.execute(
            "INSERT INTO runs(started, finished, root, versions, stats, error) VALUES (?,?,?,?,?,?)",
            (
                run.get("started", time.time()),
                time.time(),
                str(run.get("root", "")),
                json.dumps(graph.versions(), sort_keys=True),
                json.dumps(graph.stats, sort_keys=True),
                str(run.get("error") or ""),
            ),
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


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
    """Each stored file's (size, mtime_ns, status)."""
    return {
        path: (size, mtime, status)
        for path, size, mtime, status in connection.execute("SELECT path, size, mtime_ns, status FROM files")
    }


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
            FileEntry(*row)
            for row in connection.execute(
                "SELECT path, language, status, hash, reason, unit FROM files ORDER BY path"
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


def nodes_by_ids(connection: sqlite3.Connection, ids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    wanted = sorted(set(ids))
    found: dict[int, tuple[Any, ...]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in connection.execute(f"SELECT {NODE_COLUMNS} FROM nodes WHERE id IN ({marks})", chunk):
            found[row[0]] = row
    return found


def edges_touching(
    connection: sqlite3.Connection,
    ids: Iterable[int],
    direction: str,
    relations: Iterable[str] | None = None,
) -> list[tuple[Any, ...]]:
    """Edges into (``in``) or out of (``out``) the nodes: (caller, callee, relation, kind,
    confidence, path, line, col, via)."""
    column = "callee" if direction == "in" else "caller"
    wanted = sorted(set(ids))
    rels = sorted(relations) if relations is not None else None
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = (
            "SELECT caller, callee, relation, kind, confidence, path, line, col, via FROM edges "
            f"WHERE {column} IN ({marks})"
        )
        params: list[Any] = list(chunk)
        if rels is not None:
            sql += f" AND relation IN ({','.join('?' * len(rels))})"
            params += rels
        rows.extend(connection.execute(sql, params).fetchall())
    return rows


def edges_by_relation(connection: sqlite3.Connection, relations: Iterable[str]) -> list[tuple[int, int]]:
    rels = sorted(relations)
    return connection.execute(
        f"SELECT caller, callee FROM edges WHERE relation IN ({','.join('?' * len(rels))})", rels
    ).fetchall()


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
