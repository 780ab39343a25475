"""Writes outside the project (issue 24, finding 2): links in the index folder, paths in a planted
database, control files that are links out of the root. Each case is a real tree, a real symlink and
a real CLI run (or the real working-copy check); before the fix each one wrote, created or read a
file outside the project."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.manifests import read_manifests
from projectgraph.mcp.workingcopy import CURRENT, MISSING, WorkingCopyCheck

CLI = Path(sys.executable).with_name("projectgraph")
APP = {
    "app.py": "def main():\n    helper()\n\ndef helper():\n    pass\n\n"
    "if __name__ == '__main__':\n    main()\n"
}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(cwd.parent)},
    )


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path]:
    """A project with a committed .projectgraph folder, and a victim file beside it."""
    root = write_tree(tmp_path / "clone", APP)
    (root / ".projectgraph").mkdir()
    victim = tmp_path / "other" / "file"
    victim.parent.mkdir()
    victim.write_text("precious\n", encoding="utf-8")
    return root, victim


def test_a_writer_lock_link_does_not_truncate_its_target(clone: tuple[Path, Path]) -> None:
    root, victim = clone
    os.symlink("../../other/file", root / ".projectgraph" / "writer.lock")
    done = cli(root, "callers", "helper")
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert done.returncode == 2
    assert "writer.lock" in done.stderr and "symbolic link" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_dangling_gitignore_link_does_not_create_its_target(clone: tuple[Path, Path]) -> None:
    root, victim = clone
    target = victim.parent / "created"
    os.symlink(str(target), root / ".projectgraph" / ".gitignore")
    cli(root, "index", ".")
    assert not target.exists() and not target.is_symlink()


def test_a_graph_db_link_does_not_write_into_another_database(clone: tuple[Path, Path]) -> None:
    root, victim = clone
    other = victim.parent / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE mine(a)")
    connection.close()
    os.symlink(str(other), root / ".projectgraph" / "graph.db")
    done = cli(root, "index", ".")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "graph.db" in done.stderr and "symbolic link" in done.stderr
    with sqlite3.connect(other) as connection:
        tables = sorted(row[0] for row in connection.execute("SELECT name FROM sqlite_master"))
    connection.close()
    assert tables == ["mine"]


def test_an_index_folder_that_links_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "clone", APP)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(str(outside), root / ".projectgraph")
    done = cli(root, "index", ".")
    assert done.returncode == 2
    assert "index folder" in done.stderr and "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []


def test_a_planted_database_cannot_name_dependency_folders_outside_the_project(tmp_path: Path) -> None:
    outside = write_tree(tmp_path / "outside" / "kit", {"kit/__init__.py": "def secret():\n    pass\n"})
    made = write_tree(tmp_path / "made", {"app.py": "import kit\n\nkit.secret()\n"})
    done = cli(made, "index", ".", "--deps", f"{outside}=pypi:kit@1.0")
    assert done.returncode == 0, done.stderr
    # the store that recorded the folder keeps it across a sync
    (made / "app.py").write_text("import kit\n\nkit.secret()\n\n", encoding="utf-8")
    kept = json.loads(cli(made, "graph", "--json").stdout)
    assert any(n["unit"] == "pypi:kit@1.0" for n in kept["nodes"])
    # the same database committed to another project (a clone): the folder is not read
    clone = write_tree(tmp_path / "clone", {"app.py": "import kit\n\nkit.secret()\n"})
    (clone / ".projectgraph").mkdir()
    shutil.copyfile(made / ".projectgraph" / "graph.db", clone / ".projectgraph" / "graph.db")
    searched = cli(clone, "search", "secret", "--json")
    assert searched.returncode in (0, 1), searched.stderr
    assert "outside the project" in searched.stderr
    graph = json.loads(cli(clone, "graph", "--json").stdout)
    assert not any(n["unit"] for n in graph["nodes"])
    assert [f["path"] for f in graph["files"]] == ["app.py"]


def test_the_working_copy_check_never_looks_at_a_path_outside_the_project(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.py": "x = 1\n"})
    secret_folder = tmp_path / "secret"
    secret_folder.mkdir()
    os.symlink(str(secret_folder), root / "link")
    absent = str(tmp_path / "absent")
    stamps = {
        absent: (1, 1, "indexed"),  # an absolute path: gone, a naive check would say "missing"
        "../absent": (1, 1, "indexed"),
        "link/absent": (1, 1, "indexed"),  # through a link out of the root
        "gone.py": (1, 1, "indexed"),  # a project file that is gone: still reported
    }
    check = WorkingCopyCheck(root, stamps)
    assert [check.state(p) for p in (absent, "../absent", "link/absent")] == [CURRENT] * 3
    assert check.state("gone.py") == MISSING


def test_a_control_file_that_links_out_of_the_root_is_not_read(tmp_path: Path) -> None:
    outside = write_tree(
        tmp_path / "outside",
        {
            "pyproject.toml": '[project]\nname = "x"\n[project.scripts]\nrun = "app:main"\n'
            '[tool.projectgraph]\nlanguages = ["go"]\n',
            "package.json": '{"name": "x", "main": "app.js"}',
        },
    )
    root = write_tree(tmp_path / "p", {"app.py": "def main():\n    pass\n", "app.js": "function f() {}\n"})
    os.symlink(str(outside / "pyproject.toml"), root / "pyproject.toml")
    os.symlink(str(outside / "package.json"), root / "package.json")
    manifests = read_manifests(root, ("app.js", "app.py"))
    assert manifests.entry_points == ()
    assert sorted(p.split(":")[0] for p in manifests.problems) == ["package.json", "pyproject.toml"]
    done = cli(root, "index", ".", "--json")  # the outside [tool.projectgraph] would index Go only
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["languages"] == {"javascript": {"indexed": 1}, "python": {"indexed": 1}}


def test_index_folder_writes_replace_a_link_and_never_write_through_it(tmp_path: Path) -> None:
    from projectgraph import safefs

    root = write_tree(tmp_path / "p", {"a.py": ""})
    folder = safefs.index_folder(root)
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    os.symlink(str(victim), folder / "conform-x.json")
    safefs.write_in_folder(folder / "conform-x.json", b"{}\n")  # a rename over the link
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not (folder / "conform-x.json").is_symlink()
    assert (folder / "conform-x.json").read_bytes() == b"{}\n"
    os.symlink(str(tmp_path / "created"), folder / ".gitignore")
    with pytest.raises(safefs.IndexFolderError, match="symbolic link"):
        safefs.create_in_folder(folder / ".gitignore", b"*\n")
    assert not (tmp_path / "created").exists()
    with pytest.raises(safefs.IndexFolderError, match="symbolic link"):
        safefs.read_text(folder / ".gitignore", follow=False)
