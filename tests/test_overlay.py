"""Overlays (``projectgraph.overlay``): strict decoding, one error per way a file is wrong, the two
diagnostics of the merge, and the honesty of the merged graph (the unresolved sites stay; a target
can go from not-found to found, never from uncertain to not-found). The graphs are real links of
``tests/fixtures/overlay/app``; the commands run as real subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, FIXTURES
from projectgraph import overlay
from projectgraph.graph import Graph, Site
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach
from projectgraph.units import NO_DEPS

APP = FIXTURES / "overlay" / "app"
CLI = Path(sys.executable).with_name("projectgraph")
RELAY_SITE = {"path": "app/main.py", "line": 10, "column": 11}
DISPATCH_SITE = {"path": "app/main.py", "line": 6, "column": 11}


def edge(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "caller": "app/main.py//relay",
        "site": dict(RELAY_SITE),
        "callee": "app/tools.py//Job//run",
        "kind": "llm",
        "confidence": "low",
        "model": "m1",
        "prompt_version": "v2",
        "input_hash": "sha256:5d41402abc4b2a76b9719d911017c592",
        "raw_output": '{"callee": "app/tools.py//Job//run"}',
    }
    base.update(changes)
    return base


def text(*edges: dict[str, Any], version: Any = 1) -> str:
    return json.dumps({"version": version, "edges": list(edges)})


@pytest.fixture(scope="module")
def graph() -> Graph:
    return _property_graph()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("overlay") / "app"
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("README.md"))
    done = subprocess.run(
        [str(CLI), "index", str(root), "--deps", "none"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return root


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [str(CLI), *args, "--project", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )


# ---- decoding ---------------------------------------------------------------------------------


def test_a_valid_file_decodes_to_its_edges() -> None:
    decoded = overlay.loads(text(edge(), edge(site=dict(DISPATCH_SITE))), "o.json")
    assert [e.site for e in decoded.edges] == [Site("app/main.py", 10, 11), Site("app/main.py", 6, 11)]
    assert decoded.edges[0].via == "model m1, prompt v2"
    assert decoded.edges[0].raw_output == '{"callee": "app/tools.py//Job//run"}'
    assert overlay.loads(json.dumps(decoded.to_json())).edges == decoded.edges


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (json.dumps({"version": 1, "edges": [], "model": "m1"}), "unknown field(s) model"),
        (text(edge(weight=0.9)), "edge 0: unknown field(s) weight"),
        (text(edge(site={**RELAY_SITE, "end_column": 20})), "edge 0: site: unknown field(s) end_column"),
        (text(edge()) + "\n" + text(edge()), "a second JSON value after the overlay object"),
        (text(edge()) + " []", "a second JSON value"),
        (text(edge(), version=2), "version 2 is not 1"),
        (text(edge(), version="1"), 'version "1" is not 1'),
        (text(edge(), version=1.0), "version 1.0 is not 1"),
        (text(edge(confidence="high")), "edge 0: confidence 'high' is not 'low'"),
        (text(edge(confidence="medium")), "confidence 'medium' is not 'low'"),
        (text(edge(kind="name")), "kind 'name' is not 'llm'"),
        (json.dumps({"edges": []}), "missing field(s) version"),
        (text({k: v for k, v in edge().items() if k != "input_hash"}), "edge 0: missing field(s) input_hash"),
        (text(edge(model=3)), "'model' must be a string"),
        (text(edge(caller="")), "'caller' is empty"),
        (text(edge(site={**RELAY_SITE, "line": 0})), "site 'line' must be an integer of at least 1"),
        (text(edge(site={**RELAY_SITE, "column": True})), "site 'column' must be an integer"),
        ('{"version": 1, "version": 1, "edges": []}', "duplicate key 'version'"),
        ("[]", "must be a JSON object, not a list"),
        (json.dumps({"version": 1, "edges": {}}), "'edges' must be a list"),
        ("{version: 1}", "not JSON"),
        ("", "not JSON"),
    ],
)
def test_every_malformed_file_is_an_error_naming_the_file(body: str, message: str) -> None:
    with pytest.raises(overlay.OverlayError) as caught:
        overlay.loads(body, "proposed.json")
    assert str(caught.value).startswith("proposed.json: ")
    assert message in str(caught.value)


def test_a_file_that_does_not_decode_merges_nothing(project: Path, tmp_path: Path) -> None:
    """One good edge and a second object: the command stops before any query, nothing merged."""
    bad = tmp_path / "two.json"
    bad.write_text(text(edge()) + text(edge()), encoding="utf-8")
    done = run(project, "reach", "pickle//loads", "--overlay", str(bad), "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"projectgraph: {bad}: a second JSON value after the overlay object (line 1): one object per file\n"
    )
    check = run(project, "overlay", "check", str(bad))
    assert (check.returncode, check.stdout) == (2, "")
    missing = run(project, "overlay", "check", str(tmp_path / "absent.json"))
    assert missing.returncode == 2 and "absent.json: cannot read" in missing.stderr


# ---- merge and its diagnostics ------------------------------------------------------------------


def test_undefined_callee_is_dropped_with_a_diagnostic(graph: Graph) -> None:
    decoded = overlay.loads(text(edge(callee="app/tools.py//Job//walk"), edge()), "o.json")
    merged, report = overlay.merge(graph, decoded)
    assert [(d.kind, d.index) for d in report.diagnostics] == [("undefined-callee", 0)]
    assert "callee app/tools.py//Job//walk is no node of the graph" in report.diagnostics[0].message
    assert [e.callee for e in report.merged] == ["app/tools.py//Job//run"]
    assert not any(e.callee == "app/tools.py//Job//walk" for e in merged.edges)


def test_no_unresolved_site_is_dropped_with_a_diagnostic(graph: Graph) -> None:
    wrong_line = edge(site={**RELAY_SITE, "line": 11})
    wrong_caller = edge(caller="app/main.py//dispatch")  # a site of relay, named as dispatch's
    merged, report = overlay.merge(graph, overlay.loads(text(wrong_line, wrong_caller), "o.json"))
    assert [(d.kind, d.index) for d in report.diagnostics] == [
        ("no-unresolved-site", 0),
        ("no-unresolved-site", 1),
    ]
    assert report.diagnostics[0].message == (
        "edge 0: no unresolved site of app/main.py//relay at app/main.py:11:11"
    )
    assert report.merged == ()
    assert merged is graph


def test_merge_adds_llm_edges_and_keeps_every_unresolved_site(graph: Graph) -> None:
    merged, report = overlay.merge(graph, overlay.loads(text(edge()), "o.json"))
    assert report.diagnostics == ()
    added = overlay.added_edges(graph, merged)
    assert [(e.caller, e.callee, e.relation, e.kind, e.confidence, e.via) for e in added] == [
        ("app/main.py//relay", "app/tools.py//Job//run", "calls", "llm", "low", "model m1, prompt v2")
    ]
    assert merged.unresolved == graph.unresolved
    assert merged.dynamic == graph.dynamic
    assert merged.roots == graph.roots
    assert set(graph.edges) <= set(merged.edges)


def test_an_overlay_turns_not_found_into_found_and_the_path_names_model_and_prompt(graph: Graph) -> None:
    query = Query((Target.by_key("pickle//loads"),), (Source.parse("app/main.py:relay"),), SOURCES_ONLY)
    [before] = reach(graph, query)
    assert before.status == "not-found"
    merged, _ = overlay.merge(graph, overlay.loads(text(edge()), "o.json"))
    [after] = reach(merged, query)
    assert after.status == "found"
    assert [(h.key, h.kind, h.via) for h in after.path] == [
        ("app/main.py//relay", "query", ""),
        ("app/tools.py//Job//run", "llm", "model m1, prompt v2"),
        ("pickle//loads", "direct", ""),
    ]
    assert after.to_json()["path"][1]["via"] == "model m1, prompt v2"
    assert "[llm: model m1, prompt v2]" in str(after)


def test_an_uncertain_target_stays_uncertain_or_becomes_found(graph: Graph) -> None:
    """The getattr in dispatch concerns every target: an edge from its site finds yaml//load, and
    pickle//loads, which the edge does not reach, keeps every uncertainty it had."""
    targets = (Target.by_key("yaml//load"), Target.by_key("pickle//loads"))
    before = reach(graph, Query(targets))
    assert [r.status for r in before] == ["uncertain", "uncertain"]
    to_parse = edge(caller="app/main.py//dispatch", site=dict(DISPATCH_SITE), callee="app/handlers.py//parse")
    merged, report = overlay.merge(graph, overlay.loads(text(to_parse), "o.json"))
    assert report.diagnostics == ()
    after = reach(merged, Query(targets))
    assert [r.status for r in after] == ["found", "uncertain"]
    assert after[1].uncertainties == before[1].uncertainties


# ---- the commands -----------------------------------------------------------------------------


def test_the_commands_read_overlays(project: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(text(edge()), encoding="utf-8")
    mixed = tmp_path / "mixed.json"
    mixed.write_text(text(edge(callee="app/tools.py//Nope"), edge(site={**RELAY_SITE, "line": 11})), "utf-8")

    check = run(project, "overlay", "check", str(good))
    assert (check.returncode, check.stdout, check.stderr) == (0, f"{good}: 1 edges, 1 merged\n", "")
    check = run(project, "overlay", "check", str(mixed))
    assert check.returncode == 1
    assert check.stdout == (
        f"{mixed}: 2 edges, 0 merged\n"
        "  undefined-callee: edge 0: callee app/tools.py//Nope is no node of the graph\n"
        "  no-unresolved-site: edge 1: no unresolved site of app/main.py//relay at app/main.py:11:11\n"
    )

    plain = run(project, "reach", "pickle//loads", "--source", "app/main.py:relay", "--sources-only")
    assert (plain.returncode, plain.stdout) == (1, "pickle//loads: not-found\n")
    both = ("--overlay", str(good), "--overlay", str(mixed))
    found = run(project, "reach", "pickle//loads", "--source", "app/main.py:relay", "--sources-only", *both)
    assert found.returncode == 0
    assert found.stdout == (
        "pickle//loads: found\n"
        "  app/main.py//relay (query) -> app/main.py:10 [llm: model m1, prompt v2] -> app/tools.py:6 "
        "-> pickle//loads\n"
    )
    assert found.stderr.count("projectgraph: overlay ") == 2
    answer = json.loads(run(project, "reach", "pickle//loads", "--overlay", str(good), "--json").stdout)
    assert answer["overlay"] == {"files": [str(good)], "merged": 1, "diagnostics": []}

    callers = run(project, "callers", "app/tools.py:Job.run", "--overlay", str(good))
    # the llm edge is a caller; the getattr in dispatch stays an uncertain caller (the overlay removes none)
    assert callers.stdout == (
        "app/tools.py//Job//run: 1\n"
        "  app/main.py//relay  (calls, llm, low confidence, model m1, prompt v2 at app/main.py:10)\n"
        "  uncertain: 1 (dynamic 1)\n"
        "  ? app/main.py//dispatch at app/main.py:5  dynamic: getattr\n"
    )
    assert run(project, "callers", "app/tools.py:Job.run").stdout.startswith("app/tools.py//Job//run: 0\n")
    path = json.loads(
        run(project, "path", "app/main.py:relay", "pickle//loads", "--overlay", str(good), "--json").stdout
    )
    assert [(h["key"], h["kind"], h.get("via")) for h in path["path"]] == [
        ("app/main.py//relay", "start", None),
        ("app/tools.py//Job//run", "llm", "model m1, prompt v2"),
        ("pickle//loads", "direct", None),
    ]
    impact = json.loads(
        run(project, "impact", "app/tools.py:Job.run", "--overlay", str(good), "--json").stdout
    )
    assert [(i["key"], i["low_confidence"]) for i in impact["impacted"]] == [
        ("app/tools.py//Job//run", False),
        ("app/main.py//relay", True),
        ("app/main.py", True),
    ]
    # the project's own store is never written: without the overlay, no caller again
    assert run(project, "path", "app/main.py:relay", "pickle//loads").returncode == 1


def test_overlay_sites_lists_what_a_model_job_needs(project: Path) -> None:
    done = run(project, "overlay", "sites", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["version"] == 1
    assert answer["sites"] == [
        {
            "caller": "app/main.py//dispatch",
            "site": DISPATCH_SITE,
            "reason": "computed-name",
            "name": "handler",
            "text": "handler(payload)",
            "span": {"path": "app/main.py", "start_line": 4, "end_line": 6},
            "candidates": [],
            "candidates_total": 0,
        },
        {
            "caller": "app/main.py//relay",
            "site": RELAY_SITE,
            "reason": "unknown-receiver",
            "name": "execute",
            "text": "job.execute()",
            "span": {"path": "app/main.py", "start_line": 9, "end_line": 10},
            "candidates": [],
            "candidates_total": 0,
        },
    ]


def test_the_example_job_writes_an_overlay_that_merges(graph: Graph, tmp_path: Path) -> None:
    """examples/overlay_job.py reads the sites and writes an edge for a person's choice."""
    sites = tmp_path / "sites.json"
    sites.write_text(json.dumps({"version": 1, "sites": overlay.sites(graph)}), encoding="utf-8")
    choice = "app/main.py:10:11=app/tools.py//Job//run"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "overlay_job.py"), str(sites), "--choose", choice],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "overlay_job: 1 edges\n")
    written = overlay.loads(done.stdout, "job.json")
    [made] = written.edges
    assert (made.caller, made.callee, made.model, made.prompt_version) == (
        "app/main.py//relay",
        "app/tools.py//Job//run",
        "human",
        "rule-1",
    )
    assert made.input_hash.startswith("sha256:") and len(made.input_hash) == 71
    _merged, report = overlay.merge(graph, written)
    assert (len(report.merged), report.diagnostics) == (1, ())


# ---- the property: a merge never removes an uncertainty ---------------------------------------------


@cache
def _property_graph() -> Graph:
    return build_graph(APP, IndexOptions(workers=1, deps=NO_DEPS)).graph


def _drawn_edges(graph: Graph) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Overlay edges at the graph's unresolved sites or at made-up sites, to any node or none."""
    sites = [(u.caller, u.site) for u in graph.unresolved]
    callers = sorted({n.key for n in graph.nodes if n.path})
    keys = [*sorted(n.key for n in graph.nodes), "app/tools.py//Missing", "os//system"]
    made_up = st.tuples(
        st.sampled_from(callers),
        st.builds(Site, st.just("app/main.py"), st.integers(1, 16), st.integers(0, 12)),
    )
    slot = st.one_of(st.sampled_from(sites), made_up)

    def as_edge(pair: tuple[tuple[str, Site], str]) -> dict[str, Any]:
        (caller, site), callee = pair
        return edge(caller=caller, site=site.to_json(), callee=callee)

    return st.lists(st.tuples(slot, st.sampled_from(keys)).map(as_edge), max_size=8)


SOURCES = ((), (Source.parse("app/main.py:relay"),), (Source.parse("app/main.py:dispatch"),))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(SOURCES))
def test_merging_never_removes_an_uncertainty(data: st.DataObject, sources: tuple[Source, ...]) -> None:
    """Whatever an overlay holds, every target found stays found, no uncertain target becomes
    not-found, and a target not found keeps at least the uncertainties of each kind it had."""
    graph = _property_graph()
    edges = data.draw(_drawn_edges(graph))
    externals = [n.key for n in graph.nodes if n.kind == "external"]
    targets = tuple(Target.by_key(k) for k in (*externals, "os//system", "app//*", "yaml//*"))
    merged, report = overlay.merge(graph, overlay.loads(text(*edges), "drawn.json"))
    assert len(report.merged) + len(report.diagnostics) == len(edges)
    assert merged.unresolved == graph.unresolved and merged.dynamic == graph.dynamic
    mode = SOURCES_ONLY if sources else "sources-and-roots"
    before = reach(graph, Query(targets, sources, mode))
    after = reach(merged, Query(targets, sources, mode))
    for old, new in zip(before, after, strict=True):
        if old.status == "found":
            assert new.status == "found", old.target
        elif old.status == "uncertain":
            assert new.status in ("uncertain", "found"), old.target
        if new.status != "found":
            for kind, count in old.searched.get("uncertainties", {}).items():
                assert new.searched["uncertainties"].get(kind, 0) >= count, (old.target, kind)
