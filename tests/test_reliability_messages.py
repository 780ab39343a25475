"""The low findings of issue 24 (finding 9): clear messages for an over-long project_path and a
schema_version that is not a number, an answer read from an older graph while another process
writes says the generation it read, a git submodule is an exclusion with its reason, and one MCP
call takes a bounded number of reach targets. Real stores, a real git submodule, the MCP server's
own call path."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, write_tree
from projectgraph.discover import discover
from projectgraph.languages import all_languages
from projectgraph.mcp.arguments import ArgumentError
from projectgraph.mcp.projects import ProjectError, Projects
from projectgraph.mcp.server import answer
from projectgraph.mcp.tools import BY_NAME, MAX_TARGETS
from projectgraph.project import Project
from projectgraph.store.lock import WriterLock
from projectgraph.store.sqlite import DamagedStoreError, SqliteStore

CLI = Path(sys.executable).with_name("projectgraph")
APP = {"app.py": "import os\n\ndef main():\n    os.getcwd()\n\nif __name__ == '__main__':\n    main()\n"}


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


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "p", APP)
    with Project(root) as project:
        project.refresh()
    return root


def test_an_over_long_project_path_is_a_clear_refusal(indexed: Path) -> None:
    projects = Projects(indexed)
    try:
        with pytest.raises(ProjectError) as caught:
            answer(projects, BY_NAME["index_status"], {"project_path": "x" * 5000})
    finally:
        projects.close()
    message = str(caught.value)
    assert "not a usable path (File name too long)" in message and len(message) < 300
    long = cli(indexed, "callers", "main", "--project", "y" * 5000)
    assert long.returncode == 2 and "Traceback" not in long.stderr
    assert len(long.stderr.splitlines()) == 1


def test_a_schema_version_that_is_not_a_number_is_damage_and_rebuilt(indexed: Path) -> None:
    path = indexed / ".projectgraph" / "graph.db"
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE metadata SET value = 'abc' WHERE name = 'schema_version'")
    connection.close()
    with pytest.raises(DamagedStoreError, match="its schema_version is 'abc', not a number"):
        SqliteStore(path)
    done = cli(indexed, "index", ".")
    assert done.returncode == 0, done.stderr
    assert "schema_version is 'abc', not a number" in done.stderr and "rebuilding" in done.stderr
    SqliteStore(path).close()


def test_an_answer_from_an_older_graph_says_the_generation_it_read(indexed: Path) -> None:
    (indexed / "app.py").write_text(APP["app.py"] + "\ndef later():\n    pass\n", encoding="utf-8")
    with WriterLock(indexed / ".projectgraph"):  # another process writes (a long index)
        done = cli(indexed, "callers", "main")
        projects = Projects(indexed)
        try:
            served = answer(projects, BY_NAME["code_symbol"], {"name": "main"})
        finally:
            projects.close()
    assert done.returncode == 0, done.stderr
    assert "another process is writing the index: this answer is from the stored graph of generation 1" in (
        done.stderr
    )
    assert served["generation"] == 1
    assert any("generation 1, which that write replaces" in note for note in served["notes"])


def test_a_git_submodule_is_excluded_with_its_reason(tmp_path: Path, git_env: Path) -> None:
    sub = write_tree(tmp_path / "sub", {"s.py": "def s():\n    pass\n"})
    git(sub, "init", "-q")
    git(sub, "add", ".")
    git(sub, "commit", "-qm", "sub")
    root = write_tree(tmp_path / "main", {"m.py": "def m():\n    pass\n"})
    git(root, "init", "-q")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    found = discover(root, list(all_languages().values()))
    assert [f.path for f in found.files] == ["m.py"]
    reasons = {e.path: e.reason for e in found.excluded}
    assert reasons["vendor/sub"].startswith("folder (git submodule or nested repository")


def test_reach_targets_per_call_are_capped(indexed: Path) -> None:
    projects = Projects(indexed)
    try:
        targets = [f"os//name{n}" for n in range(MAX_TARGETS + 1)]
        with pytest.raises(
            ArgumentError, match=f"holds {MAX_TARGETS + 1} items, more than the {MAX_TARGETS}"
        ):
            answer(projects, BY_NAME["code_reach"], {"targets": targets})
        allowed = answer(projects, BY_NAME["code_reach"], {"targets": targets[:MAX_TARGETS]})
    finally:
        projects.close()
    assert len(allowed["results"]) == MAX_TARGETS
    assert BY_NAME["code_reach"].schema()["properties"]["targets"]["maxItems"] == MAX_TARGETS
