"""Hangs (issue 24, finding 3): a FIFO where projectgraph reads a control file must not block it.

A FIFO with no writer blocks ``open()`` for ever; each case puts one where a command reads a file
(a .gitignore outside git, a requirements.txt, a Cargo.toml, a Cargo.lock, a package.json of a
node_modules package, a pyproject.toml, a tsconfig.json, a go.mod) and runs the real CLI with a
timeout: before the fix each one never returned.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph import safefs

CLI = Path(sys.executable).with_name("projectgraph")
TIMEOUT = 60  # a hang is for ever; a run here takes a few seconds even on a loaded machine

CASES: dict[str, tuple[dict[str, str], str]] = {
    "gitignore": ({"app.py": "def main():\n    pass\n"}, ".gitignore"),
    "requirements": ({"app.py": "import yaml\n"}, "requirements.txt"),
    "pyproject": ({"app.py": "def main():\n    pass\n"}, "pyproject.toml"),
    "cargo-toml": ({"src/main.rs": "fn main() {}\n"}, "Cargo.toml"),
    "cargo-lock": (
        {"src/main.rs": "fn main() {}\n", "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n'},
        "Cargo.lock",
    ),
    "node-package": (
        {"app.js": "const kit = require('kit');\nkit.run();\n"},
        "node_modules/kit/package.json",
    ),
    "tsconfig": ({"app.ts": "export function main(): void {}\n"}, "tsconfig.json"),
    "go-mod": ({"main.go": "package main\n\nfunc main() {}\n"}, "go.mod"),
}


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(root.parent)},
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_fifo_control_file_does_not_hang_index_or_a_query(tmp_path: Path, case: str) -> None:
    files, fifo = CASES[case]
    root = write_tree(tmp_path / "p", files)
    (root / fifo).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / fifo)
    done = cli(root, "index", ".", "--json")  # raises TimeoutExpired on a hang
    assert done.returncode in (0, 4), done.stderr
    summary = json.loads(done.stdout)
    assert summary["files"] == 1  # the source file is indexed all the same
    assert summary["statuses"] in ({"indexed": 1}, {"cached": 1})
    if case not in ("requirements", "node-package"):
        return  # a query runs the same reads (checked on two cases: a CLI run costs a second)
    first = next(iter(files))
    (root / first).write_text(files[first] + "\n", encoding="utf-8")  # changed: the query syncs first
    queried = cli(root, "graph", "--json")
    assert queried.returncode == 0, queried.stderr
    source = next(path for path in files if not path.startswith("Cargo"))
    assert [f["path"] for f in json.loads(queried.stdout)["files"]] == [source]


def test_a_fifo_gitignore_is_named_outside_git(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"app.py": "def main():\n    pass\n"})
    os.mkfifo(root / ".gitignore")
    done = cli(root, "index", ".", "--json")
    problems = json.loads(done.stdout)["problems"]
    fifo = {"path": ".gitignore", "status": "excluded", "reason": "unreadable: not a regular file"}
    assert fifo in problems


def test_the_safe_reader_refuses_a_fifo_and_bounds_a_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(safefs.NotRegularFileError):
        safefs.read_bytes(fifo)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1000)
    with pytest.raises(safefs.TooLargeError):
        safefs.read_bytes(big, limit=999)
    assert safefs.read_bytes(big, limit=1000) == b"x" * 1000
    assert safefs.read_head(big, 10) == b"x" * 10
    with pytest.raises(safefs.NotRegularFileError):
        safefs.read_head(fifo, 10)
