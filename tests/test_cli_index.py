"""``projectgraph index`` run as a real command in a subprocess: exit codes, stdout, stderr."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import write_tree

CLI = Path(sys.executable).with_name("projectgraph")

CLEAN: dict[str, str | bytes] = {
    "app/__init__.py": "",
    "app/main.py": "from app.util import helper\n\ndef main():\n    helper(1)\n\nif __name__ == '__main__':\n"
    "    main()\n",
    "app/util.py": "import os\n\ndef helper(x):\n    return os.path.join(str(x), 'y')\n",
}


def run(*args: str, cwd: Path | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
        timeout=120,
        **kwargs,
    )


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "clean", CLEAN)


def test_index_json_summary_and_exit_code(clean: Path) -> None:
    done = run("index", str(clean), "--json", "--languages", "python")
    assert (done.returncode, done.stderr) == (0, "")
    summary = json.loads(done.stdout)
    assert summary["root"] == str(clean.resolve())
    assert summary["files"] == 3
    assert summary["statuses"] == {"indexed": 3}
    assert summary["languages"] == {"python": {"indexed": 3}}
    assert (summary["definitions"], summary["calls"], summary["imports"]) == (2, 4, 2)
    assert summary["error"] is None and summary["problems"] == [] and summary["excluded"] == 0
    assert isinstance(summary["seconds"], float | int)
    # the store is the project's own, in a folder that ignores itself
    assert (clean / ".projectgraph" / "graph.db").is_file()
    assert (clean / ".projectgraph" / ".gitignore").read_text(encoding="utf-8") == "*\n"

    again = json.loads(run("index", str(clean), "--json", "--languages", "python").stdout)
    assert again["statuses"] == {"cached": 3}
    assert again["definitions"] == summary["definitions"]


def test_index_text_summary(clean: Path) -> None:
    done = run("index", "--languages", "python", "--workers", "1", cwd=clean)  # the working directory
    assert (done.returncode, done.stderr) == (0, "")
    lines = re.sub(r"in \d+\.\d\d s", "in T s", done.stdout).splitlines()
    assert lines[:3] == [
        "3 files (3 indexed) in T s",
        "  python: 3 indexed",
        "2 definitions, 4 calls, 2 imports",
    ]


def test_index_reports_failures_with_exit_code_4(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            **CLEAN,
            "blob.py": bytes(64),
            "big.py": "x = 1\n" * 50,
            "broken.py": "def f(:\n    pass\n",
        },
    )
    done = run("index", "--project", str(root), "--json", "--languages", "python", "--max-file-bytes", "200")
    assert done.returncode == 4, done.stderr
    summary = json.loads(done.stdout)
    assert summary["statuses"] == {"failed": 2, "indexed": 4}
    assert summary["problems"] == [
        {
            "path": "big.py",
            "status": "failed",
            "reason": "file of 300 bytes is larger than the limit of 200 bytes",
        },
        {"path": "blob.py", "status": "failed", "reason": "binary content (NUL bytes)"},
        {
            "path": "broken.py",
            "status": "indexed",
            "reason": "1 syntax error(s), indexed what the parser recovered",
        },
    ]
    text = run("index", str(root), "--languages", "python", "--max-file-bytes", "200")
    assert text.returncode == 4
    assert "  failed: blob.py: binary content (NUL bytes)" in text.stderr.splitlines()
    # the same project within the limits: only the binary fails
    assert run("index", str(root), "--languages", "python").returncode == 4
    (root / "blob.py").unlink()
    assert run("index", str(root), "--languages", "python").returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "-1"], "workers cannot be negative (got -1)"),
        (["--max-file-bytes", "-1"], "max_file_bytes cannot be negative (got -1)"),
        (["--languages", "python,cobol"], "unknown language(s): cobol"),
    ],
)
def test_index_usage_errors_exit_2(clean: Path, args: list[str], message: str) -> None:
    done = run("index", str(clean), *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"projectgraph: {message}")


def test_index_of_a_missing_folder_or_a_bad_configuration_exits_2(tmp_path: Path) -> None:
    done = run("index", str(tmp_path / "nowhere"))
    assert (done.returncode, done.stdout) == (2, "")
    assert "not a folder" in done.stderr
    root = write_tree(tmp_path / "p", {"a.py": "", "projectgraph.toml": "ignore = 3\n"})
    done = run("index", str(root))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"projectgraph: {root / 'projectgraph.toml'}: 'ignore' must be a list of strings\n"


def test_index_rebuilds_a_corrupt_store_and_says_why(clean: Path) -> None:
    (clean / ".projectgraph").mkdir()
    (clean / ".projectgraph" / "graph.db").write_bytes(b"this is not a database" * 100)
    done = run("index", str(clean), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files"] > 0
    assert done.stderr.splitlines() == [
        f"projectgraph: the index {clean.resolve() / '.projectgraph' / 'graph.db'} is damaged (file is not a "
        "database); rebuilding the index from the sources"
    ]


def test_index_help() -> None:
    done = run("index", "--help")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: projectgraph index [OPTIONS] [PATH]\n")
    for option in ("--project", "--languages", "--workers", "--max-file-bytes", "--json", "--help"):
        assert option in done.stdout
    assert "Index the project at PATH" in done.stdout
    listed = run("--help")
    assert listed.returncode == 0
    assert re.search(r"^\s+index\s+Index the project", listed.stdout, re.MULTILINE)


def test_index_shows_progress_on_a_terminal(clean: Path) -> None:
    """On a terminal, stderr shows a progress bar of files done / total; stdout keeps the summary."""
    main, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [str(CLI), "index", str(clean), "--languages", "python", "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    assert process.stdout is not None
    stdout = process.stdout.read().decode()
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert stdout.startswith("3 files (3 indexed)")
    assert "indexing" in shown.decode(errors="replace")
    assert "3/3" in shown.decode(errors="replace")


def test_ctrl_c_stops_the_run_and_reports_the_partial_result(tmp_path: Path) -> None:
    """Ctrl-C on a terminal interrupts the whole process group: the workers and the command."""
    body = "".join(f"def f{i}(x):\n    return g{i}(x) + h(x, {i})\n\n" for i in range(800))
    total = 40
    root = write_tree(tmp_path / "p", {f"m{n:03}.py": body for n in range(total)})
    main, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    command = [str(CLI), "index", str(root), "--languages", "python", "--workers", "2", "--json"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=follower, env=env, start_new_session=True
    )
    os.close(follower)
    shown = b""
    interrupted = False
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
        counts = re.findall(rb"(\d+)/%d" % total, shown)
        if not interrupted and counts and 0 < int(counts[-1]) < total:
            os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
            interrupted = True
    os.close(main)
    try:  # a run that hangs after the interrupt fails here, it does not stall the suite
        out, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"the interrupted run did not exit within 120 s:\n{shown.decode(errors='replace')}")
    stdout = out.decode()
    code = process.returncode
    if not interrupted:
        pytest.skip("the run ended before the progress bar showed a partial count")
    assert code == 4, shown.decode(errors="replace")
    summary = json.loads(stdout)
    assert summary["error"] == "cancelled (interrupted)"
    assert summary["files"] == total
    assert summary["statuses"]["missing"] >= 1
    assert b"Traceback" not in shown


def test_index_where_the_store_cannot_be_made_exits_2_with_the_reason(clean: Path) -> None:
    (clean / ".projectgraph").write_text("a file where the store folder goes\n", encoding="utf-8")
    done = run("index", str(clean))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"projectgraph: cannot index {clean.resolve()}: ")
    assert "Traceback" not in done.stderr


def test_an_unchanged_project_keeps_its_stored_graph(clean: Path) -> None:
    """A second ``index`` of an unchanged tree reads every file but neither links nor writes a graph
    (no new run); it prints the stored graph's counts. An edit links and writes again."""
    first = run("index", str(clean), "--json", "--languages", "python")
    database = clean / ".projectgraph" / "graph.db"

    def runs() -> int:
        import sqlite3

        connection = sqlite3.connect(database)
        try:
            return int(connection.execute("SELECT count(*) FROM runs").fetchone()[0])
        finally:
            connection.close()

    before = runs()
    again = run("index", str(clean), "--json", "--languages", "python")
    assert (again.returncode, again.stderr) == (0, "")
    assert json.loads(again.stdout)["graph"] == json.loads(first.stdout)["graph"]
    assert json.loads(again.stdout)["statuses"] == {"cached": 3}
    assert runs() == before
    (clean / "app" / "util.py").write_text("def helper(x):\n    return x\n\ndef other():\n    pass\n")
    edited = run("index", str(clean), "--json", "--languages", "python")
    assert edited.returncode == 0
    assert runs() == before + 1
    assert json.loads(edited.stdout)["graph"] != json.loads(first.stdout)["graph"]  # (os.path.join went)
