"""Bad input, each case a test on real files: none crashes the run, each gets a status (or an
exclusion) and a reason, and the run says whether anything failed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import git, write_tree
from projectgraph.config import ProjectConfig
from projectgraph.discover import discover
from projectgraph.indexer import IndexOptions, IndexResult, index_files, run_index
from projectgraph.languages import all_languages
from projectgraph.store import SqliteStore

PYTHON = all_languages()["python"]
OPTIONS = IndexOptions(languages=("python",), workers=1, config=ProjectConfig())
GOOD = "def good():\n    return 1\n"


def index(root: Path, tmp_path: Path) -> IndexResult:
    """Index twice with a SQLite store (cold, then warm) and check both runs agree."""
    store = SqliteStore(tmp_path / "graph.db")
    try:
        cold = run_index(root, OPTIONS, store)
        warm = run_index(root, OPTIONS, store)
    finally:
        store.close()
    assert warm.indexes == cold.indexes
    assert [(s.path, s.reason, s.flags) for s in warm.statuses] == [
        (s.path, s.reason, s.flags) for s in cold.statuses
    ]
    return cold


def status(result: IndexResult, path: str) -> tuple[str, str]:
    found = next(s for s in result.statuses if s.path == path)
    return found.status, found.reason


def excluded(result: IndexResult) -> dict[str, str]:
    return {e.path: e.reason for e in result.excluded}


def test_invalid_utf8_is_indexed_with_replacement_and_flagged(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"ok.py": GOOD, "legacy.py": b"# caf\xe9 \xff\ndef f():\n    g()\n"})
    result = index(root, tmp_path)
    assert status(result, "legacy.py") == ("indexed", "invalid UTF-8 at byte 5 (read with replacement)")
    legacy = next(i for i in result.indexes if i.path == "legacy.py")
    assert "invalid-utf8" in legacy.flags
    assert [d.name for d in legacy.definitions] == ["f"]
    assert [c.name for c in legacy.calls] == ["g"]
    assert not result.failed


def test_a_nul_filled_binary_with_a_source_extension_fails(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"ok.py": GOOD, "image.py": bytes(4096), "elf.py": b"\x7fELF\x02\0\0"}
    root = write_tree(tmp_path / "p", files)
    result = index(root, tmp_path)
    assert status(result, "image.py") == ("failed", "binary content (NUL bytes)")
    assert status(result, "elf.py") == ("failed", "binary content (NUL bytes)")
    assert status(result, "ok.py") == ("indexed", "")
    assert result.failed


def test_a_syntax_error_file_is_indexed_with_what_the_parser_recovered(tmp_path: Path) -> None:
    source = "import os\n\ndef before():\n    os.getcwd()\n\ndef broken(:\n    pass\n\nclass After:\n"
    source += "    def method(self):\n        return before()\n\ndef last():\n    After().method()\n"
    root = write_tree(tmp_path / "p", {"broken.py": source})
    result = index(root, tmp_path)
    state, reason = status(result, "broken.py")
    assert state == "indexed"
    assert reason.endswith("syntax error(s), indexed what the parser recovered")
    broken = result.indexes[0]
    assert "syntax-error" in broken.flags and broken.syntax_errors >= 1
    names = {d.qualname for d in broken.definitions}
    assert {"before", "After", "After.method", "last"} <= names  # definitions after the error kept
    assert {"getcwd", "before", "method"} <= {c.name for c in broken.calls}
    assert not result.failed  # indexed, flagged: not a failure


def test_a_ten_mib_file_fails_with_the_reason_and_is_never_read(tmp_path: Path, opened: list[str]) -> None:
    root = write_tree(tmp_path / "p", {"ok.py": GOOD})
    with open(root / "huge.py", "wb") as handle:
        handle.write(b"x = 1\n" * (10 * 1024 * 1024 // 6) + b"#" * (10 * 1024 * 1024 % 6))
    assert (root / "huge.py").stat().st_size == 10 * 1024 * 1024
    opened.clear()
    result = index(root, tmp_path)
    assert status(result, "huge.py") == (
        "failed",
        "file of 10485760 bytes is larger than the limit of 4194304 bytes",
    )
    assert str(root / "huge.py") not in opened
    assert [i.path for i in result.indexes] == ["ok.py"]
    assert result.failed


def test_an_empty_file_is_indexed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pkg/__init__.py": "", "pkg/mod.py": GOOD})
    result = index(root, tmp_path)
    assert status(result, "pkg/__init__.py") == ("indexed", "")
    empty = result.indexes[0]
    assert (empty.path, empty.definitions, empty.calls, empty.imports, empty.flags) == (
        "pkg/__init__.py",
        (),
        (),
        (),
        (),
    )
    assert not result.failed


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_a_symlink_loop_is_left_out_with_the_reason(tmp_path: Path, git_env: Path, use_git: bool) -> None:
    root = write_tree(tmp_path / "p", {"ok.py": GOOD, "sub/mod.py": GOOD})
    (root / "a.py").symlink_to("b.py")
    (root / "b.py").symlink_to("a.py")
    (root / "self.py").symlink_to("self.py")
    (root / "sub" / "up").symlink_to("..")  # a folder loop: never walked
    (root / "dangling.py").symlink_to("nowhere.py")
    if use_git:
        git(root, "init", "-q")
    result = index(root, tmp_path)
    assert [s.path for s in result.statuses] == ["ok.py", "sub/mod.py"]
    reasons = excluded(result)
    for loop in ("a.py", "b.py", "self.py", "dangling.py"):
        assert reasons[loop] == "broken or looping symlink"
    assert not result.failed


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_a_symlink_out_of_the_root_is_not_followed(tmp_path: Path, git_env: Path, use_git: bool) -> None:
    outside = write_tree(tmp_path / "outside", {"secret.py": "def secret():\n    pass\n", "lib/x.py": GOOD})
    root = write_tree(tmp_path / "p", {"ok.py": GOOD, "inner/real.py": "def real():\n    pass\n"})
    (root / "secret.py").symlink_to(outside / "secret.py")
    (root / "relative.py").symlink_to("../outside/secret.py")
    (root / "lib").symlink_to(outside / "lib", target_is_directory=True)
    (root / "alias.py").symlink_to("inner/real.py")  # inside the root: read as any file
    if use_git:
        git(root, "init", "-q")
    result = index(root, tmp_path)
    assert [s.path for s in result.statuses] == ["alias.py", "inner/real.py", "ok.py"]
    reasons = excluded(result)
    assert reasons["secret.py"] == "symlink out of the project root (not followed)"
    assert reasons["relative.py"] == "symlink out of the project root (not followed)"
    assert all("secret" not in d.name for i in result.indexes for d in i.definitions)
    assert "lib/x.py" not in {s.path for s in result.statuses}
    if not use_git:
        assert reasons["lib"] == "symlinked folder (not followed)"
    assert not result.failed


# ---- an unreadable folder ---------------------------------------------------------------------------

RUN = """
import json, sys
from projectgraph.config import ProjectConfig
from projectgraph.indexer import IndexOptions, run_index
result = run_index(sys.argv[1], IndexOptions(languages=("python",), workers=1, config=ProjectConfig()))
print(json.dumps({
    "statuses": [[s.path, s.status, s.reason] for s in result.statuses],
    "excluded": [[e.path, e.reason, e.error] for e in result.excluded],
    "failed": result.failed,
}))
"""


@pytest.fixture
def no_read_override(tmp_path: Path) -> Iterator[list[str]]:
    """A command prefix under which permission bits hold, also when the tests run as root."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no setpriv to drop the capability to read any folder")
        prefix = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]
    probe = tmp_path / "probe"
    probe.mkdir(mode=0o000)
    probe.chmod(0o000)
    try:
        tried = subprocess.run([*prefix, "ls", str(probe)], capture_output=True, check=False)
        if tried.returncode == 0:
            pytest.skip("this process can read a folder of mode 000 even with its capabilities dropped")
        yield prefix
    finally:
        probe.chmod(0o755)


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_an_unreadable_folder_is_reported_and_fails_the_run(
    tmp_path: Path, git_env: Path, no_read_override: list[str], use_git: bool
) -> None:
    root = write_tree(
        tmp_path / "p", {"ok.py": GOOD, "locked/hidden.py": GOOD, "tracked/t.py": GOOD, "tracked/u.py": GOOD}
    )
    if use_git:
        git(root, "init", "-q")
        git(root, "add", "tracked/t.py")
    (root / "locked").chmod(0o000)
    (root / "tracked" / "u.py").chmod(0o000)  # an unreadable file
    try:
        command = [*no_read_override, sys.executable, "-c", RUN, str(root)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    finally:
        (root / "locked").chmod(0o755)
        (root / "tracked" / "u.py").chmod(0o644)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["failed"] is True
    assert ["locked", "unreadable folder: Permission denied", True] in result["excluded"]
    statuses = {path: (state, reason) for path, state, reason in result["statuses"]}
    assert statuses["ok.py"] == ("indexed", "")
    assert statuses["tracked/t.py"] == ("indexed", "")
    assert statuses["tracked/u.py"] == ("failed", "unreadable: Permission denied")

    cli = Path(sys.executable).with_name("projectgraph")
    (root / "locked").chmod(0o000)
    try:
        shown = subprocess.run(
            [*no_read_override, str(cli), "index", str(root), "--json", "--workers", "1"],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        (root / "locked").chmod(0o755)
    assert shown.returncode == 4, shown.stderr
    problems = json.loads(shown.stdout)["problems"]
    locked = {"path": "locked", "status": "excluded", "reason": "unreadable folder: Permission denied"}
    assert locked in problems


# ---- races, names, odd files ------------------------------------------------------------------------


def test_a_file_deleted_between_discovery_and_read_is_missing(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"ok.py": GOOD, "gone.py": GOOD, "gone_too.py": GOOD})
    found = discover(root, [PYTHON], ProjectConfig())
    (root / "gone.py").unlink()
    (root / "gone_too.py").unlink()
    (root / "gone_too.py").mkdir()  # replaced by a folder
    result = index_files(root, found, [PYTHON], OPTIONS.validated(), None, None, time.monotonic())
    assert status(result, "gone.py") == ("missing", "deleted before it was read")
    assert status(result, "gone_too.py") == ("failed", "not a regular file")
    assert status(result, "ok.py") == ("indexed", "")
    assert result.failed


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_a_path_with_spaces_and_non_ascii_characters(tmp_path: Path, git_env: Path, use_git: bool) -> None:
    names = ["my dir/naïve café.py", "données/日本語 モジュール.py", "a b.py", "new\nline.py", "tab\there.py"]
    root = write_tree(tmp_path / "p", dict.fromkeys(names, GOOD))
    if use_git:
        git(root, "init", "-q")
        git(root, "add", "-A")
    result = index(root, tmp_path)
    assert [s.path for s in result.statuses] == sorted(names)
    assert {s.status for s in result.statuses} == {"indexed"}
    assert [i.path for i in result.indexes] == sorted(names)


def test_a_fifo_with_a_source_extension_does_not_hang_the_run(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"ok.py": GOOD})
    os.mkfifo(root / "pipe.py")
    result = index(root, tmp_path)  # reading the pipe would block for ever
    assert excluded(result) == {"pipe.py": "not a regular file"}
    assert [s.path for s in result.statuses] == ["ok.py"]


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_a_file_name_that_is_not_utf8_is_left_out_with_the_reason(
    tmp_path: Path, git_env: Path, use_git: bool
) -> None:
    root = write_tree(tmp_path / "p", {"ok.py": GOOD})
    bad = os.fsencode(root) + b"/caf\xe9.py"
    with open(bad, "wb") as handle:
        handle.write(GOOD.encode())
    if use_git:
        git(root, "init", "-q")
    result = index(root, tmp_path)  # the store and JSON hold only valid text
    assert [s.path for s in result.statuses] == ["ok.py"]
    assert excluded(result) == {"caf\\xe9.py": "file name is not valid UTF-8"}
    assert result.failed
    json.dumps(result.summary(), ensure_ascii=False).encode("utf-8")
