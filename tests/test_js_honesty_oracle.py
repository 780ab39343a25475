"""The runtime oracle of the honesty rule for JavaScript: what a program really calls, the graph
must know of.

Each JavaScript fixture runs under Node (``node --import tracer.mjs main.js``). The tracer starts a
worker thread that debugs the main thread through the inspector (``Session.connectToMainThread``)
before the program loads: it sets a breakpoint at the start of the body of every first-party
definition the index gives (function, method, constructor, getter, setter), and at each hit
records the paused function and the first-party frames below it, with the async stack (the
frames that scheduled a timer or a promise callback). The breakpoints are exact: every call of a
definition pauses, whatever calls it (a builtin like ``Array.prototype.map``, the event loop, an
``eval``'d string).

A hit maps to its key by the breakpoint; a frame maps to the innermost definition of the index
whose span holds its position (anonymous functions are transparent, as in the index, so a frame in
an arrow callback stands for the named function around it; a frame in a class body outside any
method, a synthesized constructor, is skipped). The caller of a hit is the nearest first-party
frame below it, else the nearest first-party frame of its async stack (``setTimeout(f)``,
``promise.then(f)``: the function that scheduled it), else none (the runtime itself called it).

For every recorded edge, the graph has the edge (calls, imports or references), or reach from the
caller (sources and roots) answers found or uncertain: never not-found; a call with no first-party
caller must be found or uncertain from the roots. The gold is checked against the same run: every
first-party call the program makes is in ``expected.json``, and every gold edge to a first-party
function whose caller ran did happen.

Limits: only definitions the index gives get a breakpoint, so a call of a function the index does
not know (a computed-name method, an unbound function expression) is not seen as a callee; calls
of externals and builtins (native code) are not recorded; module top levels run by an import get
no breakpoint (their calls are recorded, with the module as caller); the TypeScript fixtures are
not compiled here, so they are not run. A position maps by line and column against definitions
that record their end line only, so two definitions on one line can be told apart only by where
each starts.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
from bisect import bisect_left
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import fixture_cases as fc
from projectgraph import keys
from projectgraph.fileindex import Definition
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.reach import Query, Source, Target, reach

ROOT = fc.FIXTURES
GOLD = {case.id: case for case in fc.discover(languages=["javascript"])}


def case_graph(case: str) -> Graph:
    return fc.case_graph(GOLD[case])


NODE = shutil.which("node")
# the runnable programs: a framework case (tests/test_frameworks.py) needs its framework, not installed
JS_CASES = sorted(case for case in GOLD if (ROOT / case / "main.js").is_file())
CALLABLE = ("function", "method", "constructor", "getter", "setter")
CLASSES = ("class", "interface", "abstract_class")

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

# Loaded with --import before the program: Node finishes it (top-level await included) first.
TRACER = r"""
import { Worker } from "node:worker_threads";
import { readFileSync } from "node:fs";

const spec = JSON.parse(readFileSync(process.env.PROJECTGRAPH_TRACE, "utf8"));
const worker = new Worker(`
const { workerData, parentPort } = require("node:worker_threads");
const inspector = require("node:inspector");
const fs = require("node:fs");
const { spec } = workerData;
const session = new inspector.Session();
session.connectToMainThread();
const keyOf = new Map();
const seen = new Set();
const post = (method, params) =>
  new Promise((ok, fail) => session.post(method, params, (err, res) => (err ? fail(err) : ok(res))));
const mine = (url) =>
  typeof url === "string" && url.startsWith(spec.prefix) && !(spec.skip && url.includes(spec.skip));
const where = (url, line, column, name) => [url.slice(spec.prefix.length), line + 1, column, name];
const urls = new Map();  // a paused call frame names its script by id only
session.on("Debugger.scriptParsed", (message) => urls.set(message.params.scriptId, message.params.url));
session.on("Debugger.paused", (message) => {
  const p = message.params;
  const frames = p.callFrames
    .map((f) => [urls.get(f.location.scriptId) || f.url, f])
    .filter(([url]) => mine(url))
    .map(([url, f]) => where(url, f.location.lineNumber, f.location.columnNumber, f.functionName));
  const later = [];
  for (let t = p.asyncStackTrace; t; t = t.parent) {
    for (const f of t.callFrames) {
      if (mine(f.url)) later.push(where(f.url, f.lineNumber, f.columnNumber, f.functionName));
    }
  }
  for (const id of p.hitBreakpoints || []) {
    const key = keyOf.get(id);
    if (key === undefined) continue;
    const line = JSON.stringify({ key, frames, async: later });
    if (!seen.has(line)) {
      seen.add(line);
      fs.appendFileSync(spec.out, line + "\\n");
    }
  }
  session.post("Debugger.resume", {});
});
(async () => {
  await post("Debugger.enable", {});
  await post("Debugger.setAsyncCallStackDepth", { maxDepth: 64 });
  for (const bp of spec.breakpoints) {
    // spec.once: pause once per distinct synchronous stack of a definition (a test suite calls
    // a helper millions of times from a few places); the condition runs in the paused frame
    const condition = spec.once
      ? "(() => { const s = globalThis.__projectgraphSeen || (globalThis.__projectgraphSeen = new Set());" +
        " const limit = Error.stackTraceLimit; Error.stackTraceLimit = 4;" +
        " const k = " + JSON.stringify(bp.key) + " + new Error().stack;" +
        " Error.stackTraceLimit = limit;" +
        " if (s.has(k)) return false; s.add(k); return true; })()"
      : "";
    const res = await post("Debugger.setBreakpointByUrl", {
      url: spec.prefix + bp.path, lineNumber: bp.line - 1, columnNumber: bp.column, condition,
    });
    keyOf.set(res.breakpointId, bp.key);
  }
  parentPort.postMessage("ready");
})().catch((error) => parentPort.postMessage("error: " + error));
setInterval(() => {}, 1 << 30);
`, { eval: true, workerData: { spec } });
const alive = setInterval(() => {}, 20);
const answer = await new Promise((ok) => worker.once("message", ok));
clearInterval(alive);
if (answer !== "ready") throw new Error(answer);
worker.unref();
"""

Position = tuple[str, int, int, str]  # path, line (1-based), column (0-based), V8 function name


def body_start(source: str, line: int, column: int) -> tuple[int, int] | None:
    """Where the body of the function a definition starts at begins: past the parameters and
    ``{`` or ``=>``; (line, column), or None when the text shows no parameter list."""
    lines = source.split("\n")
    offset = sum(len(text) + 1 for text in lines[: line - 1]) + column
    i, depth, seen_params = offset, 0, False
    quote = ""
    while i < len(source):
        ch = source[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                seen_params = True
        elif depth == 0 and source.startswith("=>", i):
            i += 2
            while i < len(source) and source[i] in " \t\r\n":
                i += 1
            i += 1 if source[i : i + 1] == "{" else 0
            break
        elif depth == 0 and ch == "{" and seen_params:
            i += 1
            break
        elif depth == 0 and ch in ";}" and not seen_params:
            return None
        i += 1
    else:
        return None
    i = _skip_space(source, i)
    # a nested function or class declaration first would take the breakpoint (V8 moves it to the
    # next break location in the text, inside the nested body): start after them
    while _DECLARATION.match(source, i):
        i = source.find("{", i)
        depth = 0
        while 0 <= i < len(source):
            depth += {"{": 1, "}": -1}.get(source[i], 0)
            i += 1
            if depth == 0:
                break
        i = _skip_space(source, i)
    before = source[:i]
    return before.count("\n") + 1, i - (before.rfind("\n") + 1)


_DECLARATION = re.compile(r"(async\s+)?function\b|class\b")


def _skip_space(source: str, i: int) -> int:
    while i < len(source) and source[i] in " \t\r\n;":
        i += 1
    return i


class Scopes:
    """The definitions of one fixture by file, to map a position to the key it belongs to."""

    def __init__(self, folder: Path) -> None:
        self.by_path: dict[str, list[Definition]] = {}
        self.sources: dict[str, str] = {}
        for index in run_index(folder, IndexOptions(workers=1)).indexes:
            if index.language != "javascript":
                continue
            self.by_path[index.path] = sorted(index.definitions, key=lambda d: (d.line, d.column))
            self.sources[index.path] = (folder / index.path).read_text(encoding="utf-8")

    def breakpoints(self) -> list[dict[str, Any]]:
        found = []
        for path, definitions in sorted(self.by_path.items()):
            for d in definitions:
                if d.kind not in CALLABLE:
                    continue
                start = body_start(self.sources[path], d.line, d.column)
                if start is not None:
                    key = keys.first_party(path, d.qualname)
                    found.append({"path": path, "line": start[0], "column": start[1], "key": key})
        return found

    def innermost(self, path: str, line: int, column: int) -> Definition | None:
        """The innermost definition whose span holds the position. A position at the very start
        of a definition is outside it (``const f = () => ...`` pauses at the arrow in the
        function around it: a function's own first break location is past its parameters)."""
        definitions = self.by_path.get(path, [])
        starts = [(d.line, d.column) for d in definitions]
        best = None
        for d in definitions[: bisect_left(starts, (line, column))]:
            if d.end_line >= line and (best is None or (d.line, d.column) >= (best.line, best.column)):
                best = d
        return best

    def key_at(self, position: Position) -> str | None:
        """The key a frame stands for; None for a frame in a class body outside any method."""
        path, line, column, name = position
        definitions = self.by_path.get(path, [])
        if any((d.line, d.column) == (line, column) and d.kind in CLASSES for d in definitions):
            return None  # a class's synthesized constructor stands at the class
        d = self.innermost(path, line, column)
        if d is None:
            return path
        if d.kind in CLASSES:
            if "instance_members_initializer" in name:  # field initializers run at construction
                ctor = keys.first_party(path, f"{d.qualname}.constructor")
                known = any(x.qualname == f"{d.qualname}.constructor" for x in self.by_path[path])
                return ctor if known else keys.first_party(path, d.qualname)
            return None
        return keys.first_party(path, d.qualname)


@cache
def scopes(case: str) -> Scopes:
    return Scopes(ROOT / case)


def run_traced(case: str) -> list[dict[str, Any]]:
    """Run the fixture's main.js under the tracer; one record per distinct hit."""
    folder = (ROOT / case).resolve()
    return trace_program(folder, ["main.js"], scopes(case).breakpoints())


def trace_program(
    folder: Path,
    argv: list[str],
    breakpoints: list[dict[str, Any]],
    timeout: float = 60,
    once: bool = False,
) -> list[dict[str, Any]]:
    """Run ``node --import tracer argv`` in ``folder`` with these breakpoints; one record per
    distinct hit. Frames of ``node_modules`` (a package's test runner) are no first-party frames.
    ``once``: a definition pauses once per distinct top of its synchronous stack (its three
    nearest frames; an async caller behind a stack already seen is not recorded), which makes a
    real test suite affordable."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "hits.jsonl"
        out.touch()
        tracer = Path(tmp) / "tracer.mjs"
        tracer.write_text(TRACER, encoding="utf-8")
        spec = {
            "out": str(out),
            "prefix": folder.as_uri() + "/",
            "breakpoints": breakpoints,
            "once": once,
            "skip": "/node_modules/",
        }
        spec_file = Path(tmp) / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        assert NODE is not None
        done = subprocess.run(
            [NODE, "--import", tracer.as_uri(), *argv],
            cwd=folder,
            env={**os.environ, "PROJECTGRAPH_TRACE": str(spec_file)},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]


def runtime_edges(case: str, hits: list[dict[str, Any]]) -> tuple[set[tuple[str | None, str]], list[str]]:
    """(caller or None, callee) of every hit, and the hits whose position does not map to their key."""
    return edges_of_hits(scopes(case), hits)


def edges_of_hits(table: Scopes, hits: list[dict[str, Any]]) -> tuple[set[tuple[str | None, str]], list[str]]:
    """(caller or None, callee) of every hit by the definitions of ``table``, and the problems."""
    edges: set[tuple[str | None, str]] = set()
    problems = []
    for hit in hits:
        frames = [tuple(f) for f in hit["frames"]]
        if not frames or table.key_at(frames[0]) != hit["key"]:
            problems.append(f"{hit['key']}: paused at {frames[:1]}, which maps elsewhere")
            continue
        caller = None
        for position in frames[1:] + [tuple(f) for f in hit["async"]]:
            caller = table.key_at(position)
            if caller is not None:
                break
        edges.add((caller, hit["key"]))
    return edges, problems


@cache
def fixture_run(case: str) -> tuple[frozenset[tuple[str | None, str]], tuple[str, ...]]:
    """The call edges of one run of a fixture (run once per test session)."""
    runs = all_runs()
    edges, problems = runtime_edges(case, runs[case] if case in runs else run_traced(case))
    return frozenset(edges), tuple(problems)


@cache
def all_runs() -> dict[str, list[dict[str, Any]]]:
    """The hits of every JavaScript fixture, the runs four at a time (each is mostly a Node
    start and the inspector's round trips, so they overlap well on two cores)."""
    for case in JS_CASES:
        scopes(case)  # indexed first, in this thread
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(JS_CASES, pool.map(run_traced, JS_CASES), strict=True))


def dishonest(graph: Graph, edges: set[tuple[str | None, str]]) -> list[str]:
    """The runtime edges that neither the graph nor reach from their caller knows of."""
    walked = {(e.caller, e.callee) for e in graph.edges if e.relation in ("calls", "imports", "references")}
    nodes = graph.node_by_key
    problems = []
    for caller, callee in sorted(edges, key=lambda e: (e[0] or "", e[1])):
        if callee not in nodes:
            problems.append(f"{caller} -> {callee}: the callee is no node of the graph")
            continue
        if caller is not None and caller not in nodes:
            problems.append(f"{caller} -> {callee}: the caller is no node of the graph")
            continue
        if (caller, callee) in walked:
            continue
        sources = (Source(caller),) if caller is not None else ()
        [result] = reach(graph, Query(targets=(Target(callee),), sources=sources))
        if result.status not in ("found", "uncertain"):
            problems.append(f"{caller} -> {callee}: reach says {result.status}")
    return problems


def test_body_start() -> None:
    source = (
        "function f(a, b = g(1)) {\n  return a;\n}\nconst h = (x) => x * 2;\nconst k = y => {\n  y();\n};\n"
    )
    assert body_start(source, 1, 0) == (2, 2)
    assert body_start(source, 4, 10) == (4, 17)
    assert body_start(source, 5, 10) == (6, 2)
    assert body_start("class A {}\n", 1, 0) is None
    nested = "function outer() {\n  function inner() {\n    return 1;\n  }\n  return inner;\n}\n"
    assert body_start(nested, 1, 0) == (5, 2)


@pytest.mark.parametrize("case", JS_CASES)
def test_every_executed_call_is_known(case: str) -> None:
    edges, problems = fixture_run(case)
    assert edges, f"{case}: the run recorded no call"
    assert list(problems) == [], f"{case}: hits the oracle cannot place"
    assert dishonest(case_graph(case), set(edges)) == []


@pytest.mark.parametrize("case", JS_CASES)
def test_gold_matches_the_run(case: str) -> None:
    """The gold lists what the program does: every first-party call made, no call invented."""
    graph = case_graph(case)
    edges, _problems = fixture_run(case)
    ran = {caller for caller, _callee in edges if caller} | {callee for _caller, callee in edges}
    called = {(caller, callee) for caller, callee in edges if caller is not None}
    gold = GOLD[case].calls()
    nodes = graph.node_by_key
    first_party_gold = {
        (caller, callee)
        for caller, callee in gold
        if callee in nodes and nodes[callee].path and nodes[callee].kind in CALLABLE
    }
    assert called - gold == set(), f"{case}: calls the program makes that the gold lacks"
    assert {pair for pair in first_party_gold if pair[0] in ran} - called == set(), (
        f"{case}: gold calls the program never makes"
    )
    assert {callee for caller, callee in edges if caller is None} == set(), (
        f"{case}: functions the runtime called with no first-party frame below them"
    )


def test_the_oracle_sees_a_call_the_graph_does_not_know() -> None:
    """The check is not vacuous: a graph without the edges into a function that runs fails it."""
    case = "javascript/esm_imports"
    graph = case_graph(case)
    edges, _problems = fixture_run(case)
    assert ("main.js//main", "math.js//add") in edges
    blind = dataclasses.replace(
        graph, edges=tuple(e for e in graph.edges if e.callee != "math.js//add"), roots=()
    )
    assert dishonest(blind, set(edges)) == ["main.js//main -> math.js//add: reach says not-found"]
