"""Per-package summaries: what each exported symbol of one package reaches, answered without its graph.

A project whose code calls into a package asks what the package's symbol reaches. A summary keeps,
for each exported symbol, the external keys it reaches (what the package's own dependencies give)
and the uncertainties of the code it reaches, so the question needs neither the package's graph nor
a search. The sets are computed once per strongly connected component of the package's graph, in
reverse topological order (a component's set is its own keys joined with the sets of the components
it calls), so a package of thousands of symbols costs one pass over its edges, not one search each.

Conventions:

- The package's graph is a folder linked as a project of its own (its exported symbols the public
  modules and definitions), or a unit's own graph (``unit_graph``: the unit's nodes in a project's
  graph, its symbols the definitions with an external key).
- The summary's keys (``Summary.keys``) are the external keys the graph calls (external nodes, and
  keys an edge goes to that no node has), sorted, then the package's own keys (its symbols, and
  what a re-export stands for) in the reverse topological order of their components. A reach set
  (``Reach``) holds the first as a bit set (a Python int, bit i for ``keys[i]``) and the second as
  runs of positions: a component's depth-first descendants are one run, so a set is a few runs
  where every symbol's own bit would make every set distinct. Components whose sets are equal
  share the objects, and a stored summary lists each distinct set once.
- A symbol's uncertainties are the unresolved sites and dynamic flags of the code it reaches, its
  calls into packages whose code the graph does not hold, and the files that did not index of the
  units it enters, each with the scope reach gives it (every target, a name, a key prefix, a
  package's names: ``projectgraph.reach.unresolved_scope``, ``Packages.scope``). Those of every
  search of the graph (a link limit, a project file that did not index) are ``every_search``. A
  name also concerns the targets that any definition of that name reaches, in any package of the
  project that asks: the summary keeps that set for every name of its definitions (``names``).
- ``Summary.status(symbol, target)`` is the status ``reach(graph, Query((target,), (symbol,),
  SOURCES_ONLY, unit_sources=True))`` gives, for any target outside the package's own unexported
  code. A target that is (or a wildcard over) a key of the package's own code that no exported
  symbol has raises ``OutsideSummaryError``: the summary keeps no set for it, and guessing would
  break the honesty rule.
- ``join`` puts summaries in a project graph that does not hold their units' graphs, so a plain
  reach query goes on through them. A summary keeps each class's bases as the link resolved them,
  so a member call on a class goes through its bases as it does with the units loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from projectgraph import fileindex, keys
from projectgraph import graph as graph_module
from projectgraph.graph import NO_SITE, UNRESOLVED_REASONS, Dynamic, Edge, Graph, Node, Site, Unresolved
from projectgraph.link.units import MAX_HOPS, members_along
from projectgraph.reach import (
    EVERYWHERE,
    NAME,
    PREFIX,
    SOURCES_ONLY,
    WALKED,
    Packages,
    Query,
    ReachResult,
    Source,
    Target,
    dynamic_pending,
    dynamic_scope,
    every_search,
    into_package,
    is_definition,
    reach,
    unit_budget,
    unresolved_pending,
    unresolved_scope,
)
from projectgraph.reach import VERSION as REACH_VERSION
from projectgraph.store import sqlite as sql
from projectgraph.units import AUTO_DEPS, discover_units

VERSION = 5
"""summary.VERSION: the summary format and its rules. A store of summaries keys on it. 3: ``names``
holds every definition name whose definitions reach a key (2: only this package's called names).
5: ``bases`` keeps each class's bases, and ``join`` resolves a member of a class through them."""

PACKAGE = "package"  # the scope of a call into a package the graph holds no code of

DEFINITION_KINDS = frozenset({"function", "method", "constructor", "class", "module"})


class SummaryError(ValueError):
    """A question a summary cannot answer as asked."""


class UnknownSymbolError(SummaryError):
    """A symbol that is not one of the summary's exported symbols."""


class OutsideSummaryError(SummaryError):
    """A target in the package's own unexported code, for which the summary keeps no set."""


@dataclass(frozen=True)
class Uncertain:
    """An uncertainty of a summary: reach's fields and the scope of the targets it concerns."""

    kind: str  # unresolved-call | dynamic-flag | budget
    reason: str
    site: Site | None
    name: str
    caller: str
    scope: str  # everywhere | name | prefix | package
    value: str = ""  # the name, the prefix, or the language whose standard library a package scope has
    tops: tuple[str, ...] = ()  # a package scope's top-level names (reach.Packages.scope)

    def to_json(self) -> list[Any]:
        site = list(self.site) if self.site is not None else None
        return [self.kind, self.reason, site, self.name, self.caller, self.scope, self.value, list(self.tops)]

    @staticmethod
    def from_json(row: Sequence[Any]) -> Uncertain:
        kind, reason, site, name, caller, scope, value, tops = row
        return Uncertain(
            kind, reason, Site(*site) if site is not None else None, name, caller, scope, value, tuple(tops)
        )

    def concerns(self, target: Target, package_key: str | None) -> bool:
        """Whether this uncertainty concerns the target, by its scope (a name's definitions aside).

        ``package_key`` is the key a call into a package is matched by (a unit key by its external
        key), or None for a target in the project's own files, which no package call concerns."""
        key = target.key
        if self.scope == PREFIX:
            return key.startswith(self.value) or self.value.startswith(key.removesuffix("*"))
        if self.scope == NAME:
            return key.endswith(keys.SEP + "*") or self.value == target.last
        if self.scope == PACKAGE:
            if package_key is None:
                return False
            return into_package(self.tops, self.value, keys.package_of(package_key), package_key)
        return True


class Reach(NamedTuple):
    """A reach set: the external keys as a bit set (bit i for ``keys[i]``), the package's own keys
    as sorted runs of positions (``(lo, hi)``, position p for ``keys[external_count + p]``)."""

    externals: int
    runs: tuple[tuple[int, int], ...]

    def has(self, ref: int, external_count: int) -> bool:
        if ref < external_count:
            return bool(self.externals >> ref & 1)
        return _in_runs(self.runs, ref - external_count)


def _in_runs(runs: tuple[tuple[int, int], ...], position: int) -> bool:
    at = bisect_right(runs, (position, _NO_END)) - 1
    return at >= 0 and runs[at][0] <= position <= runs[at][1]


_NO_END = 1 << 62


@dataclass(frozen=True)
class _View:
    """What of an uncertainty set decides a status: an unscoped one, the names, the prefix and
    package scopes."""

    everywhere: bool
    names: frozenset[str]
    scoped: tuple[Uncertain, ...]  # one of each prefix and package scope


@dataclass(frozen=True)
class Summary:
    unit: str
    # the keys of its reach sets: the external ones sorted (a bit each), then the package's own
    # (symbols, and what a re-export stands for) in reverse topological order of their components,
    # so that what one reaches is a few runs of positions
    keys: tuple[str, ...]
    external_count: int
    aliases: tuple[tuple[str, int], ...]  # (external key, key index) of a known node whose key differs
    own: tuple[str, ...]  # first segments of the package's own keys (file paths, the unit name)
    project_paths: tuple[str, ...]  # the graph's files of no unit: a package call never reaches them
    # a unit node's key index, and the key indexes of what it re-exports (its export edges)
    exports: tuple[tuple[int, tuple[int, ...]], ...]
    uncertainties: tuple[Uncertain, ...]  # bit j of an uncertainty set is uncertainties[j]
    every_search: tuple[Uncertain, ...]
    reach_sets: tuple[Reach, ...]
    uncertainty_sets: tuple[int, ...]
    # symbol -> (reach set, uncertainty set entered by a call, uncertainty set of a search from it), sorted
    symbols: dict[str, tuple[int, int, int]]
    names: dict[str, int]  # name -> reach set of every definition of that name, sorted
    # a class's bases as the link resolved them (its extends edges, in the graph's order): a class
    # of the package's own code or an external key; a base the link could not resolve is in no list
    bases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    versions: dict[str, int] = field(default_factory=dict)
    context: str = ""  # digest of the table of units the calls into other packages were scoped by
    stats: dict[str, Any] = field(default_factory=dict)

    # ---- answers ------------------------------------------------------------------------------
    def status(self, symbol: str, target: str | Target) -> str:
        """found, not-found, uncertain or no-such-target, as a search from ``symbol`` would say."""
        wanted = target if isinstance(target, Target) else Target.by_key(target)
        reach_set, _entered, uncertainty_set = self._symbol(symbol)
        mask, own, exact = self._target(wanted.key)
        reached = self.reach_sets[reach_set]
        if reached.externals & mask or any(_in_runs(reached.runs, position) for position in own):
            return "found"
        if self._concerned(uncertainty_set, wanted, exact):
            return "uncertain"
        return "not-found" if mask or own else "no-such-target"

    def reaches(self, symbol: str) -> list[str]:
        """The external keys ``symbol`` reaches (what the package's dependencies give), sorted."""
        return _members(self.reach_sets[self._symbol(symbol)[0]].externals, self.keys)

    def symbols_reached(self, symbol: str) -> list[str]:
        """The exported symbols ``symbol`` reaches (itself included), sorted."""
        symbols = self.symbols
        return [key for key in self._reached(symbol) if key in symbols]

    def _reached(self, symbol: str) -> list[str]:
        return self._keys_of(self.reach_sets[self._symbol(symbol)[0]])

    def _keys_of(self, reached: Reach) -> list[str]:
        """The keys of a reach set, sorted."""
        found = _members(reached.externals, self.keys)
        base = self.external_count
        found.extend(self.keys[base + p] for lo, hi in reached.runs for p in range(lo, hi + 1))
        return sorted(found)

    def uncertainties_of(self, symbol: str) -> list[Uncertain]:
        """Every uncertainty of a search from ``symbol``: those of every search, then its own."""
        return [
            *self.every_search,
            *_members(self.uncertainty_sets[self._symbol(symbol)[2]], self.uncertainties),
        ]

    def entered_uncertainties(self, symbol: str) -> list[Uncertain]:
        """The uncertainties of ``symbol`` when a call enters it (a join): a search from it less
        its own parameter calls, which the caller's arguments answer (reach's covered sites)."""
        return _members(self.uncertainty_sets[self._symbol(symbol)[1]], self.uncertainties)

    def path(self, graph: Graph, symbol: str, target: str | Target) -> ReachResult:
        """The one search from ``symbol`` in the package's graph (a unit's own graph when ``graph``
        holds the unit among others), for a finding's path."""
        wanted = target if isinstance(target, Target) else Target.by_key(target)
        self._symbol(symbol)
        graph = _package_graph(graph, self.unit)
        query = Query(targets=(wanted,), sources=(Source(symbol),), mode=SOURCES_ONLY, unit_sources=True)
        return reach(graph, query)[0]

    def _symbol(self, symbol: str) -> tuple[int, int, int]:
        sets = self.symbols.get(symbol)
        if sets is None:
            raise UnknownSymbolError(f"{symbol!r} is not an exported symbol of {self.unit or 'the package'}")
        return sets

    @cached_property
    def _index(self) -> list[tuple[str, int]]:
        """(key or external key, key index), sorted: a target's keys are one range of it."""
        index = [(key, ref) for ref, key in enumerate(self.keys)]
        index.extend(self.aliases)
        index.sort()
        return index

    @cached_property
    def _refs(self) -> dict[str, int]:
        return {key: ref for ref, key in enumerate(self.keys)}

    @cached_property
    def _own(self) -> frozenset[str]:
        return frozenset(self.own)

    @cached_property
    def _targets(self) -> dict[str, tuple[int, tuple[int, ...], int | None]]:
        return {}

    def _target(self, key: str) -> tuple[int, tuple[int, ...], int | None]:
        """What a target matches (by key or by external key, and what a matching re-export stands
        for): the external keys' bits, the package's own keys' positions; and its exact key's index."""
        known = self._targets.get(key)
        if known is not None:
            return known
        wildcard = key.endswith(keys.SEP + "*")
        exact = None if wildcard else self._refs.get(key)
        if key.split(keys.SEP, 1)[0] in self._own and exact is None:
            raise OutsideSummaryError(
                f"{key!r} is in the package's own code and names no exported symbol: "
                "the summary keeps no set for it (ask reach on the package's graph)"
            )
        prefix = key[:-1] if wildcard else key
        index = self._index
        matched: set[int] = set()
        for at in range(bisect_left(index, (prefix,)), len(index)):
            name, ref = index[at]
            if not (name.startswith(prefix) if wildcard else name == key):
                break
            matched.add(ref)
        for ref, closure in self.exports:
            if ref in matched:
                matched.update(closure)
        base = self.external_count
        mask = 0
        for ref in matched:
            if ref < base:
                mask |= 1 << ref
        own = tuple(sorted(ref - base for ref in matched if ref >= base))
        self._targets[key] = (mask, own, exact)
        return mask, own, exact

    @cached_property
    def _views(self) -> dict[int, _View]:
        return {}

    def _view(self, uncertainty_set: int) -> _View:
        view = self._views.get(uncertainty_set)
        if view is None:
            members = _members(self.uncertainty_sets[uncertainty_set], self.uncertainties)
            scoped = {(u.scope, u.value, u.tops): u for u in members if u.scope in (PREFIX, PACKAGE)}
            view = _View(
                any(u.scope == EVERYWHERE for u in members),
                frozenset(u.value for u in members if u.scope == NAME),
                tuple(scoped[where] for where in sorted(scoped)),
            )
            self._views[uncertainty_set] = view
        return view

    def _concerned(self, uncertainty_set: int, target: Target, bit: int | None) -> bool:
        """Whether an uncertainty of the set concerns the target, by reach's scoping rules."""
        if self.every_search:
            return True
        view = self._view(uncertainty_set)
        if view.everywhere:
            return True
        key = target.key
        if view.names:
            if key.endswith(keys.SEP + "*") or target.last in view.names:
                return True
            if bit is not None:
                for name in view.names:
                    if self.reach_sets[self.names[name]].has(bit, self.external_count):
                        return True
        package_key = self._package_key(key, bit)
        return any(u.concerns(target, package_key) for u in view.scoped)

    def _package_key(self, key: str, bit: int | None) -> str | None:
        """What a call into a package matches a target by (reach's ``_into_packages``)."""
        unit, rest = keys.split_unit(key)
        if unit:
            external = self._externals.get(bit) if bit is not None else None
            return external or rest
        return None if keys.package_of(key) in self._project_paths else key

    @cached_property
    def _externals(self) -> dict[int, str]:
        return {bit: external for external, bit in self.aliases}

    @cached_property
    def _project_paths(self) -> frozenset[str]:
        return frozenset(self.project_paths)

    # ---- forms --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The compact JSON form: sets as hexadecimal bit sets, each distinct set once."""
        return {
            "versions": self.versions,
            "context": self.context,
            "unit": self.unit,
            "keys": list(self.keys),
            "external_count": self.external_count,
            "aliases": [list(alias) for alias in self.aliases],
            "own": list(self.own),
            "project_paths": list(self.project_paths),
            "exports": [[bit, list(closure)] for bit, closure in self.exports],
            "uncertainties": [u.to_json() for u in self.uncertainties],
            "every_search": [u.to_json() for u in self.every_search],
            "reach_sets": [
                [format(s.externals, "x"), [bound for run in s.runs for bound in run]]
                for s in self.reach_sets
            ],
            "uncertainty_sets": [format(s, "x") for s in self.uncertainty_sets],
            "symbols": {symbol: list(sets) for symbol, sets in self.symbols.items()},
            "names": self.names,
            "bases": [[cls, list(listed)] for cls, listed in self.bases],
            "stats": self.stats,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Summary:
        return Summary(
            unit=data["unit"],
            keys=tuple(data["keys"]),
            external_count=data["external_count"],
            aliases=tuple((key, bit) for key, bit in data["aliases"]),
            own=tuple(data["own"]),
            project_paths=tuple(data["project_paths"]),
            exports=tuple((bit, tuple(closure)) for bit, closure in data["exports"]),
            uncertainties=tuple(Uncertain.from_json(row) for row in data["uncertainties"]),
            every_search=tuple(Uncertain.from_json(row) for row in data["every_search"]),
            reach_sets=tuple(
                Reach(int(bits, 16), tuple(zip(runs[::2], runs[1::2], strict=True)))
                for bits, runs in data["reach_sets"]
            ),
            uncertainty_sets=tuple(int(s, 16) for s in data["uncertainty_sets"]),
            symbols={symbol: (sets[0], sets[1], sets[2]) for symbol, sets in data["symbols"].items()},
            names=dict(data["names"]),
            bases=tuple((cls, tuple(listed)) for cls, listed in data["bases"]),
            versions=dict(data["versions"]),
            context=data["context"],
            stats=dict(data["stats"]),
        )

    def dumps(self) -> bytes:
        """The compact form, zlib-compressed: what the store keeps."""
        text = json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        return zlib.compress(text.encode(), 6)

    @staticmethod
    def loads(data: bytes) -> Summary:
        return Summary.from_json(json.loads(zlib.decompress(data)))

    def report(self) -> dict[str, Any]:
        """The readable form: each symbol with the keys it reaches and its uncertainties."""
        return {
            "unit": self.unit,
            "versions": self.versions,
            "every_search": [_uncertain_json(u) for u in self.every_search],
            "symbols": [
                {
                    "symbol": symbol,
                    "reaches": self.reaches(symbol),
                    "uncertainties": [
                        _uncertain_json(u)
                        for u in _members(self.uncertainty_sets[sets[2]], self.uncertainties)
                    ],
                }
                for symbol, sets in self.symbols.items()
            ],
            "stats": self.stats,
        }


def versions() -> dict[str, int]:
    """The versions a summary depends on: index, link, search rules, and its own."""
    return {
        "fileindex": fileindex.VERSION,
        "projectgraph": graph_module.VERSION,
        "reach": REACH_VERSION,
        "summary": VERSION,
    }


def save(connection: sqlite3.Connection, summary: Summary) -> None:
    """Store a summary in a project store, keyed by its unit and the versions it was built with."""
    sql.write_summary(connection, summary.unit, summary.versions, summary.dumps())


def load(connection: sqlite3.Connection, unit: str, context: str | None = None) -> Summary | None:
    """The stored summary of ``unit`` built under the current versions, or None; with ``context``
    (``context_of`` a graph), None too when the units beside it have changed since."""
    data = sql.read_summary(connection, unit, versions())
    if data is None:
        return None
    stored = Summary.loads(data)
    return stored if context is None or stored.context == context else None


def context_of(graph: Graph) -> str:
    """What a summary of a unit depends on beyond its own code: the units beside it (the import
    names each gives), by which its calls into other packages are scoped."""
    units = graph.stats.get("units") or {}
    text = json.dumps(units, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _uncertain_json(u: Uncertain) -> dict[str, Any]:
    return {
        "kind": u.kind,
        "reason": u.reason,
        "site": u.site.to_json() if u.site is not None else None,
        "name": u.name,
        "caller": u.caller,
        "scope": u.scope,
        "value": u.value,
    }


def _members(bits: int, items: Sequence[Any]) -> list[Any]:
    """The items whose bits are set, in index order."""
    found = []
    while bits:
        low = bits & -bits
        found.append(items[low.bit_length() - 1])
        bits ^= low
    return found


# ---- building -----------------------------------------------------------------------------------
def exported(graph: Graph) -> list[str]:
    """The exported symbols of a package's graph, sorted.

    In a unit's graph, the nodes that stand for an external key (``Node.external``). In the graph of
    a folder linked as a project: the public modules, and the public definitions at a module's top
    level or in a class at it (no segment of the path or the qualified name starts with one ``_``)."""
    if any(node.unit for node in graph.nodes):
        return sorted(n.key for n in graph.nodes if n.unit and n.external and n.kind != "external")
    return sorted(n.key for n in graph.nodes if not n.unit and n.kind in DEFINITION_KINDS and _public(n))


def _public(node: Node) -> bool:
    parts = node.qualname.split(".") if node.qualname else []
    if len(parts) > 2:
        return False
    stems = [segment.split(".", 1)[0] for segment in node.path.split("/")]
    return all(not part.startswith("_") or part.startswith("__") for part in (*stems, *parts))


def unit_graph(graph: Graph, unit: str) -> Graph:
    """The graph of one unit alone, as a project's graph holds it: the unit's nodes and the nodes its
    edges go to, its edges, unresolved sites, dynamic flags, files and link limits, and the table of
    units (what a call into another package is scoped by). A call into another unit's package
    stops at its external key, whose package edge belongs to the project: the summary of that unit
    answers for it."""
    own = {n.key for n in graph.nodes if n.unit == unit}
    edges = tuple(e for e in graph.edges if e.caller in own)
    wanted = own | {e.callee for e in edges}
    stats = {"version": graph.stats.get("version"), "units": graph.stats.get("units") or {}}
    return Graph(
        nodes=tuple(n for n in graph.nodes if n.key in wanted),
        edges=edges,
        unresolved=tuple(u for u in graph.unresolved if u.caller in own),
        dynamic=tuple(d for d in graph.dynamic if d.caller in own),
        truncations=tuple(t for t in graph.truncations if t.detail.startswith(f"{unit}: ")),
        files=tuple(f for f in graph.files if f.unit == unit),
        stats=stats,
    )


def _package_graph(graph: Graph, unit: str) -> Graph:
    """The graph a summary of ``unit`` reads: the unit's own when ``graph`` holds it, else ``graph``."""
    if unit and any(n.unit == unit for n in graph.nodes):
        return unit_graph(graph, unit)
    return graph


def build(graph: Graph, unit: str = "", symbols: Iterable[str] | None = None) -> Summary:
    """The summary of a package's graph: reach sets and uncertainties per exported symbol.

    ``graph`` is a package linked as a project of its own, or a graph holding the unit ``unit``
    (a project's, with its units), of which the unit's own graph is read (``unit_graph``).
    ``symbols`` defaults to ``exported(graph)``; each must be a node of the graph."""
    started = time.perf_counter()
    graph = _package_graph(graph, unit)
    nodes = graph.node_by_key
    chosen = sorted(set(exported(graph) if symbols is None else symbols))
    missing = [s for s in chosen if s not in nodes or nodes[s].kind == "external"]
    if missing:
        raise UnknownSymbolError("not a definition of the graph: " + ", ".join(missing[:5]))

    # every key a search can meet, numbered: the nodes, the ends of the walked edges, the callers
    # of unresolved sites and dynamic flags; the walked edges as successor lists
    out = graph.out_edges
    walked = [
        (caller, sorted({e[1] for e in edges if e[2] in WALKED or e[3] == "package"}))
        for caller, edges in out.items()
    ]
    number: dict[str, int] = {}
    for key in (
        *nodes,
        *(caller for caller, _ in walked),
        *(callee for _, callees in walked for callee in callees),
        *(site.caller for site in graph.unresolved),
        *(flag.caller for flag in graph.dynamic),
    ):
        number.setdefault(key, len(number))
    names = list(number)
    successors: list[list[int]] = [[] for _ in names]
    for caller, callees in walked:
        successors[number[caller]] = [number[callee] for callee in callees]

    # the keys a reach set holds: external nodes, exported symbols, keys an edge goes to with no node
    known = {n.key for n in graph.nodes if n.kind == "external" or n.external}
    known.update(chosen)
    known.update(callee for _, callees in walked for callee in callees if callee not in nodes)
    # a target that matches a unit's node matches what its re-export stands for (export edges)
    export_closures: dict[str, list[str]] = {}
    for key in sorted(known):
        node = nodes.get(key)
        if node is None or not node.unit:
            continue
        closure: dict[str, None] = {}
        queue = [key]
        while queue:
            for edge in out.get(queue.pop(), ()):
                if edge.kind == "export" and edge.callee != key and edge.callee not in closure:
                    closure[edge.callee] = None
                    queue.append(edge.callee)
        if closure:
            export_closures[key] = list(closure)
    for closure_keys in export_closures.values():
        known.update(closure_keys)
    # the external keys get a bit each; the package's own keys a position in the reverse
    # topological order of their components, so that what a component reaches is a few runs
    components, component_of = _components(successors)
    own_keys = {
        key for key in known if key in nodes and (nodes[key].kind != "external" or nodes[key].external != key)
    }
    external_keys = sorted(known - own_keys)
    base = len(external_keys)
    known_keys = (*external_keys, *sorted(own_keys, key=lambda k: (component_of[number[k]], k)))
    ref_of = {key: ref for ref, key in enumerate(known_keys)}
    aliases = tuple(
        sorted((n.external, ref_of[n.key]) for n in graph.nodes if n.external and n.external != n.key)
    )
    own = tuple(sorted({key.split(keys.SEP, 1)[0] for key in nodes if key not in known}))

    # each class's bases, as the link resolved them and in the graph's order, which is the order
    # the installed link tries them in (``link.units._package_edges``)
    bases: dict[str, list[str]] = {}
    for edge in graph.edges:
        if edge.relation == "extends" and edge.callee in nodes:
            bases.setdefault(edge.caller, []).append(edge.callee)

    # the uncertainty of each unresolved site and dynamic flag, on the node whose code has it
    uncertainties: list[Uncertain] = []
    own_uncertain = [0] * len(names)
    start_uncertain: dict[int, int] = {}  # a covered site counts in a search from its own function
    for site in graph.unresolved:
        if not site.covered:
            own_uncertain[number[site.caller]] |= 1 << len(uncertainties)
        else:
            at = number[site.caller]
            start_uncertain[at] = start_uncertain.get(at, 0) | 1 << len(uncertainties)
        uncertainties.append(Uncertain(*unresolved_pending(site), *unresolved_scope(site)))
    for flag in graph.dynamic:
        own_uncertain[number[flag.caller]] |= 1 << len(uncertainties)
        uncertainties.append(Uncertain(*dynamic_pending(flag), *dynamic_scope(flag)))
    # a call into a package whose code the graph does not hold (an external node no package edge
    # leaves) concerns what that package can reach; a file of a unit that did not index, every
    # search that enters the unit
    packages: Packages | None = None
    budgets: dict[str, int] = {}
    for node in graph.nodes:
        if node.unit:
            bits = budgets.get(node.unit)
            if bits is None:
                bits = budgets[node.unit] = 0
                for pending in unit_budget(graph, {node.unit}):
                    bits |= 1 << len(uncertainties)
                    uncertainties.append(Uncertain(*pending, EVERYWHERE))
                budgets[node.unit] = bits
            own_uncertain[number[node.key]] |= bits
        elif node.kind == "external" and not any(e[3] == "package" for e in out.get(node.key, ())):
            packages = packages or Packages(graph)
            scope = packages.scope(node, number)
            if scope is None:
                continue
            reason = f"no-dependency-source: {node.key} (no unit gives its code)"
            pending = ("unresolved-call", reason, None, node.name, node.key)
            own_uncertain[number[node.key]] |= 1 << len(uncertainties)
            uncertainties.append(Uncertain(*pending, PACKAGE, scope[1], tuple(sorted(scope[0]))))

    reach_of: list[Reach] = []
    uncertain_of: list[int] = []
    for members in components:
        here = len(reach_of)
        externals = 0
        positions: list[int] = []
        uncertain = 0
        for member in members:
            ref = ref_of.get(names[member])
            if ref is not None:
                if ref < base:
                    externals |= 1 << ref
                else:
                    positions.append(ref - base)
            uncertain |= own_uncertain[member]
        runs = [_runs(sorted(positions))] if positions else []
        seen: set[int] = set()
        for member in members:
            for successor in successors[member]:
                other = component_of[successor]
                if other != here and other not in seen:
                    seen.add(other)
                    theirs = reach_of[other]
                    externals = _union(externals, theirs.externals)
                    runs.append(theirs.runs)
                    uncertain = _union(uncertain, uncertain_of[other])
        reach_of.append(Reach(externals, _runs_union(runs)))
        uncertain_of.append(uncertain)

    # per name: what any definition of that name reaches. Every name a definition has, not only
    # those of this package's name-scoped uncertainties: a call by name in another package (or in
    # the project) may go to a definition of this one, as a search of the installed graph says
    scoped_names = {u.value for u in uncertainties if u.scope == NAME}
    name_parts: dict[str, list[Reach]] = {name: [] for name in scoped_names}
    for node in graph.nodes:
        if node.name and is_definition(node):
            name_parts.setdefault(node.name, []).append(reach_of[component_of[number[node.key]]])
    name_sets: dict[str, Reach] = {}
    for name, parts in name_parts.items():
        externals = 0
        for part in parts:
            externals = _union(externals, part.externals)
        reached = Reach(externals, _runs_union([part.runs for part in parts]))
        if reached.externals or reached.runs or name in scoped_names:
            name_sets[name] = reached  # a name whose definitions reach no key concerns no target

    reach_table: dict[Reach, int] = {}
    uncertainty_table: dict[int, int] = {}
    symbol_sets = {}
    for symbol in chosen:
        component = component_of[number[symbol]]
        entered = uncertain_of[component]
        from_it = _union(entered, start_uncertain.get(number[symbol], 0))
        symbol_sets[symbol] = (
            reach_table.setdefault(reach_of[component], len(reach_table)),
            uncertainty_table.setdefault(entered, len(uncertainty_table)),
            uncertainty_table.setdefault(from_it, len(uncertainty_table)),
        )
    name_ids = {name: reach_table.setdefault(name_sets[name], len(reach_table)) for name in sorted(name_sets)}
    every = tuple(Uncertain(*pending, EVERYWHERE, "") for pending in every_search(graph))
    return Summary(
        unit=unit,
        keys=known_keys,
        external_count=base,
        aliases=aliases,
        own=own,
        project_paths=tuple(sorted({f.path for f in graph.files if not f.unit})),
        exports=tuple(
            (ref_of[key], tuple(sorted(ref_of[k] for k in closure)))
            for key, closure in sorted(export_closures.items())
        ),
        uncertainties=tuple(uncertainties),
        every_search=every,
        reach_sets=tuple(reach_table),
        uncertainty_sets=tuple(uncertainty_table),
        symbols=symbol_sets,
        names=name_ids,
        bases=tuple((cls, tuple(listed)) for cls, listed in sorted(bases.items())),
        versions=versions(),
        context=context_of(graph),
        stats={
            "symbols": len(chosen),
            "keys": len(known_keys),
            "nodes": len(names),
            "components": len(components),
            "largest_component": max((len(c) for c in components), default=0),
            "distinct_reach_sets": len(reach_table),
            "distinct_uncertainty_sets": len(uncertainty_table),
            "uncertainties": len(uncertainties),
            "seconds": round(time.perf_counter() - started, 6),
        },
    )


def _runs(positions: list[int]) -> tuple[tuple[int, int], ...]:
    """Sorted positions as runs ``(lo, hi)``."""
    found: list[tuple[int, int]] = []
    for position in positions:
        if found and position == found[-1][1] + 1:
            found[-1] = (found[-1][0], position)
        else:
            found.append((position, position))
    return tuple(found)


def _runs_union(parts: list[tuple[tuple[int, int], ...]]) -> tuple[tuple[int, int], ...]:
    """The union of run lists; one of them itself when it holds all the others (sets shared)."""
    given = [part for part in parts if part]
    if not given:
        return ()
    if len(given) == 1 or all(part is given[0] for part in given):
        return given[0]
    merged: list[list[int]] = []
    for lo, hi in sorted(run for part in given for run in part):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    joined = tuple((lo, hi) for lo, hi in merged)
    for part in given:
        if len(part) == len(joined) and part == joined:
            return part
    return joined


def _union(into: int, other: int) -> int:
    """``into | other``, returning one of the two ints themselves when it equals it (sets shared)."""
    if not other or into is other:
        return into
    if not into:
        return other
    joined = into | other
    if joined == other:
        return other
    if joined == into:
        return into
    return joined


def _components(successors: list[list[int]]) -> tuple[list[list[int]], list[int]]:
    """Strongly connected components (iterative Tarjan), each after every component it reaches
    (reverse topological order), and the component of each node."""
    count = len(successors)
    order = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    component_of = [-1] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if order[root] != -1:
            continue
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            node, position = work[-1]
            nexts = successors[node]
            if position < len(nexts):
                work[-1] = (node, position + 1)
                successor = nexts[position]
                if order[successor] == -1:
                    order[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack[successor] = True
                    work.append((successor, 0))
                elif on_stack[successor] and order[successor] < low[node]:
                    low[node] = order[successor]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == order[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component_of[member] = len(components)
                    members.append(member)
                    if member == node:
                        break
                components.append(members)
    return components, component_of


# ---- joining a project's graph to stored summaries --------------------------------------------------
def join(graph: Graph, summaries: Iterable[Summary]) -> Graph:
    """The project's graph with each call into a summarised package joined to its summary, for a
    unit whose own graph is not loaded (``--deps none``, or a summary from another run).

    An external key that a summary's symbol stands for (the symbol's external key) gets a package
    edge to a node of that symbol (``pypi:requests@2.34.2//requests/api.py//get``), and that node a
    ``package`` edge (``via`` names the summary) to each key the symbol reaches and stands in for
    its uncertainties with their scopes: an unresolved site or dynamic flag of its code (everywhere,
    by name, by prefix). For each name a call by name in the joined graph has (the project's own
    sites and the summaries'), a definition of that name per summary reaching what that package's
    definitions of that name reach: a call by name may go to any package's definition, as a search
    of the graph with the units installed says. A key the symbol reaches that another summary gives
    is joined in turn; a call into a package with no summary stays what reach says of it
    (no-dependency-source). A key under a class's key (a method call on an instance) is the class's
    member, else a member of its bases (``Summary.bases``) as the link with the units loaded finds
    it: a class of the unit, or an external base (``typing//Generic``) whose member key goes on as
    its own node does; a member no base gives leaves the call open (uncertain).
    A summary whose unit the graph already holds is left out: the unit's graph answers."""
    nodes = dict(graph.node_by_key)
    loaded = {n.unit for n in graph.nodes if n.unit}
    joining = [made for made in summaries if made.unit not in loaded]
    by_external: dict[str, tuple[Summary, str]] = {}
    # every symbol an external key stands for: a package's module is its main file and the files
    # that file loads (npm's debug: src/index.js, src/node.js, src/browser.js), and a call of the key
    # runs each, as the package edges of a loaded unit say
    every_symbol: dict[str, list[tuple[Summary, str]]] = {}
    edges = list(graph.edges)
    for made in joining:
        for external, bit in made.aliases:
            symbol = made.keys[bit]
            if symbol in made.symbols:
                by_external.setdefault(external, (made, symbol))
                if by_external[external][0] is made:
                    every_symbol.setdefault(external, []).append((made, symbol))
        # every symbol is a node, so a target matches it as it matches the unit's definition, and a
        # re-export keeps its export edges to the definitions it stands for
        for symbol in made.symbols:
            nodes.setdefault(symbol, _stand_in(made, symbol, ""))
        for bit, closure in made.exports:
            for other in closure:
                nodes.setdefault(made.keys[other], _stand_in(made, made.keys[other], ""))
                edges.append(Edge(made.keys[bit], made.keys[other], "references", "export", NO_SITE))
    unresolved = list(graph.unresolved)
    dynamic = list(graph.dynamic)
    joined_symbols: set[str] = set()
    out = graph.out_edges

    # what the link with the units loaded resolves a key under a class by (``link.units``'
    # ``_package_edges``): the keys that graph has nodes of (the project's, the imported units'
    # external keys, the summaries' own), each class's bases, what each re-export stands for
    imported = _imported(graph, joining)
    present: dict[str, Summary | None] = dict.fromkeys(graph.node_by_key)
    bases_of: dict[str, tuple[str, ...]] = {}
    exports_of: dict[str, list[str]] = {}
    by_unit: dict[str, Summary] = {}
    for made in joining:
        by_unit[made.unit] = made
        bases_of.update(made.bases)
        for bit, closure in made.exports:
            exports_of[made.keys[bit]] = [made.keys[other] for other in closure]
        for key in made.keys[made.external_count :]:
            present.setdefault(key, made)
    for made in imported:
        for key in made.keys[: made.external_count]:
            present.setdefault(key, made)

    def settle(key: str) -> list[str]:
        """A key followed through its export edges to the definitions it stands for."""
        closure = exports_of.get(key)
        if not closure:
            return [key]
        return [k for k in (key, *closure) if k not in exports_of] or [key]

    def member(owner: str, name: str, depth: int = 0) -> list[str]:
        """``name`` in a class or module: its own, else the first of its bases that gives one (an
        external base gives the key of its member when that key is a node)."""
        if depth > MAX_HOPS:
            return []
        direct = keys.join(owner, name)
        if direct in present:
            return [direct]
        found: list[str] = []
        for base in bases_of.get(owner, ()):
            for settled in settle(base):
                found.extend(member(settled, name, depth + 1))
            if found:
                return found
        return found

    resolutions: dict[str, list[tuple[Summary, str]] | None] = {}

    def resolved(key: str) -> list[tuple[Summary, str]] | None:
        """What an external key stands for: the summary symbols of its external key, else, under
        the longest prefix a summary gives, the member of each name in turn (``jinja2//Template//
        render``: ``jinja2//Template`` stands for ``jinja2//environment//Template``, whose ``render``
        it is; werkzeug's ``LocalProxy//_get_current_object``, which LocalProxy's base
        ``typing//Generic`` gives). Each is a symbol of the summary paired with it, or an external
        key that goes on by its own node; None when nothing is known, or when the member is code of
        a unit that no symbol stands for (the call stays open: uncertain)."""
        if key in resolutions:
            return resolutions[key]
        found = every_symbol.get(key)
        if found is None:
            found = _through_prefix(key)
        resolutions[key] = found
        return found

    def _through_prefix(key: str) -> list[tuple[Summary, str]] | None:
        parts = key.split(keys.SEP)
        for cut in range(len(parts) - 1, 0, -1):
            owners = every_symbol.get(keys.SEP.join(parts[:cut]))
            if owners is None:
                continue
            reached = {
                m for _made, owner in owners for m in members_along(owner, parts[cut:], settle, member)
            }
            targets: list[tuple[Summary, str]] = []
            for target in sorted(reached - {key}):
                made = by_unit.get(keys.split_unit(target)[0])
                if made is None:
                    targets.append((owners[0][0], target))
                elif target in made.symbols:
                    targets.append((made, target))
                else:
                    return None
            return targets or None
        return None

    def open_call(key: str) -> bool:
        """An external key with no package edge that a summary gives: a call to join."""
        node = nodes[key]
        return (
            node.kind == "external"
            and not any(e[3] == "package" for e in out.get(key, ()))
            and resolved(key) is not None
        )

    def _join_symbol(made: Summary, symbol: str, external: str) -> None:
        via = f"summary {made.unit}"
        for key in made._reached(symbol):
            if key not in nodes:
                nodes[key] = _stand_in(made, key, nodes[external].language)
            if key not in seen and open_call(key):
                seen.add(key)
                queue.append(key)
            if key != symbol:
                edges.append(Edge(symbol, key, "calls", "package", NO_SITE, via))
        for u in (*made.every_search, *made.entered_uncertainties(symbol)):
            if u.scope == PACKAGE:
                continue  # the external key it stands for is reached, and scoped by this graph
            site = u.site or NO_SITE
            if u.kind == "dynamic-flag":
                dynamic.append(Dynamic(symbol, site, u.reason, u.value if u.scope == PREFIX else ""))
                continue
            reason, _, text = u.reason.partition(": ")
            if u.kind != "unresolved-call" or u.scope == EVERYWHERE:
                reason = reason if u.kind == "unresolved-call" and reason in UNRESOLVED_REASONS else "limit"
                unresolved.append(Unresolved(symbol, site, reason, "", text or u.reason))
            elif u.scope == NAME:
                unresolved.append(Unresolved(symbol, site, reason, u.value, text))
            else:
                unresolved.append(Unresolved(symbol, site, reason, "", text, prefix=u.value))

    queue = sorted(n.key for n in graph.nodes if open_call(n.key))
    seen = set(queue)
    named: set[str] = set()
    while True:
        while queue:
            external = queue.pop()
            for made, target in resolved(external) or ():
                via = f"summary {made.unit}"
                edges.append(Edge(external, target, "calls", "package", NO_SITE, via))
                if target in made.symbols:
                    if target not in joined_symbols:
                        joined_symbols.add(target)
                        _join_symbol(made, target, external)
                    continue
                # an external key a base gives the member by: it goes on as its node does
                if target not in nodes:
                    giver = present[target] or made
                    nodes[target] = _stand_in(giver, target, nodes[external].language)
                if target not in seen and open_call(target):
                    seen.add(target)
                    queue.append(target)
        # a definition of a name per package, standing for its definitions of that name (what they
        # reach, joined in turn), for each name a call by name of the joined graph has
        names = {u.name for u in unresolved if not u.covered and unresolved_scope(u)[0] == NAME} - named
        if not names:
            break
        for name in sorted(names):
            named.add(name)
            for made in imported:
                at = made.names.get(name)
                if at is None:
                    continue
                stand_in = keys.join(made.unit, "(summary)", name)
                nodes[stand_in] = Node(stand_in, "function", path=made.unit, unit=made.unit, name=name)
                for key in made._keys_of(made.reach_sets[at]):
                    if key not in nodes:
                        nodes[key] = _stand_in(made, key, "")
                    if key not in seen and open_call(key):
                        seen.add(key)
                        queue.append(key)
                    edges.append(Edge(stand_in, key, "calls", "package", NO_SITE, f"summary {made.unit}"))
    return Graph(
        nodes=tuple(nodes[k] for k in sorted(nodes)),
        edges=tuple(sorted(set(edges))),
        roots=graph.roots,
        unresolved=tuple(sorted(set(unresolved))),
        dynamic=tuple(sorted(set(dynamic))),
        truncations=graph.truncations,
        files=graph.files,
        stats={**graph.stats, "summaries": sorted({s.unit for s, _symbol in by_external.values()})},
    )


def _imported(graph: Graph, summaries: list[Summary]) -> list[Summary]:
    """The summaries whose packages the graph's code imports, or the code of one of them does, in
    turn: the units an index with them installed loads (``indexer``: a unit whose import names
    nothing imports is not indexed), so only their definitions are where a call by name may go."""
    names = {keys.package_of(n.key) for n in graph.nodes if n.kind == "external"}
    found: list[Summary] = []
    pending = list(summaries)
    while True:
        entered = [s for s in pending if any(keys.package_of(e) in names for e, _ in s.aliases)]
        if not entered:
            return sorted(found, key=lambda s: s.unit)
        found.extend(entered)
        units = {s.unit for s in entered}
        pending = [s for s in pending if s.unit not in units]
        for made in entered:
            names.update(keys.package_of(key) for key in made.keys[: made.external_count])


def _stand_in(made: Summary, key: str, language: str) -> Node:
    """A node for a key of a summary: one of its unit's own (with its external key) or an external."""
    ref = made._refs[key]
    if ref >= made.external_count:
        return Node(key, "function", unit=made.unit, external=made._externals.get(ref, ""), language=language)
    return Node(key, "external", language=language, external=key, name=keys.last_segment(key))


def stored_for(connection: sqlite3.Connection, root: str | os.PathLike[str], graph: Graph) -> list[Summary]:
    """The stored summaries (current versions) of the units the project's environment holds now
    (``--deps auto`` discovery, files only) that ``graph`` does not: what ``join`` takes."""
    loaded = {n.unit for n in graph.nodes if n.unit}
    found = []
    for unit in discover_units(root, AUTO_DEPS):
        if unit.name not in loaded:
            stored = load(connection, unit.name)
            if stored is not None:
                found.append(stored)
    return found
