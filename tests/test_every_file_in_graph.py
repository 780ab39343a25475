"""Every file the index stage indexed is in the graph, with every definition it holds.

A file that leaves the graph silently is the worst bug the tool can have: reach answers not-found
and callers answer "no caller" for code that is right there. Issue 24, finding 1: a Python file
whose path has a part that is not an identifier (``run-server.py``, ``my-tools/x.py``, ``2fa.py``,
a space) was dropped while its status said ``indexed``. Such a file is a script: no import can name
it, but ``python run-server.py`` runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write_tree
from projectgraph.graph import UNPLACED_FILE
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, reach, targets_by_key

CLI = Path(sys.executable).with_name("projectgraph")

SCRIPT = 'import os\ndef handler():\n    os.system(input())\nif __name__ == "__main__":\n    handler()\n'
UTIL = 'import os\ndef unused():\n    os.system("true")\n'


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [str(CLI), *args, "--project", str(root)], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize(
    "script", ["run-server.py", "my-tools/x.py", "2fa.py", "run server.py", "bin/é-tool.py"]
)
def test_a_script_no_import_can_name_is_in_the_graph_and_reach_finds_its_call(
    tmp_path: Path, script: str
) -> None:
    root = write_tree(tmp_path / "p", {script: SCRIPT, "util.py": UTIL})
    done = cli(root, "reach", "os//system", "--json")
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["status"] == "found", result
    assert result["path"][0]["key"] == script
    graph = json.loads(cli(root, "graph", "--json").stdout)
    keys = {node["key"] for node in graph["nodes"]}
    assert {script, f"{script}//handler"} <= keys
    assert {"key": script, "kind": "main", "rule": "python-main-guard"} in graph["roots"]
    assert graph["stats"]["roots"] == len(graph["roots"])


def test_two_scripts_with_one_stem_in_two_folders_stay_apart(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "tools-a/run.py": "def a():\n    pass\na()\n",
            "tools-b/run.py": "def b():\n    pass\nb()\n",
        },
    )
    graph = build_graph(root).graph
    edges = {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}
    assert ("tools-a/run.py", "tools-a/run.py//a") in edges
    assert ("tools-b/run.py", "tools-b/run.py//b") in edges
    assert ("tools-a/run.py", "tools-b/run.py//b") not in edges


def test_a_file_no_linker_placed_makes_every_search_uncertain(tmp_path: Path) -> None:
    """The safety net behind the linkers: if one still loses a file, the graph says so."""
    from projectgraph.graph import placing_every_file

    root = write_tree(tmp_path / "p", {"main.py": 'import lib\nif __name__ == "__main__":\n    lib.f()\n'})
    write_tree(root, {"lib.py": "def f():\n    pass\ndef g():\n    import os\n    os.system('x')\n"})
    graph = build_graph(root).graph
    query = Query(tuple(targets_by_key(["os//system"])))
    assert reach(graph, query)[0].status == "not-found"
    # as if a linker had lost lib.py: its nodes and edges gone, its status still indexed
    lost = replace(
        graph,
        nodes=tuple(n for n in graph.nodes if n.path != "lib.py"),
        edges=tuple(e for e in graph.edges if not e.caller.startswith("lib.py") and e.callee != "lib.py"),
    )
    placed = placing_every_file(lost)
    assert "lib.py" in placed.node_by_key
    assert [f.caller for f in placed.dynamic if f.kind == UNPLACED_FILE] == ["lib.py"]
    result = reach(placed, query)[0]
    assert result.status == "uncertain"
    assert any("lib.py" in u.reason for u in result.uncertainties)
    assert placing_every_file(graph) is graph  # nothing lost: the same graph


# ---- the property: for random trees, files in the graph == files indexed ------------------------

_PART = st.text(alphabet=st.sampled_from("abcxyz019-_ é"), min_size=1, max_size=6).filter(
    lambda p: p.strip() == p and p not in (".", "..")
)
_SOURCES = {
    ".py": "import os\ndef f():\n    os.getcwd()\nclass K:\n    def m(self):\n        f()\nf()\n",
    ".js": "export function f() { return 1 }\nclass K { m() { f() } }\nf()\n",
    ".ts": "export function g(): number { return 1 }\ng()\n",
    ".go": "package main\nfunc main() { helper() }\nfunc helper() {}\n",
    ".rs": "fn main() { h() }\nfn h() {}\n",
    ".java": "class A { void m() { n(); } void n() {} }\n",
    ".rb": "def f\n  1\nend\n",
    ".c": "int helper(void){return 0;}\nint main(void){return helper();}\n",
}


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    files: dict[str, str] = {}
    for _ in range(draw(st.integers(1, 8))):
        folders = draw(st.lists(_PART, max_size=2))
        stem = draw(_PART)
        ext = draw(st.sampled_from(sorted(_SOURCES)))
        if stem == "__init__":
            continue
        files["/".join([*folders, stem + ext])] = _SOURCES[ext]
    return files


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=trees())
def test_every_indexed_file_and_definition_is_in_the_graph(
    tmp_path_factory: pytest.TempPathFactory, tree: dict[str, str]
) -> None:
    root = write_tree(tmp_path_factory.mktemp("tree"), tree)
    run = build_graph(root)
    keys = run.graph.node_by_key
    indexed = {s.path for s in run.index.statuses if s.status in ("indexed", "cached")}
    assert indexed == set(tree), (sorted(indexed), sorted(tree))
    in_graph = {f.path for f in run.graph.files if f.status == "indexed"}
    assert in_graph == indexed
    assert indexed <= set(keys)
    for index in run.index.indexes:
        for definition in index.definitions:
            assert f"{index.path}//{definition.qualname.replace('.', '//')}" in keys, (index.path, definition)
    assert not [f for f in run.graph.dynamic if f.kind == UNPLACED_FILE]
    assert run.graph.stats["files"] == len(run.graph.files)
    assert run.graph.stats["nodes"] == len(run.graph.nodes)
    assert run.graph.stats["roots"] == len(run.graph.roots)
