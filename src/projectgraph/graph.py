"""The project graph: nodes, edges with kind and confidence, roots, unresolved sites, truncations.

Every list is sorted before it leaves the link stage, so one input gives one JSON form whatever the
order of the indexes or the worker count. An edge has a ``relation`` (what it means: calls,
imports, extends, implements, contains, references, tests, routes_to) and a ``kind`` (what made it,
with a confidence from ``CONFIDENCE``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from json.encoder import encode_basestring as _encode_string
from operator import itemgetter
from typing import Any, NamedTuple

from projectgraph import fileindex
from projectgraph.gcpause import paused_gc

VERSION = 23
"""projectgraph.VERSION: the link rules. Graph.stats["version"] carries it."""

# the kinds of the edges framework resolvers make (languages/<lang>/frameworks): a call the
# framework makes to what the code registered with it, resolved by the linker's own name rules
FRAMEWORK_KINDS = (
    "django-url",
    "django-view",
    "django-include",
    "django-signal",
    "django-command",
    "django-admin",
    "flask-route",
    "flask-hook",
    "flask-view",
    "fastapi-route",
    "fastapi-hook",
    "fastapi-depends",
    "celery-task",
    "click-command",
    "typer-command",
    "pytest-fixture",
    "express-route",
    "express-middleware",
    "koa-route",
    "koa-middleware",
    "fastify-route",
    "fastify-middleware",
    "hono-route",
    "hono-middleware",
    "nestjs-module",
    "nestjs-route",
    "vue-component",
    "svelte-component",
    "tauri-handler",
    "tauri-invoke",
    "spring-inject",
)

CONFIDENCE: dict[str, str] = {
    **dict.fromkeys(FRAMEWORK_KINDS, "high"),
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
    "returned": "medium",  # Python: a function a call returned, called (a decorator factory's)
    "container": "medium",  # Python: an item of a literal tuple or list a for loop binds, called
    "protocol": "high",  # Python: what with, for and raise call with no call written
    "property": "high",  # Python: a property's getter, run by reading the attribute
    "argument": "medium",  # Python: a method of an instance a call site passes to the parameter
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
    words: int = 0  # the index's word filter (fileindex.FileIndex.words), 0 when not computed

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "language": self.language, "status": self.status, "hash": self.hash}


def strongest(edges: Iterable[Edge]) -> list[Edge]:
    """One edge per (caller, callee, site), the one of the highest confidence; sorted.

    Of two edges at one slot the first stays unless the other ranks higher: its confidence, then
    a relation that is a call over a reference, then a fixed kind order."""
    best: dict[tuple[str, str, Site], Edge] = {}
    for edge in edges:
        slot = (edge[0], edge[1], edge[4])
        kept = best.get(slot)
        if kept is None or (kept != edge and _strength(edge[2], edge[3]) > _strength(kept[2], kept[3])):
            best[slot] = edge
    return sorted(best.values())


@cache
def _strength(relation: str, kind: str) -> tuple[int, int, str]:
    return (RANK[CONFIDENCE.get(kind, "low")], 1 if relation == "calls" else 0, kind)


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
    def key_index(self) -> list[tuple[str, str]]:
        """(key or external key, node key) of every node, sorted: a target's nodes are one range."""
        index = [(node.key, node.key) for node in self.nodes]
        index.extend(
            (node.external, node.key) for node in self.nodes if node.external and node.external != node.key
        )
        index.sort()
        return index

    @cached_property
    def out_edges(self) -> dict[str, list[Edge]]:
        return _grouped(self.edges, by_callee=False)

    @cached_property
    def in_edges(self) -> dict[str, list[Edge]]:
        return _grouped(self.edges, by_callee=True)

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
        with paused_gc():
            return json_text(self.to_json()) + "\n"


UNPLACED_FILE = "unplaced-file"  # the Dynamic kind of a project file no linker placed in the graph
_LINKED_STATUSES = ("indexed", "cached")


def placing_every_file(graph: Graph) -> Graph:
    """The graph with every indexed project file in it: a file that indexed but that no linker
    placed (no module node: a linker could not name it) gets its module node and a dynamic flag
    that concerns every target, since what it calls is not in the graph. This is a safety net: a
    file leaving the graph silently would make reach answer not-found where it does not know.

    And only roots of nodes: a rule can match a definition no linker makes a node of (a class of a
    .d.ts file in a test folder: a declaration stands for no code); the store keeps a root by its
    node, so such a root would be in the graph in memory and not in the stored one."""
    keys = graph.node_by_key
    lost = [
        entry
        for entry in graph.files
        if entry.status in _LINKED_STATUSES and not entry.unit and entry.path not in keys
    ]
    # (every root is of a node, as a rule: that is one pass in C, the roots of Django are 32,000)
    if not all(map(keys.__contains__, map(itemgetter(0), graph.roots))):
        placed = {e.path for e in lost}
        roots = tuple(r for r in graph.roots if r.key in keys or r.key in placed)
        if len(roots) != len(graph.roots):
            graph = replace(graph, roots=roots)
    if not lost:
        return graph
    added = [
        Node(key=e.path, kind="module", path=e.path, line=1, language=e.language, name=e.path) for e in lost
    ]
    flags = [Dynamic(e.path, Site(e.path, 1, 0), UNPLACED_FILE) for e in lost]
    nodes = tuple(sorted((*graph.nodes, *added), key=lambda n: n.key))
    stats = {**graph.stats, "nodes": len(nodes), "unplaced_files": [e.path for e in lost]}
    return replace(graph, nodes=nodes, dynamic=tuple(sorted((*graph.dynamic, *flags))), stats=stats)


def _grouped(edges: Iterable[Edge], by_callee: bool) -> dict[str, list[Edge]]:
    """The edges by their caller (or callee), each list in edge order."""
    table: dict[str, list[Edge]] = {}
    with paused_gc():
        for edge in edges:
            key = edge.callee if by_callee else edge.caller
            bucket = table.get(key)
            if bucket is None:
                table[key] = [edge]
            else:
                bucket.append(edge)
    return table


def json_text(value: Any) -> str:
    """``json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)``, the same text, faster.

    With an indent, the standard library encodes in pure Python, one generator per container (on
    Django's graph, 150 MB, most of the time of a sync). Here each dict shape gets its sorted keys
    and their indented prefixes once, and strings go through the standard library's own C escaper.
    A value it does not know (a key that is not a string, another type) goes to ``json.dumps``."""
    try:
        return _JsonText().value(value, 0)
    except _UnusualJson:
        return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


class _UnusualJson(Exception):
    pass


class _JsonText:
    def __init__(self) -> None:
        self.pads: dict[int, str] = {}
        self.layouts: dict[tuple[tuple[Any, ...], int], tuple[list[tuple[str, str]], str]] = {}

    def pad(self, level: int) -> str:
        pad = self.pads.get(level)
        if pad is None:
            pad = self.pads[level] = "\n" + " " * level
        return pad

    def value(self, o: Any, level: int) -> str:
        kind = type(o)
        if kind is str:
            return _encode_string(o)
        if o is None:
            return "null"
        if o is True:
            return "true"
        if o is False:
            return "false"
        if kind is int:
            return int.__repr__(o)
        if kind is dict:
            return self.mapping(o, level)
        if kind is list or kind is tuple:
            return self.sequence(o, level)
        if kind is float:
            return _float_text(o)
        raise _UnusualJson

    def mapping(self, o: dict[Any, Any], level: int) -> str:
        if not o:
            return "{}"
        shape = tuple(o)
        layout = self.layouts.get((shape, level))
        if layout is None:
            if any(type(key) is not str for key in shape):
                raise _UnusualJson
            inner = self.pad(level + 1)
            pairs = [
                (key, ("{" if i == 0 else ",") + inner + _encode_string(key) + ": ")
                for i, key in enumerate(sorted(shape))
            ]
            layout = self.layouts[(shape, level)] = (pairs, self.pad(level) + "}")
        pairs, close = layout
        parts: list[str] = []
        append = parts.append
        deeper = level + 1
        for key, prefix in pairs:
            item = o[key]
            append(prefix)
            append(_encode_string(item) if item.__class__ is str else self.value(item, deeper))
        append(close)
        return "".join(parts)

    def sequence(self, o: list[Any] | tuple[Any, ...], level: int) -> str:
        if not o:
            return "[]"
        inner = self.pad(level + 1)
        items = [self.value(item, level + 1) for item in o]
        return "[" + inner + ("," + inner).join(items) + self.pad(level) + "]"


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value == math.inf:
        return "Infinity"
    if value == -math.inf:
        return "-Infinity"
    return float.__repr__(value)
