"""Protocol v1 with real provider processes: each failure and limit of the seed, each its own test."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from projectgraph.providers import build as builds
from projectgraph.providers.build import BuildRefused
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SqliteStore

PROVIDERS = Path(__file__).parent / "fixtures" / "providers"
MANIFEST = """kind = "provider"
name = "{name}"
version = "0.1.0"
protocol = "{protocol}"
languages = ["python"]
network = {network}
"""


def make_provider(
    root: Path,
    script: str,
    *args: str,
    name: str = "mine",
    manifest: bool = True,
    protocol: str = "1",
    network: bool = False,
) -> Path:
    """A project with one Python file and provider ``name`` registered in its projectgraph.toml."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    tools = root / "tools"
    tools.mkdir(exist_ok=True)
    shutil.copy(PROVIDERS / script, tools / script)
    command = json.dumps([sys.executable, f"tools/{script}", *args])
    (root / "projectgraph.toml").write_text(f"[providers.{name}]\ncommand = {command}\n", encoding="utf-8")
    if manifest:
        text = MANIFEST.format(name=name, protocol=protocol, network=str(network).lower())
        (tools / "projectgraph-plugin.toml").write_text(text, encoding="utf-8")
    return root


def run_build(
    root: Path, name: str = "mine", **kwargs: object
) -> tuple[builds.BuildOutcome, list[dict[str, object]]]:
    env = dict(os.environ)
    env.update(kwargs.pop("env", {}))  # type: ignore[call-overload]
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    try:
        outcome = builds.build(root, name, store.connection, environ=env, **kwargs)  # type: ignore[arg-type]
        return outcome, sql.provider_runs(store.connection)
    finally:
        store.close()


def stored(root: Path) -> tuple[list[dict[str, object]], int, int]:
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    try:
        runs = sql.provider_runs(store.connection)
        nodes = store.connection.execute("SELECT count(*) FROM provider_nodes").fetchone()[0]
        edges = store.connection.execute("SELECT count(*) FROM provider_edges").fetchone()[0]
        return runs, nodes, edges
    finally:
        store.close()


def assert_failed_run(root: Path, outcome: builds.BuildOutcome, words: str) -> None:
    """A failure after the start: one failed run row, one provider_unavailable limitation, no rows."""
    assert outcome.status == "failed"
    assert [lim.code for lim in outcome.limitations] == ["provider_unavailable"]
    assert words in outcome.limitations[0].detail
    runs, nodes, edges = stored(root)
    assert [(r["status"], [lim["code"] for lim in r["limitations"]]) for r in runs] == [
        ("failed", ["provider_unavailable"])
    ]
    assert (nodes, edges) == (0, 0)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie waiting for its reaper is gone too
        return stat.read().split(") ")[1][0] != "Z"


# ---- the example provider ---------------------------------------------------------------------


def test_the_example_provider_builds_and_its_rows_are_stored(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    (root / "pkg").mkdir()
    (root / "pkg" / "b.py").write_text("def g():\n    pass\n\n\ndef h():\n    pass\n", encoding="utf-8")
    outcome, runs = run_build(root, allow_unverified=True)
    assert outcome.status == "ok"
    assert outcome.progress_lines == 3  # one per file: a.py, pkg/b.py, tools/defs_provider.py
    assert outcome.graph is not None
    assert [
        (n.kind, n.qualified_name, n.line_start)
        for n in outcome.graph.nodes
        if n.path != "tools/defs_provider.py"
    ] == [
        ("file", "a.py", None),
        ("function", "a.py::f", 1),
        ("file", "pkg/b.py", None),
        ("function", "pkg/b.py::g", 1),
        ("function", "pkg/b.py::h", 5),
    ]
    assert outcome.graph.files_parsed == 3
    assert [lim.code for lim in outcome.limitations] == ["files_parsed_inferred"]
    assert [r["status"] for r in runs] == ["ok"]
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    try:
        nodes, edges = sql.provider_rows(store.connection, outcome.run)
    finally:
        store.close()
    assert ("function", "h", "pkg/b.py::h", "pkg/b.py", 5, 5, "", "python", "") in nodes
    assert ("contains", "pkg/b.py", "pkg/b.py::h", 1.0) in edges


def test_the_request_environment_names_the_root_and_the_network_declaration(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "environment", network=True)
    (root / ".projectgraph").mkdir()
    (root / ".projectgraph" / "conform-mine.json").write_text('{"passed": true}', encoding="utf-8")
    outcome, _runs = run_build(root)
    assert outcome.status == "ok"
    detail = next(lim.detail for lim in outcome.limitations if lim.code == "environment")
    assert json.loads(detail) == {"PROJECTGRAPH_REPO_ROOT": str(root.resolve()), "PROJECTGRAPH_NETWORK": "1"}


# ---- failures after the start: provider_unavailable, a failed run row, nothing written ----------


def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    root = make_provider(tmp_path / "p", "behaving.py", "sleep", str(pid_file))
    outcome, _runs = run_build(root, allow_unverified=True, env={"PROJECTGRAPH_PLUGIN_TIMEOUT": "2"})
    assert_failed_run(root, outcome, "timeout: no answer within 2 s")
    grandchild = int(pid_file.read_text())
    for _ in range(50):
        if not alive(grandchild):
            break
        time.sleep(0.1)
    assert not alive(grandchild)


def test_a_line_that_is_not_json(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "garbage")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert_failed_run(root, outcome, "a line that is not JSON: 'this is not json'")


def test_an_oversize_output_is_cut_while_reading(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "oversize")
    outcome, _runs = run_build(root, allow_unverified=True, max_output=200_000)
    assert_failed_run(root, outcome, "oversize output: more than 200000 bytes on stdout")


def test_an_endless_line_is_never_buffered_whole(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "endless")
    outcome, _runs = run_build(root, allow_unverified=True, max_output=1_000_000)
    assert_failed_run(root, outcome, "oversize output: more than 1000000 bytes on stdout")


def test_an_ok_false_answer(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "not-ok")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert_failed_run(root, outcome, "ok:false answer: engine_crashed: no memory")


def test_a_non_zero_exit_after_an_answer(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "exit")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert_failed_run(root, outcome, "exit status 3 after its answer")


def test_a_non_zero_exit_with_no_answer(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "exit-silent")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert_failed_run(root, outcome, "exit status 7 with no answer")


def test_stdout_closed_while_the_process_runs_is_killed_after_the_grace(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "eof")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert_failed_run(root, outcome, "stdout closed while the process kept running (killed after 2 s)")


def test_a_process_that_keeps_running_after_its_answer_is_killed(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "linger")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert_failed_run(root, outcome, "kept running after its answer (killed after 2 s)")


# ---- validation of the rows --------------------------------------------------------------------


def test_rows_are_validated_and_each_rule_counted(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "rows")
    outcome, _runs = run_build(root, allow_unverified=True)
    assert outcome.status == "ok" and outcome.graph is not None
    graph = outcome.graph
    assert outcome.progress_lines == 2
    assert [(n.kind, n.qualified_name, n.line_start, n.line_end) for n in graph.nodes] == [
        ("file", "a.py", None, None),
        ("method", "a.py::C.m", 4, 6),  # "lines": [a, b]
        ("function", "a.py::f", 1, 2),
    ]
    assert [(e.kind, e.source_qn, e.target_qn, e.confidence) for e in graph.edges] == [
        ("calls", "a.py::C.m", "a.py::f", 0.5),  # -1 -> 0.5
        ("calls", "a.py::C.m", "print", 0.25),
        ("calls", "a.py::f", "a.py::C.m", 0.5),  # 7 -> 0.5
        ("contains", "a.py", "a.py::f", 1.0),
    ]
    assert [lim.to_json() for lim in outcome.limitations] == [
        {"code": "partial", "detail": ""},
        {"code": "slow", "detail": "big"},
        {"code": "unknown_kind", "detail": "2 rows of an unknown kind dropped (1 nodes, 1 edges)"},
        {"code": "bad_path", "detail": "5 nodes with a bad path dropped, and 2 edges to them"},
        {"code": "files_parsed_inferred", "detail": "files_parsed not given: 1 file nodes counted"},
    ]
    assert (graph.files_seen, graph.files_parsed) == (3, 1)
    runs, nodes, edges = stored(root)
    assert [r["status"] for r in runs] == ["ok"] and (nodes, edges) == (3, 4)
    assert runs[0]["files_seen"] == 3 and runs[0]["files_parsed"] == 1


def test_a_valid_answer_with_no_files_is_an_empty_build(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "empty")
    outcome, runs = run_build(root, allow_unverified=True)
    assert outcome.status == "empty_build"
    assert [lim.code for lim in outcome.limitations] == ["empty_build"]
    assert [(r["status"], r["files_parsed"]) for r in runs] == [("empty_build", 0)]


# ---- refusals before the start: no run row -----------------------------------------------------


def refused(root: Path, code: str, **kwargs: object) -> str:
    with pytest.raises(BuildRefused) as caught:
        run_build(root, **kwargs)
    assert caught.value.code == code
    runs, nodes, edges = stored(root)
    assert (runs, nodes, edges) == ([], 0, 0)
    return caught.value.message


def test_an_unverified_provider_is_refused_without_the_waiver(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py", manifest=False)
    message = refused(root, "unverified")
    assert "pass --allow-unverified (or PROJECTGRAPH_ALLOW_UNVERIFIED=1)" in message
    outcome, _runs = run_build(root, env={"PROJECTGRAPH_ALLOW_UNVERIFIED": "1"})
    assert outcome.status == "ok"


def test_a_manifest_of_another_protocol_is_refused_even_with_the_waiver(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py", protocol="2")
    message = refused(root, "bad_manifest", allow_unverified=True)
    assert "protocol '2' is not supported" in message


def test_a_missing_binary_is_refused(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    (root / "projectgraph.toml").write_text(
        '[providers.mine]\ncommand = "tools/nothing-here"\n', encoding="utf-8"
    )
    message = refused(root, "missing_binary", allow_unverified=True)
    assert "tools/nothing-here is not an executable file" in message


@pytest.mark.parametrize("value", ["0", "abc", "1.5", ""])
def test_a_bad_plugin_timeout_is_refused_never_defaulted(tmp_path: Path, value: str) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    message = refused(root, "bad_timeout", allow_unverified=True, env={"PROJECTGRAPH_PLUGIN_TIMEOUT": value})
    assert "PROJECTGRAPH_PLUGIN_TIMEOUT" in message


def test_an_unavailable_engine_is_refused_with_its_install_hint(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "unavailable")
    message = refused(root, "provider_unavailable", allow_unverified=True)
    assert message == "provider 'mine' is unavailable: the engine is not installed: pip install some-engine"


def test_the_capabilities_probe_has_its_own_deadline(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "caps-slow")
    message = refused(
        root, "provider_unavailable", allow_unverified=True, env={"PROJECTGRAPH_PLUGIN_CAPS_TIMEOUT": "1"}
    )
    assert "capabilities: timeout: no answer within 1 s" in message


def test_the_capabilities_deadline_is_never_longer_than_the_build_timeout(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "caps-slow")
    env = {"PROJECTGRAPH_PLUGIN_CAPS_TIMEOUT": "30", "PROJECTGRAPH_PLUGIN_TIMEOUT": "1"}
    message = refused(root, "provider_unavailable", allow_unverified=True, env=env)
    assert "capabilities: timeout: no answer within 1 s" in message
