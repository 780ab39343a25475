"""The per-project daemon with real processes: started by a client, found by status and list,
stopped, idle exit after its last lease, one writer per project, an older version drained, its
index removed. Every wait is on a condition (a lock released, a file written), bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import write_tree
from projectgraph.cli import main
from projectgraph.daemon import writer
from projectgraph.daemon.client import Client, IndexGone, Lease, live, reap
from projectgraph.daemon.paths import folder_key, runtime_dirs
from projectgraph.project import Project

CLI = Path(sys.executable).with_name("projectgraph")
TIMEOUT = 60.0
APP = {
    "app/m.py": "def helper():\n    return 1\n\n\ndef main():\n    return helper()\n",
}


def wait_for(condition: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def holder_pid(root: Path) -> int | None:
    held = writer.holder(root / ".projectgraph")
    return held.get("pid") if held else None


def indexed(root: Path, files: dict[str, str | bytes] | None = None) -> Path:
    write_tree(root, files or APP)
    with Project(root) as project:
        project.refresh()
    return root


def daemon_command(*args: str) -> tuple[int, str]:
    """``projectgraph daemon ...`` in process (the daemons it talks to are real processes)."""
    done = CliRunner().invoke(main, ["daemon", *args])
    return done.exit_code, done.output


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args], capture_output=True, text=True, timeout=TIMEOUT, env=env or dict(os.environ)
    )


def imports(*args: str) -> subprocess.CompletedProcess[str]:
    """A process of this interpreter run with ``-X importtime`` (each import on stderr)."""
    command = [sys.executable, "-X", "importtime", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=dict(os.environ))


def imported(stderr: str) -> set[str]:
    """The modules ``-X importtime`` says were imported."""
    lines = [line for line in stderr.splitlines() if line.startswith("import time:")]
    return {line.rpartition("|")[2].strip() for line in lines}


@pytest.fixture
def daemons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Daemon mode, a private runtime folder; every daemon of the listed roots is stopped after."""
    monkeypatch.delenv("PROJECTGRAPH_NO_DAEMON", raising=False)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("PROJECTGRAPH_DAEMON_IDLE", "120")
    roots: list[Path] = []
    yield roots
    for root in roots:
        pid = holder_pid(root)
        if pid is not None and (writer.holder(root / ".projectgraph") or {}).get("role") == "daemon":
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            wait_for(lambda root=root: holder_pid(root) is None, "the daemon killed")  # type: ignore[misc]
    reap()  # the daemons this test process started and that ended: no zombie left


def test_a_client_starts_the_daemon_and_status_list_stop_see_it(tmp_path: Path, daemons: list[Path]) -> None:
    root = indexed(tmp_path / "p")
    daemons.append(root)
    assert daemon_command("status", str(root)) == (1, f"no daemon runs for {root}\n")  # none yet
    status = Client(root).request({"op": "status"})
    assert status["ok"] and status["root"] == str(root) and status["ready"] in (True, False)
    pid = status["pid"]
    assert holder_pid(root) == pid
    rendezvous = json.loads((root / ".projectgraph" / "daemon.json").read_text())
    assert rendezvous["pid"] == pid and rendezvous["socket"] == str(root / ".projectgraph" / "daemon.sock")

    code, shown = daemon_command("status", "--json", "--project", str(root))
    assert code == 0, shown
    data = json.loads(shown)
    assert (data["running"], data["pid"], data["root"]) == (True, pid, str(root))
    assert data["log"] == str(root / ".projectgraph" / "daemon.log")
    text = daemon_command("status", str(root))[1]
    assert text.startswith(f"daemon of {root}: pid {pid}, version ")
    listed = json.loads(daemon_command("list", "--json")[1])["daemons"]
    assert [(d["root"], d["pid"]) for d in listed] == [(str(root), pid)]

    # the real command once, as a process
    stopped = run("daemon", "stop", str(root))
    assert (stopped.returncode, stopped.stdout) == (0, f"stopped the daemon (pid {pid}) of {root}\n")
    assert holder_pid(root) is None
    assert not (root / ".projectgraph" / "daemon.json").exists()
    assert not (root / ".projectgraph" / "daemon.sock").exists()
    assert (
        "stopping: asked to stop by projectgraph daemon stop"
        in (root / ".projectgraph" / "daemon.log").read_text()
    )
    assert json.loads(daemon_command("list", "--json")[1]) == {"daemons": []}
    assert daemon_command("stop", str(root)) == (1, f"no daemon runs for {root}\n")


def test_the_daemon_syncs_an_edit_and_answers_with_its_freshness(
    tmp_path: Path, daemons: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = indexed(tmp_path / "p")
    monkeypatch.setenv("PROJECTGRAPH_TEST_PAUSE_IN_WRITE", "2")  # the daemon's writes hold 2 s each
    daemons.append(root)
    client = Client(root)

    def callers(**extra: Any) -> dict[str, Any]:
        message = {"op": "tool", "name": "code_callers", "arguments": {"symbol_id": "helper"}}
        answer = client.request(message | extra)
        assert answer["ok"], answer
        structured: dict[str, Any] = answer["result"]["structuredContent"]
        return structured

    first = callers()
    assert [r["key"] for r in first["results"]] == ["app/m.py//main"] and first["notes"] == []
    assert first["freshness"] == {
        "generation": first["generation"],
        "pending": 0,
        "recovering": False,
        "state": "idle",
        "daemon": holder_pid(root),
    }
    with (root / "app" / "m.py").open("a", encoding="utf-8") as file:
        file.write("\n\ndef later():\n    return helper()\n")
    wait_for(lambda: client.request({"op": "status"})["state"] == "syncing", "the sync of the edit")
    # asked to wait a tenth of a second only: the graph before the edit, saying so
    stale = callers(settle=0.1)
    assert [r["key"] for r in stale["results"]] == ["app/m.py//main"]
    assert stale["freshness"]["state"] == "syncing" and stale["generation"] == first["generation"]
    assert any(n.startswith("the daemon is syncing (1 changed path(s) pending") for n in stale["notes"])
    # asked as a client asks, while the sync runs: answered after it (it commits 2 s after it began)
    later = callers()
    assert [r["key"] for r in later["results"]] == ["app/m.py//later", "app/m.py//main"]
    assert later["freshness"]["generation"] == later["generation"] > first["generation"]
    assert later["freshness"]["state"] == "idle" and later["notes"] == []
    # a CLI command through the daemon prints what the command prints in direct mode
    through = client.request({"op": "cli", "argv": ["callers", "helper", "--json"], "cwd": str(root)})
    direct = run(
        "callers",
        "helper",
        "--json",
        "--project",
        str(root),
        env=os.environ | {"PROJECTGRAPH_NO_DAEMON": "1"},
    )
    assert (through["code"], through["stdout"]) == (direct.returncode, direct.stdout)
    # the command itself, a process that asks the daemon: it imports nothing of the library, nor
    # json or socket, beside what the interpreter's start imports (projectgraph_launch.forward)
    asked = imports(str(CLI), "callers", "helper", "--json", "--project", str(root))
    assert (asked.returncode, asked.stdout) == (0, direct.stdout)
    assert [line for line in asked.stderr.splitlines() if not line.startswith("import time:")] == []
    extra = imported(asked.stderr) - imported(imports("-c", "pass").stderr)
    assert extra <= {"projectgraph_launch", "__future__", "_json", "_socket"}, extra
    status = client.request({"op": "tool", "name": "index_status", "arguments": {}})["result"][
        "structuredContent"
    ]
    assert status["daemon"]["pid"] == holder_pid(root) and status["daemon"]["syncs"] >= 2
    assert status["daemon"]["lastSync"]["reason"] == "change"


def test_idle_exit_after_the_last_lease(
    tmp_path: Path, daemons: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROJECTGRAPH_DAEMON_IDLE", "1.5")
    root = indexed(tmp_path / "p")
    daemons.append(root)
    client = Client(root)
    lease = Lease(client)
    try:
        assert lease.attached.wait(TIMEOUT)
        pid = lease.pid
        # held past three idle periods: the daemon stays (its uptime says the time went by)
        wait_for(lambda: client.request({"op": "status"})["uptime"] > 4.5, "three idle periods")
        status = client.request({"op": "status"})
        assert (status["pid"], status["clients"]) == (pid, 1)
    finally:
        lease.close()
    wait_for(lambda: holder_pid(root) is None, "the idle exit")
    log = (root / ".projectgraph" / "daemon.log").read_text()
    assert f"{pid} INFO projectgraph.daemon: exited: idle for 1.5 s after its last client" in log
    assert not (root / ".projectgraph" / "daemon.json").exists()


def test_a_second_direct_writer_fails_fast_naming_the_holder(tmp_path: Path, daemons: list[Path]) -> None:
    root = indexed(tmp_path / "p")
    daemons.append(root)
    pid = Client(root).request({"op": "status"})["pid"]
    direct = os.environ | {"PROJECTGRAPH_NO_DAEMON": "1"}
    started = time.monotonic()
    done = run("sync", str(root), env=direct)
    assert time.monotonic() - started < 30
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        f"projectgraph: the projectgraph daemon (pid {pid}) watches {root} and is its one writer"
    )
    assert daemon_command("stop", str(root))[0] == 0

    # a direct-mode watcher is the one writer in its turn: a second direct writer, and a daemon, yield
    with subprocess.Popen(
        [str(CLI), "watch", str(root)],
        env=direct,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    ) as watcher:
        try:
            wait_for(lambda: holder_pid(root) == watcher.pid, "the watcher's lock")
            second = run("index", str(root), env=direct)
            assert (second.returncode, second.stdout) == (2, "")
            assert second.stderr == (
                f"projectgraph: another projectgraph watcher (pid {watcher.pid}) watches {root} and is its "
                "one writer; stop it first\n"
            )
            from projectgraph.daemon.client import DaemonUnavailable

            with pytest.raises(DaemonUnavailable, match=f"watcher \\(pid {watcher.pid}\\)"):
                Client(root).request({"op": "status"}, timeout=10)
        finally:
            watcher.send_signal(signal.SIGINT)
            watcher.wait(TIMEOUT)


def test_a_daemon_of_an_older_version_is_drained_and_replaced(tmp_path: Path, daemons: list[Path]) -> None:
    root = indexed(tmp_path / "p")
    daemons.append(root)
    env = os.environ | {"PROJECTGRAPH_DAEMON_VERSION": "0.0.1"}
    with subprocess.Popen(
        [sys.executable, "-m", "projectgraph.daemon", str(root), "--idle", "120"], env=env
    ) as old:
        try:
            wait_for(lambda: (live(root) or {}).get("version") == "0.0.1", "the old daemon's rendezvous")
            status = Client(root).request({"op": "status"})
            assert old.wait(TIMEOUT) == 0  # it drained and exited
        finally:
            if old.poll() is None:
                old.kill()
    assert status["pid"] != old.pid and status["version"] != "0.0.1"
    assert holder_pid(root) == status["pid"]
    log = (root / ".projectgraph" / "daemon.log").read_text()
    assert (
        f"{old.pid} INFO projectgraph.daemon: stopping: asked to drain by pid {os.getpid()}: "
        "an older version (0.0.1)" in log
    )


def test_the_daemon_exits_when_its_index_is_removed_and_none_is_made_again(
    tmp_path: Path, daemons: list[Path]
) -> None:
    root = indexed(tmp_path / "p")
    daemons.append(root)
    client = Client(root)
    assert client.request({"op": "status"})["ok"]
    import shutil

    # the daemon may write its log or its store's journal while the folder is being removed (a
    # file made after rmtree listed the folder: "Directory not empty"): remove again, as a user would
    def removed() -> bool:
        shutil.rmtree(root / ".projectgraph", ignore_errors=True)
        return not (root / ".projectgraph").exists()

    wait_for(removed, "the index folder's removal")
    wait_for(client.started_ended, "the daemon's exit")
    assert not (root / ".projectgraph").exists()
    with pytest.raises(IndexGone):
        client.request({"op": "status"})
    assert not (root / ".projectgraph").exists()


def test_a_long_project_path_gets_its_socket_under_the_runtime_folder(
    tmp_path: Path, daemons: list[Path]
) -> None:
    root = indexed(tmp_path / ("deep-" * 12) / "project")
    daemons.append(root)
    status = Client(root).request({"op": "status"})
    socket_path = json.loads((root / ".projectgraph" / "daemon.json").read_text())["socket"]
    assert socket_path == status["socket"]
    # a name made from the index folder, in the runtime folder (or /tmp's, when that is too long)
    assert Path(socket_path).parent in runtime_dirs()
    assert Path(socket_path).name == folder_key(root / ".projectgraph") + ".sock"
    assert len(socket_path.encode()) <= 100


def test_the_viewer_has_the_daemon_index_the_project_and_holds_it(
    tmp_path: Path, daemons: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import re
    import urllib.request

    monkeypatch.setenv("PROJECTGRAPH_DAEMON_IDLE", "2")
    root = write_tree(tmp_path / "p", APP)  # not indexed: the viewer indexes first, here through the daemon
    daemons.append(root)
    with subprocess.Popen(
        [str(CLI), "ui", "--port", "0", str(root)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    ) as viewer:
        try:
            assert viewer.stderr is not None
            said = viewer.stderr.readline()
            url = re.search(r"on (http://\S+)", said)
            assert url, said
            held = writer.holder(root / ".projectgraph")
            assert held is not None and held["role"] == "daemon" and held["pid"] != viewer.pid
            assert (root / ".projectgraph" / "graph.db").is_file()
            wait_for(lambda: Client(root).request({"op": "status"})["clients"] == 1, "the viewer's lease")
            with urllib.request.urlopen(url.group(1) + "api/status", timeout=TIMEOUT) as response:
                assert response.status == 200
        finally:
            viewer.terminate()
            viewer.wait(TIMEOUT)
    wait_for(lambda: holder_pid(root) is None, "the idle exit after the viewer")


def test_a_sync_that_began_before_the_index_was_removed_does_not_make_it_again(tmp_path: Path) -> None:
    # the race the exit test met once in CI: the daemon's watcher checked that its index was there,
    # the folder was removed, then the sync took the writer lock, which made the folder again
    from projectgraph.daemon.server import Daemon, DaemonWatcher
    from projectgraph.sync.watch import Watcher

    root = indexed(tmp_path / "p")
    daemon = Daemon(root, idle=60)
    daemon._record_id()
    assert daemon.database_id is not None
    watcher = DaemonWatcher(daemon.root, daemon, 50)
    import shutil

    with Project(root) as project:
        store = project.store  # the watcher's store, open before the removal
        shutil.rmtree(root / ".projectgraph")
        Watcher._sync(watcher, store, "check", 0, False)  # past the daemon's index_gone check
    assert not (root / ".projectgraph").exists()
    assert watcher.state["state"] == "behind" and "FileNotFoundError" in watcher.state["error"]
