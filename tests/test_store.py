"""The SQLite store: migrations from every older schema, a newer schema refused, one writer at a
time across real processes, and readers that see one consistent graph while a write runs."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from projectgraph.fileindex import CODEC, Key
from projectgraph.query import QueryEngine
from projectgraph.store import sqlite as sql
from projectgraph.store.lock import WriterBusyError, WriterLock
from projectgraph.store.sqlite import SCHEMA_VERSION, SchemaError, SqliteStore

CLI = Path(sys.executable).with_name("projectgraph")

# What a schema-1 store held: a file index as schema 1 wrote it (JSON text) and a plugin artifact.
KEY = Key(hash="h1", path="app/x.py", version=1, grammar="g", language="python")
INDEX_KEY = KEY.text()
INDEX_ROW = (INDEX_KEY, "app/x.py", '{"path":"app/x.py","language":"python"}', 1000.0)
ARTIFACT_ROW = (INDEX_KEY, "routes", "1", '{"routes": ["/a"]}', 1000.0)


def make_old(path: Path, version: int) -> None:
    """A database at schema ``version`` (the migrations up to it only) holding some data."""
    connection = sqlite3.connect(path, isolation_level=None)
    assert sql.migrate(connection, target=version) == version
    connection.execute("INSERT INTO file_index(key, path, data, read_at) VALUES (?,?,?,?)", INDEX_ROW)
    connection.execute(
        "INSERT INTO plugin_artifact(key, plugin, version, data, read_at) VALUES (?,?,?,?,?)", ARTIFACT_ROW
    )
    if version >= 2:  # the stored graph, in schema 2's columns
        connection.executemany(
            "INSERT INTO nodes(id, key, kind, name, qualname, path, line, end_line, signature, doc, "
            "language, unit, external, words) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (1, "a.py//f", "function", "f", "f", "a.py", 1, 2, "def f()", "", "python", "", "", "f"),
                (2, "a.py//g", "function", "g", "g", "a.py", 4, 5, "def g()", "", "python", "", "", "g"),
            ],
        )
        connection.execute(
            "INSERT INTO edges(caller, callee, relation, kind, confidence, path, line, col, via) "
            "VALUES (2, 1, 'calls', 'direct', 'high', 'a.py', 5, 4, '')"
        )
        connection.execute(
            "INSERT INTO runs(started, finished, root, versions, stats) VALUES (1, 2, '/p', '{}', ?)",
            (json.dumps({"nodes": 2, "edges": 1}),),
        )
        connection.execute("INSERT INTO nodes_fts(nodes_fts) VALUES('rebuild')")
    connection.close()


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_an_older_schema_migrates_with_its_data(tmp_path: Path, version: int) -> None:
    path = tmp_path / "graph.db"
    make_old(path, version)
    store = SqliteStore(path)
    try:
        assert sql.schema_version(store.connection) == SCHEMA_VERSION
        assert store.connection.execute("SELECT key, path, data, read_at FROM file_index").fetchall() == [
            INDEX_ROW
        ]
        assert len(store) == 1
        assert store.connection.execute("SELECT * FROM plugin_artifact").fetchall() == [ARTIFACT_ROW]
        assert store.get_artifact(KEY, "routes", "1") == {"routes": ["/a"]}
        if version >= 2:
            engine = QueryEngine(store.connection)
            assert [r["key"] for r in engine.callers("f")["results"]] == ["a.py//g"]
            assert engine.search("g")["results"][0]["key"] == "a.py//g"
    finally:
        store.close()
    # opening again changes nothing
    again = SqliteStore(path)
    assert sql.schema_version(again.connection) == SCHEMA_VERSION
    again.close()


def test_a_fresh_database_is_at_the_current_schema(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "graph.db")
    assert sql.schema_version(store.connection) == SCHEMA_VERSION
    assert store.connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert store.connection.execute("PRAGMA foreign_keys").fetchone() == (1,)
    store.close()


def test_a_failed_migration_step_leaves_the_previous_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph.db"
    make_old(path, 1)
    broken = (sql.MIGRATIONS[0], ("CREATE TABLE files (path TEXT)", "THIS IS NOT SQL"))
    monkeypatch.setattr(sql, "MIGRATIONS", broken)
    connection = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError):
        sql.migrate(connection, target=2)
    assert sql.schema_version(connection) == 1
    assert connection.execute("SELECT name FROM sqlite_master WHERE name='files'").fetchone() is None
    connection.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    SqliteStore(path).close()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("UPDATE metadata SET value=? WHERE name='schema_version'", (str(SCHEMA_VERSION + 1),))
    connection.close()
    with pytest.raises(SchemaError) as caught:
        SqliteStore(path)
    assert str(caught.value) == (
        f"the database has schema {SCHEMA_VERSION + 1}, newer than this projectgraph knows "
        f"({SCHEMA_VERSION}); upgrade projectgraph or delete the .projectgraph folder"
    )


def test_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(SchemaError, match=r"is damaged .*run `projectgraph index --rebuild`"):
        SqliteStore(path)


# ---- one writer at a time -------------------------------------------------------------------

HOLDER = textwrap.dedent(
    """
    import os, sys, time
    from projectgraph.store.lock import WriterLock
    lock = WriterLock(sys.argv[1]).acquire()
    if sys.argv[2] == "fork":  # a child that outlives its parent, as an orphaned pool worker would
        if os.fork() == 0:
            os.write(1, b"child\\n")
            time.sleep(60)
            os._exit(0)
    os.write(1, b"held\\n")
    time.sleep(60)
    """
)


@contextmanager
def holding(folder: Path, mode: str = "plain") -> Iterator[subprocess.Popen[str]]:
    """A real second process that holds the writer lock of ``folder`` (killed, group and all, after)."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), mode],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            assert process.stdout is not None
            lines = {process.stdout.readline() for _ in range(2 if mode == "fork" else 1)}
            assert lines == ({"held\n", "child\n"} if mode == "fork" else {"held\n"})
            yield process
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    folder = tmp_path / "project" / ".projectgraph"
    folder.mkdir(parents=True)
    with holding(folder) as process:
        yield process, folder


def test_a_second_writer_fails_fast_with_a_clear_message(holder: tuple[subprocess.Popen[str], Path]) -> None:
    process, folder = holder
    started = time.monotonic()
    with pytest.raises(WriterBusyError) as caught:
        WriterLock(folder).acquire()
    assert time.monotonic() - started < 1.0
    assert str(caught.value) == (
        f"another projectgraph process (pid {process.pid}) is writing {folder}; try again when it ends"
    )


def test_the_cli_reports_a_busy_writer_with_exit_2(holder: tuple[subprocess.Popen[str], Path]) -> None:
    process, folder = holder
    root = folder.parent
    (root / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run([str(CLI), "index", str(root)], capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 10.0
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"projectgraph: another projectgraph process (pid {process.pid}) is writing {folder}; "
        "try again when it ends\n"
    )
    # a query with no graph stored yet cannot fall back to an older graph: the same usage error
    query = subprocess.run(
        [str(CLI), "symbol", "f", "--project", str(root)], capture_output=True, text=True, timeout=60
    )
    assert (query.returncode, query.stdout) == (2, "")
    assert "is writing" in query.stderr


def test_a_query_reads_the_stored_graph_while_another_process_writes(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    assert subprocess.run([str(CLI), "index", str(root)], capture_output=True, timeout=60).returncode == 0
    (root / "m.py").write_text("def f():\n    return 1\n\n\ndef g():\n    f()\n", encoding="utf-8")
    with holding(root / ".projectgraph"):
        # stale, but the writer is busy: the answer comes from the graph stored before, and says so
        done = subprocess.run(
            [str(CLI), "symbol", "g", "--project", str(root)], capture_output=True, text=True, timeout=60
        )
        older = (
            "projectgraph: another process is writing the index: this answer is from the stored graph "
            "of generation 1, older than the files\n"
        )
        assert (done.returncode, done.stdout, done.stderr) == (1, "no symbol named 'g'\n", older)
    done = subprocess.run(
        [str(CLI), "symbol", "g", "--project", str(root)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "m.py//g" in done.stdout


def test_the_kernel_lock_goes_with_a_killed_writer_even_if_its_child_lives(tmp_path: Path) -> None:
    folder = tmp_path / ".projectgraph"
    with holding(folder, "fork") as process:
        with pytest.raises(WriterBusyError):
            WriterLock(folder).acquire()
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        # the forked child still runs, and does not hold the lock
        lock = WriterLock(folder).acquire()
        lock.release()


def test_one_writer_per_process_too(tmp_path: Path) -> None:
    with WriterLock(tmp_path), pytest.raises(WriterBusyError, match=f"pid {os.getpid()}"):
        WriterLock(tmp_path).acquire()
    with WriterLock(tmp_path):  # released
        pass


# ---- readers during a write -----------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from projectgraph.graph import Edge, Graph, Node, Site
    from projectgraph.store import sqlite as sql
    from projectgraph.store.lock import WriterLock
    from projectgraph.store.sqlite import SqliteStore

    def chain(prefix, size):
        nodes = [Node(f"{prefix}.py//f{i:05d}", "function", f"{prefix}.py", i + 1, i + 1,
                      "python", name=f"f{i:05d}", qualname=f"f{i:05d}") for i in range(size)]
        edges = [Edge(nodes[i + 1].key, nodes[i].key, "calls", "direct", Site(f"{prefix}.py", i + 2, 4))
                 for i in range(size - 1)]
        return Graph(tuple(nodes), tuple(edges), stats={"nodes": size, "edges": size - 1, "name": prefix})

    size = int(sys.argv[4])
    graphs = [chain("a", size), chain("b", size * 2 // 3)]
    store = SqliteStore(sys.argv[1])
    with WriterLock(sys.argv[2]):
        for turn in range(int(sys.argv[3])):
            sql.write_graph(store.connection, graphs[turn % 2], {}, {})
            print("wrote", turn, flush=True)
    """
)


@pytest.mark.parametrize(
    ("writes", "size", "pause"),
    [
        (3, 4000, "0.15"),  # long writes, held open after their deletes: reads run inside them
        (60, 200, ""),  # many quick commits: a query that did not read one snapshot would mix two
    ],
)
def test_readers_see_one_consistent_graph_while_a_write_runs(
    tmp_path: Path, writes: int, size: int, pause: str
) -> None:
    path = tmp_path / "graph.db"
    reader = SqliteStore(path)
    env = {**os.environ, "PROJECTGRAPH_TEST_PAUSE_IN_WRITE": pause}
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(tmp_path), str(writes), str(size)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as writer:
        try:
            reads, seen = read_while_writing(writer, reader)
        finally:
            if writer.poll() is None:
                writer.kill()
            reader.close()
        out, err = writer.communicate()
    assert writer.returncode == 0, err
    assert out.count("wrote") == writes
    assert reads >= 10 and seen["a"] and seen["b"], (reads, seen)


def read_while_writing(writer: subprocess.Popen[str], reader: SqliteStore) -> tuple[int, dict[str, int]]:
    engine = QueryEngine(reader.connection)
    seen: dict[str, int] = {"a": 0, "b": 0}
    reads = 0
    while writer.poll() is None:
        with sql.snapshot(reader.connection):
            run = sql.last_run(reader.connection)
            if run is None:
                time.sleep(0.01)
                continue
            nodes = reader.connection.execute("SELECT count(*) FROM nodes").fetchone()[0]
            edges = reader.connection.execute("SELECT count(*) FROM edges").fetchone()[0]
            fts = reader.connection.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
        name = run["stats"]["name"]
        assert (nodes, edges) == (run["stats"]["nodes"], run["stats"]["edges"]), reads
        assert fts == nodes
        seen[name] += 1
        # a query spans several statements: it still sees one graph, whichever it is
        impact = engine.impact("f00000", depth=6)
        graph = impact["root"].split(".", 1)[0]
        assert [i["key"] for i in impact["impacted"]] == [f"{graph}.py//f{i:05d}" for i in range(7)], impact
        reads += 1
    return reads, seen


def test_asking_whether_every_index_is_stored_reads_no_index_row(tmp_path: Path) -> None:
    """A no-op sync asks the store whether it holds the index of every file (holds_all): the query
    must be answered from an index of (key, codec), not from the table's rows, whose codec column
    sits after the data (a walk of each row's overflow pages: 60-90 ms of a no-op sync on Django)."""
    store = SqliteStore(tmp_path / "graph.db")
    plan = store.connection.execute(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM file_index WHERE codec = ? AND key IN "
        "(SELECT value FROM json_each(?))",
        (CODEC, "[]"),
    ).fetchall()
    assert any("COVERING INDEX file_index_key_codec" in row[-1] for row in plan), plan
    keys = [Key(f"{n:064x}", f"m{n}.py", 1, "g", "python") for n in range(3)]
    assert store.holds_all(keys[:0])
    assert not store.holds_all(keys)
    store.close()
