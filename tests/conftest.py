"""Shared test helpers: temporary projects written from a dict of path -> text."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = Path(__file__).parent.parent / "examples"
# fixture projects are data for the graph, not tests of this repository: some are pytest suites of
# their own (conftest.py files, a test that asks for a plugin's fixture, the doc graph's corpus)
collect_ignore_glob = ["fixtures/*"]


def pytest_configure(config: pytest.Config) -> None:
    # an activated virtual environment is a source of units (--deps auto): the fixtures' graphs must
    # not depend on the environment the tests run from
    os.environ.pop("VIRTUAL_ENV", None)
    # direct mode: each test's commands read and write their store themselves, as the tests expect
    # of a command that syncs first; the daemon path has its own tests (tests/test_daemon*.py)
    os.environ["PROJECTGRAPH_NO_DAEMON"] = "1"
    # Ctrl-C as a terminal's foreground job gets it: a launcher that ran the suite in the background
    # (a non-interactive shell's `cmd &`) leaves SIGINT ignored, which every command the tests start
    # inherits, and the Ctrl-C tests then see a run that cannot be interrupted. A handler, unlike an
    # ignore, is reset to the default at exec, so the commands get the default too.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    def make(files: dict[str, str | bytes]) -> Path:
        return write_tree(tmp_path / "project", files)

    return make


# ---- git work trees, isolated from the machine's git configuration ----------------------------

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "projectgraph tests",
    "GIT_AUTHOR_EMAIL": "tests@projectgraph.invalid",
    "GIT_COMMITTER_NAME": "projectgraph tests",
    "GIT_COMMITTER_EMAIL": "tests@projectgraph.invalid",
}


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private global git config (returned) and no system one, so only the test's rules apply."""
    home = tmp_path / "git-home"
    home.mkdir()
    config = home / "gitconfig"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)
    return config


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (use with the ``git_env`` fixture); returns stdout."""
    import subprocess

    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


# ---- which files a run opens, seen by an audit hook (no monkeypatching of the code under test) ----

_OPEN_LOG: list[list[str]] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _OPEN_LOG and isinstance(args[0], str | Path):
        _OPEN_LOG[-1].append(str(args[0]))


@pytest.fixture
def opened() -> Iterator[list[str]]:
    """The paths this process opens while the test runs (an audit hook cannot be removed: it idles)."""
    import sys

    if not getattr(sys, "_projectgraph_test_audit", False):
        sys.addaudithook(_audit)
        sys._projectgraph_test_audit = True  # type: ignore[attr-defined]
    log: list[str] = []
    _OPEN_LOG.append(log)
    try:
        yield log
    finally:
        _OPEN_LOG.remove(log)
