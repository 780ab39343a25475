"""The JavaScript/TypeScript link's state in the store, so that a one-shot ``sync`` after an edit
re-links only what read the edited file, with the graph a full link gives.

The JavaScript linker works in *units*, each file's share of two passes in path order: its binding
pass (``B``: the functions its calls pass to parameters) and its link (``L``: its edges). The
recording linker (``TracedLinker``) notes, per unit, the files whose facts it read: an entry of
``files``, ``defs`` or ``objects`` notes its file, and a memoized answer (a name's lookup, a
function's return, a field's value, a class's bases) keeps the files its computation read, which
each later hit of the answer reads again. A global table (class hierarchy, members by name, static
receivers, pushes, mixins, prototype chains, getters, constructor functions, computed tables) is
computed in a frame of its own and notes instead the keys the units ask of it; the parameters'
bindings note the parameters each link unit asks for. ``save`` keeps, with the graph, in the
store's link blobs:

- each unit's output, in the order it gave it: the builder calls it made (nodes, externals,
  edges, unresolved sites, dynamic flags), the parameter bindings it tried (``_bind``), the
  undeclared modules it noted and those it asked about (``j<unit>``);
- the globals: each file's hash, the files each unit read, the parameters each link unit asked for
  and a digest of each one's bindings, and for each global table the unit during which it was
  computed and a digest of each entry a unit asked for.

``relink`` builds the linker over the new indexes, runs again the units that read a changed file,
and replays every other unit's output as stored, in its place, so that the builder and the bindings
see what a full link gives them, in the order it gives it. After the binding pass, a link unit that
asked for a parameter whose bindings changed runs again too. A global table is computed where the
full link computed it (before the same unit) and must hold, at each key a unit asked, what it held;
a replayed unit's undeclared modules must be noted as they were; another file set, other options or
rules, files of another linker, a truncated graph: each gives up (None), and the sync links in full
(and saves again). The graph is made as ``link.build`` makes it (roots, stats, every file placed).

What a replayed unit read is as it was, so it would compute what it computed. One thing the state
does not see: which answers were memoized when a unit ran. An answer is memoized only when complete,
so a memo hit and a computation give the same answer, except where the computation meets the depth
cap (``max_hops``) or a class whose bases are being resolved that the hit did not: a chain of
resolutions that deep, or a cycle through bases, met in another order (``tests/test_sync_stored_js``
checks every sync against a full index; so can ``projectgraph index`` on a fresh store).
"""

from __future__ import annotations

import hashlib
import marshal
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, TypeVar, cast

from projectgraph.fileindex import FileIndex
from projectgraph.graph import Dynamic, Graph, Node, Site, Unresolved
from projectgraph.languages.javascript.link import linker as js
from projectgraph.link import (
    LinkOptions,
    _linker_factories,
    build,
)
from projectgraph.link.core import DefInfo, GraphBuilder, LinkContext, Value
from projectgraph.link.state import NotFollowed, followed, read_state
from projectgraph.link.state import shape as state_shape
from projectgraph.store import sqlite as sql

STATE_VERSION = 2
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


_T = TypeVar("_T")


def shape(options: LinkOptions) -> str:
    """What the link was made with besides the indexes and the control files (which a sync compares)."""
    return state_shape(KIND, STATE_VERSION, options)


def handles(indexes: Iterable[FileIndex]) -> bool:
    """Whether this state can be the link's: a project whose every file the JavaScript linker reads
    (its units are then the whole link; the other linkers have nothing to do)."""
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
    bound: Callable[[TracedLinker], None]
    dirty: set[int] = field(default_factory=set)
    blobs: dict[int, bytes] = field(default_factory=dict)
    force: dict[int, list[str]] = field(default_factory=dict)
    touched: list[list[str]] = field(default_factory=list)
    binding_reads: dict[int, set[str]] = field(default_factory=dict)


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


class _BindingTable(dict[str, list[Value]]):
    """The parameters' bindings: a link unit's read of a parameter is noted (``binding_reads``)."""

    owner: TracedLinker

    def get(self, key: str, default: Any = None) -> Any:
        asked = self.owner._binding_asked
        if asked is not None:
            asked.add(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        asked = self.owner._binding_asked
        if asked is not None and isinstance(key, str):
            asked.add(key)
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


class _Touching(dict[str, Any]):
    """``files`` of the traced linker: a read of an entry notes its file in the frame under way
    (the last of ``frames``); ``_Defs`` and ``_Objects`` note the file of a definition, an object."""

    frames: list[set[str]]

    def _file(self, key: str, found: Any) -> str:
        return key

    def __getitem__(self, key: str) -> Any:
        found = dict.__getitem__(self, key)
        self.frames[-1].add(self._file(key, found))
        return found

    def get(self, key: str, default: Any = None) -> Any:
        found = dict.get(self, key, _MISSING)
        if found is _MISSING:
            self.frames[-1].add(key.partition("//")[0])
            return default
        self.frames[-1].add(self._file(key, found))
        return found


class _Defs(_Touching):
    def _file(self, key: str, found: Any) -> str:
        return found.path  # type: ignore[no-any-return]


class _Objects(_Touching):
    def _file(self, key: str, found: Any) -> str:
        return found[0]  # type: ignore[no-any-return]


# the memoizing methods (their memo, the key of their arguments): a hit notes what the answer read
_MEMOS: dict[str, tuple[str, Callable[..., Any]]] = {
    "_lookup_in": ("_lookup_memo", lambda jsfile, scope, name, line: (jsfile.path, scope, name, line)),
    "_returns": ("_returns_memo", lambda info: info.key),
    "_field_value": ("_field_memo", lambda cls, name: (cls, name)),
    "_bases": ("_bases_cache", lambda cls: cls),
}


def _memoized(name: str) -> Callable[..., Any]:
    """A memoizing method of the base linker that keeps, with each answer it memoizes, the files
    its computation read, and notes them again on each hit."""
    base = getattr(js.JavaScriptLinker, name)
    memo_name, key_of = _MEMOS[name]

    def traced(self: TracedLinker, *args: Any) -> Any:
        memo = getattr(self, memo_name)
        key = key_of(*args)
        reads = self.memo_reads.setdefault(memo_name, {})
        if key in memo:  # (each of these methods gives its memoized answer as it is)
            self.frames[-1].update(reads.get(key, ()))
            return memo[key]
        self.frames.append(set())
        try:
            return base(self, *args)
        finally:
            frame = self.frames.pop()
            self.frames[-1].update(frame)
            if key in memo:
                reads[key] = frame

    traced.__name__ = name
    return traced


def _cached(name: str) -> Any:
    """The base linker's ``cached_property`` of a table, for the traced one to wrap."""
    return js.JavaScriptLinker.__dict__[name].func


class TracedLinker(js.JavaScriptLinker):
    """The JavaScript linker, unit by unit, recording what each unit gives (and, with a plan,
    replaying the units it does not run again)."""

    plan: _Plan | None = None

    def start(self) -> None:
        self.outputs: dict[int, bytes] = {}
        self.computed: dict[str, int] = {}  # table -> the unit during (or before) which it was made
        self.ran = 0
        self.table_reads: dict[str, set[Any]] = {}
        self._binds: list[tuple[str, list[tuple[str, str]]]] | None = None
        self._checks: list[tuple[str, bool]] | None = None
        self.frames: list[set[str]] = [set()]  # the files read: the unit's, then nested answers'
        self.memo_reads: dict[str, dict[Any, set[str]]] = {}
        self.touched: dict[int, list[str]] = {}  # unit -> the files it read
        self.binding_reads: dict[int, set[str]] = {}  # link unit -> the parameters it asked
        self._binding_asked: set[str] | None = None
        for name, kind in (("files", _Touching), ("defs", _Defs), ("objects", _Objects)):
            view = kind(getattr(self, name))
            view.frames = self.frames
            setattr(self, name, view)

    _lookup_in = _memoized("_lookup_in")
    _returns = _memoized("_returns")
    _field_value = _memoized("_field_value")
    _bases = _memoized("_bases")

    @cached_property
    def _bindings(self) -> dict[str, list[Value]]:
        table = _BindingTable()
        table.owner = self
        return table

    # ---- the global tables, noting the keys each is asked (a unit reads a table by key only)
    def _table(self, name: str, make: Callable[[], _T]) -> _T:
        """A global table, computed in a frame of its own that is dropped (its entries are checked
        by their digests, not by the files its computation read), that notes the keys asked."""
        self.frames.append(set())
        try:
            table: Any = make()
        finally:
            self.frames.pop()
        noted: _ReadDict | _ReadSet = _ReadSet(table) if isinstance(table, frozenset) else _ReadDict(table)
        noted.reads = self.table_reads.setdefault(name, set())
        return cast(_T, noted)

    @cached_property
    def _constructor_functions(self) -> frozenset[str]:
        return self._table("_constructor_functions", partial(_cached("_constructor_functions"), self))

    @cached_property
    def _prototype_bases(self) -> dict[str, list[Value]]:
        return self._table("_prototype_bases", partial(_cached("_prototype_bases"), self))

    @cached_property
    def _getters(self) -> frozenset[str]:
        return self._table("_getters", partial(_cached("_getters"), self))

    @cached_property
    def _subclasses(self) -> dict[str, list[str]]:
        return self._table("_subclasses", partial(_cached("_subclasses"), self))

    @cached_property
    def _static_receivers(self) -> dict[str, list[str]]:
        return self._table("_static_receivers", partial(_cached("_static_receivers"), self))

    @cached_property
    def _computed_tables(self) -> dict[tuple[str, int, int], str]:
        return self._table("_computed_tables", partial(_cached("_computed_tables"), self))

    @cached_property
    def _members_by_name(self) -> dict[str, list[DefInfo]]:
        return self._table("_members_by_name", partial(_cached("_members_by_name"), self))

    def _find_pushed(self) -> dict[str, list[Value]]:
        return self._table("_pushed_table", super()._find_pushed)

    def _find_mixins(self) -> dict[str, list[Value]]:
        return self._table("_mixins_table", super()._find_mixins)

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
        order = list(dict.values(self.files))
        count = len(order)
        self._unit_file = [f.path for f in order] * 2
        for position, jsfile in enumerate(order):
            self._unit(position, partial(self._bind_file, jsfile))
        self._end_binding()
        if self.plan is not None:
            self.plan.bound(self)
        for position, jsfile in enumerate(order):
            self._unit(count + position, partial(self._link_file, jsfile))

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
            self.touched[uid] = plan.touched[uid]
            if uid in plan.binding_reads:
                self.binding_reads[uid] = plan.binding_reads[uid]
            blob = plan.blobs[uid]
            stored_ops, stored_binds, undeclared, noted = marshal.loads(blob)
            for key, was in noted:  # (the set grows over the run: as it was where the unit ran)
                if js.JavaScriptLinker._from_undeclared(self, key) != was:
                    raise NotFollowed(f"the modules noted undeclared before unit {uid} changed")
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
            asked: set[str] = set()
            builder.ops, self._binds, self._checks = ops, binds, checks
            self.frames[:] = [set()]
            self._binding_asked = asked if self._binding_done else None
            try:
                work()
            finally:
                builder.ops, self._binds, self._checks = None, None, None
                self._binding_asked = None
            self.touched[uid] = sorted(self.frames[0] | {self._unit_file[uid]})
            self.frames[:] = [set()]
            if self._binding_done:
                self.binding_reads[uid] = asked
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
        raise NotFollowed("no JavaScript linker")
    return _Run(graph, made[0])


def _table_entries(linker: TracedLinker, name: str, more: Iterable[Any] = ()) -> list[tuple[Any, str]]:
    """The keys of a table the units asked (and ``more``), each with a digest of its entry."""
    table = linker.compute_table(name)
    keys = {*linker.table_reads.get(name, ()), *more}
    return [(key, _entry_digest(linker, table, key)) for key in sorted(keys, key=repr)]


def _binding_digest(linker: TracedLinker, key: str) -> str:
    found = dict.get(linker._bindings, key)
    data = repr(None if found is None else [tuple(v) for v in found]).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _state(
    linker: TracedLinker,
    indexes: Sequence[FileIndex],
    options: LinkOptions,
    digests: dict[str, list[tuple[Any, str]]],
) -> dict[str, Any]:
    asked = sorted({key for keys in linker.binding_reads.values() for key in keys})
    return {
        "kind": KIND,
        "shape": shape(options),
        "token": uuid.uuid4().hex,
        "files": {i.path: i.hash for i in indexes},
        "languages": {i.path: i.language for i in indexes},
        "units": len(linker.outputs),
        "touched": [linker.touched[uid] for uid in range(len(linker.outputs))],
        "binding_reads": {uid: sorted(keys) for uid, keys in linker.binding_reads.items()},
        "bindings": {key: _binding_digest(linker, key) for key in asked},
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
    return followed(lambda: _relink(connection, indexes, options))


def _relink(connection: Any, indexes: Sequence[FileIndex], options: LinkOptions) -> Relinked:
    state = read_state(connection, shape(options), KIND)
    if not handles(indexes):
        raise NotFollowed("files of another linker")
    files: dict[str, str] = state["files"]
    if {i.path: i.language for i in indexes} != state["languages"]:
        raise NotFollowed("files came or went")
    changed = {i.path for i in indexes if i.hash != files[i.path]}
    tables: dict[str, tuple[int, list[tuple[Any, str]]]] = state["tables"]
    touched: list[list[str]] = state["touched"]
    binding_reads: dict[int, list[str]] = state["binding_reads"]
    bindings: dict[str, str] = state["bindings"]

    def prepare(linker: TracedLinker) -> None:
        """The units that read a changed file (their own, or another through what they resolved
        or through a memoized answer that read it): run again; the others replayed."""
        count = len(linker.files)
        if state["units"] != 2 * count or len(touched) != 2 * count:
            raise NotFollowed("another set of units")
        plan.dirty = {uid for uid, paths in enumerate(touched) if not changed.isdisjoint(paths)}
        plan.touched = touched
        plan.binding_reads = {uid: set(keys) for uid, keys in binding_reads.items()}
        clean = [uid for uid in range(2 * count) if uid not in plan.dirty]
        plan.blobs = dict(zip(clean, _read_blobs(connection, [f"j{uid}" for uid in clean]), strict=True))
        for name, (at, _digest) in sorted(tables.items()):
            if at != _END and at not in plan.dirty:
                plan.force.setdefault(at, []).append(name)

    def bound(linker: TracedLinker) -> None:
        """After the binding pass: a link unit that asked for a parameter bound otherwise now runs
        again (the binding-pass units run again may bind other values)."""
        moved = {key for key, digest in bindings.items() if _binding_digest(linker, key) != digest}
        if moved:
            plan.dirty |= {uid for uid, keys in binding_reads.items() if not moved.isdisjoint(keys)}

    plan = _Plan(prepare, bound)
    run = _link(indexes, options, plan)
    linker = run.linker
    if run.graph.truncations:
        raise NotFollowed("truncated")
    # a table must hold for each key a unit asked what it held (the units not run again ask it)
    digests: dict[str, list[tuple[Any, str]]] = {}
    for name, (_at, entries) in tables.items():
        if name not in linker.computed:
            linker.computed[name] = _END
        table = linker.compute_table(name)
        for key, digest in entries:
            if _entry_digest(linker, table, key) != digest:
                raise NotFollowed(f"the table {name} changed at {key!r}")
        digests[name] = _table_entries(linker, name, (key for key, _digest in entries))
    for name in linker.computed:
        if name not in digests:
            digests[name] = _table_entries(linker, name)
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
