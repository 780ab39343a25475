"""The project graph: nodes, edges with kind and confidence, roots, unresolved sites, truncations.

Every list is sorted before it leaves the link stage, so one input gives one JSON form whatever the
order of the indexes or the worker count. An edge has a ``relation`` (what it means: calls,
imports, extends, implements, contains, references, tests, routes_to) and a ``kind`` (what made it,
with a confidence from ``CONFIDENCE``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from projectgraph import fileindex

VERSION = 2
"""projectgraph.VERSION: the link rules. Graph.stats["version"] carries it."""

CONFIDENCE: dict[str, str] = {
    "direct": "high",
    "import": "high",
    "export": "high",
    "member": "high",
    "assignment": "high",
    "package": "high",
    "extends": "high",
    "implements": "high",
    "contains": "high",
    "cha": "medium",
    "field": "low",
    "name": "low",
    "wildcard": "low",
    "reference": "low",
    "llm": "low",
}
RANK = {"high": 3, "medium": 2, "low": 1}

REACH_RELATIONS = frozenset({"calls", "imports", "references"})
IMPACT_RELATIONS = frozenset({"calls", "extends", "implements"})

UNRESOLVED_REASONS = (
    "computed-name",
    "dynamic-import",
    "unknown-receiver",
    "no-definition",
    "ambiguous",
    "limit",
    "interface-receiver",
    "trait-receiver",
    "no-dependency-source",
)


class Site(NamedTuple):
    path: str
    line: int
    column: int

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column}


NO_SITE = Site("", 0, 0)


class Node(NamedTuple):
    key: str
    kind: str  # module | function | method | constructor | class | external | ...
    path: str = ""
    line: int = 0
    end_line: int = 0
    language: str = ""
    unit: str = ""
    external: str = ""  # the external key this node stands for ("" for first party)
    name: str = ""
    qualname: str = ""
    signature: str = ""
    doc: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "language": self.language,
            "unit": self.unit,
            "external": self.external,
        }


class Edge(NamedTuple):
    caller: str
    callee: str
    relation: str
    kind: str
    site: Site = NO_SITE
    via: str = ""

    @property
    def confidence(self) -> str:
        return CONFIDENCE.get(self.kind, "low")

    def to_json(self) -> dict[str, Any]:
        return {
            "caller": self.caller,
            "callee": self.callee,
            "relation": self.relation,
            "kind": self.kind,
            "confidence": self.confidence,
            "site": self.site.to_json() if self.site != NO_SITE else None,
            "via": self.via,
        }


class Unresolved(NamedTuple):
    caller: str
    site: Site
    reason: str
    name: str = ""  # the method name (last segment) the site calls, when known
    text: str = ""
    prefix: str = ""  # a static key prefix the site is limited to (computed imports, packages)
    covered: bool = False  # values that can reach it are all reference edges (a parameter call)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "caller": self.caller,
            "site": self.site.to_json(),
            "reason": self.reason,
            "name": self.name,
            "text": self.text,
        }
        if self.prefix:
            out["prefix"] = self.prefix
        if self.covered:
            out["covered"] = True
        return out


class Root(NamedTuple):
    key: str
    kind: str  # main | manifest | framework | test | fallback | query
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "rule": self.rule}


class Truncation(NamedTuple):
    what: str  # max_edges | file
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "detail": self.detail}


class Dynamic(NamedTuple):
    """A dynamic feature in a node's code: eval, exec, computed getattr or import."""

    caller: str
    site: Site
    kind: str
    prefix: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"caller": self.caller, "site": self.site.to_json(), "kind": self.kind, "prefix": self.prefix}


class FileEntry(NamedTuple):
    path: str
    language: str
    status: str
    hash: str = ""
    reason: str = ""
    unit: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "language": self.language, "status": self.status, "hash": self.hash}


def strongest(edges: Iterable[Edge]) -> list[Edge]:
    """One edge per (caller, callee, site), the one of the highest confidence; sorted."""
    best: dict[tuple[str, str, Site], Edge] = {}
    for edge in edges:
        slot = (edge.caller, edge.callee, edge.site)
        kept = best.get(slot)
        if kept is None or (RANK[edge.confidence], _KIND_ORDER(edge)) > (
            RANK[kept.confidence],
            _KIND_ORDER(kept),
        ):
            best[slot] = edge
    return sorted(best.values())


def _KIND_ORDER(edge: Edge) -> tuple[int, str]:
    # a relation that is a call beats a reference at the same site; then a fixed name order
    return (1 if edge.relation == "calls" else 0, edge.kind)


@dataclass(frozen=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    roots: tuple[Root, ...] = ()
    unresolved: tuple[Unresolved, ...] = ()
    dynamic: tuple[Dynamic, ...] = ()
    truncations: tuple[Truncation, ...] = ()
    files: tuple[FileEntry, ...] = ()
    stats: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def node_by_key(self) -> dict[str, Node]:
        return {node.key: node for node in self.nodes}

    @cached_property
    def out_edges(self) -> dict[str, list[Edge]]:
        table: dict[str, list[Edge]] = {}
        for edge in self.edges:
            table.setdefault(edge.caller, []).append(edge)
        return table

    @cached_property
    def in_edges(self) -> dict[str, list[Edge]]:
        table: dict[str, list[Edge]] = {}
        for edge in self.edges:
            table.setdefault(edge.callee, []).append(edge)
        return table

    @cached_property
    def unresolved_by_caller(self) -> dict[str, list[Unresolved]]:
        table: dict[str, list[Unresolved]] = {}
        for site in self.unresolved:
            table.setdefault(site.caller, []).append(site)
        return table

    @cached_property
    def dynamic_by_caller(self) -> dict[str, list[Dynamic]]:
        table: dict[str, list[Dynamic]] = {}
        for flag in self.dynamic:
            table.setdefault(flag.caller, []).append(flag)
        return table

    def versions(self) -> dict[str, int]:
        return {"fileindex": fileindex.VERSION, "projectgraph": VERSION}

    def to_json(self) -> dict[str, Any]:
        return {
            "versions": self.versions(),
            "files": [f.to_json() for f in self.files],
            "nodes": [n.to_json() for n in self.nodes],
            "edges": [e.to_json() for e in self.edges],
            "roots": [r.to_json() for r in self.roots],
            "unresolved": [u.to_json() for u in self.unresolved],
            "dynamic": [d.to_json() for d in self.dynamic],
            "truncations": [t.to_json() for t in self.truncations],
            "stats": self.stats,
        }

    def dumps(self) -> str:
        """The graph's one JSON text (byte-identical for one input)."""
        return json.dumps(self.to_json(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
