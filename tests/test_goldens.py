"""Golden graphs of the gold fixtures, and the rule that a golden changes only with a version.

``tests/fixtures/<language>/<case>/graph.golden.json`` is the fixture's whole JSON graph
(``Graph.dumps()``), for every case of every language (``fixture_cases.discover``).
``PROJECTGRAPH_BLESS=1`` records them; otherwise each graph must equal its golden byte for byte.
``tests/fixtures/golden-versions.json`` records, under the versions of the stages that make a graph
(``fileindex.VERSION``, ``graph.VERSION``, ``reach.VERSION``), the hash of each golden and of the
inputs it was made from (the fixture's files, by content). A golden that changes while its inputs
and the versions stay the same is a rule change without a version bump: it fails, blessed or not,
until the version that owns the rule is bumped. A new case needs no bump: it has no hash yet.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import fixture_cases as fc
from projectgraph.fileindex import VERSION as FILEINDEX_VERSION
from projectgraph.graph import VERSION as GRAPH_VERSION
from projectgraph.graph import Graph
from projectgraph.reach import VERSION as REACH_VERSION

BLESS = os.environ.get("PROJECTGRAPH_BLESS") == "1"
VERSIONS_FILE = fc.FIXTURES / "golden-versions.json"
GOLDEN = "graph.golden.json"
GOLD = {case.id: case for case in fc.discover()}
# every fixture as "<language>/<case>", the name golden-versions.json records it under
CASES = sorted(GOLD)


def case_graph(name: str) -> Graph:
    return fc.case_graph(GOLD[name])


def folder(name: str) -> Path:
    return GOLD[name].folder


def unexpected_misses(name: str) -> list[str]:
    """What the graph misses of the gold that no known gap explains."""
    return fc.check_calls(GOLD[name])


def versions_key() -> str:
    return f"fileindex={FILEINDEX_VERSION} projectgraph={GRAPH_VERSION} reach={REACH_VERSION}"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def input_digest(g: Graph) -> str:
    """The inputs of a graph: each file's path and content hash."""
    return digest("\n".join(f"{f.path} {f.language} {f.hash}" for f in g.files))


def load_versions() -> dict[str, dict[str, dict[str, str]]]:
    if not VERSIONS_FILE.is_file():
        return {}
    data: dict[str, dict[str, dict[str, str]]] = json.loads(VERSIONS_FILE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("case", CASES)
def test_golden_graph(case: str) -> None:
    text = case_graph(case).dumps()
    path = folder(case) / GOLDEN
    if BLESS:
        # never bless a graph that misses gold edges (a broken build would record an empty one)
        missing = unexpected_misses(case)
        assert not missing, f"{case}: not blessed, the graph misses {missing}"
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden for {case}: run with PROJECTGRAPH_BLESS=1 and review the diff"
    assert path.read_text(encoding="utf-8") == text, (
        f"{case}: the graph differs from {GOLDEN}; if the change is meant, bless it "
        "(PROJECTGRAPH_BLESS=1), bump the version that owns the rule, and review the diff"
    )


def test_goldens_hold_no_absolute_path_or_timing() -> None:
    root = str(fc.FIXTURES.resolve().parent.parent)
    for case in CASES:
        text = case_graph(case).dumps()
        assert root not in text and str(Path.home()) not in text
        for word in ("seconds", "elapsed", "duration", "time"):
            assert f'"{word}"' not in text


def test_golden_changes_come_with_a_version_bump() -> None:
    """The hash of each golden is recorded per versions; a golden that changed under the same
    versions and the same inputs means a rule changed without its version being bumped."""
    recorded = load_versions()
    current = recorded.get(versions_key(), {})
    problems = []
    updated = dict(current)
    for case in CASES:
        g = case_graph(case)
        entry = {"input": input_digest(g), "golden": digest(g.dumps())}
        name = case
        old = current.get(name)
        if old == entry:
            continue
        if old is not None and old["input"] == entry["input"]:
            problems.append(
                f"{name}: the golden changed under {versions_key()} with the same inputs: bump "
                "fileindex.VERSION, graph.VERSION or reach.VERSION (the one that owns the rule)"
            )
        elif not BLESS:
            problems.append(f"{name}: no golden hash for these inputs: bless with PROJECTGRAPH_BLESS=1")
        updated[name] = entry
    stale = set(current) - set(CASES)
    for name in stale:
        updated.pop(name)
    if BLESS and not problems and (updated != current or stale):
        recorded[versions_key()] = dict(sorted(updated.items()))
        text = json.dumps(dict(sorted(recorded.items())), indent=1) + "\n"
        VERSIONS_FILE.write_text(text, encoding="utf-8")
    assert problems == []
