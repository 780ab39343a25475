"""``projectgraph export``: DOT rendered by Debian's graphviz (``dot -Tsvg``), GraphML read by
networkx, Mermaid and JSON, of a real fixture project's stored graph, whole and around a symbol."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from projectgraph.cli import main
from projectgraph.project import Project


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export") / "calls"
    shutil.copytree(FIXTURES / "queries" / "calls", root, ignore=shutil.ignore_patterns("README.md"))
    with Project(root) as project:
        project.refresh()
    return root


def export(root: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["export", "--project", str(root), *args])
    assert result.exit_code == 0, result.output
    return result.output


def stored(root: Path) -> dict[str, object]:
    with Project(root) as project:
        return project.graph().to_json()  # type: ignore[no-any-return]


def test_the_dot_renders_with_graphviz(root: Path, tmp_path: Path) -> None:
    dot = shutil.which("dot")
    if dot is None:
        pytest.fail("graphviz's dot is not installed (.ci/run installs Debian's graphviz)")
    text = export(root, "--format", "dot", "--around", "sum_prices", "--depth", "2")
    svg = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, timeout=60)
    assert svg.returncode == 0, svg.stderr
    assert svg.stdout.lstrip().startswith("<?xml") and "<svg" in svg.stdout
    for name in ("sum_prices", "total", "checkout"):  # the node labels are drawn
        assert f">{name}</text>" in svg.stdout
    assert 'kind="direct"' in text and 'confidence="high"' in text


def test_the_graphml_reads_with_networkx(root: Path) -> None:
    import networkx

    text = export(root, "--format", "graphml")
    graph = networkx.parse_graphml(text)
    data = json.loads(export(root, "--format", "json"))
    assert sorted(graph.nodes) == [n["key"] for n in data["nodes"]]
    assert graph.number_of_edges() == len(data["edges"])
    edge = data["edges"][0]
    attributes = graph.edges[edge["caller"], edge["callee"]]
    assert attributes["relation"] == edge["relation"] and attributes["kind"] == edge["kind"]
    assert attributes["confidence"] == edge["confidence"] and attributes["line"] == edge["line"]
    assert graph.nodes[data["nodes"][0]["key"]]["kind"] == data["nodes"][0]["kind"]


def test_the_whole_graph_and_the_part_around_a_symbol(root: Path) -> None:
    whole = json.loads(export(root, "--format", "json"))
    graph = stored(root)
    keys = sorted(n["key"] for n in graph["nodes"])  # type: ignore[attr-defined, index]
    assert [n["key"] for n in whole["nodes"]] == keys
    pairs = {(e["caller"], e["callee"], e["relation"], e["kind"]) for e in graph["edges"]}  # type: ignore[attr-defined, index]
    assert {(e["caller"], e["callee"], e["relation"], e["kind"]) for e in whole["edges"]} == pairs
    around = json.loads(export(root, "--format", "json", "--around", "sum_prices", "--depth", "1"))
    near = {n["key"] for n in around["nodes"]}
    center = "app/models.py//sum_prices"
    neighbours = {e["caller"] for e in whole["edges"] if e["callee"] == center}
    neighbours |= {e["callee"] for e in whole["edges"] if e["caller"] == center}
    assert near == neighbours | {center}
    assert all(e["caller"] in near and e["callee"] in near for e in around["edges"])
    assert export(root, "--format", "json") == export(root, "--format", "json")  # the same bytes


def test_mermaid_and_bad_input(root: Path) -> None:
    text = export(root, "--format", "mermaid", "--around", "sum_prices", "--depth", "1")
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    assert any('["app/models.py//sum_prices"]' in line for line in lines)
    assert any("-->|" in line and "calls direct high" in line for line in lines)
    bad = CliRunner().invoke(main, ["export", "--around", "no_such_thing", "--project", str(root)])
    assert bad.exit_code == 2 and "no symbol named 'no_such_thing'" in bad.output
    bad = CliRunner().invoke(main, ["export", "--format", "png", "--project", str(root)])
    assert bad.exit_code == 2
