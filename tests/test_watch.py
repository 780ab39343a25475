"""The watcher, as a real ``projectgraph watch`` process: every test is bounded by timeouts and kills
the process (its whole group) whatever happens."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import write_tree
from projectgraph.pipeline import build_graph
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SqliteStore

CLI = Path(sys.executable).with_name("projectgraph")
TIMEOUT = 90.0  # seconds, for anything the watcher must do (a loaded CI machine is slow)


class Watching:
    """A running watcher: its JSON lines (one per sync) read by a thread into a queue."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))

    def next_sync(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.lines.get(timeout=timeout)


@contextmanager
def watching(root: Path, *args: str) -> Iterator[Watching]:
    with subprocess.Popen(
        # no idle check within a test: each JSON line read is the sync of the edit before it
        [str(CLI), "watch", str(root), "--json", "--check-every", "600", *(args or ("--debounce", "50"))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            yield Watching(process)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def stored(root: Path) -> str:
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    try:
        return sql.read_graph(store.connection).dumps()
    finally:
        store.close()


def poll(condition: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def has_node(root: Path, key: str) -> bool:
    return f'"key": "{key}"' in stored(root)


def project(root: Path) -> Path:
    return write_tree(
        root,
        {
            "app/__init__.py": "",
            "app/main.py": "def main():\n    return 1\n",
            "notes.txt": "not source\n",
        },
    )


def test_an_edit_reaches_the_stored_graph_and_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    with watching(root) as watcher:
        start = watcher.next_sync()
        assert start["reason"] == "start" and start["relinked"] is True
        status = json.loads(
            subprocess.run(
                [str(CLI), "status", "--json", "--project", str(root)],
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            ).stdout
        )
        assert status["watcher"]["pid"] == watcher.process.pid and status["stale"] is False

        (root / "app" / "main.py").write_text(
            "def main():\n    return helper()\n\n\ndef helper():\n    pass\n"
        )
        poll(lambda: has_node(root, "app/main.py//helper"))
        assert stored(root) == build_graph(root).graph.dumps()

        # a file no language reads sends nothing; the next source edit is the next sync, alone
        (root / "notes.txt").write_text("still not source\n")
        (root / ".projectgraph" / "scratch.py").write_text("x = 1\n")
        time.sleep(0.5)
        (root / "app" / "extra.py").write_text("def extra():\n    pass\n")
        poll(lambda: has_node(root, "app/extra.py//extra"))
        synced = [watcher.next_sync(), watcher.next_sync()]
        assert synced[0]["changed"] == ["app/main.py"]
        assert synced[1]["added"] == ["app/extra.py"] and synced[1]["paths"] == 1

        watcher.process.send_signal(signal.SIGINT)
        assert watcher.process.wait(timeout=TIMEOUT) == 0
        assert watcher.process.stderr is not None
        assert watcher.process.stderr.read().endswith("projectgraph watch: stopped\n")
    assert not (root / ".projectgraph" / "watch.json").exists()


def test_a_burst_past_500_paths_runs_one_full_reconcile(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    with watching(root, "--debounce", "1500") as watcher:  # the 520 writes make one batch
        watcher.next_sync()
        for number in range(520):
            (root / "app" / f"gen_{number:03d}.py").write_text(f"def gen_{number}():\n    pass\n")
        poll(lambda: has_node(root, "app/gen_519.py//gen_519"))
        reasons = []
        while not watcher.lines.empty() or not reasons:
            reasons.append(watcher.next_sync()["reason"])
        assert "burst" in reasons
        assert stored(root) == build_graph(root).graph.dumps()


def test_a_second_watcher_of_one_project_fails_fast(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    with watching(root) as first:
        first.next_sync()
        second = subprocess.run(
            [str(CLI), "watch", str(root)], capture_output=True, text=True, timeout=60, check=False
        )
        assert second.returncode == 2
        assert f"another projectgraph watcher (pid {first.process.pid}) watches" in second.stderr


def test_sigterm_stops_the_watcher_cleanly(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    with watching(root) as watcher:
        watcher.next_sync()
        watcher.process.terminate()
        assert watcher.process.wait(timeout=TIMEOUT) == 0
    assert not (root / ".projectgraph" / "watch.json").exists()


def test_the_idle_check_finds_a_change_no_event_reported(tmp_path: Path) -> None:
    """A config a tsconfig extends from another folder sends no event the filter keeps (its name is
    no control file's); the check after --check-every seconds without events finds it."""
    root = write_tree(
        tmp_path / "p",
        {
            "tsconfig.json": '{"extends": "./config/base.json"}',
            "config/base.json": '{"compilerOptions": {"baseUrl": "src"}}',
            "src/a.ts": "export function a() { return 1; }\n",
            "src/b.ts": 'import { a } from "a";\nexport function b() { return a(); }\n',
        },
    )
    with watching(root, "--debounce", "50", "--check-every", "1") as watcher:
        watcher.next_sync()
        (root / "config" / "base.json").write_text('{"compilerOptions": {"baseUrl": "."}}')
        deadline = time.monotonic() + TIMEOUT
        while True:
            line = watcher.next_sync()
            if line.get("controls"):
                break
            assert time.monotonic() < deadline, "timed out"
        assert line["reason"] == "check" and line["controls"] == ["config/base.json"]
        assert stored(root) == build_graph(root).graph.dumps()
