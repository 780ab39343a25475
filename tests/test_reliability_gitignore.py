"""A .gitignore outside git (issue 24, finding 6): read as git reads it. git itself is the oracle:
the same tree in a git work tree, ``git ls-files --others --exclude-standard``, must list the same
files as the walk. Before the fix ``[z-a]`` raised ``re.error`` from every command, ``!`` or ``\\``
alone failed the whole project, and ``/`` ignored every file where git ignores none."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import git, write_tree
from projectgraph.config import ProjectConfig
from projectgraph.discover import discover
from projectgraph.languages import all_languages

PYTHON = [all_languages()["python"]]
TREE = {
    "a.py": "",
    "z.py": "",
    "keep/b.py": "",
    "build/c.py": "",
    "logs/d.py": "",
    "weird[x].py": "",
}
BAD_LINES = ["[z-a]", "!", "\\", "/", "!/", "trailing\\", "[z-a]*.py", "   "]


def walked(root: Path) -> list[str]:
    found = discover(root, PYTHON, ProjectConfig())
    assert not found.git
    return [f.path for f in found.files]


def gits_answer(tree: Path, tmp_path: Path) -> list[str]:
    copy = tmp_path / "as-git"
    shutil.copytree(tree, copy)
    git(copy, "init", "-q")
    listed = git(copy, "-c", "core.quotepath=off", "ls-files", "--others", "--exclude-standard")
    return sorted(p for p in listed.splitlines() if p.endswith(".py"))


@pytest.mark.parametrize("bad", BAD_LINES)
def test_a_pattern_git_cannot_use_is_read_as_git_reads_it(tmp_path: Path, git_env: Path, bad: str) -> None:
    tree = write_tree(tmp_path / "tree", {**TREE, ".gitignore": f"build/\n{bad}\nlogs\n"})
    assert walked(tree) == gits_answer(tree, tmp_path)
    kept = ["a.py", "keep/b.py", "weird[x].py", "z.py"]
    assert walked(tree) == (kept[:-1] if bad == "[z-a]*.py" else kept)  # [z-a] is [z] to git


def test_a_gitignore_of_only_bad_lines_is_read_as_git_reads_it(tmp_path: Path, git_env: Path) -> None:
    tree = write_tree(tmp_path / "tree", {**TREE, ".gitignore": "\n".join(BAD_LINES) + "\n"})
    assert walked(tree) == gits_answer(tree, tmp_path) == sorted(set(TREE) - {"z.py"})


def test_a_repository_git_refuses_is_said_not_silently_walked(
    tmp_path: Path, git_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the repository to another user (git refuses it then)")
    tree = write_tree(tmp_path / "tree", {"a.py": "", "ignored.py": "", ".gitignore": "ignored.py\n"})
    git(tree, "init", "-q")
    for path in [tree, *tree.rglob("*")]:
        os.lchown(path, 65534, 65534)  # nobody
    refused = subprocess.run(["git", "status"], cwd=tree, capture_output=True, text=True, check=False)
    if "dubious ownership" not in refused.stderr:
        pytest.skip(f"this git does not refuse another user's repository: {refused.stderr.strip()}")
    with caplog.at_level(logging.WARNING, logger="projectgraph.discover"):
        found = discover(tree, PYTHON, ProjectConfig())
    assert [f.path for f in found.files] == ["a.py"]  # walked, with the .gitignore
    (message,) = [r.getMessage() for r in caplog.records]
    assert "git refuses the repository" in message and "dubious ownership" in message
    assert "safe.directory" in message
