"""An express app with real ``node_modules``: ``npm ci`` installs them once per test session (from
``tests/fixtures/npm/express_app/package-lock.json``) under a temporary folder, and reach goes on
into the dependencies through package edges.

Without npm or the registry these tests skip, except where ``PROJECTGRAPH_REQUIRE_NPM=1`` (CI sets
it) makes that a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from bisect import bisect_left
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from projectgraph import keys
from projectgraph.fileindex import Definition
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, IndexResult
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_AND_ROOTS, SOURCES_ONLY, Query, ReachResult, Source, Target, reach
from projectgraph.units import NO_DEPS, discover_units

APP = FIXTURES / "npm" / "express_app"
EXPRESS = "npm:express@4.21.2"
LODASH = "npm:lodash@4.17.21"


def _unavailable(reason: str) -> None:
    if os.environ.get("PROJECTGRAPH_REQUIRE_NPM") == "1":
        pytest.fail(f"npm is required here (PROJECTGRAPH_REQUIRE_NPM=1): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The express app with its node_modules, installed once per session."""
    npm = shutil.which("npm")
    if npm is None:
        _unavailable("npm is not installed")
        raise AssertionError  # unreachable: skip and fail raise
    root = tmp_path_factory.mktemp("npm") / "express_app"
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("node_modules"))
    try:
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        _unavailable("npm ci took more than 10 minutes")
    if done.returncode != 0:
        _unavailable(f"npm ci failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return root


@pytest.fixture(scope="session")
def built(app: Path) -> tuple[IndexResult, Graph]:
    run = build_graph(app, IndexOptions(workers=2))
    return run.index, run.graph


@pytest.fixture(scope="session")
def graph(built: tuple[IndexResult, Graph]) -> Graph:
    return built[1]


def one(graph: Graph, target: str, *sources: str) -> ReachResult:
    query = Query(
        (Target.by_key(target),),
        tuple(Source.by_key(s) for s in sources),
        mode=SOURCES_ONLY if sources else SOURCES_AND_ROOTS,
    )
    (result,) = reach(graph, query)
    return result


def test_units_of_the_installed_tree(app: Path) -> None:
    units = {u.name: u for u in discover_units(app)}
    assert {EXPRESS, LODASH, "npm:debug@2.6.9", "npm:chalk@4.1.2", "npm:send@0.19.0"} <= set(units)
    # send's own ms (2.1.3) is nested in it; debug's (2.0.0) is hoisted
    assert "npm:ms@2.1.3" in units["npm:send@0.19.0"].requires
    assert "npm:ms@2.0.0" in units["npm:debug@2.6.9"].requires
    assert units["npm:ms@2.1.3"].root.endswith("node_modules/send/node_modules/ms")
    assert "index.d.ts" in units["npm:chalk@4.1.2"].excluded  # declarations stand for no code
    assert "lodash.min.js" in units[LODASH].excluded  # a minified copy of lodash.js


def test_unit_definitions_have_their_external_keys(graph: Graph) -> None:
    nodes = graph.node_by_key
    template = nodes[f"{LODASH}//template.js//template"]
    assert (template.unit, template.external) == (LODASH, "lodash//template")
    package = {e.caller for e in graph.in_edges.get(template.key, ()) if e.kind == "package"}
    assert "lodash//template" in package  # require("lodash").template and require("lodash/template")
    create = nodes[f"{EXPRESS}//lib/express.js//createApplication"]
    assert create.external == "express"  # index.js: module.exports = require('./lib/express')
    # express re-exports body-parser's json: the key goes on to body-parser's key
    assert any(e.callee == "body-parser//json" for e in graph.out_edges.get("express//json", ()))


def test_reach_finds_a_target_only_a_dependency_reaches(graph: Graph) -> None:
    result = one(graph, "ms")  # the app never names ms: debug does
    assert result.status == "found"
    kinds = [hop.kind for hop in result.path]
    assert "package" in kinds
    assert any(hop.key.startswith("npm:debug@2.6.9//") for hop in result.path)


def test_a_chain_through_four_packages(graph: Graph) -> None:
    # app.js//serve calls express.static, which is serve-static's export; serve-static loads send,
    # whose code calls ms (its own nested ms@2.1.3)
    result = one(graph, "ms", "app.js//serve")
    assert result.status == "found", result
    hops = [hop.key for hop in result.path]
    assert hops[:3] == ["app.js//serve", "express//static", "serve-static"]
    assert [hop.kind for hop in result.path][:3] == ["query", "direct", "package"]
    assert any(key.startswith("npm:serve-static@1.16.2//") for key in hops)
    assert any(key.startswith("npm:send@0.19.0//") for key in hops)
    assert hops[-1] == "ms"


def test_what_a_package_builds_at_run_time_is_uncertain(graph: Graph) -> None:
    # chalk installs its styles with Object.defineProperties over a computed list: chalk//green has
    # no definition, so what only chalk's code reaches is not known to be unreached
    assert not [e for e in graph.out_edges.get("chalk//green", ()) if e.kind == "package"]
    result = one(graph, "ansi-styles", "app.js//render")
    assert result.status == "uncertain"


def test_a_dependency_with_no_unit_is_uncertain_never_not_found(app: Path, tmp_path: Path) -> None:
    without = build_graph(app, IndexOptions(workers=2, deps=NO_DEPS)).graph
    result = one(without, "ms")  # only debug's code could reach it, and no unit gives it
    assert result.status == "uncertain"
    assert any("no-dependency-source" in u.reason for u in result.uncertainties)


# ---- the runtime oracle: what the app really calls inside its dependencies -----------------------

# exercises the app: a page (lodash's template, chalk), a static file (serve-static, send, mime,
# ms through maxAge), a 404, with debug output on (debug's formatting, ms's humanize)
DRIVER = """
const http = require("http");
const express = require("express");
const { render, serve } = require("./app.js");
const app = express();
app.use(serve(__dirname));
app.get("/", (req, res) => res.send(render("world")));
const server = app.listen(0, "127.0.0.1", async () => {
  const port = server.address().port;
  const get = (path) => new Promise((ok, fail) => {
    const request = http.get({ host: "127.0.0.1", port, path }, (res) => {
      res.resume();
      res.on("end", ok);
    });
    request.on("error", fail);
  });
  try {
    for (const path of ["/", "/package.json", "/missing"]) await get(path);
  } finally {
    server.close();
  }
});
"""


class RuntimeScopes:
    """The definitions of the app's files and of its units' files, by the path Node runs them at
    (relative to the app: ``node_modules/send/index.js``), with the graph path each stands for."""

    def __init__(self, root: Path, indexed: IndexResult) -> None:
        from test_js_honesty_oracle import CALLABLE, body_start

        self.callable = CALLABLE
        self.body_start = body_start
        self.files: dict[str, tuple[str, list[Definition], str]] = {}
        for index in indexed.indexes:
            if index.language == "javascript":
                self._add(index.path, index.path, index.definitions, root / index.path)
        for made in indexed.units:
            folder = Path(made.unit.root).relative_to(root.resolve()).as_posix()
            for index in made.indexes:
                if index.language == "javascript":
                    graph_path = f"{made.unit.name}{keys.SEP}{index.path}"
                    where = Path(made.unit.root) / index.path
                    self._add(f"{folder}/{index.path}", graph_path, index.definitions, where)

    def _add(self, runtime: str, graph_path: str, definitions: Any, file: Path) -> None:
        ordered = sorted(definitions, key=lambda d: (d.line, d.column))
        self.files[runtime] = (graph_path, ordered, file.read_text(encoding="utf-8"))

    def breakpoints(self) -> list[dict[str, Any]]:
        found = []
        for runtime, (graph_path, definitions, source) in sorted(self.files.items()):
            for d in definitions:
                start = self.body_start(source, d.line, d.column) if d.kind in self.callable else None
                if start is not None:
                    key = keys.first_party(graph_path, d.qualname)
                    found.append({"path": runtime, "line": start[0], "column": start[1], "key": key})
        return found

    def key_at(self, position: list[Any]) -> str | None:
        """The innermost definition a frame is in (its module when none), None for another file."""
        runtime, line, column, _name = position
        if runtime not in self.files:
            return None
        graph_path, definitions, _source = self.files[runtime]
        starts = [(d.line, d.column) for d in definitions]
        best = None
        for d in definitions[: bisect_left(starts, (line, column))]:
            if d.end_line >= line and (best is None or (d.line, d.column) >= (best.line, best.column)):
                best = d
        return keys.first_party(graph_path, best.qualname) if best is not None else graph_path


def test_every_call_the_app_makes_into_its_dependencies_is_known(
    app: Path, built: tuple[IndexResult, Graph], tmp_path: Path
) -> None:
    """Run the app under the honesty oracle's tracer (a breakpoint at every definition of the app
    and of its units): for every call it makes, the graph has the edge or reach from the caller
    answers found or uncertain, never not-found."""
    from test_js_honesty_oracle import NODE, TRACER

    if NODE is None:
        _unavailable("node is not installed")
    indexed, graph = built
    scopes = RuntimeScopes(app, indexed)
    driver = app / "oracle_driver.js"  # beside app.js, after the graph was built: not in it
    driver.write_text(DRIVER, encoding="utf-8")
    out = tmp_path / "hits.jsonl"
    out.touch()
    tracer = tmp_path / "tracer.mjs"
    tracer.write_text(TRACER, encoding="utf-8")
    spec = {"out": str(out), "prefix": app.resolve().as_uri() + "/", "breakpoints": scopes.breakpoints()}
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    assert NODE is not None
    try:
        done = subprocess.run(
            [NODE, "--import", tracer.as_uri(), driver.name],
            cwd=app,
            env={**os.environ, "PROJECTGRAPH_TRACE": str(tmp_path / "spec.json"), "DEBUG": "app"},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        driver.unlink()
    assert done.returncode == 0, done.stderr
    edges: set[tuple[str | None, str]] = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        hit = json.loads(line)
        frames = hit["frames"]
        if not frames or scopes.key_at(frames[0]) != hit["key"]:
            continue  # paused where another definition starts: the oracle cannot place it
        caller = None
        for position in frames[1:] + hit["async"]:
            caller = scopes.key_at(position)
            if caller is not None:
                break
        if caller is not None and caller.startswith("oracle_driver.js"):
            caller = None  # the driver is no code of the graph: a call from the runtime
        edges.add((caller, hit["key"]))
    into_units = {callee for _caller, callee in edges if keys.split_unit(callee)[0]}
    assert len(into_units) > 100, "the run entered few dependency functions"
    assert {keys.split_unit(c)[0] for c in into_units} >= {EXPRESS, "npm:send@0.19.0", "npm:debug@2.6.9"}
    assert dishonest(graph, edges) == []


def dishonest(graph: Graph, edges: set[tuple[str | None, str]]) -> list[str]:
    """The runtime edges that neither the graph nor reach from their caller (a unit definition too)
    knows of: the honesty oracle's check, with unit sources."""
    walked = {(e.caller, e.callee) for e in graph.edges if e.relation in ("calls", "imports", "references")}
    nodes = graph.node_by_key
    problems = []
    for caller, callee in sorted(edges, key=lambda e: (e[0] or "", e[1])):
        if callee not in nodes or (caller is not None and caller not in nodes):
            problems.append(f"{caller} -> {callee}: no node of the graph")
            continue
        if (caller, callee) in walked:
            continue
        sources = (Source(caller),) if caller is not None else ()
        [result] = reach(graph, Query(targets=(Target(callee),), sources=sources, unit_sources=True))
        if result.status not in ("found", "uncertain"):
            problems.append(f"{caller} -> {callee}: reach says {result.status}")
    return problems
