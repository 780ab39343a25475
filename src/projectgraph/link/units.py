"""Units of dependency code in the graph: each unit linked as a project of its own, then merged.

``with_units(graph, units, max_edges)`` links each ``UnitIndex`` with ``build`` (no manifest, and
no roots: a unit's code runs only when a path enters it), prefixes its first-party keys, paths and
sites with the unit name (``yaml/__init__.py//load`` -> ``pypi:PyYAML@6.0.2//yaml/__init__.py//load``),
sets ``Node.unit`` and ``Node.external`` (the key another package writes for the definition:
``yaml//load``; ``yaml//main//load`` for ``yaml/main.py//load``; a name a package ``__init__``
re-exports, a node of its own with an ``export`` edge, gets the short key), and merges the units'
nodes, edges, unresolved sites and dynamic flags into the project's graph. External nodes are shared
by key, so a call of ``urllib3//PoolManager`` in requests and one in the project are one node.

A language whose keys are not a file's ``module//name`` (an npm package's exports map) gives a
unit's keys through a surface: its language's record names (``LanguageSpec.surface``, for its
``ecosystems``) a ``unit_surface(root, package, indexes)`` returning ``UnitSurface`` (each
definition's external key, each external key's definitions, and keys that forward to another
package's keys).

Then each external node gets a ``package`` edge to the unit definition that gives it: the node whose
``external`` is its key, else (a name under a prefix that a unit gives) the prefix's definition
followed through export edges, ``from m import *`` of a module and a class's bases, so
``requests//Session//get`` goes on to ``requests/sessions.py//Session//get``. An external node with
no such edge is a call into code the graph does not hold; the reach query scopes what it concerns
(``projectgraph.reach``).

A unit file that did not index is a file entry with ``unit`` set: it counts as budget only for a
search that enters its unit.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import posixpath
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import islice
from typing import Any, NamedTuple

from projectgraph import fileindex, keys
from projectgraph.fileindex import FileIndex
from projectgraph.gcpause import paused_gc
from projectgraph.graph import (
    NO_SITE,
    VERSION,
    Dynamic,
    Edge,
    FileEntry,
    Graph,
    Node,
    Site,
    Truncation,
    Unresolved,
    strongest,
)
from projectgraph.link.core import Surface as UnitSurface

MAX_HOPS = 10


def python_module_key(path: str) -> str | None:
    """The external key of a Python module file: ``yaml/__init__.py`` -> ``yaml``, ``a/b.py`` -> ``a//b``."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return keys.SEP.join(parts)


# The external key of a unit file's module, by language (a language with none has no external keys).
MODULE_KEYS: dict[str, Callable[[str], str | None]] = {"python": python_module_key}


def external_key(node: Node) -> str:
    """The key another package writes for a unit node (before its key is prefixed), or ""."""
    module_key = MODULE_KEYS.get(node.language)
    if module_key is None or not node.path:
        return ""
    module = module_key(node.path)
    if module is None:
        return ""
    rest = node.key[len(node.path) :]
    return module + rest if rest.startswith(keys.SEP) else module


def with_units(graph: Graph, units: Sequence[Any], max_edges: int = 0, store: Any | None = None) -> Graph:
    """The project graph with each unit (an ``indexer.UnitIndex``) linked, merged and joined; a
    store with ``get_unit_link``/``put_unit_link`` keeps each unit's linked part between processes."""
    if not units:
        return graph
    nodes: dict[str, Node] = {n.key: n for n in graph.nodes}
    edges: list[Edge] = list(graph.edges)
    own: list[Edge] = []  # the units' edges from their own keys: one per slot already, no caller shared
    unresolved: list[Unresolved] = list(graph.unresolved)
    dynamic: list[Dynamic] = list(graph.dynamic)
    files: list[FileEntry] = list(graph.files)
    stars: dict[str, list[str]] = {}  # a unit module's key -> the unit modules it star-imports
    truncations = list(graph.truncations)
    joins: list[Edge] = []  # package edges a unit's surface gives
    context = _digest(units)
    for made in units:
        if not made.indexes and not made.statuses:
            continue  # a unit of compiled code only: its import names are in the stats
        memo_key = (
            made.unit,
            _statuses_digest(made),
            max_edges,
            context,
            fileindex.VERSION,
            VERSION,
            _surface_version(made.unit.ecosystem),
        )
        part = _MEMO.pop(memo_key, None)
        if part is None:
            part = _stored_part(store, memo_key)
        if part is None:
            part = _link_unit(made, units, max_edges)
            _store_part(store, memo_key, part)
        _MEMO[memo_key] = part
        while len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
        for node in part.nodes:
            if node.path:
                nodes[node.key] = node
            else:
                nodes.setdefault(node.key, node)
        prefix = made.unit.name + keys.SEP
        for edge in part.edges:
            (own if edge.caller.startswith(prefix) else edges).append(edge)
        joins.extend(part.joins)
        unresolved.extend(part.unresolved)
        dynamic.extend(part.dynamic)
        files.extend(part.files)
        truncations.extend(part.truncations)
        stars.update(part.stars)

    package = [*_package_edges(nodes, [*own, *edges], stars), *joins]
    # a unit's edges from its own keys need no choosing (their callers are under its name, each
    # unit's link kept one edge per slot): the rest, from the project and from external keys, do
    all_edges = sorted([*own, *_strongest_over(len(graph.edges), edges, package)])
    given = unit_table(units)
    stats = dict(graph.stats)
    stats.update(
        nodes=len(nodes),
        edges=len(all_edges),
        unresolved=len(unresolved),
        units=given,
        unit_files=sum(1 for f in files if f.unit),
        package_edges=len(package),
        unit_incomplete_files=sum(
            1 for f in files if f.unit and f.status in ("failed", "missing", "truncated")
        ),
    )
    return Graph(
        nodes=tuple(nodes[k] for k in sorted(nodes)),
        edges=tuple(all_edges),
        roots=graph.roots,
        unresolved=tuple(sorted(set(unresolved))),
        dynamic=tuple(sorted(set(dynamic))),
        truncations=tuple(sorted(set(truncations))),
        files=tuple(sorted(files)),
        stats=stats,
    )


def _strongest_over(kept: int, edges: list[Edge], package: list[Edge]) -> list[Edge]:
    """``strongest([*edges, *package])`` where the first ``kept`` of ``edges`` are a graph's, one
    per (caller, callee, site) already (as ``build`` gives them): only the slots of the callers the
    other edges have are chosen again (each slot's edges in the same order, so the same one wins);
    on the Go standard library that left ~1 s of a sync's 20 in re-choosing 740k edges."""
    added = [*edges[kept:], *package]
    if not added:
        return edges
    callers = {edge[0] for edge in added}
    same: list[Edge] = []
    again: list[Edge] = []
    for edge in islice(edges, kept):
        (again if edge[0] in callers else same).append(edge)
    return [*same, *strongest([*again, *added])]


@cache
def _surface_makers() -> dict[str, Callable[[str, str, Sequence[FileIndex]], UnitSurface]]:
    """``unit_surface(root, package, indexes)`` of each language that names one
    (``LanguageSpec.surface``), by each of its ``ecosystems``: a language whose keys are not the
    plain ``module//name`` of a file (an npm package's exports map) gives its units' keys this way."""
    from projectgraph.languages import all_languages

    makers: dict[str, Callable[[str, str, Sequence[FileIndex]], UnitSurface]] = {}
    for spec in all_languages().values():
        if spec.surface:
            make = spec.hook("surface")
            for ecosystem in spec.ecosystems:
                makers.setdefault(ecosystem, make)
    return makers


def _surface_version(ecosystem: str) -> int:
    """``SURFACE_VERSION`` of the module that gives an ecosystem's surfaces (0: none): part of a unit
    link's memo key, so a change of surface rules, which changes no project graph, misses the store
    without a graph.VERSION bump."""
    make = _surface_makers().get(ecosystem)
    module = importlib.import_module(make.__module__) if make is not None else None
    return int(getattr(module, "SURFACE_VERSION", 0))


def _surface(made: Any) -> UnitSurface | None:
    make = _surface_makers().get(made.unit.ecosystem)
    return make(made.unit.root, made.unit.package, made.indexes) if make is not None else None


def _external_node(key: str, languages: Sequence[str]) -> Node:
    language = languages[0] if languages else ""
    return Node(key, "external", language=language, external=key, name=keys.last_segment(key))


def _join(external: str, target: str) -> Edge:
    return Edge(external, target, "calls", "package", NO_SITE)


MEMO_SIZE = 1024
"""Linked units this process keeps (a watcher, a server, an open Project links them once)."""


class _UnitPart(NamedTuple):
    """One unit linked, its keys under its name: what ``with_units`` merges."""

    nodes: tuple[Node, ...]  # its definitions and modules, then the external nodes it uses
    edges: tuple[Edge, ...]
    joins: tuple[Edge, ...]  # the package edges its surface gives
    unresolved: tuple[Unresolved, ...]
    dynamic: tuple[Dynamic, ...]
    files: tuple[FileEntry, ...]
    truncations: tuple[Truncation, ...]
    stars: dict[str, list[str]]


_MEMO: OrderedDict[tuple[Any, ...], _UnitPart] = OrderedDict()


def _statuses_digest(made: Any) -> str:
    # "cached" and "indexed" are one index of one content: the run that parsed a unit and the next
    # one, which the store serves, link it alike (else every unit links again on the first re-run)
    return hashlib.blake2b(
        repr(
            [
                (s.path, "indexed" if s.status == "cached" else s.status, s.hash, s.reason)
                for s in made.statuses
            ]
        ).encode(),
        digest_size=16,
    ).hexdigest()


def _digest(units: Sequence[Any]) -> str:
    """What every unit's link may read of the others (a Go unit reads its dependencies' types)."""
    return hashlib.blake2b(
        repr([(u.unit.name, _statuses_digest(u)) for u in units]).encode(), digest_size=16
    ).hexdigest()


def _store_key(memo_key: tuple[Any, ...]) -> str:
    return hashlib.blake2b(repr(memo_key).encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def _stored_part(store: Any | None, memo_key: tuple[Any, ...]) -> _UnitPart | None:
    """A unit's linked part from the store (None: not there, or not readable as one)."""
    read = getattr(store, "get_unit_link", None)
    text = read(_store_key(memo_key)) if read is not None else None
    if text is None:
        return None
    try:
        with paused_gc():  # hundreds of thousands of small records that all stay
            return _part_from_json(json.loads(text))
    except (ValueError, TypeError, KeyError, IndexError):  # a damaged row is a miss
        return None


def _store_part(store: Any | None, memo_key: tuple[Any, ...], part: _UnitPart) -> None:
    write = getattr(store, "put_unit_link", None)
    if write is not None:
        write(_store_key(memo_key), json.dumps(_part_to_json(part), separators=(",", ":")))


def _part_to_json(part: _UnitPart) -> dict[str, Any]:
    def edge(e: Edge) -> list[Any]:
        return [e.caller, e.callee, e.relation, e.kind, list(e.site), e.via]

    return {
        "nodes": [list(n) for n in part.nodes],
        "edges": [edge(e) for e in part.edges],
        "joins": [edge(e) for e in part.joins],
        "unresolved": [[u.caller, list(u.site), *u[2:]] for u in part.unresolved],
        "dynamic": [[d.caller, list(d.site), *d[2:]] for d in part.dynamic],
        # a word filter as hexadecimal: a decimal form of a large int is slow, and refused past 4300 digits
        "files": [[*f[:-1], format(f.words, "x") if f.words else ""] for f in part.files],
        "truncations": [list(t) for t in part.truncations],
        "stars": part.stars,
    }


def _part_from_json(data: dict[str, Any]) -> _UnitPart:
    # tuple.__new__ makes each record without its NamedTuple's Python __new__ (most of the time of a
    # read otherwise); the row lengths are checked first, so a row of another form is a miss
    new = tuple.__new__
    _check(data["nodes"], Node)
    _check(data["files"], FileEntry)
    _check(data["truncations"], Truncation)
    _check(data["edges"], Edge)
    _check(data["joins"], Edge)
    _check(data["unresolved"], Unresolved)
    _check(data["dynamic"], Dynamic)

    def edges(rows: list[list[Any]]) -> tuple[Edge, ...]:
        return tuple(new(Edge, (e[0], e[1], e[2], e[3], new(Site, e[4]), e[5])) for e in rows)

    return _UnitPart(
        nodes=tuple(new(Node, n) for n in data["nodes"]),
        edges=edges(data["edges"]),
        joins=edges(data["joins"]),
        unresolved=tuple(new(Unresolved, (u[0], new(Site, u[1]), *u[2:])) for u in data["unresolved"]),
        dynamic=tuple(new(Dynamic, (d[0], new(Site, d[1]), *d[2:])) for d in data["dynamic"]),
        files=tuple(new(FileEntry, (*f[:-1], int(f[-1], 16) if f[-1] else 0)) for f in data["files"]),
        truncations=tuple(new(Truncation, t) for t in data["truncations"]),
        stars={k: list(v) for k, v in data["stars"].items()},
    )


def _check(rows: list[list[Any]], record: Any) -> None:
    width = len(record._fields)
    if any(len(row) != width for row in rows):
        raise ValueError(f"a stored {record.__name__} row of another form")


def _link_unit(made: Any, units: Sequence[Any], max_edges: int) -> _UnitPart:
    """Link one unit as a project of its own and put its keys under its name."""
    from projectgraph.link import LinkOptions, build  # the package imports this module's caller

    name = made.unit.name
    linked = build(
        made.indexes,
        # the unit: where a linker reads its language manifests (go.mod, Cargo.toml); the units:
        # what it reads of its own dependencies (Go result types)
        LinkOptions(
            files=made.statuses, test_paths=(), max_edges=max_edges, unit=made.unit, units=tuple(units)
        ),
    )
    own_nodes, own_edges = _reexports(made.indexes, linked)
    outside = {n.key for n in own_nodes if not n.path}
    rename = _Renamer(name, outside)
    surface = _surface(made)
    externals = surface.externals if surface is not None else {}
    nodes: dict[str, Node] = {}
    for node in own_nodes:
        if not node.path:
            nodes.setdefault(node.key, node)
            continue
        key = rename.key(node.key)
        external = externals.get(node.key) if surface is not None else external_key(node)
        nodes[key] = node._replace(key=key, path=rename.path(node.path), unit=name, external=external or "")
    joins: list[Edge] = []
    if surface is not None:
        for external, targets in sorted(surface.targets.items()):
            nodes.setdefault(external, _external_node(external, made.unit.languages))
            joins.extend(_join(external, rename.key(t)) for t in targets if rename.key(t) in nodes)
        for external, others in sorted(surface.forwards.items()):
            nodes.setdefault(external, _external_node(external, made.unit.languages))
            for other in others:
                nodes.setdefault(other, _external_node(other, made.unit.languages))
                joins.append(_join(external, other))
    return _UnitPart(
        nodes=tuple(sorted(nodes.values(), key=lambda n: (not n.path, n.key))),
        edges=tuple(
            Edge(rename.key(e.caller), rename.key(e.callee), e.relation, e.kind, rename.site(e.site), e.via)
            for e in own_edges
        ),
        joins=tuple(joins),
        unresolved=tuple(
            u._replace(caller=rename.key(u.caller), site=rename.site(u.site)) for u in linked.unresolved
        ),
        dynamic=tuple(
            d._replace(caller=rename.key(d.caller), site=rename.site(d.site)) for d in linked.dynamic
        ),
        files=tuple(f._replace(path=rename.path(f.path), unit=name) for f in linked.files if f.path),
        truncations=tuple(t._replace(detail=f"{name}: {t.detail}") for t in linked.truncations),
        stars={
            rename.key(module): [rename.key(t) for t in imported]
            for module, imported in _star_imports(made.indexes).items()
        },
    )


class _Renamer:
    """A unit's first-party keys, paths and sites under its name; external keys stay as they are."""

    def __init__(self, unit: str, outside: set[str]) -> None:
        self.prefix = unit + keys.SEP
        self.outside = outside

    def key(self, key: str) -> str:
        return key if key in self.outside else self.prefix + key

    def path(self, path: str) -> str:
        return self.prefix + path

    def site(self, site: Site) -> Site:
        return Site(self.prefix + site.path, site.line, site.column) if site.path else site


def _reexports(indexes: Sequence[FileIndex], linked: Graph) -> tuple[list[Node], list[Edge]]:
    """The unit graph's nodes and edges, with a node for each name a package ``__init__.py``
    re-exports (``from .api import get`` in ``requests/__init__.py``: ``requests/__init__.py//get``)
    and an ``export`` edge to what it stands for, so the short key ``requests//get`` has a
    definition. Deeper packages first, so a chain of re-exports ends at the definition."""
    nodes = {n.key: n for n in linked.nodes}
    edges = list(linked.edges)
    paths = {i.path for i in indexes}
    inits = sorted(
        (i for i in indexes if i.language == "python" and i.path.endswith("__init__.py")),
        key=lambda i: (-i.path.count("/"), i.path),
    )
    for index in inits:
        for imp in index.imports:
            if imp.star or imp.name is None or imp.kind != "from":
                continue
            alias = imp.alias or imp.name
            key = f"{index.path}{keys.SEP}{alias}"
            if key in nodes or not alias.isidentifier():
                continue
            target = _import_target(index.path, imp.level, imp.module, imp.name, paths, nodes)
            if target is None or (target in nodes and nodes[target].kind == "module"):
                continue  # unknown, or a submodule: its own module key is the short key already
            if target not in nodes:  # a name of another package: its external node
                nodes[target] = Node(
                    target, "external", language="python", external=target, name=keys.last_segment(target)
                )
            kind = nodes[target].kind if nodes[target].kind != "external" else "function"
            nodes[key] = Node(key, kind, index.path, imp.line, imp.line, "python", name=alias, qualname=alias)
            edges.append(Edge(key, target, "references", "export", Site(index.path, imp.line, 0)))
    return sorted(nodes.values()), edges


def _import_target(
    path: str, level: int, module: str, name: str, paths: set[str], nodes: dict[str, Node]
) -> str | None:
    """What ``from <module> import <name>`` in the unit file ``path`` binds: a unit definition or
    module, or the external key of another package's name; None when it is not known."""
    if level:
        base = posixpath.dirname(path)
        for _ in range(level - 1):
            base = posixpath.dirname(base)
    else:
        base = ""
    stem = posixpath.join(base, *module.split(".")) if module else base
    for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
        if candidate in paths:
            definition = f"{candidate}{keys.SEP}{name}"
            if definition in nodes:
                return definition
            for submodule in (f"{stem}/{name}.py", f"{stem}/{name}/__init__.py"):
                if submodule in paths:
                    return submodule
            return None
    if level or not module:
        return None
    return keys.external(module, "python", name)


def _star_imports(indexes: Iterable[FileIndex]) -> dict[str, list[str]]:
    """Each Python module of a unit and the unit modules it ``from ... import *``s (unit-relative)."""
    paths = {i.path for i in indexes}
    found: dict[str, list[str]] = {}
    for index in indexes:
        if index.language != "python":
            continue
        for imp in index.imports:
            if not imp.star:
                continue
            if imp.level:
                base = posixpath.dirname(index.path)
                for _ in range(imp.level - 1):
                    base = posixpath.dirname(base)
            else:
                base = ""
            stem = posixpath.join(base, *imp.module.split(".")) if imp.module else base
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if candidate in paths:
                    found.setdefault(index.path, []).append(candidate)
                    break
    return found


def _package_edges(nodes: dict[str, Node], edges: list[Edge], stars: dict[str, list[str]]) -> list[Edge]:
    """A ``package`` edge from each external node to the unit definition(s) that give its key."""
    by_external: dict[str, list[str]] = {}
    for node in nodes.values():
        if node.unit and node.external:
            by_external.setdefault(node.external, []).append(node.key)
    if not by_external:
        return []
    exports: dict[str, list[str]] = {}
    bases: dict[str, list[str]] = {}
    for edge in edges:
        if edge.kind == "export":
            exports.setdefault(edge.caller, []).append(edge.callee)
        elif edge.relation == "extends" and edge.callee in nodes:
            bases.setdefault(edge.caller, []).append(edge.callee)

    def settle(key: str) -> list[str]:
        """A definition followed through its export edges (a re-exported name to what it stands for)."""
        seen = [key]
        frontier = [key]
        for _ in range(MAX_HOPS):
            nxt = [t for k in frontier for t in exports.get(k, ()) if t not in seen]
            if not nxt:
                break
            seen.extend(nxt)
            frontier = nxt
        return [k for k in seen if k not in exports] or [key]

    def member(owner: str, name: str, depth: int = 0) -> list[str]:
        """``name`` in a unit module or class: its own, a star-imported module's, a base's."""
        if depth > MAX_HOPS:
            return []
        direct = f"{owner}{keys.SEP}{name}"
        if direct in nodes:
            return [direct]
        found: list[str] = []
        for inner in [*stars.get(owner, ()), *bases.get(owner, ())]:
            for settled in settle(inner):
                found.extend(member(settled, name, depth + 1))
            if found:
                return found
        return found

    package: list[Edge] = []
    for node in list(nodes.values()):
        if node.kind != "external":
            continue
        targets = by_external.get(node.key)
        if targets is None:
            targets = _through_prefix(node.key, by_external, settle, member)
        for target in sorted(set(targets)):
            relation = "imports" if nodes[target].kind == "module" else "calls"
            package.append(Edge(node.key, target, relation, "package", NO_SITE))
    return package


def _through_prefix(
    key: str,
    by_external: dict[str, list[str]],
    settle: Callable[[str], list[str]],
    member: Callable[[str, str], list[str]],
) -> list[str]:
    """The unit definitions of an external key under the longest prefix a unit gives."""
    parts = key.split(keys.SEP)
    for end in range(len(parts) - 1, 0, -1):
        owners = by_external.get(keys.SEP.join(parts[:end]))
        if owners is None:
            continue
        return [m for owner in owners for m in members_along(owner, parts[end:], settle, member)]
    return []


def members_along(
    owner: str,
    names: Sequence[str],
    settle: Callable[[str], list[str]],
    member: Callable[[str, str], list[str]],
) -> list[str]:
    """What ``owner.name1.name2...`` names: each name looked up as a member of what the previous
    one settled to (the installed link's walk, and summary.join's of stored summaries)."""
    current = settle(owner)
    for name in names:
        current = [m for c in current for s in settle(c) for m in member(s, name)]
        if not current:
            break
    return current


def unit_table(units: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """``graph.stats["units"]``: each unit's import names and whether it is part of an environment
    (what the reach query scopes a call into a package with no definition by)."""
    return {
        u.unit.name: {"provides": list(u.unit.provides), "environment": bool(u.unit.environment)}
        for u in sorted(units, key=lambda u: u.unit.name)
    }


def unit_names(graph: Graph) -> list[str]:
    """The units of a graph, by name."""
    return sorted({n.unit for n in graph.nodes if n.unit})


__all__ = [
    "MODULE_KEYS",
    "UnitSurface",
    "external_key",
    "python_module_key",
    "unit_names",
    "unit_table",
    "with_units",
]
