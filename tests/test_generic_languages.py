"""The generic tier: one fixture project per language, indexed and linked.

Each language of the generic tier has ``tests/fixtures/<language>/basic/``, checked against its
``expected.json`` by ``test_fixtures.py`` like every fixture (its sections are complete: every
definition, call with its kind, import edge, hierarchy edge, unresolved site and root). The import
records of the index, which no graph holds, are ``index.golden.json``: ``[path, line, kind,
module, name, alias]`` each. Re-record them with ``PROJECTGRAPH_BLESS=1 python -m pytest
tests/test_generic_languages.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import fixture_cases as fc
from projectgraph.indexer import IndexOptions
from projectgraph.languages import all_languages
from projectgraph.languages.base import parser
from projectgraph.languages.generic import GenericLanguage, doc_line
from projectgraph.link.generic import MAX_NAME_CANDIDATES, generic_languages
from projectgraph.pipeline import ProjectRun, build_graph

FIXTURES = Path(__file__).parent / "fixtures"
GENERIC = sorted(name for name, spec in all_languages().items() if spec.tier == "generic")
BLESS = os.environ.get("PROJECTGRAPH_BLESS") == "1"


def fixture_run(language: str) -> ProjectRun:
    return fc.case_run(FIXTURES / language / "basic")


def import_records(language: str) -> list[list[Any]]:
    return sorted(
        [index.path, imp.line, imp.kind, imp.module, imp.name, imp.alias]
        for index in fixture_run(language).index.indexes
        for imp in index.imports
    )


def _dump(rows: list[list[Any]]) -> str:
    """JSON with one row per line, so a re-recorded golden reads as a diff of rows."""
    body = ",\n".join("  " + json.dumps(row, ensure_ascii=False) for row in rows)
    return '{\n "imports": [\n' + body + "\n ]\n}\n" if rows else '{\n "imports": []\n}\n'


def test_every_generic_language_has_a_fixture() -> None:
    assert GENERIC, "no language of the generic tier is registered"
    for language in GENERIC:
        case = FIXTURES / language / "basic"
        assert (case / "README.md").is_file(), f"{language}: no fixture README.md"
        assert (case / "README.md").read_text(encoding="utf-8").strip(), f"{language}: empty README.md"
        assert (case / "expected.json").is_file(), f"{language}: no expected.json"


def test_every_generic_spec_comes_from_its_folder() -> None:
    registry = generic_languages()
    assert sorted(registry) == GENERIC
    for name, language in registry.items():
        spec = all_languages()[name]
        assert spec == language.spec
        assert spec.extractor == f"projectgraph.languages.{name}:extract"
        assert Path(language.source).with_name("queries.scm").is_file()
        assert spec.edge_kinds and spec.extracts


@pytest.mark.parametrize("language", GENERIC)
def test_import_records(language: str) -> None:
    path = FIXTURES / language / "basic" / "index.golden.json"
    got = import_records(language)
    if BLESS:
        path.write_text(_dump(got), encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["imports"] == got, (
        f"{language}: import records differ"
    )
    statuses = {f.path: f.status for f in fixture_run(language).graph.files}
    assert set(statuses.values()) == {"indexed"}, statuses


# languages whose functions sit in no other definition
_NO_CONTAINERS = {"asm": "labels only", "c": "structs hold no functions", "r": "functions are bound names"}


@pytest.mark.parametrize("language", GENERIC)
def test_fixture_shows_each_kind_of_resolution(language: str) -> None:
    """Every fixture has a confident edge, an unresolved site, and a definition with its container."""
    graph = fixture_run(language).graph
    assert any(e.kind == "direct" for e in graph.edges if e.relation == "calls"), language
    assert graph.unresolved, language
    nested = any(n.key.count("//") >= 2 for n in graph.nodes if n.path and n.kind != "module")
    assert nested != (language in _NO_CONTAINERS), language


def test_no_name_edge_from_code_into_a_test_file() -> None:
    for language in GENERIC:
        graph = fixture_run(language).graph
        tests = {r.key.split("//")[0] for r in graph.roots if r.kind == "test"}
        for edge in graph.edges:
            caller_file, callee_file = edge.caller.split("//")[0], edge.callee.split("//")[0]
            if callee_file in tests and caller_file not in tests:
                pytest.fail(f"{language}: {edge.caller} -> {edge.callee} reaches into a test file")


def test_too_many_candidates_is_ambiguous(make_project: Any) -> None:
    files: dict[str, str | bytes] = {f"m{i}.c": f"int step(void) {{ return {i}; }}\n" for i in range(9)}
    files["main.c"] = "int main(void) { return step(); }\n"
    graph = build_graph(make_project(files), IndexOptions(workers=1)).graph
    assert len(files) - 1 > MAX_NAME_CANDIDATES
    assert [(u.reason, u.name) for u in graph.unresolved] == [("ambiguous", "step")]
    assert not [e for e in graph.edges if e.relation == "calls"]


def test_a_name_defined_in_one_other_file_is_a_name_edge(make_project: Any) -> None:
    project = make_project(
        {"a.rb": "def helper\n  1\nend\n", "b.rb": "def run\n  helper()\nend\n"},
    )
    graph = build_graph(project, IndexOptions(workers=1)).graph
    calls = [(e.caller, e.callee, e.kind, e.confidence) for e in graph.edges if e.relation == "calls"]
    assert calls == [("b.rb//run", "a.rb//helper", "name", "low")]


def test_doc_line_reads_every_comment_style() -> None:
    assert doc_line("/** Adds two numbers.\n * More. */") == "Adds two numbers."
    assert doc_line("/// <summary>A cart.</summary>") == "A cart."
    assert doc_line("#' Round to cents.") == "Round to cents."
    assert doc_line("--- A module.") == "A module."
    assert doc_line("% TOTAL sums.\n%   more") == "TOTAL sums."
    assert doc_line("; Entry point.") == "Entry point."
    assert doc_line("/*\n *\n * Late start.\n */") == "Late start."
    assert doc_line("// ----------") == ""


def test_signature_is_the_header_before_the_body() -> None:
    index = fixture_run("cpp").index.indexes
    signatures = {(i.path, d.qualname): d.signature for i in index for d in i.definitions}
    assert signatures[("shapes.cpp", "geo.Circle.area")] == "double Circle::area() const"
    assert signatures[("shapes.hpp", "geo.Circle")] == "class Circle : public Shape"


def test_a_query_pattern_needs_one_kind(tmp_path: Path) -> None:
    (tmp_path / "queries.scm").write_text("(identifier) @name\n", encoding="utf-8")
    language = GenericLanguage(
        name="broken", module="x", source=str(tmp_path / "x.py"), extensions=(".x",), grammar="lua"
    )
    with pytest.raises(ValueError, match="needs one kind capture"):
        language._compiled  # noqa: B018


def test_a_predicate_the_binding_ignores_is_refused(tmp_path: Path) -> None:
    (tmp_path / "queries.scm").write_text(
        '(function_call name: (identifier) @call.name (#not-any-of? @call.name "a")) @call\n',
        encoding="utf-8",
    )
    language = GenericLanguage(
        name="broken", module="x", source=str(tmp_path / "x.py"), extensions=(".x",), grammar="lua"
    )
    with pytest.raises(ValueError, match="ignores"):
        language._compiled  # noqa: B018


@pytest.mark.parametrize("language", GENERIC)
def test_broken_and_empty_sources_index_without_a_crash(language: str) -> None:
    """An empty file, each fixture file cut in half, and bytes that are no source all index."""
    spec = all_languages()[language]
    extract = spec.extract_function()
    sources = [b"", b'\x00\xff{{{ ((( "unterminated\n' * 20]
    for path in sorted((FIXTURES / language / "basic").rglob("*")):
        if path.is_file() and path.suffix in spec.extensions:
            data = path.read_bytes()
            sources.append(data[: len(data) // 2])
            sources.append(data[len(data) // 3 :])
    for data in sources:
        tree = parser(spec.grammar).parse(data)
        index = extract(tree, data, "x", "h")
        assert index.language == language
        for call in index.calls:
            assert call.line >= 1 and call.column >= 0
        for definition in index.definitions:
            assert 1 <= definition.line <= definition.end_line
