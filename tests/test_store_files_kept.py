"""The store keeps the files table its connection last wrote (``sqlite._files_table``): a sync of
one edit in a daemon does not read every file's row again, and another connection's commit, or a
write that rolled back, makes it read the table again."""

from __future__ import annotations

from pathlib import Path

import pytest

from projectgraph.graph import FileEntry, Graph, Node
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SqliteStore


def _graph(*entries: FileEntry) -> Graph:
    nodes = tuple(Node(key=e.path, kind="module", path=e.path, line=1, language="python") for e in entries)
    return Graph(nodes=nodes, edges=(), files=entries, stats={})


def _write(store: SqliteStore, graph: Graph, stamps: dict[str, tuple[int, int]]) -> None:
    sql.write_graph(store.connection, graph, stamps, {"started": 0.0, "root": "", "error": None})


def _reads_of_files(store: SqliteStore) -> list[str]:
    seen: list[str] = []
    store.connection.set_trace_callback(
        lambda text: seen.append(text) if "FROM files" in text and "SELECT" in text else None
    )
    return seen


def test_a_write_is_kept_and_not_read_again(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "graph.db")
    _write(store, _graph(FileEntry("a.py", "python", "indexed", "h1")), {"a.py": (1, 10)})
    _write(
        store,
        _graph(FileEntry("a.py", "python", "indexed", "h2"), FileEntry("b.py", "python", "indexed", "h3")),
        {"a.py": (2, 20), "b.py": (3, 30)},
    )
    reads = _reads_of_files(store)
    stored = sql.stored_files(store.connection)
    assert reads == []  # (before: every sync read the whole table)
    assert stored == {
        "a.py": sql.StoredFile("python", "indexed", "h2", "", 2, 20),
        "b.py": sql.StoredFile("python", "indexed", "h3", "", 3, 30),
    }
    # and it is what the table holds
    reads.clear()
    rows = store.connection.execute("SELECT path, hash, size, mtime_ns FROM files ORDER BY path").fetchall()
    assert rows == [("a.py", "h2", 2, 20), ("b.py", "h3", 3, 30)]
    sql.write_stamps(store.connection, {"a.py": (5, 50), "b.py": (3, 30)}, None, None)
    assert sql.stored_files(store.connection)["a.py"] == sql.StoredFile("python", "indexed", "h2", "", 5, 50)
    assert reads == ["SELECT path, hash, size, mtime_ns FROM files ORDER BY path"]  # the check's own
    store.close()


def test_another_connections_commit_is_read(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "graph.db")
    _write(store, _graph(FileEntry("a.py", "python", "indexed", "h1")), {"a.py": (1, 10)})
    assert sql.stored_files(store.connection)["a.py"].hash == "h1"
    other = SqliteStore(tmp_path / "graph.db")
    _write(other, _graph(FileEntry("a.py", "python", "indexed", "h9")), {"a.py": (9, 90)})
    other.close()
    assert sql.stored_files(store.connection)["a.py"] == sql.StoredFile("python", "indexed", "h9", "", 9, 90)
    store.close()


def test_a_write_that_rolled_back_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SqliteStore(tmp_path / "graph.db")
    _write(store, _graph(FileEntry("a.py", "python", "indexed", "h1")), {"a.py": (1, 10)})

    def fail(*_args: object) -> None:
        raise RuntimeError("the write fails after the files table")

    monkeypatch.setattr(sql, "_write_state", fail)
    with pytest.raises(RuntimeError):
        _write(store, _graph(FileEntry("a.py", "python", "indexed", "h2")), {"a.py": (2, 20)})
    monkeypatch.undo()
    assert sql.stored_files(store.connection)["a.py"] == sql.StoredFile("python", "indexed", "h1", "", 1, 10)
    store.close()
