"""A sync that finds nothing changed, told by the stamps alone, and the cases where it must not be.

Every file served by its stamp and equal to the stored one, the same control files, rule versions,
record limit and no unit: the sync refreshes the stamps and decodes no index. Anything else (an
index the store lost or holds under another key, a lower record limit, a changed control file, a
file that came) takes the usual way, and the graph is the one a full index gives.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from conftest import write_tree
from projectgraph.indexer import IndexOptions
from projectgraph.project import Project
from projectgraph.store import sqlite as sql

ONE = IndexOptions(workers=1)
PAST = 1_600_000_000_000_000_000


def _project(root: Path) -> Path:
    write_tree(
        root,
        {
            "app/__init__.py": "",
            "app/base.py": "class Base:\n    def run(self):\n        return 1\n",
            "app/main.py": (
                "from app.base import Base\n\n\ndef main():\n"
                + "".join(f"    Base().run()  # {n}\n" for n in range(6))
            ),
            "web/ui.js": "function show() { return 1; }\nshow();\n",
            "pyproject.toml": '[project]\nname = "app"\nversion = "1"\n',
        },
    )
    for number, path in enumerate(sorted(root.rglob("*"))):
        if path.is_file() and ".projectgraph" not in path.parts:
            os.utime(path, ns=(PAST + number * 10**9, PAST + number * 10**9))
    return root


def _graph_rows(db: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with sqlite3.connect(db) as connection:
        nodes = connection.execute("SELECT key, kind, path FROM nodes ORDER BY key").fetchall()
        edges = connection.execute(
            "SELECT s.key, t.key, e.kind, e.line FROM edges e JOIN nodes s ON s.id = e.caller "
            "JOIN nodes t ON t.id = e.callee ORDER BY 1, 2, 3, 4"
        ).fetchall()
    return nodes, edges


def _reads(db: Path) -> dict[str, float]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT key, read_at FROM file_index_read").fetchall())


def test_a_sync_that_finds_nothing_reads_nothing_and_keeps_the_graph(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    with Project(root) as project:
        project.index(ONE)
        project.sync(ONE)  # the first sync records the record limit the files were checked against
        db = project.store.path
        before = _graph_rows(db)
        reads = _reads(db)
        done = project.sync(ONE)
        assert (done.read, done.parsed, done.relinked) == (0, 0, False)
        assert (done.added, done.removed, done.changed) == ((), (), ())
        assert len(done.index.statuses) == 4
        assert {s.status for s in done.index.statuses} == {"cached"}
        assert not done.index.failed
        assert done.index.indexes == ()  # told by the stamps: no index was decoded
        assert _graph_rows(db) == before
        after = _reads(db)
        assert after.keys() == reads.keys()  # every index is marked read, none decoded or lost
        assert all(after[k] >= reads[k] for k in reads)
        assert not project.file_changes()


def test_an_index_the_store_lost_is_parsed_again(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    with Project(root) as project:
        project.index(ONE)
        project.sync(ONE)
        db = project.store.path
        before = _graph_rows(db)
        # as a new grammar makes new keys: the stored stamps match, but the index is not there
        project.store.connection.execute("DELETE FROM file_index WHERE path = 'app/main.py'")
    with Project(root) as project:  # a new process: no index of the last sync in memory
        done = project.sync(ONE)
        assert done.read == 1 and done.parsed == 1
        assert _graph_rows(db) == before
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM file_index WHERE path = 'app/main.py'").fetchone()[0]


def test_a_lower_record_limit_cuts_the_file_it_no_longer_fits(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    with Project(root) as project:
        project.index(ONE)
        project.sync(ONE)
        done = project.sync(IndexOptions(workers=1, max_records=3))
        statuses = {s.path: s.status for s in done.index.statuses}
        assert statuses["app/main.py"] == "truncated"
        assert done.relinked
        assert sql.metadata_text(project.store.connection, "max_records") == "3"
        again = project.sync(IndexOptions(workers=1, max_records=3))
        assert not again.relinked  # (a cut file is read again by every sync: never by its stamp)
        whole = project.sync(ONE)
        assert whole.relinked
        assert {s.path: s.status for s in whole.index.statuses}["app/main.py"] == "cached"
        assert sql.metadata_text(project.store.connection, "max_records") == str(ONE.validated().max_records)


def test_a_changed_control_file_or_a_new_file_is_not_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    with Project(root) as project:
        project.index(ONE)
        project.sync(ONE)
        manifest = root / "pyproject.toml"
        manifest.write_text('[project]\nname = "app"\nversion = "2"\n', encoding="utf-8")
        os.utime(manifest, ns=(PAST, PAST))
        done = project.sync(ONE)
        assert done.controls == ("pyproject.toml",)
        (root / "app" / "extra.py").write_text("def extra():\n    return 2\n", encoding="utf-8")
        os.utime(root / "app" / "extra.py", ns=(PAST, PAST))
        done = project.sync(ONE)
        assert done.added == ("app/extra.py",) and done.relinked
        keys = {row[0] for row in _graph_rows(project.store.path)[0]}
        assert "app/extra.py//extra" in keys
