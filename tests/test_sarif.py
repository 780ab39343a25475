"""SARIF 2.1.0 logs (``projectgraph.sarif``), validated against the SARIF 2.1.0 JSON schema vendored
in ``tests/schemas`` (see its README for where it came from): a result per found or uncertain
target, the path as a code flow with a location per hop, the uncertainties as related locations.
The reach answers are real searches of the overlay fixture's graph; the command runs as a real
subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import FIXTURES
from projectgraph import overlay, sarif
from projectgraph.graph import Graph, Site
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Hop, Query, Source, Target, Uncertainty, reach
from projectgraph.units import NO_DEPS

SCHEMA_FILE = Path(__file__).parent / "schemas" / "sarif-2.1.0-rtm.5.json"
APP = FIXTURES / "overlay" / "app"
CLI = Path(sys.executable).with_name("projectgraph")
OVERLAY = {
    "version": 1,
    "edges": [
        {
            "caller": "app/main.py//relay",
            "site": {"path": "app/main.py", "line": 10, "column": 11},
            "callee": "app/tools.py//Job//run",
            "kind": "llm",
            "confidence": "low",
            "model": "m1",
            "prompt_version": "v2",
            "input_hash": "sha256:00",
            "raw_output": "Job.run",
        }
    ],
}


@cache
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def assert_valid(log: dict[str, Any]) -> None:
    errors = sorted(validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


@pytest.fixture(scope="module")
def graph() -> Graph:
    built = build_graph(APP, IndexOptions(workers=1, deps=NO_DEPS)).graph
    return overlay.merge(built, overlay.loads(json.dumps(OVERLAY)))[0]


def test_the_validator_rejects_what_is_not_sarif() -> None:
    """The schema is really applied: a wrong level, a missing version and a result without a message fail."""
    good = sarif.log([], sarif.REACH_RULES)
    assert_valid(good)
    for broken in (
        {**good, "version": "2.0.0"},
        {k: v for k, v in good.items() if k != "version"},
        {**good, "runs": [{**good["runs"][0], "results": [{"ruleId": "x", "level": "fatal"}]}]},
    ):
        assert list(validator().iter_errors(broken))


def test_reach_results_are_a_valid_log_with_code_flows_and_related_locations(graph: Graph) -> None:
    targets = tuple(Target.by_key(k) for k in ("pickle//loads", "yaml//load"))
    results = reach(graph, Query(targets))
    assert [r.status for r in results] == ["found", "uncertain"]
    log = sarif.log(sarif.reach_findings(results), sarif.REACH_RULES, graph)
    assert_valid(log)
    found, uncertain = log["runs"][0]["results"]

    assert (found["ruleId"], found["level"]) == ("projectgraph/reach/found", "warning")
    hops = found["codeFlows"][0]["threadFlows"][0]["locations"]
    assert len(hops) == len(results[0].path) == 4
    assert [h["location"]["message"]["text"] for h in hops] == [
        "app/main.py (main)",
        "app/main.py//relay (direct)",
        "app/tools.py//Job//run (llm, model m1, prompt v2)",
        "pickle//loads (direct)",
    ]
    assert hops[2]["location"]["physicalLocation"] == {
        "artifactLocation": {"uri": "app/main.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 10, "startColumn": 12},  # SARIF columns are 1-based
    }
    assert found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/tools.py"
    assert found["locations"][0]["physicalLocation"]["region"] == {"startLine": 6, "startColumn": 16}

    assert (uncertain["ruleId"], uncertain["level"]) == ("projectgraph/reach/uncertain", "note")
    related = uncertain["relatedLocations"]
    assert len(related) == len(results[1].uncertainties) >= 1
    assert [r["message"]["text"] for r in related] == [
        f"{u.kind}: {u.reason} (in {u.caller})" for u in results[1].uncertainties
    ]
    getattr_flag = next(r for r in related if "getattr" in r["message"]["text"])
    assert getattr_flag["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 15}
    assert "codeFlows" not in uncertain


def test_a_path_into_dependency_code_is_relative_to_its_unit() -> None:
    unit_site = Site("pypi:PyYAML@6.0.4//yaml/__init__.py", 81, 4)
    path = (
        Hop("app.py", "main", None, "high"),
        Hop("yaml//load", "direct", Site("app.py", 3, 0), "high"),
        Hop("pypi:PyYAML@6.0.4//yaml/__init__.py//load", "package", None, "high"),
        Hop("pypi:PyYAML@6.0.4//yaml/constructor.py//construct", "direct", unit_site, "high"),
    )
    cause = Uncertainty("root-fallback", "no root rule matched")
    finding = sarif.Finding("projectgraph/reach/found", "warning", "reached", path, (cause,), subject="x")
    log = sarif.log([finding], sarif.REACH_RULES)
    assert_valid(log)
    [result] = log["runs"][0]["results"]
    hops = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert hops[3]["location"]["physicalLocation"]["artifactLocation"] == {
        "uri": "yaml/__init__.py",
        "uriBaseId": "pypi:PyYAML@6.0.4",
    }
    assert hops[2]["location"]["logicalLocations"] == [
        {"fullyQualifiedName": "pypi:PyYAML@6.0.4//yaml/__init__.py//load"}
    ]
    assert result["relatedLocations"] == [
        {"id": 0, "message": {"text": "root-fallback: no root rule matched"}}
    ]


def test_reach_format_sarif_is_a_valid_deterministic_log(tmp_path: Path) -> None:
    root = tmp_path / "app"
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("README.md"))
    overlay_file = tmp_path / "o.json"
    overlay_file.write_text(json.dumps(OVERLAY), encoding="utf-8")
    command = [str(CLI), "reach", "pickle//loads", "yaml//load", "--project", str(root), "--format", "sarif"]
    first = subprocess.run(
        [*command, "--overlay", str(overlay_file)], capture_output=True, text=True, timeout=120
    )
    again = subprocess.run(
        [*command, "--overlay", str(overlay_file)], capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 3, first.stderr  # yaml//load is uncertain
    assert first.stdout == again.stdout
    log = json.loads(first.stdout)
    assert_valid(log)
    assert [r["properties"]["status"] for r in log["runs"][0]["results"]] == ["found", "uncertain"]
    plain = subprocess.run(
        [*command[:-2], "--sources-only", "--source", "app/main.py:relay", "--format", "sarif"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert plain.returncode == 1  # both not found from relay without the overlay: an empty log
    assert_valid(json.loads(plain.stdout))
    assert json.loads(plain.stdout)["runs"][0]["results"] == []


def test_sources_only_answers_name_the_query_root(graph: Graph) -> None:
    query = Query((Target.by_key("pickle//loads"),), (Source.parse("app/main.py:relay"),), SOURCES_ONLY)
    log = sarif.log(sarif.reach_findings(reach(graph, query)), sarif.REACH_RULES, graph)
    assert_valid(log)
    first = log["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"][0]["locations"][0]["location"]
    assert first["message"]["text"] == "app/main.py//relay (query)"
    assert first["physicalLocation"]["region"]["startLine"] == 9  # the definition of relay
