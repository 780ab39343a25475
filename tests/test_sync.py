"""Sync: what it reads, what it writes, control files, staleness, crash safety, the CLI.

The equivalence with a full index over random edits is tests/test_sync_oracle.py; these are the
pinpoint cases around it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.project import Project
from projectgraph.store import sqlite as sql
from projectgraph.store.lock import WriterBusyError, WriterLock
from projectgraph.store.sqlite import SqliteStore
from projectgraph.sync import control_files, is_control_name

CLI = Path(sys.executable).with_name("projectgraph")
ONE = IndexOptions(workers=1)
PAST = 1_600_000_000_000_000_000


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args], capture_output=True, text=True, timeout=120, check=False, cwd=cwd
    )


def age(root: Path) -> None:
    """Give every file an mtime long past, distinct per file, so its stamp is trusted."""
    for number, path in enumerate(sorted(root.rglob("*"))):
        if path.is_file() and ".projectgraph" not in path.parts:
            os.utime(path, ns=(PAST + number * 10**9, PAST + number * 10**9))


def app(root: Path) -> Path:
    write_tree(
        root,
        {
            "app/__init__.py": "",
            "app/base.py": "class Base:\n    def run(self):\n        return 1\n",
            "app/main.py": (
                "from app.base import Base\n\n\nclass Job(Base):\n    pass\n\n\n"
                "def main():\n    return Job().run()\n\n\nif __name__ == '__main__':\n    main()\n"
            ),
            "pyproject.toml": '[project]\nname = "app"\nversion = "1"\n',
        },
    )
    age(root)
    return root


def full(root: Path) -> str:
    return build_graph(root, ONE).graph.dumps()


def stored(project: Project) -> str:
    return sql.read_graph(project.store.connection).dumps()


def test_a_sync_with_nothing_changed_reads_nothing_and_does_not_link(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        first = project.sync(ONE)
        assert first.relinked and first.read == 3
        again = project.sync(ONE)
        assert not again.relinked and again.read == 0 and again.parsed == 0
        assert stored(project) == full(root)


def test_an_edit_is_read_and_parsed_alone_and_the_graph_equals_a_full_index(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        base = root / "app" / "base.py"
        base.write_text(
            "class Base:\n    def run(self):\n        return 2\n\n    def stop(self):\n        pass\n"
        )
        os.utime(base, ns=(PAST + 10**12, PAST + 10**12))
        assert project.file_changes().changed == ("app/base.py",)
        result = project.sync(ONE)
        assert result.changed == ("app/base.py",) and result.read == 1 and result.parsed == 1
        assert result.relinked and "whole" not in result.written
        assert stored(project) == full(root)
        assert not project.is_stale()


def test_a_touched_file_is_read_but_the_graph_is_not_relinked(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        os.utime(root / "app" / "main.py", ns=(PAST + 10**12, PAST + 10**12))
        assert project.is_stale()
        result = project.sync(ONE)
        assert result.read == 1 and result.parsed == 0 and not result.relinked
        assert not project.is_stale()


def test_a_file_changed_within_the_clock_resolution_is_read_again(tmp_path: Path) -> None:
    """A racy file (modified just before its stamp was taken) is not trusted by its stamp."""
    root = app(tmp_path / "p")
    main = root / "app" / "main.py"
    with Project(root) as project:
        os.utime(main)  # now: within the racy window of the sync below
        project.sync(ONE)
        stamp = main.stat()
        text = main.read_text().replace("Job().run()", "Job().ran()")  # the same size
        main.write_text(text)
        os.utime(main, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # and the same mtime
        assert not project.is_stale()  # the stamps alone cannot tell
        result = project.sync(ONE)
        assert result.changed == ("app/main.py",)
        assert stored(project) == full(root)


def test_a_changed_control_file_is_stale_and_relinks(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        manifest = root / "pyproject.toml"
        manifest.write_text(manifest.read_text() + '\n[project.scripts]\napp = "app.main:main"\n')
        changes = project.file_changes()
        assert changes.controls == ("pyproject.toml",) and changes.pending == 1 and project.is_stale()
        result = project.sync(ONE)
        assert result.controls == ("pyproject.toml",) and result.relinked and result.read == 0
        assert stored(project) == full(root)
        assert any(r["kind"] == "manifest" for r in json.loads(stored(project))["roots"])
        # the same bytes again with a new mtime: not a change
        os.utime(manifest, ns=(PAST + 10**13, PAST + 10**13))
        assert not project.is_stale()


def test_control_files_are_found_at_the_root_and_above_source_folders(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "pyproject.toml": "",
            "tsconfig.base.json": "{}",
            "requirements-dev.txt": "",
            "web/package.json": "{}",
            "web/src/a.ts": "",
            "svc/go.mod": "module svc\n",
            "svc/cmd/main.go": "package main\n",
            "docs/package.json": "{}",  # no source file below it: not read by any linker
            "src/x.py": "",
        },
    )
    found = [c.path for c in control_files(root, ["web/src/a.ts", "svc/cmd/main.go", "src/x.py"])]
    assert found == [
        "pyproject.toml",
        "requirements-dev.txt",
        "src/",
        "svc/go.mod",
        "tsconfig.base.json",
        "web/package.json",
    ]
    assert is_control_name("a/b/Cargo.toml") and is_control_name("setup.cfg")
    # a nested pyproject.toml or setup.cfg: a monorepo package's entry points (manifests.py)
    assert is_control_name("a/setup.cfg") and is_control_name("services/api/pyproject.toml")
    assert not is_control_name("a/projectgraph.toml") and not is_control_name("a/b.py")


def test_added_deleted_and_renamed_files(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        (root / "app" / "extra.py").write_text("from app.main import main\n\n\ndef again():\n    main()\n")
        (root / "app" / "base.py").rename(root / "app" / "basics.py")
        result = project.sync(ONE)
        assert result.added == ("app/basics.py", "app/extra.py") and result.removed == ("app/base.py",)
        assert stored(project) == full(root)
        (root / "app" / "extra.py").unlink()
        assert project.sync(ONE).removed == ("app/extra.py",)
        assert stored(project) == full(root)


def test_a_failed_write_leaves_the_previous_graph_and_the_next_sync_repairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        before = stored(project)
        (root / "app" / "base.py").write_text("class Base:\n    pass\n")

        def broken(*args: object, **kwargs: object) -> int:
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(sql, "_insert_rows", broken)
        with pytest.raises(RuntimeError, match="disk on fire"):
            project.sync(ONE)
        assert stored(project) == before
        monkeypatch.undo()
        assert project.sync(ONE).changed == ("app/base.py",)
        assert stored(project) == full(root)


def test_a_sync_waits_for_no_one_when_another_writer_holds_the_lock(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project, WriterLock(root / ".projectgraph"), pytest.raises(WriterBusyError):
        project.sync(ONE)


def test_node_ids_stay_in_key_order_and_unchanged_nodes_keep_theirs(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        connection = project.store.connection
        ids = dict(connection.execute("SELECT key, id FROM nodes").fetchall())
        main = root / "app" / "main.py"
        main.write_text(main.read_text() + "\n\ndef a_helper():\n    pass\n\n\ndef zz_helper():\n    pass\n")
        project.sync(ONE)
        after = dict(connection.execute("SELECT key, id FROM nodes").fetchall())
        assert {k: after[k] for k in ids} == ids
        keys = [k for (k,) in connection.execute("SELECT key FROM nodes ORDER BY id")]
        assert keys == sorted(keys) and "app/main.py//a_helper" in keys
        connection.execute("INSERT INTO nodes_fts(nodes_fts) VALUES('integrity-check')")


def test_a_graph_stored_before_sync_existed_is_rewritten_whole_once(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE)
        project.store.connection.execute("DELETE FROM graph_groups")  # as a schema-3 store has none
        (root / "app" / "base.py").write_text("class Base:\n    pass\n")
        assert project.sync(ONE).written.get("whole") == 1
        assert stored(project) == full(root)


# ---- the CLI ------------------------------------------------------------------------------------


def test_cli_sync_text_and_json(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    first = run("sync", str(root))
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(
        "3 files: 3 added, 0 removed, 0 changed, control files changed: pyproject.toml; "
        "3 read, 3 parsed; re-linked in "
    )
    again = run("sync", "--json", "--project", str(root))
    answer = json.loads(again.stdout)
    assert answer["relinked"] is False and answer["read"] == 0 and answer["files"] == 3
    (root / "app" / "base.py").write_text("class Base:\n    pass\n")
    changed = json.loads(run("sync", str(root), "--json").stdout)
    assert changed["changed"] == ["app/base.py"] and changed["relinked"] is True


def test_cli_status_shows_pending_files_and_staleness(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    first = run("sync", str(root))
    assert first.returncode == 0, first.stdout + first.stderr
    current = json.loads(run("status", "--json", "--project", str(root)).stdout)
    assert current["stale"] is False and current["pending"]["files"] == 0
    assert current["staleness_seconds"] == 0 and current["last_sync"] and current["watcher"] is None
    (root / "app" / "new.py").write_text("def f():\n    pass\n")
    (root / "pyproject.toml").write_text('[project]\nname = "other"\n')
    behind = json.loads(run("status", "--json", "--project", str(root)).stdout)
    assert behind["stale"] is True and behind["pending"]["files"] == 2
    assert behind["pending"]["added"] == ["app/new.py"] and behind["pending"]["controls"] == [
        "pyproject.toml"
    ]
    text = run("status", "--project", str(root)).stdout
    assert "stale: 2 file(s) pending" in text and "last sync" in text


def test_cli_sync_killed_in_its_write_keeps_the_previous_graph(tmp_path: Path) -> None:
    root = app(tmp_path / "p")
    assert run("sync", str(root)).returncode == 0
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    before = sql.read_graph(store.connection).dumps()
    (root / "app" / "base.py").write_text("class Base:\n    def other(self):\n        pass\n")
    with subprocess.Popen(
        [str(CLI), "sync", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PROJECTGRAPH_TEST_PAUSE_IN_WRITE": "60"},
        start_new_session=True,
    ) as writer:
        try:
            assert writer.stderr is not None
            assert writer.stderr.readline() == "projectgraph: test pause in write_graph\n"
            assert sql.read_graph(store.connection).dumps() == before
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(writer.pid, signal.SIGKILL)
    assert sql.read_graph(store.connection).dumps() == before
    store.close()
    assert run("sync", str(root)).returncode == 0
    with Project(root) as project:
        assert stored(project) == build_graph(root).graph.dumps()


def test_options_of_the_run_hold_for_files_served_by_their_stamp(tmp_path: Path) -> None:
    """A size limit lowered since the last sync fails a file its stamp would have served."""
    root = app(tmp_path / "p")
    small = IndexOptions(workers=1, max_file_bytes=60)
    with Project(root) as project:
        project.sync(ONE)
        result = project.sync(small)
        assert "app/main.py" in result.changed
        assert stored(project) == build_graph(root, small).graph.dumps()
        assert project.sync(ONE).changed == ("app/main.py",)
        assert stored(project) == full(root)


def test_full_reads_every_file_and_a_config_a_tsconfig_extends_is_a_control_file(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "tsconfig.json": '{"extends": "./config/base.json"}',
            "config/base.json": '{"compilerOptions": {"baseUrl": "src"}}',
            "src/a.ts": "export function a() { return 1; }\n",
            "src/b.ts": 'import { a } from "a";\nexport function b() { return a(); }\n',
        },
    )
    age(root)
    with Project(root) as project:
        project.sync(ONE)
        assert project.sync(ONE, full=True).read == 2
        (root / "config" / "base.json").write_text('{"compilerOptions": {"baseUrl": "."}}')
        assert project.file_changes().controls == ("config/base.json",)
        result = project.sync(ONE)
        assert result.controls == ("config/base.json",) and result.relinked
        assert stored(project) == full(root)
