"""Reach keeps the last graph's searches (issue 25: a server answers many reach questions of one
stored graph): a kept search must answer exactly as a fresh one, and a new graph (after a sync)
must never be answered from the old one's search."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from conftest import write_tree
from projectgraph.graph import Graph
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach

APP = {
    "main.py": "from app.jobs import run\n\nif __name__ == '__main__':\n    run()\n",
    "app/jobs.py": (
        "import pickle\nimport subprocess\n\n"
        "def run():\n    return load(b'')\n\n"
        "def load(data):\n    return pickle.loads(data)\n\n"
        "def shell(command):\n    return subprocess.run(command)\n"
    ),
}
TARGETS = (Target.by_key("pickle//loads"), Target.by_key("subprocess//run"), Target.by_key("os//system"))


def answers(graph: Graph, query: Query) -> list[dict[str, Any]]:
    """The results without the search's duration (the only field a kept search changes)."""
    out = []
    for result in reach(graph, query):
        data = result.to_json()
        data["searched"] = {k: v for k, v in data["searched"].items() if k != "seconds"}
        out.append(data)
    return out


def fresh(graph: Graph) -> Graph:
    """An equal graph that is another object: nothing kept applies to it."""
    return dataclasses.replace(graph)


def test_a_kept_search_answers_as_a_fresh_one(tmp_path: Path) -> None:
    graph = build_graph(write_tree(tmp_path / "p", APP)).graph
    from_roots = Query(TARGETS)
    from_shell = Query(TARGETS, (Source.by_key("app/jobs.py//shell"),), SOURCES_ONLY)
    first = answers(graph, from_roots)
    assert [r["status"] == "found" for r in first] == [True, False, False]
    # another query between: each kind of query keeps its own search
    shell = answers(graph, from_shell)
    assert [r["status"] == "found" for r in shell] == [False, True, False]
    assert answers(graph, from_roots) == first == answers(fresh(graph), from_roots)
    assert answers(graph, from_shell) == shell == answers(fresh(graph), from_shell)
    # a depth cap is part of the search: not answered from the uncapped one
    capped = answers(graph, Query(TARGETS, max_depth=1))
    assert capped[0]["status"] == "uncertain"
    assert capped == answers(fresh(graph), Query(TARGETS, max_depth=1))


def test_a_new_graph_is_never_answered_from_the_old_search(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", APP)
    before = build_graph(root).graph
    assert [r["status"] == "found" for r in answers(before, Query(TARGETS))] == [True, False, False]
    write_tree(
        root,
        {"main.py": "from app.jobs import run, shell\n\nif __name__ == '__main__':\n    shell(['ls'])\n"},
    )
    after = build_graph(root).graph
    assert [r["status"] == "found" for r in answers(after, Query(TARGETS))] == [False, True, False]
    assert [r["status"] == "found" for r in answers(before, Query(TARGETS))] == [True, False, False]
