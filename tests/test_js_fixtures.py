"""The JavaScript and TypeScript gold fixtures: the call edges the linker finds against the edges
the programs make.

Each folder of ``tests/fixtures/javascript/`` is a small program that runs (``node main.js`` in the
folder, Node built-ins only); each folder of ``tests/fixtures/typescript/`` is a program written so
that the edges of its compiled run are clear (it is not compiled here). Each has a ``package.json``
(its entry, ``"type": "module"`` for ES modules), a one-line ``README.md`` and ``expected.json``:

- ``calls``: every call edge that truly happens, as ``[caller key, callee key]`` (keys as DESIGN.md
  writes them). A function that never runs is listed with the edges it makes when it runs. ``new
  Foo()`` is an edge to the class and one to the constructor that runs (the nearest declared one
  up the ``extends`` chain, or a constructor function). Calls inside an anonymous function (an
  arrow or function expression passed or returned, not bound to a name) belong to the enclosing
  named function or to the module, as the index scopes them. A first-party function passed to a
  builtin that calls it (array methods, promise callbacks, timers, an emitter's ``on``) is called
  by the function that passes it, as Python's ``map(f)`` is; an event emitted elsewhere is called
  by the function that emits it. Getters run on a property read. Calls to JavaScript globals
  (``console.log``, ``JSON.parse``, ``Math.max``, methods of arrays and strings, ...) are left
  out, and so are graph edges to a global's key (``console//log``, ``Array//push``): the scoring
  never counts them. External modules are keys (``fs//readFileSync``, ``events//EventEmitter//on``).
- ``imports`` (optional): module top levels that an import runs, as ``[importer, module]``; only
  their recall is checked.
- ``reach`` (optional): ``{"target", "status"}`` answers of reach from the roots.

A gold edge the graph misses is a failure unless ``KNOWN_GAPS`` lists it with the reason (the
fixture's README says it too); a graph edge the gold lacks is a failure unless ``KNOWN_EXTRAS``
lists it. Both lists are strict. ``python bench/edge_scores_js.py`` prints precision and recall per
fixture and in total.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.link.javascript import GLOBALS
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach

ROOT = Path(__file__).parent / "fixtures"
LANGUAGES = ("javascript", "typescript")
CASES = sorted(
    f"{language}/{p.name}"
    for language in LANGUAGES
    if (ROOT / language).is_dir()
    for p in (ROOT / language).iterdir()
    if (p / "expected.json").is_file()
)
ENTRIES = ("main.js", "main.ts", "index.ts", "src/index.ts", "apps/cli/src/main.ts")

Pair = tuple[str, str]

_DYNAMIC = "dynamic by design: the site is an uncertainty, and reach answers uncertain"
_EMITTED = (
    "an event runs its handler where it is emitted (emitter.emit), which the index cannot tie to "
    "where the handler was registered; the registration refers to the handler, so reach finds it"
)
_PARAM_RECEIVER = (
    "a method of an external object passed as an untyped parameter: the receiver's value is "
    "not followed through parameters (an unknown-receiver site scoped by the method's name)"
)

KNOWN_GAPS: dict[str, dict[Pair, str]] = {
    "javascript/callbacks": {
        ("main.js//finish", "main.js//onDone"): _EMITTED,
        ("main.js//subscribe", "events//EventEmitter//once"): _PARAM_RECEIVER,
        ("main.js//finish", "events//EventEmitter//emit"): _PARAM_RECEIVER,
    },
    "javascript/dynamic": {
        ("main.js//main", "main.js//evaluated"): _DYNAMIC,
        ("main.js//loadPlugin", "plugins/csv.js//handle"): _DYNAMIC,
        ("main.js//loadPlugin", "plugins/json.js//handle"): _DYNAMIC,
        ("main.js//loadLazy", "lazy/one.js//run"): _DYNAMIC,
    },
}

KNOWN_EXTRAS: dict[str, dict[Pair, str]] = {
    "javascript/callbacks": {
        ("main.js//subscribe", "main.js//onDone"): (
            "a handler registered with emitter.once is taken as called where it is registered "
            "(the rule for callbacks); this one runs where the event is emitted"
        ),
    },
}


@cache
def case_graph(case: str) -> Graph:
    """The graph of one fixture (built once per test run)."""
    return build_graph(ROOT / case, IndexOptions(workers=1)).graph


@cache
def expected(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / case / "expected.json").read_text(encoding="utf-8"))
    return data


def is_global(key: str) -> bool:
    """A key of a JavaScript global (``console//log``, ``Array//push``, ``setTimeout``)."""
    return key.split("//", 1)[0] in GLOBALS


def expected_calls(case: str) -> set[Pair]:
    return {(caller, callee) for caller, callee in expected(case)["calls"]}


def call_edges(graph: Graph) -> set[Pair]:
    """The graph's call edges as (caller, callee) pairs, globals left out."""
    return {(e.caller, e.callee) for e in graph.edges if e.relation == "calls" and not is_global(e.callee)}


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
    assert len(CASES) >= 12
    for case in CASES:
        folder = ROOT / case
        assert (folder / "package.json").is_file(), case
        assert any((folder / entry).is_file() for entry in ENTRIES), case
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
            assert not is_global(callee), f"{case}: globals are left out of the gold ({callee})"
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


def test_type_only_imports_run_no_code() -> None:
    """``import type`` / ``export type {T} from`` name types alone: no import edge to a module only
    they name, where a value import beside them has one."""
    graph = case_graph("typescript/ts_type_only_imports")
    imports = {(e.caller, e.callee) for e in graph.edges if e.relation == "imports"}
    assert ("index.ts", "loader.ts") in imports
    assert {
        ("index.ts", "config.ts"),
        ("index.ts", "barrel.ts"),
        ("barrel.ts", "shapes.ts"),
    } & imports == set()


@pytest.mark.parametrize("case", [c for c in CASES if "reach" in expected(c)])
def test_reach_expectations(case: str) -> None:
    graph = case_graph(case)
    wanted = expected(case)["reach"]
    results = reach(graph, Query(targets=tuple(Target.by_key(w["target"]) for w in wanted)))
    got = {r.target: r.status for r in results}
    assert got == {w["target"]: w["status"] for w in wanted}
