"""A corrupt store (issue 24, finding 7): pages overwritten in a real graph.db, a dropped nodes_fts
table, a truncated file. Each is detected, said in one line, and rebuilt from the sources where no
other process writes; before the fix ``graph``/``reach``/``callers`` printed DatabaseError
tracebacks and ``index``/``sync --full`` exited 0 leaving the file malformed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.project import Project
from projectgraph.store.lock import WriterLock
from projectgraph.store.sqlite import DamagedStoreError, SqliteStore

CLI = Path(sys.executable).with_name("projectgraph")
FILES = {f"m{i}.py": f"def f{i}():\n    pass\n\ndef g{i}():\n    f{i}()\n" for i in range(40)}
FILES["main.py"] = "from m1 import g1\n\nif __name__ == '__main__':\n    g1()\n"


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(root.parent)},
    )


def quick_check(database: Path) -> str:
    """SQLite's verdict on the file: "ok", or the first problem."""
    connection = sqlite3.connect(database)
    try:
        return str(connection.execute("PRAGMA quick_check").fetchone()[0])
    except sqlite3.DatabaseError as error:
        return str(error)
    finally:
        connection.close()


def overwrite_pages(database: Path) -> None:
    """Write garbage over every other page past the first two (as a bad disk or a stray write)."""
    pages = database.stat().st_size // 4096
    assert pages > 4
    with database.open("r+b") as handle:
        for page in range(2, pages, 2):
            handle.seek(page * 4096)
            handle.write(b"\xde\xad" * 2048)
    assert quick_check(database) != "ok"


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "p", FILES)
    done = cli(root, "index", ".")
    assert done.returncode == 0, done.stderr
    return root


def database(root: Path) -> Path:
    return root / ".projectgraph" / "graph.db"


@pytest.mark.parametrize("command", [("graph", "--json"), ("reach", "os//system"), ("callers", "f1")])
def test_a_query_on_overwritten_pages_rebuilds_and_answers(indexed: Path, command: tuple[str, ...]) -> None:
    overwrite_pages(database(indexed))
    done = cli(indexed, *command)
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 1, 3), done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "is damaged (" in lines[0] and "rebuilding it from the sources" in lines[0]
    assert quick_check(database(indexed)) == "ok"
    if command[0] == "callers":
        assert "m1.py//g1" in done.stdout


@pytest.mark.parametrize("command", [("index", "."), ("sync", "--full")])
def test_a_writer_rebuilds_a_damaged_store_and_leaves_it_sound(
    indexed: Path, command: tuple[str, ...]
) -> None:
    overwrite_pages(database(indexed))
    done = cli(indexed, *command)
    assert done.returncode == 0, done.stderr
    assert "is damaged" in done.stderr and "Traceback" not in done.stderr
    assert quick_check(database(indexed)) == "ok"
    graph = json.loads(cli(indexed, "graph", "--json").stdout)
    assert len(graph["files"]) == len(FILES)


def test_a_dropped_fts_table_does_not_crash_index(indexed: Path) -> None:
    with sqlite3.connect(database(indexed)) as connection:
        connection.execute("DROP TABLE nodes_fts")
    connection.close()
    done = cli(indexed, "index", ".")
    assert done.returncode == 0, done.stderr
    assert "missing table(s): nodes_fts" in done.stderr
    found = json.loads(cli(indexed, "search", "g1", "--json").stdout)
    assert [r["key"] for r in found["results"]][:1] == ["m1.py//g1"]


def test_a_truncated_store_says_what_to_do_while_another_process_writes(indexed: Path) -> None:
    path = database(indexed)
    os.truncate(path, path.stat().st_size // 3)
    (indexed / "m1.py").write_text(FILES["m1.py"] + "\n", encoding="utf-8")  # stale: a sync is due
    with WriterLock(indexed / ".projectgraph"):  # another writer: no rebuild now
        done = cli(indexed, "callers", "f1")
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "is damaged" in line and "run `projectgraph index --rebuild`" in line
    again = cli(indexed, "index", "--rebuild", ".")
    assert again.returncode == 0, again.stderr
    assert quick_check(path) == "ok"


def test_pages_are_checked_at_open_only_after_a_write_that_did_not_end(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", FILES)
    with Project(root) as project:
        project.refresh()
    path = database(root)
    # a damaged page that opening the store does not read: found only by a check of every page
    with sqlite3.connect(path) as connection:
        (pages,) = connection.execute("PRAGMA page_count").fetchone()
    connection.close()
    with path.open("r+b") as handle:
        handle.seek((pages - 2) * 4096)
        handle.write(b"\xde\xad" * 2048)
    SqliteStore(path).close()  # the last write ended cleanly: no check, it opens
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE metadata SET value = 'writing' WHERE name = 'write_state'")
    connection.close()
    with pytest.raises(DamagedStoreError, match="is damaged"):
        SqliteStore(path)


def test_a_busy_or_unopenable_store_is_not_damage(tmp_path: Path) -> None:
    from projectgraph.store.sqlite import SchemaError, is_damage

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 200)
    with pytest.raises(sqlite3.DatabaseError) as malformed:
        sqlite3.connect(garbage).execute("SELECT * FROM sqlite_master").fetchall()
    with pytest.raises(sqlite3.OperationalError) as unopenable:
        sqlite3.connect(tmp_path / "no" / "such" / "folder.db")
    assert is_damage(malformed.value) and not is_damage(unopenable.value)
    # a database another connection holds locked is refused at open, never taken for damage
    path = tmp_path / "graph.db"
    SqliteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SchemaError) as refused:
            SqliteStore(path)  # waits the busy timeout (5 s), then gives up
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not isinstance(refused.value, DamagedStoreError)
    assert "cannot open the index (database is locked)" in str(refused.value)
    SqliteStore(path).close()  # the file is whole: nothing was deleted
