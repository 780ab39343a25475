"""What every language's resolver shares: resolved values, the edge collector, class hierarchies.

A resolver turns names into ``Value``s: a first-party definition, a module, an external key, or an
instance of a class (first-party or external). The ``GraphBuilder`` collects nodes, edges and
unresolved sites; ``finish`` sorts them, keeps one edge per (caller, callee, site) and applies
``max_edges``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from projectgraph import keys
from projectgraph.fileindex import Definition
from projectgraph.gcpause import paused_gc
from projectgraph.graph import RANK, Dynamic, Edge, Node, Site, Truncation, Unresolved, strongest
from projectgraph.manifests import Manifests


@dataclass(frozen=True)
class LinkContext:
    """What every language's linker gets besides the indexes and the builder."""

    manifests: Manifests
    max_hops: int
    test_paths: tuple[str, ...]
    sys_path: tuple[str, ...] = ()  # more Python import roots
    root: str | None = None  # the project folder (its control files are read: manifests.controls)
    # the unit of dependency code this link is of (a projectgraph.units.Unit; None for a project):
    # its control files are the manifests' (read from unit.root); a linker gives each definition
    # its external key
    unit: Any = None
    # the units (indexer.UnitIndex) beside the project, whose definitions a linker may read (Go's
    # result types) with their control files (``UnitIndex.controls``); None when the link has no units
    units: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Surface:
    """What the keys another package writes stand for in one unit (keys before the unit prefix): a
    language's ``unit_surface(root, package, indexes)`` gives it (``link.units``)."""

    externals: dict[str, str]  # a unit definition or module -> its external key (the shortest)
    targets: dict[str, tuple[str, ...]] = field(default_factory=dict)  # external key -> the unit's
    #          definitions and modules (none: the keys match ``externals``)
    forwards: dict[str, tuple[str, ...]] = field(default_factory=dict)  # external key -> other
    #          packages' external keys


class Linker(Protocol):
    """A language's resolver. A module of ``projectgraph.link`` that defines ``make_linker(indexes,
    builder, context)`` is a linker; ``build`` finds it by itself. Optional methods:
    ``resolve_entry_point(entry) -> key | None`` and ``handler_refs(index, methods) -> [key]``."""

    languages: tuple[str, ...]

    def link(self) -> None: ...


class Value(NamedTuple):
    """A resolved name. ``kind``: def | module | ext | inst | inst_ext | func_value."""

    kind: str
    key: str


@dataclass
class DefInfo:
    """A first-party definition and where it lives."""

    key: str
    path: str
    definition: Definition
    language: str
    # read on every name lookup: plain attributes, derived once from the definition
    qualname: str = field(init=False, repr=False, compare=False)
    is_class: bool = field(init=False, repr=False, compare=False)
    is_callable: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kind = self.definition.kind
        self.qualname = self.definition.qualname
        self.is_class = kind in ("class", "interface", "abstract_class")
        self.is_callable = kind in ("function", "method", "constructor", "getter", "setter")


def enclosing_key(defs: Mapping[str, DefInfo], path: str, scope: str) -> str:
    """The key of the innermost definition of a file (``defs``: qualname -> definition) that holds
    ``scope``, a dotted qualname; the file's own key (``path``) when none does: the caller of a
    call, a reference or an import made there."""
    current = scope
    while current:
        info = defs.get(current)
        if info is not None:
            return info.key
        current = current.rpartition(".")[0]
    return path


class GraphBuilder:
    """Collects what the resolvers find; nothing here knows a language."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self.unresolved: list[Unresolved] = []
        self.dynamic: list[Dynamic] = []
        self.truncations: list[Truncation] = []

    def node(self, node: Node) -> None:
        self.nodes.setdefault(node.key, node)

    def external(self, key: str, language: str) -> str:
        if key not in self.nodes:
            self.nodes[key] = Node(
                key=key, kind="external", language=language, external=key, name=keys.last_segment(key)
            )
        return key

    def edge(self, caller: str, callee: str, relation: str, kind: str, site: Site, via: str = "") -> None:
        if caller == callee and relation != "calls":
            return
        # Edge(...) without its Python-level __new__: hundreds of thousands per project
        self.edges.append(_new_tuple(Edge, (caller, callee, relation, kind, site, via)))

    def unresolved_site(self, site: Unresolved) -> None:
        self.unresolved.append(site)

    def finish(self, max_edges: int) -> tuple[list[Node], list[Edge], list[Unresolved], list[Truncation]]:
        with paused_gc():
            return self._finish(max_edges)

    def _finish(self, max_edges: int) -> tuple[list[Node], list[Edge], list[Unresolved], list[Truncation]]:
        edges = strongest(self.edges)
        if len(edges) > max_edges:
            self.truncations.append(
                Truncation("max_edges", f"{len(edges)} edges found, {max_edges} kept (max_edges)")
            )
            # keep the strongest edges first, then the rest in order, deterministically
            edges = sorted(sorted(edges, key=lambda e: -RANK[e.confidence])[:max_edges])
        return (
            sorted(self.nodes.values()),
            edges,
            sorted(set(self.unresolved)),
            sorted(set(self.truncations)),
        )


_new_tuple = tuple.__new__


def c3_linearize(cls: str, bases_of: Callable[[str], list[str]], limit: int = 64) -> list[str]:
    """The C3 method resolution order of ``cls``; a depth-first order when C3 fails."""
    cache: dict[str, list[str]] = {}

    def mro(name: str, depth: int) -> list[str]:
        if name in cache:
            return cache[name]
        if depth > limit:
            return [name]
        cache[name] = [name]  # a cycle in bases stops here
        bases = bases_of(name)
        sequences = [list(mro(base, depth + 1)) for base in bases] + [list(bases)]
        result = [name]
        while True:
            sequences = [seq for seq in sequences if seq]
            if not sequences:
                break
            for seq in sequences:
                head = seq[0]
                if not any(head in other[1:] for other in sequences):
                    break
            else:  # inconsistent hierarchy: fall back to depth-first, first occurrence
                rest = [n for seq in sequences for n in seq]
                result.extend(dict.fromkeys(n for n in rest if n not in result))
                break
            result.append(head)
            for seq in sequences:
                if seq and seq[0] == head:
                    del seq[0]
        cache[name] = result
        return result

    return mro(cls, 0)


def subclasses_closure(
    direct: dict[str, list[str]], cls: str, start: list[str] | None = None, limit: int = sys.maxsize
) -> list[str]:
    """Every transitive subclass of ``cls`` in a fixed order, from ``start`` (its direct subclasses in
    ``direct`` unless given) down ``direct``; the walk stops once ``limit`` are found."""
    seen: dict[str, None] = {}
    stack = list(reversed(direct.get(cls, []) if start is None else start))
    while stack and len(seen) < limit:
        sub = stack.pop()
        if sub in seen or sub == cls:
            continue
        seen[sub] = None
        stack.extend(reversed(direct.get(sub, [])))
    return list(seen)


def node_for(info: DefInfo) -> Node:
    d = info.definition
    return Node(
        key=info.key,
        kind=d.kind,
        path=info.path,
        line=d.line,
        end_line=d.end_line,
        language=info.language,
        name=d.name,
        qualname=d.qualname,
        signature=d.signature,
        doc=d.doc,
    )


def value_target(builder: GraphBuilder, value: Value | None, language: str) -> str | None:
    """The node a call or reference to ``value`` reaches: a definition's key, or the external node
    of an external value (added to ``builder``); None for any other value."""
    if value is None:
        return None
    if value.kind == "def":
        return value.key
    if value.kind == "ext":
        return builder.external(value.key, language)
    return None


def module_node(path: str, language: str, line_count: int = 0) -> Node:
    return Node(key=path, kind="module", path=path, line=1, end_line=line_count, language=language, name=path)


def unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
