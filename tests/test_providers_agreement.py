"""Canonical names: two engines' names of one definition and one call compare equal."""

from __future__ import annotations

from projectgraph.providers.agreement import agreement
from projectgraph.providers.validation import ProviderEdge, ProviderGraph, ProviderNode


def node(kind: str, qualified: str, line: int | None = None) -> ProviderNode:
    path = qualified.partition("::")[0]
    return ProviderNode(kind, qualified.rsplit(".", 1)[-1], qualified, path, line, line, "", "python", "")


def graph(nodes: list[ProviderNode], edges: list[tuple[str, str, str]]) -> ProviderGraph:
    rows = tuple(ProviderEdge(k, s, t, 1.0) for k, s, t in edges)
    return ProviderGraph(tuple(nodes), rows, (), None, sum(n.kind == "file" for n in nodes))


def row(table: dict[str, object], relation: str) -> dict[str, object]:
    rows = table["edges"]
    assert isinstance(rows, list)
    return next(r for r in rows if r["relation"] == relation)


def test_separators_constructors_and_imports_are_canonical() -> None:
    left = graph(
        [
            node("file", "a.py"),
            node("file", "b.py"),
            node("class", "b.py::C", 1),
            node("method", "b.py::C.__init__", 2),
        ],
        [("calls", "a.py", "b.py::C.__init__"), ("imports", "a.py", "b.py::C"), ("calls", "a.py", "print")],
    )
    right = graph(
        [
            node("file", "a.py"),
            node("file", "b.py"),
            node("class", "b.py::C", 1),
            node("method", "b.py::C::__init__", 2),
        ],
        [("calls", "a.py", "b.py::C"), ("imports", "a.py", "b.py"), ("calls", "a.py", "builtins.print")],
    )
    table = agreement("one", left, "two", right)
    assert row(table, "calls") == {
        "relation": "calls",
        "one": 1,
        "two": 1,
        "both": 1,
        "jaccard": 1.0,
        "jaccard_confident": 1.0,
        "external": {"one": 1, "two": 1},  # the print calls: counted, not compared
    }
    assert row(table, "imports")["jaccard"] == 1.0
    assert {r["kind"]: r["jaccard"] for r in table["nodes"]} == {
        "file": 1.0,
        "class": 1.0,
        "method": 1.0,
        "all": 1.0,
    }


def test_a_nested_definition_named_otherwise_is_aligned_by_file_name_and_line() -> None:
    left = graph(
        [
            node("file", "a.py"),
            node("class", "a.py::C", 1),
            node("method", "a.py::C.m", 2),
            node("function", "a.py::C.m.inner", 3),
        ],
        [("calls", "a.py::C.m", "a.py::C.m.inner")],
    )
    right = graph(
        [
            node("file", "a.py"),
            node("class", "a.py::C", 1),
            node("method", "a.py::C.m", 2),
            node("method", "a.py::C.inner", 3),
        ],
        [("calls", "a.py::C.m", "a.py::C.inner")],
    )
    table = agreement("one", left, "two", right)
    assert table["aligned"] == 1
    assert row(table, "calls")["jaccard"] == 1.0
    kinds = {r["kind"]: (r["one"], r["two"], r["both"]) for r in table["nodes"]}
    assert kinds["all"] == (4, 4, 4)
    assert kinds["function"] == (1, 0, 0) and kinds["method"] == (1, 2, 1)  # the kinds still differ


def test_a_different_line_is_not_aligned_and_an_absent_relation_is_not_agreement() -> None:
    left = graph([node("file", "a.py"), node("function", "a.py::f.inner", 3)], [])
    right = graph([node("file", "a.py"), node("function", "a.py::inner", 9)], [])
    table = agreement("one", left, "two", right)
    assert table["aligned"] == 0
    assert next(r for r in table["nodes"] if r["kind"] == "all")["jaccard"] == 0.333
    assert row(table, "extends")["jaccard"] is None


def test_the_confident_column_leaves_out_low_confidence_edges() -> None:
    nodes = [node("file", "a.py"), node("function", "a.py::f", 1), node("function", "a.py::g", 2)]
    left = ProviderGraph(
        tuple(nodes),
        (ProviderEdge("calls", "a.py::f", "a.py::g", 1.0), ProviderEdge("calls", "a.py::g", "a.py::f", 0.4)),
        (),
        None,
        1,
    )
    right = graph(nodes, [("calls", "a.py::f", "a.py::g")])
    calls = row(agreement("one", left, "two", right), "calls")
    assert (calls["jaccard"], calls["jaccard_confident"]) == (0.5, 1.0)
