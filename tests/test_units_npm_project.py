"""An express app with real ``node_modules``: ``npm ci`` installs them once per test session (from
``tests/fixtures/npm/express_app/package-lock.json``) under a temporary folder, and reach goes on
into the dependencies through package edges.

Without npm or the registry these tests skip, except where ``PROJECTGRAPH_REQUIRE_NPM=1`` (CI sets
it) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
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
def graph(app: Path) -> Graph:
    return build_graph(app, IndexOptions(workers=2)).graph


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
