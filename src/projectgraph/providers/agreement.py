"""The agreement table between two providers' graphs, over canonical names.

Two engines name one definition differently (``app/x.py::Parser.parse``, ``app/x.py::Parser::parse``,
``app/x.py//Parser//parse``), so each row is first given a canonical name:

- a definition is ``PATH::A.B`` — the path, then its qualified name with ``.`` between the parts
  (``::``, ``#`` and ``//`` inside the name become ``.``);
- a file is its path alone (a node of kind ``file`` or ``module``, by its qualified name or path);
- anything else (a bare ``print``, ``os.getcwd``, a module of no file of the graph) is external.

An edge is canonical ``(relation, source, target)``; an ``imports`` edge is compared file to file
(the importing file, the imported file), whatever the two engines hang it on; a call of a class's
constructor (``C.__init__``, ``C.constructor``, ``C.<init>``) is a call of the class, as engines
differ in which one a ``C()`` names. When one engine names a definition differently (a function
nested in a method as ``C.inner`` rather than ``C.method.inner``), the second graph's name is
aligned to the first's when both have a definition of that short name in that file at that line
and the first has no definition of the second's name (``aligned`` counts them). Only edges between two
first-party names whose source file both engines parsed are compared; edges with an external end
are counted beside the table, never guessed into it. ``jaccard_confident`` compares only the edges
of confidence >= 0.7 on each side (the reference's ``field``, ``name``, ``wildcard`` and
``reference`` edges are low, ``cha`` medium), so a fan-out by name does not hide agreement. A
relation neither engine has is ``null``, not agreement. Nodes are compared per kind by canonical
name (``all`` ignores the kind).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from projectgraph.providers.validation import EDGE_KINDS, ProviderGraph

NODE_TABLE_KINDS = ("file", "class", "function", "method", "type", "test", "route")
_SEPARATORS = re.compile(r"::|//|#")
EXTERNAL = "ext:"
_CONSTRUCTORS = ("__init__", "constructor", "<init>")
CONFIDENT = 0.7


@dataclass(frozen=True)
class CanonicalGraph:
    """One provider's graph in canonical names."""

    files: frozenset[str]
    nodes: frozenset[tuple[str, str]]  # (kind, name)
    edges: frozenset[tuple[str, str, str]]  # (relation, source, target)
    anchors: frozenset[tuple[str, str, int, str]] = frozenset()  # (path, short name, line, name)
    weak: frozenset[tuple[str, str, str]] = frozenset()  # edges whose best confidence is below CONFIDENT

    def edges_of(self, relation: str, *, confident: bool = False) -> set[tuple[str, str]]:
        weak = self.weak if confident else frozenset()
        return {(s, t) for r, s, t in self.edges if r == relation and (r, s, t) not in weak}


def _node_kind(kind: str) -> str:
    return "file" if kind == "module" else kind


def canonical(graph: ProviderGraph) -> CanonicalGraph:
    """The graph's files, nodes and edges in canonical names."""
    files = {n.path for n in graph.nodes if n.kind in ("file", "module")}
    file_names = {n.qualified_name: n.path for n in graph.nodes if n.kind in ("file", "module")}
    names: dict[str, str] = dict(file_names)
    nodes: set[tuple[str, str]] = set()
    anchors: set[tuple[str, str, int, str]] = set()
    classes: set[str] = set()
    for node in graph.nodes:
        name = file_names.get(node.qualified_name) or _definition_name(node.qualified_name, node.path)
        names.setdefault(node.qualified_name, name)
        nodes.add((_node_kind(node.kind), name))
        if node.kind in ("class", "type"):
            classes.add(name)
        if node.kind not in ("file", "module") and node.line_start:
            anchors.add((node.path, name.rsplit("::", 1)[-1].rsplit(".", 1)[-1], node.line_start, name))

    def resolve(qualified: str) -> str:
        known = names.get(qualified)
        if known is not None:
            return known
        if qualified in files:
            return qualified
        path, sep, _rest = qualified.partition("::")
        if sep and path in files:
            return _definition_name(qualified, path)
        return EXTERNAL + qualified

    edges: set[tuple[str, str, str]] = set()
    strong: set[tuple[str, str, str]] = set()
    for edge in graph.edges:
        source, target = resolve(edge.source_qn), resolve(edge.target_qn)
        if edge.kind == "imports":
            source, target = _file_of(source), _file_of(target)
        elif edge.kind == "calls":
            owner, _dot, last = target.rpartition(".")
            if last in _CONSTRUCTORS and owner in classes:
                target = owner
        edges.add((edge.kind, source, target))
        if edge.confidence >= CONFIDENT:
            strong.add((edge.kind, source, target))
    return CanonicalGraph(
        frozenset(files), frozenset(nodes), frozenset(edges), frozenset(anchors), frozenset(edges - strong)
    )


def align(first: CanonicalGraph, second: CanonicalGraph) -> tuple[CanonicalGraph, int]:
    """``second`` with its names of the definitions ``first`` names otherwise, by file, name, line."""
    first_names = {n for _k, n in first.nodes}
    second_names = {n for _k, n in second.nodes}
    at: dict[tuple[str, str, int], list[str]] = {}
    for path, short, line, name in first.anchors:
        at.setdefault((path, short, line), []).append(name)
    renamed: dict[str, str] = {}
    for path, short, line, name in second.anchors:
        if name in first_names:
            continue
        candidates = at.get((path, short, line), [])
        if len(candidates) == 1 and candidates[0] not in second_names:
            renamed[name] = candidates[0]
    if not renamed:
        return second, 0

    def rename(name: str) -> str:
        return renamed.get(name, name)

    return (
        CanonicalGraph(
            second.files,
            frozenset((k, rename(n)) for k, n in second.nodes),
            frozenset((r, rename(s), rename(t)) for r, s, t in second.edges),
            frozenset((p, short, line, rename(n)) for p, short, line, n in second.anchors),
            frozenset((r, rename(s), rename(t)) for r, s, t in second.weak),
        ),
        len(renamed),
    )


def _definition_name(qualified: str, path: str) -> str:
    """``PATH::A.B`` from a qualified name that starts with its path (or with none)."""
    rest = qualified
    if path and qualified.startswith(path) and qualified[len(path) : len(path) + 2] in ("::", "//"):
        rest = qualified[len(path) + 2 :]
    elif "::" in qualified:
        rest = qualified.partition("::")[2]
    return f"{path}::{_SEPARATORS.sub('.', rest)}"


def _file_of(name: str) -> str:
    if name.startswith(EXTERNAL):
        return name
    return name.partition("::")[0]


def is_external(name: str) -> bool:
    return name.startswith(EXTERNAL)


def _source_file(name: str) -> str:
    return name.partition("::")[0]


def jaccard(left: set[Any], right: set[Any]) -> float | None:
    union = left | right
    return round(len(left & right) / len(union), 3) if union else None


def agreement(
    left_name: str,
    left: ProviderGraph,
    right_name: str,
    right: ProviderGraph,
    *,
    diff: str | None = None,
    limit: int = 50,
) -> dict[str, Any]:
    """The agreement table of two providers' graphs (and the edges of one relation in one only)."""
    a, b = canonical(left), canonical(right)
    b, aligned = align(a, b)
    common = a.files & b.files
    edge_rows = []
    diffs: dict[str, Any] = {}
    for relation in EDGE_KINDS:
        la, lb = _compared(a.edges_of(relation), common), _compared(b.edges_of(relation), common)
        edge_rows.append(
            {
                "relation": relation,
                left_name: len(la),
                right_name: len(lb),
                "both": len(la & lb),
                "jaccard": jaccard(la, lb),
                "jaccard_confident": jaccard(
                    _compared(a.edges_of(relation, confident=True), common),
                    _compared(b.edges_of(relation, confident=True), common),
                ),
                "external": {
                    left_name: _external_count(a.edges_of(relation), common),
                    right_name: _external_count(b.edges_of(relation), common),
                },
            }
        )
        if diff == relation:
            diffs = {
                "relation": relation,
                f"only_{left_name}": _listed(la - lb, limit),
                f"only_{right_name}": _listed(lb - la, limit),
                "limit": limit,
            }
    node_rows = []
    for kind in (*NODE_TABLE_KINDS, "all"):
        na = {n for k, n in a.nodes if (kind == "all" or k == kind) and _source_file(n) in common}
        nb = {n for k, n in b.nodes if (kind == "all" or k == kind) and _source_file(n) in common}
        if kind != "all" and not na and not nb:
            continue
        node_rows.append(
            {
                "kind": kind,
                left_name: len(na),
                right_name: len(nb),
                "both": len(na & nb),
                "jaccard": jaccard(na, nb),
            }
        )
    out: dict[str, Any] = {
        "providers": [left_name, right_name],
        "files": {left_name: len(a.files), right_name: len(b.files), "common": len(common)},
        "aligned": aligned,
        "edges": edge_rows,
        "nodes": node_rows,
    }
    if diff is not None:
        out["diff"] = diffs
    return out


def _compared(edges: Iterable[tuple[str, str]], common: frozenset[str]) -> set[tuple[str, str]]:
    return {
        (s, t)
        for s, t in edges
        if not is_external(s)
        and not is_external(t)
        and _source_file(s) in common
        and _source_file(t) in common
    }


def _external_count(edges: Iterable[tuple[str, str]], common: frozenset[str]) -> int:
    return sum(
        1
        for s, t in edges
        if (is_external(s) or is_external(t)) and (is_external(s) or _source_file(s) in common)
    )


def _listed(edges: set[tuple[str, str]], limit: int) -> dict[str, Any]:
    rows = sorted(edges)
    return {"count": len(rows), "edges": [{"source": s, "target": t} for s, t in rows[:limit]]}
