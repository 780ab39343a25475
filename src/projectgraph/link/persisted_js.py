"""The JavaScript/TypeScript link's state in the store, so that a one-shot ``sync`` after an edit
re-links only the part of the project the edit can change, with the graph a full link gives.

The JavaScript linker works in *units*, each file's share of two passes in path order: its binding
pass (``B``: the functions its calls pass to parameters) and its link (``L``: its edges). A unit
reads other files only through module resolution (``resolve_module``: an import, a re-export, a
``require``) or through the linker's global tables (class hierarchy, members by name, static
receivers, pushes, mixins, prototype chains, getters, constructor functions, computed tables).
So the files fall into *parts*, the connected components of the resolved imports (either way):
a unit of one part never reads a file of another except through a global table. ``save`` keeps,
with the graph, in the store's link blobs:

- each unit's output, in the order it gave it: the builder calls it made (nodes, externals,
  edges, unresolved sites, dynamic flags), the parameter bindings it tried (``_bind``), the
  undeclared modules it noted (``j<unit>``);
- the globals: each file's hash, the resolutions each file's code made (from file -> file), and
  for each global table the unit during which it was computed and a digest of its value.

``relink`` builds the linker over the new indexes and runs again the units of the parts that hold
a changed file (the parts are made of the stored resolutions and the changed files' own imports,
exports and literal ``require``s, resolved anew); every other unit's output is replayed as
stored, in its place, so the builder and the bindings see what a full link gives them in the order
it gives it. A global table is computed where the full link computed it (before the same unit) and
must come out with the stored digest; a resolution of a re-run unit that reaches a part that was
not re-run, another file set, other options, a project with files of another linker, a truncated
graph: each gives up (None), and the sync links in full (and saves again). The graph is then made
as ``link.build`` makes it (roots, stats, every file placed), from those outputs.

The memoized answers of a part are made by that part's units only, so a part's re-run sees them
as a full link does; an answer the depth cap cut is not memoized, so it is found again alike.
"""

from __future__ import annotations

import hashlib
import marshal
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

from projectgraph import fileindex
from projectgraph.fileindex import FileIndex
from projectgraph.graph import VERSION, Dynamic, Graph, Node, Site, Unresolved
from projectgraph.link import (
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_EXPORT_HOPS,
    LinkOptions,
    _linker_factories,
    build,
)
from projectgraph.link import javascript as js
from projectgraph.link.core import DefInfo, GraphBuilder, LinkContext, Value
from projectgraph.store import sqlite as sql

STATE_VERSION = 1
"""The form of the stored state; a state of another version (or link rules) is not read."""

KIND = "javascript"

_CACHED = (
    "_constructor_functions",
    "_prototype_bases",
    "_getters",
    "_subclasses",
    "_static_receivers",
    "_computed_tables",
    "_members_by_name",
)
"""The global tables the linker computes once (``cached_property``), over every file."""
_METHODS = {"_mixins_table": "_mixins", "_pushed_table": "_pushed"}
"""The global tables computed once by a method (attribute -> method)."""
TABLES = (*_CACHED, *_METHODS)
_END = -1  # a table computed after the last unit (or, in a relink, made to be)


class _NotFollowed(Exception):
    """The change is not one the stored state can follow: link in full."""


def shape(options: LinkOptions) -> str:
    """What the link was made with besides the indexes and the control files (which a sync compares)."""
    return repr(
        (
            KIND,
            STATE_VERSION,
            VERSION,
            fileindex.VERSION,
            options.root,
            tuple(options.test_paths),
            tuple(options.rules),
            options.max_edges or DEFAULT_MAX_EDGES,
            options.max_export_hops or DEFAULT_MAX_EXPORT_HOPS,
        )
    )


def handles(indexes: Iterable[FileIndex]) -> bool:
    """Whether this state can be the link's: a project whose every file the JavaScript linker reads
    (its parts are then the whole link; the other linkers have nothing to do)."""
    seen = False
    for index in indexes:
        if index.language not in js.LANGUAGES:
            return False
        seen = True
    return seen


# ---- what a unit gives, as plain tuples (marshal) -------------------------------------------------
class _LogList(list[Dynamic]):
    """``builder.dynamic`` of the recording builder: appends go to the real builder, logged."""

    def __init__(self, owner: _LogBuilder) -> None:
        super().__init__()
        self.owner = owner

    def append(self, flag: Dynamic) -> None:
        owner = self.owner
        if owner.ops is not None:
            owner.ops.append(("d", flag[0], tuple(flag[1]), *flag[2:]))
        owner.real.dynamic.append(flag)


class _LogBuilder(GraphBuilder):
    """The linker's builder: every call goes to the real builder and, while a unit runs, into
    that unit's log (``ops``)."""

    def __init__(self, real: GraphBuilder) -> None:
        super().__init__()
        self.real = real
        self.ops: list[tuple[Any, ...]] | None = None
        self.dynamic = _LogList(self)

    def node(self, node: Node) -> None:
        if self.ops is not None:
            self.ops.append(("n", tuple(node)))
        self.real.node(node)

    def external(self, key: str, language: str) -> str:
        if self.ops is not None:
            self.ops.append(("x", key, language))
        return self.real.external(key, language)

    def edge(self, caller: str, callee: str, relation: str, kind: str, site: Site, via: str = "") -> None:
        if self.ops is not None:
            self.ops.append(("e", caller, callee, relation, kind, tuple(site), via))
        self.real.edge(caller, callee, relation, kind, site, via)

    def unresolved_site(self, site: Unresolved) -> None:
        if self.ops is not None:
            self.ops.append(("u", site[0], tuple(site[1]), *site[2:]))
        self.real.unresolved_site(site)

    def replay(self, ops: Iterable[Sequence[Any]]) -> None:
        """Give the real builder a stored unit's calls again, in their order."""
        real = self.real
        for op in ops:
            what = op[0]
            if what == "e":
                real.edge(op[1], op[2], op[3], op[4], Site(*op[5]), op[6])
            elif what == "x":
                real.external(op[1], op[2])
            elif what == "u":
                real.unresolved_site(Unresolved(op[1], Site(*op[2]), *op[3:]))
            elif what == "d":
                real.dynamic.append(Dynamic(op[1], Site(*op[2]), *op[3:]))
            else:
                real.node(Node(*op[1]))


# ---- the recording linker -------------------------------------------------------------------------
@dataclass
class _Plan:
    """A relink's plan, which ``prepare`` makes from the linker of the new indexes before any unit
    runs: the units to run again; the others' stored outputs; the tables to compute before a unit
    (where the full link computed them)."""

    prepare: Callable[[TracedLinker], None]
    dirty: set[int] = field(default_factory=set)
    blobs: dict[int, bytes] = field(default_factory=dict)
    force: dict[int, list[str]] = field(default_factory=dict)


class _ReadDict(dict[Any, Any]):
    """A global table that notes the keys asked of it (the linker only asks by key)."""

    reads: set[Any]

    def get(self, key: Any, default: Any = None) -> Any:
        self.reads.add(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: Any) -> Any:
        self.reads.add(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self.reads.add(key)
        return dict.__contains__(self, key)


class _ReadSet(frozenset[Any]):
    """A global set that notes the keys asked of it."""

    reads: set[Any]

    def __contains__(self, key: object) -> bool:
        self.reads.add(key)
        return frozenset.__contains__(self, key)


_MISSING = ("<missing>",)


def _entry(table: Any, key: Any) -> Any:
    """What a table holds for a key, without noting the read."""
    if isinstance(table, frozenset):
        return frozenset.__contains__(table, key)
    return dict.get(table, key, _MISSING)


def _entry_digest(linker: js.JavaScriptLinker, table: Any, key: Any) -> str:
    data = repr(_canon(_entry(table, key), linker)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _cached(name: str) -> Any:
    """The base linker's ``cached_property`` of a table, for the traced one to wrap."""
    return js.JavaScriptLinker.__dict__[name].func


class TracedLinker(js.JavaScriptLinker):
    """The JavaScript linker, unit by unit, recording what each unit gives (and, with a plan,
    replaying the units it does not run again)."""

    plan: _Plan | None = None

    def start(self) -> None:
        self.outputs: dict[int, bytes] = {}
        self.resolved: set[tuple[str, str]] = set()
        self.computed: dict[str, int] = {}  # table -> the unit during (or before) which it was made
        self.ran = 0
        self.table_reads: dict[str, set[Any]] = {}
        self._binds: list[tuple[str, list[tuple[str, str]]]] | None = None
        self._checks: list[tuple[str, bool]] | None = None

    # ---- the global tables, noting the keys each is asked (a unit reads a table by key only)
    def _noting(self, name: str, table: Any) -> Any:
        noted: _ReadDict | _ReadSet = _ReadSet(table) if isinstance(table, frozenset) else _ReadDict(table)
        noted.reads = self.table_reads.setdefault(name, set())
        return noted

    @cached_property
    def _constructor_functions(self) -> frozenset[str]:
        return self._noting("_constructor_functions", _cached("_constructor_functions")(self))  # type: ignore[no-any-return]

    @cached_property
    def _prototype_bases(self) -> dict[str, list[Value]]:
        return self._noting("_prototype_bases", _cached("_prototype_bases")(self))  # type: ignore[no-any-return]

    @cached_property
    def _getters(self) -> frozenset[str]:
        return self._noting("_getters", _cached("_getters")(self))  # type: ignore[no-any-return]

    @cached_property
    def _subclasses(self) -> dict[str, list[str]]:
        return self._noting("_subclasses", _cached("_subclasses")(self))  # type: ignore[no-any-return]

    @cached_property
    def _static_receivers(self) -> dict[str, list[str]]:
        return self._noting("_static_receivers", _cached("_static_receivers")(self))  # type: ignore[no-any-return]

    @cached_property
    def _computed_tables(self) -> dict[tuple[str, int, int], str]:
        return self._noting("_computed_tables", _cached("_computed_tables")(self))  # type: ignore[no-any-return]

    @cached_property
    def _members_by_name(self) -> dict[str, list[DefInfo]]:
        return self._noting("_members_by_name", _cached("_members_by_name")(self))  # type: ignore[no-any-return]

    def _find_pushed(self) -> dict[str, list[Value]]:
        return self._noting("_pushed_table", super()._find_pushed())  # type: ignore[no-any-return]

    def _find_mixins(self) -> dict[str, list[Value]]:
        return self._noting("_mixins_table", super()._find_mixins())  # type: ignore[no-any-return]

    def resolve_module(self, from_path: str, spec: str) -> str | None:
        found = super().resolve_module(from_path, spec)
        if found is not None and found != from_path:
            self.resolved.add((from_path, found))
        return found

    def _from_undeclared(self, key: str) -> bool:
        found = super()._from_undeclared(key)
        if self._checks is not None:
            self._checks.append((key, found))
        return found

    def _bind(self, key: str, values: Sequence[Value]) -> None:
        if self._binds is not None:
            self._binds.append((key, [(v[0], v[1]) for v in values]))
        super()._bind(key, values)

    def link(self) -> None:
        if self.plan is not None:
            self.plan.prepare(self)
        self._add_nodes()
        order = list(self.files.values())
        count = len(order)
        for position, jsfile in enumerate(order):
            self._unit(position, partial(self._bind_file, jsfile))
        self._end_binding()
        for position, jsfile in enumerate(order):
            self._unit(count + position, partial(self._link_file, jsfile))
        self.units_resolved = set(self.resolved)  # (what finding the roots resolves comes after)

    def table_computed(self, name: str) -> bool:
        if name in _METHODS:
            return getattr(self, name) is not None
        return name in self.__dict__

    def compute_table(self, name: str) -> Any:
        if name in _METHODS:
            return getattr(self, _METHODS[name])()
        return getattr(self, name)

    def _unit(self, uid: int, work: Callable[[], None]) -> None:
        builder = self.builder
        assert isinstance(builder, _LogBuilder)
        plan = self.plan
        if plan is not None and uid not in plan.dirty:
            for name in plan.force.get(uid, ()):
                self.compute_table(name)
            blob = plan.blobs[uid]
            stored_ops, stored_binds, undeclared, asked = marshal.loads(blob)
            for key, was in asked:  # (the set grows over the run: as it was where the unit ran)
                if js.JavaScriptLinker._from_undeclared(self, key) != was:
                    raise _NotFollowed(f"the modules noted undeclared before unit {uid} changed")
            builder.replay(stored_ops)
            for key, values in stored_binds:
                js.JavaScriptLinker._bind(self, key, [Value(v[0], v[1]) for v in values])
            self._undeclared.update(undeclared)
            self.outputs[uid] = blob
        else:
            ops: list[tuple[Any, ...]] = []
            binds: list[tuple[str, list[tuple[str, str]]]] = []
            checks: list[tuple[str, bool]] = []
            before = set(self._undeclared)
            builder.ops, self._binds, self._checks = ops, binds, checks
            try:
                work()
            finally:
                builder.ops, self._binds, self._checks = None, None, None
            added = sorted(self._undeclared - before)
            self.outputs[uid] = marshal.dumps((ops, binds, added, sorted(set(checks))))
            self.ran += 1
        for name in TABLES:
            if name not in self.computed and self.table_computed(name):
                self.computed[name] = uid


def _canon(value: Any, linker: js.JavaScriptLinker) -> Any:
    """A table's value as plain data, in its order (sets sorted). A definition is its key and what
    a unit that finds it there reads of it besides (whether its file is minified)."""
    if isinstance(value, DefInfo):
        jsfile = linker.files.get(value.path)
        return ("def", value.key, value.definition.kind, jsfile is not None and jsfile.minified)
    if isinstance(value, dict):
        return [(_canon(k, linker), _canon(v, linker)) for k, v in value.items()]
    if isinstance(value, (set, frozenset)):
        return sorted(_canon(v, linker) for v in value)
    if isinstance(value, (list, tuple)):
        return [_canon(v, linker) for v in value]
    return value


def _static_specs(index: FileIndex) -> list[str]:
    """The module specifiers a file's code names: its imports, re-exports and literal ``require``
    / ``import()`` calls (what its units resolve, as far as the index shows it)."""
    specs = [imp.module for imp in index.imports] + [e.module for e in index.exports if e.module]
    for call in index.calls:
        if call.text.startswith(("require(", "(", "import(")):
            loaded = js._LOADED_CALL.match(call.text)
            if loaded is not None:
                specs.append(loaded.group(3))
    return specs


# ---- a full link that keeps its state -----------------------------------------------------------
@dataclass
class _Run:
    """One link with the recording linker: the graph and what the state needs of it."""

    graph: Graph
    linker: TracedLinker


def _link(indexes: Sequence[FileIndex], options: LinkOptions, plan: _Plan | None) -> _Run:
    made: list[TracedLinker] = []

    def make_js(
        ordered: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext
    ) -> js.JavaScriptLinker:
        if context.unit is not None:  # (a unit of dependency code reads its own manifests)
            return js.make_linker(ordered, builder, context)
        log = _LogBuilder(builder)
        linker = TracedLinker(
            ordered, log, context.manifests, context.max_hops, context.test_paths, context.root
        )
        linker.plan = plan
        linker.start()
        made.append(linker)
        return linker

    plain: Any = js.make_linker
    factories: list[Any] = [make_js if make is plain else make for make in _linker_factories()]
    graph = build(indexes, options, factories)
    if not made:
        raise _NotFollowed("no JavaScript linker")
    return _Run(graph, made[0])


def _table_entries(linker: TracedLinker, name: str, more: Iterable[Any] = ()) -> list[tuple[Any, str]]:
    """The keys of a table the units asked (and ``more``), each with a digest of its entry."""
    table = linker.compute_table(name)
    keys = {*linker.table_reads.get(name, ()), *more}
    return [(key, _entry_digest(linker, table, key)) for key in sorted(keys, key=repr)]


def _state(
    linker: TracedLinker,
    indexes: Sequence[FileIndex],
    options: LinkOptions,
    digests: dict[str, list[tuple[Any, str]]],
) -> dict[str, Any]:
    edges: dict[str, list[str]] = {}
    for source, target in sorted(linker.resolved):
        edges.setdefault(source, []).append(target)
    return {
        "kind": KIND,
        "shape": shape(options),
        "token": uuid.uuid4().hex,
        "files": {i.path: i.hash for i in indexes},
        "languages": {i.path: i.language for i in indexes},
        "units": len(linker.outputs),
        "edges": edges,
        "tables": {name: (at, digests[name]) for name, at in sorted(linker.computed.items())},
    }


def build_saved(
    indexes: Sequence[FileIndex], options: LinkOptions
) -> tuple[Graph, Callable[[Any], None] | None]:
    """A full link of a JavaScript/TypeScript project, and what writes its state (None: a graph the
    state cannot follow, a truncated one)."""
    run = _link(indexes, options, None)
    if run.graph.truncations:
        return run.graph, None
    linker = run.linker
    state = _state(linker, indexes, options, {name: _table_entries(linker, name) for name in linker.computed})
    outputs = linker.outputs

    def save(connection: Any) -> None:
        sql.write_link_state(
            connection,
            marshal.dumps(state),
            ((f"j{uid}", blob) for uid, blob in sorted(outputs.items())),
            (),
            state["token"],
        )

    return run.graph, save


# ---- relink in a fresh process ------------------------------------------------------------------
@dataclass(frozen=True)
class Relinked:
    """A graph linked from the stored state, the units run again, and what writes the new state."""

    graph: Graph
    units: int
    save: Callable[[Any], None]


def relink(
    connection: Any, indexes: Sequence[FileIndex], options: LinkOptions
) -> tuple[Relinked | None, str]:
    """The graph of ``indexes`` from the stored state, or (None, why not)."""
    try:
        return _relink(connection, indexes, options), ""
    except _NotFollowed as why:
        return None, str(why)
    except (KeyError, ValueError, EOFError, TypeError) as error:  # a state this version cannot read
        return None, f"the stored state cannot be read: {type(error).__name__}: {error}"


class _Parts:
    """Union-find over paths."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, path: str) -> str:
        parent = self.parent
        root = parent.setdefault(path, path)
        while root != parent[root]:
            root = parent[root]
        while path != root:
            parent[path], path = root, parent[path]
        return root

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _relink(connection: Any, indexes: Sequence[FileIndex], options: LinkOptions) -> Relinked:
    blob = sql.read_link_globals(connection)
    if blob is None:
        raise _NotFollowed("no stored state")
    state = marshal.loads(blob)
    if not isinstance(state, dict) or state.get("kind") != KIND:
        raise _NotFollowed("the stored state is another linker's")
    if state["shape"] != shape(options):
        raise _NotFollowed("linked with other options or rules")
    if not handles(indexes):
        raise _NotFollowed("files of another linker")
    files: dict[str, str] = state["files"]
    if {i.path: i.language for i in indexes} != state["languages"]:
        raise _NotFollowed("files came or went")
    changed = {i.path for i in indexes if i.hash != files[i.path]}
    stored_edges: dict[str, list[str]] = state["edges"]
    tables: dict[str, tuple[int, list[tuple[Any, str]]]] = state["tables"]

    def prepare(linker: TracedLinker) -> None:
        """The parts, from the stored resolutions (the changed files' old ones too) and the
        changed files' own, resolved now; the units of the parts that hold a changed file."""
        paths = list(linker.files)
        count = len(paths)
        if state["units"] != 2 * count:
            raise _NotFollowed("another set of units")
        parts = _Parts()
        for source, targets in stored_edges.items():
            for target in targets:
                parts.join(source, target)
        for path in sorted(changed):
            jsfile = linker.files.get(path)
            if jsfile is None:
                continue  # a declaration file: a module node, no unit
            for spec in _static_specs(jsfile.index):
                found = linker.resolve_module(path, spec)
                if found is not None and found != path:
                    parts.join(path, found)
        dirty_roots = {parts.find(path) for path in changed if path in linker.files}
        dirty_files.update(path for path in paths if parts.find(path) in dirty_roots)
        position = {path: i for i, path in enumerate(paths)}
        plan.dirty = {position[p] for p in dirty_files} | {count + position[p] for p in dirty_files}
        clean = [uid for uid in range(2 * count) if uid not in plan.dirty]
        plan.blobs = dict(zip(clean, _read_blobs(connection, [f"j{uid}" for uid in clean]), strict=True))
        for name, (at, _digest) in sorted(tables.items()):
            if at != _END and at not in plan.dirty:
                plan.force.setdefault(at, []).append(name)

    dirty_files: set[str] = set()
    plan = _Plan(prepare)
    run = _link(indexes, options, plan)
    linker = run.linker

    # what the units run again read must be what the parts said
    for source, target in linker.units_resolved:
        if (source in dirty_files) != (target in dirty_files):
            raise _NotFollowed(f"{source} resolves into a part not linked again ({target})")
    if run.graph.truncations:
        raise _NotFollowed("truncated")
    # a table must hold for each key a unit asked what it held (the units not run again ask it)
    digests: dict[str, list[tuple[Any, str]]] = {}
    for name, (_at, entries) in tables.items():
        if name not in linker.computed:
            linker.computed[name] = _END
        table = linker.compute_table(name)
        for key, digest in entries:
            if _entry_digest(linker, table, key) != digest:
                raise _NotFollowed(f"the table {name} changed at {key!r}")
        digests[name] = _table_entries(linker, name, (key for key, _digest in entries))
    for name in linker.computed:
        if name not in digests:
            digests[name] = _table_entries(linker, name)
    linker.resolved |= {(s, t) for s, targets in stored_edges.items() if s not in changed for t in targets}
    new_state = _state(linker, indexes, options, digests)
    outputs = linker.outputs
    dirty = sorted(plan.dirty)

    def save(connection: Any) -> None:
        sql.patch_link_state(
            connection,
            marshal.dumps(new_state),
            [(f"j{uid}", outputs[uid]) for uid in dirty],
            {},
            new_state["token"],
        )

    return Relinked(run.graph, linker.ran, save)


def _read_blobs(connection: Any, names: Sequence[str]) -> list[bytes]:
    found: list[bytes] = []
    for start in range(0, len(names), 500):
        found += sql.read_link_blobs(connection, names[start : start + 500])
    return found


__all__ = ["STATE_VERSION", "Relinked", "TracedLinker", "build_saved", "handles", "relink", "shape"]
