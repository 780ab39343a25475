"""A real ``projectgraph index`` killed with SIGKILL leaves the previous graph readable and intact,
and the next run completes: the graph is replaced in one transaction (``store.sqlite.write_graph``)
and the writer lock is the kernel's, gone with the process."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import write_tree
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SqliteStore

CLI = Path(sys.executable).with_name("projectgraph")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=120, check=False)


def stored_graph(root: Path) -> str:
    """The stored graph's JSON text, read by a fresh connection as another process would."""
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    try:
        return sql.read_graph(store.connection).dumps()
    finally:
        store.close()


@contextmanager
def indexing(root: Path, **env: str) -> Iterator[subprocess.Popen[str]]:
    """``projectgraph index ROOT`` running in the background; its whole group killed after."""
    with subprocess.Popen(
        [str(CLI), "index", str(root), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        start_new_session=True,
    ) as process:
        try:
            yield process
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def project(root: Path, functions: int, modules: int = 1) -> Path:
    files: dict[str, str | bytes] = {"app/__init__.py": ""}
    for m in range(modules):
        body = [f"from app.mod_{(m + 1) % modules:03d} import f_{(m + 1) % modules:03d}_0\n"]
        for n in range(functions):
            body.append(f"\n\ndef f_{m:03d}_{n}(x):\n    return f_{m:03d}_{max(n - 1, 0)}(x) + 1\n")
        files[f"app/mod_{m:03d}.py"] = "".join(body)
    return write_tree(root, files)


def test_kill_9_in_the_middle_of_the_graph_write_keeps_the_previous_graph(tmp_path: Path) -> None:
    root = project(tmp_path / "p", functions=20, modules=3)
    assert run("index", str(root)).returncode == 0
    before = stored_graph(root)
    (root / "app" / "mod_000.py").write_text("def renamed():\n    return 1\n", encoding="utf-8")
    (root / "app" / "extra.py").write_text("def added():\n    return 2\n", encoding="utf-8")

    with indexing(root, PROJECTGRAPH_TEST_PAUSE_IN_WRITE="60") as writer:
        assert writer.stderr is not None
        assert writer.stderr.readline() == "projectgraph: test pause in write_graph\n"
        # the writer has deleted every row of the old graph, uncommitted: readers still see it whole
        assert stored_graph(root) == before
        os.kill(writer.pid, signal.SIGKILL)
        assert writer.wait() == -signal.SIGKILL

    assert stored_graph(root) == before
    # the CLI reads it: the changes are seen as stale, and the next query or run completes
    status = run("status", "--project", str(root), "--json")
    assert status.returncode == 0 and '"stale": true' in status.stdout
    again = run("index", str(root))
    assert (again.returncode, again.stderr) == (0, "")
    after = stored_graph(root)
    assert '"app/extra.py//added"' in after and '"app/mod_000.py//renamed"' in after
    assert '"app/mod_000.py//f_000_1"' not in after
    assert run("symbol", "renamed", "--project", str(root)).returncode == 0


def test_kill_9_at_any_moment_of_an_index_run(tmp_path: Path) -> None:
    root = project(tmp_path / "p", functions=30, modules=80)
    assert run("index", str(root)).returncode == 0
    before = stored_graph(root)
    for module in range(0, 80, 2):  # half the files change: a run parses them again
        path = root / "app" / f"mod_{module:03d}.py"
        path.write_text(
            path.read_text(encoding="utf-8") + "\n\ndef late():\n    return 0\n", encoding="utf-8"
        )
    # one clean run of the changed project, timed, to spread the kills over its whole length
    clean = tmp_path / "clean"
    write_tree(clean, {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in root.rglob("*.py")})
    started = time.monotonic()
    assert run("index", str(clean)).returncode == 0
    length = time.monotonic() - started
    expected = stored_graph(clean).replace(str(clean), str(root))

    outcomes = []
    for fraction in (0.1, 0.5, 0.9):
        with indexing(root) as writer:
            time.sleep(length * fraction)
            os.kill(writer.pid, signal.SIGKILL)  # the main process only, as the OOM killer would
            writer.wait()
        graph = stored_graph(root)
        assert graph in (before, expected), fraction  # never a mix of the two
        outcomes.append(graph == expected)
        if graph == expected:
            break
    again = run("index", str(root))
    assert (again.returncode, again.stderr) == (0, "")
    assert stored_graph(root) == expected
    assert outcomes[0] is False  # the first kill landed before the commit
