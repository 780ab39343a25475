"""The generic tier: one fixture project per language, indexed and linked, against its gold.

Each language of the generic tier has ``tests/fixtures/<language>/basic/``: a few small files, a
one-line ``README.md`` saying what the case checks, and ``expected.json``:

- ``definitions``: every definition as ``[key, kind, doc]``;
- ``imports``: every import record as ``[path, line, kind, module, name, alias]``;
- ``import_edges``: ``[importer, imported file]``;
- ``calls``: every call edge as ``[caller, callee, kind]`` (``direct`` or ``name``);
- ``hierarchy``: ``[type, base, relation]``;
- ``unresolved``: every unresolved site as ``[caller, reason, name]``;
- ``roots``: the roots other than the fallback, ``[key, kind]``.

Every list is compared whole, so a change of the rules shows as a diff of the gold. Re-record with
``PROJECTGRAPH_BLESS=1 python -m pytest tests/test_generic_languages.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from projectgraph.indexer import IndexOptions
from projectgraph.languages import all_languages
from projectgraph.languages.base import parser
from projectgraph.languages.generic import GenericLanguage, doc_line
from projectgraph.link.generic import MAX_NAME_CANDIDATES, generic_languages
from projectgraph.pipeline import ProjectRun, build_graph

FIXTURES = Path(__file__).parent / "fixtures"
GENERIC = sorted(name for name, spec in all_languages().items() if spec.tier == "generic")
BLESS = os.environ.get("PROJECTGRAPH_BLESS") == "1"


@cache
def fixture_run(language: str) -> ProjectRun:
    return build_graph(FIXTURES / language / "basic", IndexOptions(workers=1))


def observed(language: str) -> dict[str, list[list[Any]]]:
    run = fixture_run(language)
    graph = run.graph
    definitions = sorted(
        [node.key, node.kind, node.doc] for node in graph.nodes if node.path and node.kind != "module"
    )
    imports = sorted(
        [index.path, imp.line, imp.kind, imp.module, imp.name, imp.alias]
        for index in run.index.indexes
        for imp in index.imports
    )
    edges = sorted(graph.edges)
    return {
        "definitions": definitions,
        "imports": imports,
        "import_edges": sorted({(e.caller, e.callee) for e in edges if e.relation == "imports"}),
        "calls": sorted({(e.caller, e.callee, e.kind) for e in edges if e.relation == "calls"}),
        "hierarchy": sorted(
            {(e.caller, e.callee, e.relation) for e in edges if e.relation in ("extends", "implements")}
        ),
        "unresolved": sorted({(u.caller, u.reason, u.name) for u in graph.unresolved}),
        "roots": sorted({(r.key, r.kind) for r in graph.roots if r.kind != "fallback"}),
    }


def _as_lists(data: dict[str, list[Any]]) -> dict[str, list[list[Any]]]:
    return {name: [list(row) for row in rows] for name, rows in data.items()}


def _dump(data: dict[str, list[list[Any]]]) -> str:
    """JSON with one row per line, so a re-recorded gold reads as a diff of rows."""
    sections = []
    for name, rows in data.items():
        body = ",\n".join("  " + json.dumps(row, ensure_ascii=False) for row in rows)
        sections.append(f' "{name}": [\n{body}\n ]' if rows else f' "{name}": []')
    return "{\n" + ",\n".join(sections) + "\n}\n"


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
def test_fixture(language: str) -> None:
    path = FIXTURES / language / "basic" / "expected.json"
    got = _as_lists(observed(language))
    if BLESS:
        path.write_text(_dump(got), encoding="utf-8")
    expected = json.loads(path.read_text(encoding="utf-8"))
    for section in got:
        assert got[section] == expected.get(section, []), f"{language}: {section} differs from expected.json"
    statuses = {f.path: f.status for f in fixture_run(language).graph.files}
    assert set(statuses.values()) == {"indexed"}, statuses


# languages whose functions sit in no other definition
_NO_CONTAINERS = {"asm": "labels only", "c": "structs hold no functions", "r": "functions are bound names"}


@pytest.mark.parametrize("language", GENERIC)
def test_fixture_shows_each_kind_of_resolution(language: str) -> None:
    """Every fixture has a confident edge, an unresolved site, and a definition with its container."""
    data = observed(language)
    assert any(kind == "direct" for _, _, kind in data["calls"]), language
    assert data["unresolved"], language
    nested = any(key.count("//") >= 2 for key, _, _ in data["definitions"])
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
