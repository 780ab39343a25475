"""The runtime oracle of the honesty rule: what a program really calls, the graph must know of.

Each Python fixture (and the example project ``examples/shop``) runs in a subprocess under
``sys.setprofile``, which records every executed call edge: the nearest first-party frame that
makes the call (frames of the standard library, of ``exec``'d strings and of the import system in
between are skipped, so a callback that ``json.loads`` makes counts for the code that called
``json.loads``) and the frame called, or the builtin function for a ``c_call``. Each code object
maps to its key: ``<module>`` is the file's path, ``outer.<locals>.inner`` is ``outer//inner``;
comprehensions, generator expressions, class bodies and anonymous lambdas are transparent (their
lexical parent stands for them, as in the index), and a named module- or class-level lambda is its
definition.

For every recorded edge whose callee is first party or a builtin, the graph has the edge, or reach
from the caller (sources and roots) answers found or uncertain: never not-found. The fixtures' gold
is checked against the same run: every first-party call the program makes is in ``expected.json``,
and every gold edge between functions whose caller ran did happen.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import fixture_cases as fc
from projectgraph import keys
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Source, Target, reach

FIXTURES = fc.FIXTURES / "python"
GOLD = {case.name: case for case in fc.discover(languages=["python"])}
# the runnable programs: a framework case (tests/test_frameworks.py) needs its framework, not installed
CASES = sorted(name for name in GOLD if (FIXTURES / name / "main.py").is_file())


def case_graph(case: str) -> Graph:
    return fc.case_graph(GOLD[case])


EXAMPLES = Path(__file__).parent.parent / "examples"

# Runs in the subprocess: argv = root, output file, "script:<path>" or "module:<name>", stub dirs...
TRACER = r"""
import builtins, os, runpy, sys  # json only after the run: the program may have its own

root = os.path.realpath(sys.argv[1])
out, entry, *rest = sys.argv[2:]
stubs = [p for p in rest if not p.startswith("arg:")]
argv = [p[4:] for p in rest if p.startswith("arg:")]
CO_NEWLOCALS = 0x0002
paths = {}


def first_party(code):
    path = paths.get(code.co_filename)
    if path is None:
        real = os.path.realpath(code.co_filename) if os.path.isabs(code.co_filename) else ""
        path = real[len(root) + 1:].replace(os.sep, "/") if real.startswith(root + os.sep) else ""
        paths[code.co_filename] = path
    return path


def describe(code, path):
    if code.co_name == "<module>":
        kind = "module"
    elif not code.co_flags & CO_NEWLOCALS:
        kind = "class"
    else:
        kind = "function"
    return (path, code.co_qualname, code.co_firstlineno, kind)


def caller_of(frame):
    while frame is not None:
        path = first_party(frame.f_code)
        if path:
            return describe(frame.f_code, path)
        frame = frame.f_back
    return None


edges = set()


def profile(frame, event, arg):
    if event == "call":
        path = first_party(frame.f_code)
        if path:
            caller = caller_of(frame.f_back)
            if caller is not None:
                edges.add((caller, describe(frame.f_code, path)))
    elif event == "c_call":
        path = first_party(frame.f_code)
        if path and getattr(arg, "__self__", None) is builtins and arg.__name__ != "__build_class__":
            edges.add((describe(frame.f_code, path), ("builtins", arg.__name__, 0, "builtin")))


os.chdir(root)
sys.path[:0] = [root, *stubs]
kind, _, name = entry.partition(":")
sys.argv = [os.path.join(root, name) if kind == "script" else name, *argv]
sys.setprofile(profile)
try:
    if kind == "script":
        runpy.run_path(os.path.join(root, name), run_name="__main__")
    else:
        runpy.run_module(name, run_name="__main__", alter_sys=True)
finally:
    sys.setprofile(None)
import json

with open(out, "w") as handle:
    json.dump(sorted(edges), handle)
"""

Code = tuple[str, str, int, str]  # path, co_qualname, co_firstlineno, kind
_TRANSPARENT = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")


def run_traced(root: Path, entry: str, tmp: Path, *extra: str) -> list[tuple[Code, Code]]:
    """Run ``entry`` of ``root`` under the profiler; the raw call edges it made."""
    out = tmp / "edges.json"
    done = subprocess.run(
        [sys.executable, "-B", "-c", TRACER, str(root), str(out), entry, *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    raw: list[list[list[Any]]] = json.loads(out.read_text(encoding="utf-8"))
    return [(tuple(caller), tuple(callee)) for caller, callee in raw]  # type: ignore[misc]


def code_key(graph: Graph, code: Code) -> tuple[str, bool]:
    """The key a code object stands for, and whether it is transparent (not a definition)."""
    path, qualname, line, kind = code
    if kind == "builtin":
        return f"builtins//{qualname}", False
    if kind == "module":
        return path, False
    parts = [part for part in qualname.split(".") if part != "<locals>"]
    transparent = kind == "class"
    for index, part in enumerate(parts):
        if part in _TRANSPARENT:
            parts, transparent = parts[:index], True
            break
        if part == "<lambda>":
            parent = ".".join(parts[:index])
            named = [
                n.qualname
                for n in graph.nodes
                if n.path == path
                and n.line == line
                and n.kind == "function"
                and n.qualname.rpartition(".")[0] == parent
            ]
            if named and index == len(parts) - 1:
                parts = named[0].split(".")
            else:
                parts, transparent = parts[:index], True
            break
    if transparent:
        # a class body's code belongs to the enclosing function or module, as in the index
        nodes = graph.node_by_key
        if kind == "class":
            parts = parts[:-1]
        while parts and getattr(nodes.get(keys.first_party(path, ".".join(parts))), "kind", "") == "class":
            parts = parts[:-1]
    return keys.first_party(path, ".".join(parts)), transparent


def runtime_edges(graph: Graph, raw: list[tuple[Code, Code]]) -> set[tuple[str, str, str]]:
    """(caller, callee, kind) with kind module | function | builtin; transparent callees left out."""
    edges = set()
    for caller_code, callee_code in raw:
        caller, _ = code_key(graph, caller_code)
        callee, transparent = code_key(graph, callee_code)
        if transparent or (caller == callee and callee_code[3] == "module"):
            continue
        edges.add((caller, callee, callee_code[3]))
    return edges


def dishonest(graph: Graph, edges: set[tuple[str, str, str]]) -> list[str]:
    """The runtime edges that neither the graph nor reach from their caller knows of."""
    walked = {(e.caller, e.callee) for e in graph.edges if e.relation in ("calls", "imports", "references")}
    nodes = graph.node_by_key
    problems = []
    for caller, callee, _kind in sorted(edges):
        if caller not in nodes:
            problems.append(f"{caller} -> {callee}: the caller is no node of the graph")
            continue
        if (caller, callee) in walked:
            continue
        [result] = reach(graph, Query(targets=(Target(callee),), sources=(Source(caller),)))
        if result.status not in ("found", "uncertain"):
            problems.append(f"{caller} -> {callee}: reach says {result.status}")
    return problems


@cache
def fixture_run(case: str) -> frozenset[tuple[str, str, str]]:
    """The call edges of one run of a fixture's main.py (run once per test session)."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = run_traced(FIXTURES / case, "script:main.py", Path(tmp))
    return frozenset(runtime_edges(case_graph(case), raw))


@pytest.mark.parametrize("case", CASES)
def test_every_executed_call_is_known(case: str) -> None:
    edges = fixture_run(case)
    assert edges, f"{case}: the run recorded no call"
    assert dishonest(case_graph(case), set(edges)) == []


@pytest.mark.parametrize("case", CASES)
def test_gold_matches_the_run(case: str) -> None:
    """The gold lists what the program does: every first-party call made, no call invented."""
    graph = case_graph(case)
    edges = fixture_run(case)
    ran = {caller for caller, _callee, _kind in edges} | {callee for _c, callee, _k in edges}
    called = {(caller, callee) for caller, callee, kind in edges if kind == "function"}
    gold = GOLD[case].calls()
    nodes = graph.node_by_key
    first_party_gold = {
        (caller, callee)
        for caller, callee in gold
        if callee in nodes and nodes[callee].path and nodes[callee].kind != "class"
    }
    assert called - gold == set(), f"{case}: calls the program makes that the gold lacks"
    assert {pair for pair in first_party_gold if pair[0] in ran} - called == set(), (
        f"{case}: gold calls the program never makes"
    )
    imported = {(caller, callee) for caller, callee, kind in edges if kind == "module"}
    assert {tuple(pair) for pair in GOLD[case].section("imports")} - imported == set()


def test_example_shop(tmp_path: Path) -> None:
    """The bundled example, run as its console script would be (a stub yaml when none is installed)."""
    root = EXAMPLES / "shop"
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text("apple: {price: 2}\npear: {price: 3}\n", encoding="utf-8")
    extra = [f"arg:{catalog}", "arg:apple", "arg:pear"]
    if importlib.util.find_spec("yaml") is None:
        stubs = tmp_path / "stubs"
        stubs.mkdir()
        (stubs / "yaml.py").write_text(
            "SafeLoader = object\n\n\ndef load(stream, Loader=None):\n"
            "    return {'apple': {'price': 2}, 'pear': {'price': 3}}\n",
            encoding="utf-8",
        )
        extra.append(str(stubs))
    graph = build_graph(root, IndexOptions(workers=1)).graph
    edges = runtime_edges(graph, run_traced(root, "module:shop.cli", tmp_path, *extra))
    assert ("shop/orders.py//checkout", "shop/catalog.py//load_catalog", "function") in edges
    assert dishonest(graph, edges) == []
