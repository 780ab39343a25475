"""The Python gold fixtures: the call edges the linker finds against the edges the programs make.

Each folder of ``tests/fixtures/python/`` is a small runnable program (``python main.py`` in the
folder, no third-party package) with a one-line ``README.md`` and ``expected.json``:

- ``calls``: every call edge that truly happens, as ``[caller key, callee key]`` (keys as DESIGN.md
  writes them). A function that never runs is listed with the edges it makes when it runs. A
  constructor call ``Foo()`` is an edge to the class and one to the ``__init__`` its MRO gives.
  Calls inside an anonymous lambda belong to the enclosing definition (a named module- or
  class-level lambda is a definition). Calls to builtins (``print``, ``len``, methods of ``str``,
  ``list`` and ``dict``) are left out, and so are edges to ``builtins//...`` in the graph: the
  scoring never counts them. Calls that external code makes on the program's behalf are left out.
- ``imports`` (optional): module top levels that an import runs, as ``[importer, module]``; only
  their recall is checked, since the graph has an import edge for every import statement.
- ``reach`` (optional): ``{"target", "status"}`` answers of reach from the roots.

A gold edge the graph misses is a failure unless ``KNOWN_GAPS`` lists it with the reason (the
fixture's README says it too); a graph edge the gold lacks is a failure unless ``KNOWN_EXTRAS``
lists it. Both lists are strict: an entry the graph no longer needs fails until it is removed.
``python bench/edge_scores.py`` prints precision and recall per fixture and in total.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach

FIXTURES = Path(__file__).parent / "fixtures" / "python"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())

Pair = tuple[str, str]

_SUBSCRIPT = "a call of a subscript (table[key](...)) has no callee name: a computed-name site"
_DYNAMIC = "dynamic by design: the site is an uncertainty, and reach answers uncertain"

KNOWN_GAPS: dict[str, dict[Pair, str]] = {
    "args_kwargs_functions": {
        ("main.py//apply", "main.py//negate"): (
            "the argument is on a later line of a multi-line call: the index gives no argument "
            "positions, so only references on the call's first line bind parameters"
        ),
    },
    "decorators": {
        ("main.py//main", "main.py//_show_int"): (
            "functools.singledispatch picks the implementation at run time; the module refers to "
            "the function @show.register gets, so reach finds it"
        ),
    },
    "dicts_lists_functions": {
        ("main.py//dispatch", "handlers.py//on_start"): _SUBSCRIPT,
        ("main.py//dispatch", "handlers.py//on_stop"): _SUBSCRIPT,
        ("main.py//main", "main.py//upper"): _SUBSCRIPT,
    },
    "decorator_factories": {("web.py//App//dispatch", "main.py//index"): _SUBSCRIPT},
    "dynamic_features": {
        ("main.py//main", "main.py//evaluated"): _DYNAMIC,
        ("main.py//main", "main.py//executed"): _DYNAMIC,
        ("main.py//run_action", "main.py//Actions//do_save"): _DYNAMIC,
        ("main.py//run_action", "main.py//Actions//do_load"): _DYNAMIC,
        ("main.py//load_plugin", "plugins/csv_plugin.py//handle"): _DYNAMIC,
        ("main.py//load_plugin", "plugins/json_plugin.py//handle"): _DYNAMIC,
        ("main.py//load_hidden", "hidden.py//secret"): _DYNAMIC,
    },
}

KNOWN_EXTRAS: dict[str, dict[Pair, str]] = {
    "inheritance_mro": {
        ("base.py//Base//run", "main.py//Right//greet"): (
            "class hierarchy analysis: self.greet() in Base may run the override of each subclass; "
            "no Right is ever made, which the linker does not try to prove"
        ),
    },
}


@cache
def case_graph(case: str) -> Graph:
    """The graph of one fixture (built once per test run)."""
    return build_graph(FIXTURES / case, IndexOptions(workers=1)).graph


@cache
def expected(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))
    return data


def expected_calls(case: str) -> set[Pair]:
    return {(caller, callee) for caller, callee in expected(case)["calls"]}


def call_edges(graph: Graph) -> set[Pair]:
    """The graph's call edges as (caller, callee) pairs, builtins left out."""
    return {
        (e.caller, e.callee)
        for e in graph.edges
        if e.relation == "calls" and not e.callee.startswith("builtins//")
    }


def scores(case: str) -> tuple[set[Pair], set[Pair], set[Pair]]:
    """(true positives, false positives, false negatives) of one fixture, edge level."""
    got = call_edges(case_graph(case))
    want = expected_calls(case)
    return got & want, got - want, want - got


def precision_recall(tp: int, fp: int, fn: int) -> tuple[float, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


def test_every_fixture_is_a_program_with_a_readme_and_gold() -> None:
    assert len(CASES) >= 16
    for case in CASES:
        folder = FIXTURES / case
        assert (folder / "main.py").is_file(), case
        readme = (folder / "README.md").read_text(encoding="utf-8").strip()
        assert readme and "\n" not in readme, f"{case}: README.md must be one line"
        data = expected(case)
        assert set(data) <= {"calls", "imports", "reach"}, case
        assert data["calls"], case
        pairs = [tuple(pair) for pair in data["calls"]]
        assert len(pairs) == len(set(pairs)), f"{case}: an edge is listed twice"
        nodes = case_graph(case).node_by_key
        for caller, callee in pairs + [tuple(p) for p in data.get("imports", ())]:
            assert caller in nodes, f"{case}: the gold names {caller!r}, which no node has"
            assert not callee.startswith("builtins//"), f"{case}: builtins are left out of the gold"
            if (folder / callee.split("//")[0]).is_file():  # first party: a file of the fixture
                assert callee in nodes, f"{case}: the gold names {callee!r}, which no node has"
    for table in (KNOWN_GAPS, KNOWN_EXTRAS):
        assert set(table) <= set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_recall(case: str) -> None:
    """Every gold edge is in the graph, except the known gaps, which must still be missing."""
    _tp, _fp, missing = scores(case)
    gaps = KNOWN_GAPS.get(case, {})
    assert missing - set(gaps) == set(), f"{case}: edges the graph misses"
    assert set(gaps) - missing == set(), f"{case}: known gaps the graph now has: remove them from KNOWN_GAPS"
    assert set(gaps) <= expected_calls(case)


@pytest.mark.parametrize("case", CASES)
def test_precision(case: str) -> None:
    """Every call edge of the graph is in the gold, except the known extras."""
    _tp, extra, _fn = scores(case)
    known = KNOWN_EXTRAS.get(case, {})
    assert extra - set(known) == set(), f"{case}: edges the program never makes"
    assert set(known) - extra == set(), f"{case}: known extras the graph no longer has: remove them"


def test_precision_and_recall_overall() -> None:
    tp = fp = fn = 0
    for case in CASES:
        hits, extra, missing = scores(case)
        tp, fp, fn = tp + len(hits), fp + len(extra), fn + len(missing)
    precision, recall = precision_recall(tp, fp, fn)
    assert precision >= 0.98, (precision, recall)
    assert recall >= 0.9, (precision, recall)


@pytest.mark.parametrize("case", [c for c in CASES if "imports" in expected(c)])
def test_import_edges(case: str) -> None:
    graph = case_graph(case)
    imports = {(e.caller, e.callee) for e in graph.edges if e.relation == "imports"}
    want = {(importer, module) for importer, module in expected(case)["imports"]}
    assert want - imports == set()


@pytest.mark.parametrize("case", [c for c in CASES if "reach" in expected(c)])
def test_reach_expectations(case: str) -> None:
    graph = case_graph(case)
    wanted = expected(case)["reach"]
    results = reach(graph, Query(targets=tuple(Target.by_key(w["target"]) for w in wanted)))
    got = {r.target: r.status for r in results}
    assert got == {w["target"]: w["status"] for w in wanted}
