"""Reach: does code that runs reach a target? One breadth-first search from the roots (and the
query's sources) serves every target of a query.

Statuses: ``found`` (with the shortest path), ``not-found`` (no path and no uncertainty concerns the
target), ``uncertain`` (no path, and an uncertainty concerns it), ``no-such-target`` (no node has
the key and no uncertainty could name it). The honesty rule: never not-found when the tool does
not know. Uncertainties are scoped as the seed says: a call with an unknown receiver and a method
name concerns the targets of that last segment and what any definition of that name reaches; a
computed import with a static prefix concerns the targets under it; the rest concern every target.

Dependency code: the search walks ``package`` edges from an external key into the unit definition
that gives it, and a target matches a unit definition whose external key it is (and what a
re-export stands for). A reached external key with no package edge is code the graph does not hold:
a ``no-dependency-source`` uncertainty scoped by ``Packages.scope`` (the standard library's targets,
the names of a unit and of the units its code calls, or every target but the project's own; none
for a leaf such as a builtin). A unit file that did not index is budget only for a search that
entered its unit.
"""

from __future__ import annotations

import time
import weakref
from bisect import bisect_left
from collections import deque
from collections.abc import Collection, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from projectgraph import keys
from projectgraph.fileindex import filter_may_hold
from projectgraph.graph import CONFIDENCE, UNPLACED_FILE, Dynamic, Edge, Graph, Node, Site, Unresolved
from projectgraph.keys import KeyError_
from projectgraph.languages import all_languages
from projectgraph.languages.base import NeverCalled
from projectgraph.units import standard

VERSION = 6
"""reach.VERSION: the search rules. ``Searched.version`` carries it."""

WALKED = frozenset({"calls", "imports", "references"})
MAX_LISTED = 3
SOURCES_AND_ROOTS = "sources-and-roots"
SOURCES_ONLY = "sources-only"


class ReachError(ValueError):
    """A query that cannot be answered as asked (unknown source, bad mode)."""


class UnknownSourceError(ReachError):
    """A source that names no first-party node of the graph."""


@dataclass(frozen=True, order=True)
class Target:
    key: str

    @staticmethod
    def by_key(key: str) -> Target:
        return Target(keys.validate_target(key))

    @staticmethod
    def by_import(language: str, module: str, *names: str) -> Target:
        if not module:
            raise KeyError_("a target by import needs a module")
        return Target(keys.validate_target(keys.external(module, language, *names)))

    def matches(self, key: str) -> bool:
        return keys.matches(self.key, key)

    @property
    def last(self) -> str:
        return keys.last_segment(self.key)


def TargetByKey(key: str) -> Target:
    return Target.by_key(key)


def TargetByImport(language: str, module: str, *names: str) -> Target:
    return Target.by_import(language, module, *names)


@dataclass(frozen=True, order=True)
class Source:
    key: str

    @staticmethod
    def by_key(key: str) -> Source:
        return Source(key)

    @staticmethod
    def in_file(path: str, qualname: str = "") -> Source:
        return Source(keys.first_party(path, qualname))

    @staticmethod
    def parse(text: str) -> Source:
        """``path:Qualified.name``, ``path`` (the module top level) or a key."""
        if "//" not in text and ":" in text:
            path, _, qualname = text.rpartition(":")
            return Source.in_file(path, qualname)
        return Source(text)


@dataclass(frozen=True)
class Query:
    targets: tuple[Target, ...]
    sources: tuple[Source, ...] = ()
    mode: str = SOURCES_AND_ROOTS
    max_depth: int = 0  # 0: no cap
    deadline: float | None = None  # seconds
    unit_sources: bool = False  # a source may be a definition of a unit (a search of a unit's graph)


@dataclass(frozen=True)
class Hop:
    key: str
    kind: str  # the edge kind that reached this node, or the root kind for the first hop
    site: Site | None
    confidence: str = ""
    via: str = ""  # an overlay edge's resolver model and prompt

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "kind": self.kind,
            "confidence": self.confidence,
            "site": self.site.to_json() if self.site else None,
        }
        if self.via:
            out["via"] = self.via
        return out


@dataclass(frozen=True)
class Uncertainty:
    kind: str  # unresolved-call | dynamic-flag | budget | root-fallback
    reason: str
    site: Site | None = None
    name: str = ""
    caller: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "site": self.site.to_json() if self.site else None,
            "reason": self.reason,
            "name": self.name,
            "caller": self.caller,
        }


@dataclass(frozen=True)
class ReachResult:
    target: str
    status: str
    path: tuple[Hop, ...] = ()
    sites: tuple[Site, ...] = ()
    uncertainties: tuple[Uncertainty, ...] = ()
    searched: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "status": self.status,
            "path": [hop.to_json() for hop in self.path],
            "sites": [site.to_json() for site in self.sites],
            "uncertainties": [u.to_json() for u in self.uncertainties],
            "searched": self.searched,
        }

    def __str__(self) -> str:
        lines = [f"{self.target}: {self.status}"]
        if self.path:
            lines.append("  " + path_string(self.path))
        for u in self.uncertainties:
            where = f"{u.site.path}:{u.site.line}" if u.site else ""
            lines.append(f"  {u.kind}: {u.reason} {where}".rstrip())
        return "\n".join(lines)


def path_string(path: Sequence[Hop]) -> str:
    """``main.py:3 -> handlers.py:12 -> yaml//load``: each hop where its call is; weak hops named."""
    parts = []
    for index, hop in enumerate(path):
        nxt = path[index + 1] if index + 1 < len(path) else None
        text = f"{nxt.site.path}:{nxt.site.line}" if nxt is not None and nxt.site is not None else hop.key
        if index == 0 and hop.kind == "query":
            text = f"{hop.key} (query)" if nxt is None else f"{hop.key} (query) -> {text}"
        if nxt is not None and nxt.confidence in ("low", "medium"):
            text += f" [{nxt.kind}: {nxt.via}]" if nxt.via else f" [{nxt.kind}]"
        parts.append(text)
    return " -> ".join(parts)


def reach(graph: Graph, query: Query) -> list[ReachResult]:
    """Answer every target of the query with one search."""
    started = time.monotonic()
    if query.mode not in (SOURCES_AND_ROOTS, SOURCES_ONLY):
        raise ReachError(f"unknown source mode {query.mode!r} (use {SOURCES_AND_ROOTS} or {SOURCES_ONLY})")
    if query.mode == SOURCES_ONLY and not query.sources:
        raise ReachError("sources-only needs at least one source: a search from no root finds nothing")
    bad = [s.key for s in unknown_sources(graph, query.sources, query.unit_sources)]
    if bad:
        raise UnknownSourceError(
            "unknown source(s): "
            + ", ".join(bad)
            + " (a source must name a first-party definition or module)"
        )

    search = _search(graph, query, started)
    results = []
    for target in query.targets:
        results.append(_answer(graph, target, search.reached, search.scope, query, started, search.roots))
    return results


@dataclass(frozen=True)
class _Search:
    """What one search from a query's starts found: every reached key's parent, the uncertainties
    met on the way and how many starts it had. It depends on the graph and the query's sources, mode
    and depth, never on its targets."""

    reached: dict[str, tuple[str | None, Edge | None, str]]
    scope: _Uncertainties
    roots: int


# The searches of the last graph asked about, by (sources, unit_sources, mode, max_depth). A Graph
# is immutable and a new store state is read into a new Graph (the MCP server reads one per stored
# run), so a server asking many questions of one graph walks it once per kind of query, not once a
# call; a search cut by a deadline depends on the clock and is never kept.
_SEARCHES_KEPT = 8
_searches: tuple[weakref.ref[Graph], dict[tuple[Any, ...], _Search]] | None = None


def _search(graph: Graph, query: Query, started: float) -> _Search:
    global _searches
    key = (query.sources, query.unit_sources, query.mode, query.max_depth)
    if query.deadline is None:
        kept = _searches
        if kept is not None and kept[0]() is graph and key in kept[1]:
            return kept[1][key]
    found = _walk(graph, query, started)
    if query.deadline is None:
        kept = _searches
        if kept is None or kept[0]() is not graph:
            kept = _searches = (weakref.ref(graph), {})
        if len(kept[1]) >= _SEARCHES_KEPT:
            kept[1].pop(next(iter(kept[1])))
        kept[1][key] = found
    return found


def _walk(graph: Graph, query: Query, started: float) -> _Search:
    """One breadth-first search from the query's starts; parent pointers give each node's shortest
    path."""
    nodes = graph.node_by_key
    starts: list[tuple[str, str]] = [(s.key, "query") for s in query.sources]
    if query.mode == SOURCES_AND_ROOTS:
        starts += [(r.key, r.kind) for r in graph.roots if r.key in nodes]
    fallback = query.mode == SOURCES_AND_ROOTS and bool(graph.stats.get("root_fallback"))

    parent: dict[str, tuple[str | None, Edge | None, str]] = {}
    queue: deque[tuple[str, int]] = deque()
    for key, kind in starts:
        if key not in parent:
            parent[key] = (None, None, kind)
            queue.append((key, 0))
    depth_capped = False
    timed_out = False
    out = graph.out_edges
    deadline, max_depth = query.deadline, query.max_depth
    while queue:
        if deadline is not None and time.monotonic() - started > deadline:
            timed_out = True
            break
        key, depth = queue.popleft()
        if max_depth and depth >= max_depth:
            if out.get(key):
                depth_capped = True
            continue
        for edge in out.get(key, ()):
            callee = edge[1]
            if callee not in parent and (edge[2] in WALKED or edge[3] == "package"):
                parent[callee] = (key, edge, "")
                queue.append((callee, depth + 1))

    scope = _Uncertainties(graph, parent, fallback, depth_capped, timed_out)
    return _Search(parent, scope, sum(1 for prev, _edge, _kind in parent.values() if prev is None))


def unknown_sources(graph: Graph, sources: Iterable[Source], unit_sources: bool = False) -> list[Source]:
    """The sources that name no first-party definition or module of the graph (an external key, a
    definition of dependency code unless ``unit_sources``, a key of no node)."""
    nodes = graph.node_by_key
    return [
        s
        for s in sources
        if s.key not in nodes or nodes[s.key].kind == "external" or (nodes[s.key].unit and not unit_sources)
    ]


def _path_to(key: str, reached: dict[str, tuple[str | None, Edge | None, str]]) -> tuple[Hop, ...]:
    hops: list[Hop] = []
    current: str | None = key
    while current is not None:
        prev, edge, root_kind = reached[current]
        if edge is None:
            hops.append(Hop(current, root_kind, None, "high"))
        else:
            site = edge.site if edge.site.path else None  # a package edge joins keys: no call site
            via = edge.via if edge.kind == "llm" else ""  # an overlay edge names its model and prompt
            hops.append(Hop(current, edge.kind, site, CONFIDENCE.get(edge.kind, "low"), via))
        current = prev
    return tuple(reversed(hops))


def _matching(graph: Graph, target: Target) -> list[str]:
    """The keys of the nodes that are the target (by key, or by the external key they stand for),
    from the graph's sorted index of both: a range of it, not a pass over every node."""
    key = target.key
    wildcard = key.endswith(keys.SEP + "*")
    prefix = key[:-1] if wildcard else key
    index = graph.key_index
    found: dict[str, None] = {}
    for position in range(bisect_left(index, (prefix,)), len(index)):
        name, node_key = index[position]
        if not (name.startswith(prefix) if wildcard else name == key):
            break
        found[node_key] = None
    # a name a package re-exports is the definition it stands for (urllib3//PoolManager is
    # urllib3/poolmanager.py//PoolManager): follow the export edges of a unit's matching nodes
    out = graph.out_edges
    queue = [k for k in found if graph.node_by_key[k].unit]
    while queue:
        for edge in out.get(queue.pop(), ()):
            if edge.kind == "export" and edge.callee not in found:
                found[edge.callee] = None
                queue.append(edge.callee)
    return list(found)


def _answer(
    graph: Graph,
    target: Target,
    reached: dict[str, tuple[str | None, Edge | None, str]],
    scope: _Uncertainties,
    query: Query,
    started: float,
    roots: int,
) -> ReachResult:
    matching = _matching(graph, target)
    sites = sorted(
        {
            e.site
            for key in matching
            for e in graph.in_edges.get(key, ())
            if e.kind != "package" and e.site is not None and e.site.path
        }
    )
    found = [key for key in matching if key in reached]
    searched = {
        "version": VERSION,
        "roots": roots,
        "reached": len(reached),
        "mode": query.mode,
        "seconds": round(time.monotonic() - started, 6),
    }
    if found:
        best = min(found, key=lambda k: (len(_path_to(k, reached)), k))
        return ReachResult(target.key, "found", _path_to(best, reached), tuple(sites), (), searched)
    uncertainties, counts = scope.concerning(target)
    searched["uncertainties"] = counts
    if uncertainties:
        return ReachResult(target.key, "uncertain", (), tuple(sites), tuple(uncertainties), searched)
    if not matching:
        return ReachResult(target.key, "no-such-target", (), (), (), searched)
    return ReachResult(target.key, "not-found", (), tuple(sites), (), searched)


# an Uncertainty's fields (kind, reason, site, name, caller): a search holds one per unresolved site
# it reached, of which an answer lists a few, so only those become Uncertainty records
_Pending = tuple[str, str, Site | None, str, str]

# The scope of an uncertainty (which targets it concerns): every target, the targets of a name (and
# what any definition of that name reaches), or the targets under a key prefix. projectgraph.summary
# scopes with these same functions, so a summary answers as a search does.
EVERYWHERE = "everywhere"
NAME = "name"
PREFIX = "prefix"
_NAME_SCOPED = frozenset(
    {
        "unknown-receiver",
        "no-definition",
        "ambiguous",
        "interface-receiver",
        "trait-receiver",
        # a method called on what an external function returned: scoped by its name, as an unknown
        # receiver is (the package's own code is a unit's business)
        "no-dependency-source",
    }
)


def unresolved_scope(site: Unresolved) -> tuple[str, str]:
    """(EVERYWHERE | NAME | PREFIX, the name or prefix) of an unresolved site a search reached."""
    if site.prefix:
        return PREFIX, site.prefix
    if site.name and site.reason in _NAME_SCOPED:
        return NAME, site.name
    return EVERYWHERE, ""


def dynamic_scope(flag: Dynamic) -> tuple[str, str]:
    """A dynamic flag with a static prefix concerns the targets under it; eval, exec, a computed
    attribute or import concern every target: anything can run."""
    return (PREFIX, flag.prefix) if flag.prefix else (EVERYWHERE, "")


def prefix_concerns(prefix: str, key: str) -> bool:
    """Whether an uncertainty limited to a key prefix concerns a target key (or the keys under a
    ``//*`` target): the key is under the prefix, or the prefix under the target."""
    return key.startswith(prefix) or prefix.startswith(key.removesuffix("*"))


def unresolved_pending(site: Unresolved) -> _Pending:
    return ("unresolved-call", f"{site.reason}: {site.text}", site.site, site.name, site.caller)


def dynamic_pending(flag: Dynamic) -> _Pending:
    return ("dynamic-flag", flag.kind, flag.site, "", flag.caller)


def every_search(graph: Graph) -> list[_Pending]:
    """The uncertainties of every search of the graph, wherever it goes: a limit of the link step, a
    project file that did not index (it can hold a root)."""
    found: list[_Pending] = []
    for truncation in graph.truncations:
        found.append(("budget", f"link limit: {truncation.detail}", None, "", ""))
    for flag in graph.dynamic:
        if flag.kind == UNPLACED_FILE:  # a file no linker placed: what it calls is not in the graph
            found.append(("budget", f"file not linked: {flag.site.path}", flag.site, "", flag.caller))
    for entry in graph.files:
        if entry.status in ("failed", "missing", "truncated") and not entry.unit:
            found.append(
                (
                    "budget",
                    f"file {entry.status}: {entry.reason or entry.status}",
                    Site(entry.path, 0, 0),
                    "",
                    entry.path,
                )
            )
    return found


def unit_budget(graph: Graph, units: set[str]) -> list[_Pending]:
    """A file of dependency code that did not index counts only for a search that entered its unit."""
    return [
        (
            "budget",
            f"file {entry.status} in {entry.unit}: {entry.reason or entry.status}",
            Site(entry.path, 0, 0),
            "",
            entry.path,
        )
        for entry in graph.files
        if entry.unit in units and entry.status in ("failed", "missing", "truncated")
    ]


# The scope of a call into code the graph does not hold (an external node with no package edge):
# (top-level names of the targets it concerns, the language whose standard library it concerns too
# or ""), EVERYWHERE_SCOPE, or None for a leaf (a builtin, which reaches only what is passed to it).
DependencyScope = tuple[frozenset[str], str]
EVERYWHERE_SCOPE: DependencyScope = (frozenset(), "*")


class Packages:
    """What the graph knows of the packages behind its external keys: the import names each unit
    gives (``graph.stats["units"]``) and the top-level names each unit's code calls.

    A package that a unit gives reaches only the names of its unit, of the units its code calls
    (transitively) and the standard library; a package that is not installed where the unit was
    found cannot run there, so its names are left out of the unit's scope. A standard library name
    with no definition in the graph reaches only the standard library. A package of no unit and no
    standard library reaches any target."""

    def __init__(self, graph: Graph) -> None:
        units = graph.stats.get("units") or {}
        self.provides: dict[str, frozenset[str]] = {}
        self.environments: set[str] = set()  # units found as part of a whole environment
        for name, given in units.items() if isinstance(units, dict) else ():
            self.provides[name] = frozenset(given.get("provides", ()))
            if given.get("environment"):
                self.environments.add(name)
        self.graph = graph
        self.by_top: dict[str, list[str]] = {}
        for name, given in sorted(self.provides.items()):
            for top in given:
                self.by_top.setdefault(top, []).append(name)
        nodes = graph.node_by_key
        # the top-level names with source in a unit (the others a unit gives are compiled code)
        self.sourced = {
            n.external for n in graph.nodes if n.unit and n.kind == "module" and keys.SEP not in n.external
        }
        self.calls: dict[str, set[str]] = {}
        for edge in graph.edges:
            caller = nodes.get(edge[0])
            if caller is None or not caller.unit:
                continue
            callee = nodes.get(edge[1])
            if callee is not None and callee.kind == "external":
                self.calls.setdefault(caller.unit, set()).add(keys.package_of(callee.key))
        self._closures: dict[str, frozenset[str]] = {}

    def closure(self, unit: str) -> frozenset[str]:
        """The top-level names the code of a unit can reach: its own and its dependencies' names."""
        known = self._closures.get(unit)
        if known is not None:
            return known
        seen = {unit}
        queue = [unit]
        tops: set[str] = set()
        while queue:
            current = queue.pop()
            tops |= self.provides.get(current, frozenset())
            for top in self.calls.get(current, ()):
                for other in self.by_top.get(top, ()):
                    if other not in seen:
                        seen.add(other)
                        queue.append(other)
        result = self._closures[unit] = frozenset(tops)
        return result

    def scope(self, node: Node, reached: Container[str]) -> DependencyScope | None:
        """What a reached external node with no package edge concerns (None: no target)."""
        key, language = node.key, node.language
        if standard.is_leaf(language, key):
            return None
        top = keys.package_of(key)  # an npm scope's package is two segments
        givers = self.by_top.get(top)
        std = language if standard.has_standard(language) else ""
        if givers:
            if (
                std
                and top not in self.sourced
                and all(u.startswith(f"{standard.standard_ecosystem(language) or '-'}:") for u in givers)
                and standard.is_compiled_leaf(language, top)
            ):
                return None  # a compiled module of the standard library: it runs what it is passed
            return frozenset().union(*(self.closure(u) for u in givers)), std
        if std and standard.is_standard(language, key):
            return frozenset(), language
        if self._only_from_environments(key, reached):
            return None  # not installed where its only callers run: their call cannot run
        return EVERYWHERE_SCOPE

    def _only_from_environments(self, key: str, reached: Container[str]) -> bool:
        """Whether every reached caller of a key is code of a unit found in a whole environment."""
        nodes = self.graph.node_by_key
        callers = [e.caller for e in self.graph.in_edges.get(key, ()) if e.caller in reached]
        return bool(callers) and all(
            (n := nodes.get(c)) is not None and n.unit in self.environments for c in callers
        )


def into_package(tops: Collection[str], language: str, top: str, key: str) -> bool:
    """Whether a call into code the graph does not hold, of scope ``(tops, language)``
    (``Packages.scope``), concerns a target of package ``top`` (``keys.package_of(key)``; a unit
    key is read as its definition's external key). projectgraph.summary matches with it too."""
    if language == "*":
        return True
    if top.endswith("/*"):  # every package of an npm scope (@s//*)
        return any(t.startswith(top[:-1]) for t in tops)
    return top in tops or bool(language and standard.is_standard(language, key))


def is_definition(node: Node) -> bool:
    """A node whose code can run: where a call by name with an unknown receiver may go."""
    return node.kind != "external" and bool(node.path)


class _Uncertainties:
    """Every uncertainty of one search, and which targets each concerns."""

    def __init__(
        self,
        graph: Graph,
        reached: dict[str, Any],
        fallback: bool,
        depth_capped: bool,
        timed_out: bool,
    ) -> None:
        self.graph = graph
        self.everywhere: list[_Pending] = []
        self.by_name: dict[str, list[_Pending]] = {}
        self.by_prefix: list[tuple[str, _Pending]] = []
        if fallback:
            self.everywhere.append(
                ("root-fallback", "no root rule matched: every exported definition is a root", None, "", "")
            )
        if depth_capped:
            self.everywhere.append(("budget", "the depth cap stopped the search", None, "", ""))
        if timed_out:
            self.everywhere.append(("budget", "the deadline stopped the search", None, "", ""))
        self.everywhere.extend(every_search(graph))
        self.by_tops: list[tuple[frozenset[str], str, _Pending]] = []
        by_caller = graph.unresolved_by_caller
        dynamic = graph.dynamic_by_caller
        nodes = graph.node_by_key
        out = graph.out_edges
        entered: set[str] = set()
        packages: Packages | None = None
        for key in sorted(reached):
            # a covered site (a call of a parameter) is answered by the arguments its function's
            # callers pass, which the search walks from them; a start of the search (a root, a
            # source) has callers the graph does not hold, so what its parameters hold is unknown
            start = reached[key][1] is None
            for site in by_caller.get(key, ()):
                if start or not site.covered:
                    self._add(unresolved_scope(site), unresolved_pending(site))
            for flag in dynamic.get(key, ()):
                self._add(dynamic_scope(flag), dynamic_pending(flag))
            node = nodes.get(key)
            if node is None:
                continue
            if node.unit:
                entered.add(node.unit)
            elif node.kind == "external" and not any(e[3] == "package" for e in out.get(key, ())):
                packages = packages or Packages(graph)
                scope = packages.scope(node, reached)
                if scope is None:
                    continue
                prev, edge, _kind = reached[key]
                u: _Pending = (
                    "unresolved-call",
                    f"no-dependency-source: {key} (no unit gives its code)",
                    edge.site if edge is not None and edge.site.path else None,
                    node.name,
                    prev or key,
                )
                self.by_tops.append((scope[0], scope[1], u))
        self.everywhere.extend(unit_budget(graph, entered))
        self._names = sorted(self.by_name.items())
        self._starts: dict[str, list[str]] | None = None
        self._project_paths: set[str] | None = None
        self._reaching_by_key: dict[str, set[str]] = {}  # a kept search answers a target again

    def _add(self, scope: tuple[str, str], u: _Pending) -> None:
        where, value = scope
        if where == PREFIX:
            self.by_prefix.append((value, u))
        elif where == NAME:
            self.by_name.setdefault(value, []).append(u)
        else:
            self.everywhere.append(u)

    def _definitions_named(self, name: str) -> list[str]:
        """The first-party definitions called ``name`` (where an unknown receiver's call may go)."""
        if self._starts is None:
            self._starts = {}
            for n in self.graph.nodes:
                if is_definition(n):
                    self._starts.setdefault(n.name, []).append(n.key)
        return self._starts.get(name, [])

    def _reaching(self, target: Target) -> set[str]:
        """Every key from which a key that is the target can be reached (the target included).

        A name concerns the target when a definition of that name reaches it: one search backwards
        from the target per answer, instead of one search forwards per name."""
        key = target.key
        known = self._reaching_by_key.get(key)
        if known is not None:
            return known
        graph = self.graph
        seen = {key} if key in graph.node_by_key or key in graph.in_edges else set()
        queue = deque(seen)
        into = graph.in_edges
        while queue:
            for edge in into.get(queue.popleft(), ()):
                if (edge.relation in WALKED or edge.kind == "package") and edge.caller not in seen:
                    seen.add(edge.caller)
                    queue.append(edge.caller)
        self._reaching_by_key[key] = seen
        return seen

    def _into_packages(self, target: Target) -> list[_Pending]:
        """The calls into code the graph does not hold that concern a target: by the target's
        top-level name (a unit key by its definition's external key); never a definition of the
        project, which a package reaches only through what the project passes it (reference edges)."""
        key = target.key
        unit, rest = keys.split_unit(key)
        if unit:
            node = self.graph.node_by_key.get(key)
            key = node.external if node is not None and node.external else rest
        top = keys.package_of(key)  # an npm scope's package is two segments
        if self._project_paths is None:
            self._project_paths = {f.path for f in self.graph.files if not f.unit}
        if not unit and top in self._project_paths:
            return []
        return [u for tops, language, u in self.by_tops if into_package(tops, language, top, key)]

    def concerning(self, target: Target) -> tuple[list[Uncertainty], dict[str, int]]:
        found: list[_Pending] = list(self.everywhere)
        if found and unmentioned(self.graph, target.key):
            # a call of a value the linker does not know cannot be a call of a function whose name
            # occurs nowhere else: nothing can have taken it as a value (see ``unmentioned``)
            found = [u for u in found if u[0] != "unresolved-call"]
        wildcard = target.key.endswith("//*")
        reaching: set[str] | None = None
        for name, sites in self._names:
            if not (wildcard or name == target.last):
                if reaching is None:
                    reaching = self._reaching(target)
                if not any(key in reaching for key in self._definitions_named(name)):
                    continue
            found.extend(sites)
        for prefix, u in self.by_prefix:
            if prefix_concerns(prefix, target.key):
                found.append(u)
        if self.by_tops:
            found.extend(self._into_packages(target))
        counts: dict[str, int] = {}
        listed: list[Uncertainty] = []
        for u in found:
            kind = u[0]
            counts[kind] = counts.get(kind, 0) + 1
            if counts[kind] <= MAX_LISTED:
                listed.append(Uncertainty(*u))
        return listed, dict(sorted(counts.items()))


def unmentioned(graph: Graph, key: str) -> bool:
    """Whether ``key`` is a first-party function (not a method, not decorated) of a language with a
    never-called rule (``LanguageSpec.never_called``: Python's) that nothing can call but by its
    name, and whose name occurs in no file of the graph but at its definition.

    A function is a value only once its definition binds it to its name (or its decorators receive
    it); code that calls it holds it from a use of that name (a call, a reference, a string that
    names it for a lookup), or from a namespace read as a mapping, a frame, a closure, the garbage
    collector, a computed lookup or an evaluation. So when every file's word filter (which counts
    code, strings and comments, minus one occurrence per undecorated definition; a file of any
    language, as a C extension may call it by name, and a file whose index keeps no filter makes no
    claim possible) lacks the name, no file holds a word that lets code take a value by a computed
    name, no code takes ``getattr`` as a value, the graph calls no external but the quiet modules
    of the standard library (any other package may read a name from a config or a template, files
    no filter holds, and call it), and the graph has no dynamic flag, no call of an unknown value
    can be a call of it. A name that a runner or a framework calls by convention (``test_*``,
    ``setup``, ``main``, ...) is never claimed: a dependency's code may hold it."""
    node = graph.node_by_key.get(key)
    spec = all_languages().get(node.language) if node is not None else None
    rule = spec.never_called if spec is not None else None
    if rule is None or node is None or node.kind != "function" or node.unit:
        return False
    facts = _word_facts(graph, rule)
    if facts is None:
        return False
    name = node.name
    if not name.isidentifier() or name.startswith(rule.conventions) or name in rule.conventional:
        return False
    if name.startswith("__") and name.endswith("__"):
        return False
    return not any(filter_may_hold(bits, name) for bits in facts)


# the last graph's and rule's
_word_facts_of: tuple[weakref.ref[Graph], NeverCalled, tuple[int, ...] | None] | None = None


def _word_facts(graph: Graph, rule: NeverCalled) -> tuple[int, ...] | None:
    """The word filters of the graph's files, or None where no name can be claimed absent: a
    dynamic flag, ``getattr`` taken as a value or called through an alias, an external of no
    quiet module, a file with no filter (not indexed, or of a language whose index keeps none), or
    a word of the rule's enumerators that a file may hold."""
    global _word_facts_of
    kept = _word_facts_of
    if kept is not None and kept[0]() is graph and kept[1] is rule:
        return kept[2]
    filters: tuple[int, ...] | None = None
    if not graph.dynamic and not _indirect_lookups(graph, rule) and _quiet_externals(graph, rule):
        # every file's, whatever its language: a C extension or a script may name the function
        # (a file of a language whose index keeps no filter makes no claim possible)
        found = [f.words for f in graph.files]
        known = all_languages()
        ruled = {f.language for f in graph.files if f.language in known}
        if (
            any(known[language].never_called is rule for language in ruled)
            and all(found)
            and not any(filter_may_hold(bits, word) for bits in found for word in rule.enumerators)
        ):
            filters = tuple(found)
    _word_facts_of = (weakref.ref(graph), rule, filters)
    return filters


def _indirect_lookups(graph: Graph, rule: NeverCalled) -> bool:
    """Whether code takes a lookup by name (``getattr``) as a value or calls it through an alias."""
    into = graph.in_edges
    return any(
        edge.relation != "calls" or edge.kind != "direct"
        for key in rule.lookups
        for edge in into.get(key, ())
    )


def _quiet_externals(graph: Graph, rule: NeverCalled) -> bool:
    """Whether every external the graph holds is of the rule's quiet modules (and none is loud); a
    definition of dependency code counts by the external key it stands for."""
    for node in graph.nodes:
        if node.kind == "external":
            key = node.key
        elif node.unit:
            key = node.external
        else:
            continue
        if key.split("//", 1)[0] not in rule.quiet_modules:
            return False
        loud = rule.loud_externals
        if key in loud or any(key.startswith(entry + "//") for entry in loud):
            return False
    return True


def targets_by_key(texts: Iterable[str]) -> list[Target]:
    return [Target.by_key(t) for t in texts]


def sources_by_key(texts: Iterable[str]) -> list[Source]:
    return [Source.parse(t) for t in texts]
