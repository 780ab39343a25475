"""An unreadable folder (issue 24, finding 5): what it holds gets a status, the rest is indexed, and
no query crashes. The folder is chmod 000 and every command runs with the permission bits holding
(as root, under ``setpriv`` without the capabilities that read any file). Before the fix, in a git
work tree, ``Path.is_file()`` raised PermissionError on the folder's pyproject.toml: ``index`` and
``sync`` failed for the whole project and ``callers``, ``reach``, ``graph`` printed tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import git, write_tree

CLI = Path(sys.executable).with_name("projectgraph")
TREE = {
    "main.py": "import os\n\ndef run():\n    os.getcwd()\n\nif __name__ == '__main__':\n    run()\n",
    "ok/util.py": "def util():\n    pass\n",
    "locked/pyproject.toml": '[project]\nname = "locked"\n',
    "locked/hidden.py": "import os\n\ndef hidden():\n    os.system('x')\n",
}


@pytest.fixture
def as_user(tmp_path: Path) -> Iterator[list[str]]:
    """A command prefix under which permission bits hold, also when the tests run as root."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no setpriv to drop the capability to read any folder")
        prefix = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]
    probe = tmp_path / "probe"
    probe.mkdir()
    probe.chmod(0o000)
    try:
        tried = subprocess.run([*prefix, "ls", str(probe)], capture_output=True, check=False)
        if tried.returncode == 0:
            pytest.skip("this process can read a folder of mode 000 even with its capabilities dropped")
        yield prefix
    finally:
        probe.chmod(0o755)


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_an_unreadable_folder_is_a_status_and_the_rest_is_indexed(
    tmp_path: Path, git_env: Path, as_user: list[str], use_git: bool
) -> None:
    root = write_tree(tmp_path / "p", TREE)
    if use_git:
        git(root, "init", "-q")
        git(root, "add", ".")
    (root / "locked").chmod(0o000)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*as_user, str(CLI), *args], cwd=root, capture_output=True, text=True, timeout=120, check=False
        )

    try:
        indexed = cli("index", ".", "--json")
        queries = {
            name: cli(*args)
            for name, args in (
                ("callers", ("callers", "util")),
                ("reach", ("reach", "os//system")),
                ("graph", ("graph", "--json")),
                ("sync", ("sync",)),
            )
        }
    finally:
        (root / "locked").chmod(0o755)
    assert indexed.returncode == 4, indexed.stderr  # finished, something could not be read
    summary = json.loads(indexed.stdout)
    assert summary["statuses"]["indexed"] == 2
    assert any(
        p["path"].startswith("locked") and "Permission denied" in p["reason"] for p in summary["problems"]
    )
    for name, done in queries.items():
        assert "Traceback" not in done.stderr, (name, done.stderr)
    assert queries["callers"].returncode == 0, queries["callers"].stderr
    # what the locked folder holds could reach os.system: uncertain, never not-found
    assert queries["reach"].returncode == 3 and "uncertain" in queries["reach"].stdout
    graph = json.loads(queries["graph"].stdout)
    assert {"main.py", "ok/util.py"} <= {f["path"] for f in graph["files"]}
    assert queries["sync"].returncode in (0, 4), queries["sync"].stderr
