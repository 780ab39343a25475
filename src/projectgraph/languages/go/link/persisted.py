"""The Go link's state in the store, so that a one-shot ``sync`` after an edit re-links only the
files whose share of the link read what changed, with the graph a full link gives.

The Go linker works in *units*: each file's link (``_link_file``: its imports, calls, references,
made types) in path order, and each file's share of the table of functions passed to parameters
(``_passed_of``, a *pass unit*). The recording linker (``TracedGoLinker``) notes, per unit, the
*keys* it read: ``("d", path, qualname)`` a definition of a file, ``("D", path)`` all of them,
``("b", path, (scope, name))`` the bindings of a name, ``("B", path)`` all of them, ``("i", path)``
a file's imports, ``("s", package, name)`` a package's top-level name, ``("m", package, (type,
method))`` a method, ``("bn", name)`` the methods of a name (name candidates), ``("L", path)``
whether a file does work when its package loads, ``("p", key)`` the functions passed to a
function, and ``("F", path)`` its own file. A memoized answer (a name's value, a type, a method
lookup, ...) keeps the keys its computation read, which each later hit reads again; the global
tables (methods by name, method sets, the passed functions) are computed in frames of their own.

``save`` keeps, with the graph, in the store's link blobs: each link unit's output (the builder
calls it made, ``g<unit>``), the pass units' shares (``gp``), and the readers of each key (a
64-bit hash of the key -> the units, ``link_reads``); the globals hold the files' hashes and
package clauses and a digest of each passed-functions entry a unit asked for.

``relink`` takes each changed file's keys before (its index of the old content, which the store
keeps) and after, runs again the pass units that read a changed key, merges the passed-functions
table, adds the entries that changed to the changed keys, runs again the link units that read a
changed key and replays every other unit's output as stored. The type edges (embedding,
implements, a made type's methods) are computed again every time, and the files of other languages
(a Go tree's assembly, C, scripts) are linked in full beside it. It gives up (None: link in full,
and save again) when Go files came or went, a file's package clause or build flags changed, a
type's shape changed (its kind, embedded types, fields, underlying type, methods: the method sets
every interface call reads; and, checked after the relink, the method set of any type, by a digest
the state keeps), the units of dependency code or the options or rules changed, an old index is
gone, or the graph is truncated.
The graph is made as ``link.build`` makes it (roots, stats, every file placed); the Go linker's
output does not depend on the order of its builder calls (one edge per caller, callee and site,
the strongest; sorted sets of unresolved sites).

What a replayed unit read is as it was, so it would compute what it computed, with one exception
the state does not see: a memoized answer found in a cycle of bindings (``x = x.Next()``, whose
value reads itself) or past the depth cap depends on which question was asked first, and a relink
asks in another order than the full link (``tests/test_sync_oracle_langs`` checks every sync
against a full index; so can ``projectgraph index`` on a fresh store).
"""

from __future__ import annotations

import hashlib
import marshal
import posixpath
import uuid
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from projectgraph import keys
from projectgraph.fileindex import FileIndex
from projectgraph.graph import Graph
from projectgraph.languages.go.link import linker as go
from projectgraph.languages.javascript.link.persisted import _LogBuilder
from projectgraph.link import (
    LinkOptions,
    _linker_factories,
    build,
)
from projectgraph.link.core import GraphBuilder, LinkContext, module_node, node_for
from projectgraph.link.state import NotFollowed, followed, key_hash, read_state
from projectgraph.link.state import shape as state_shape
from projectgraph.store import sqlite as sql

STATE_VERSION = 4
"""The form of the stored state; a state of another version (or link rules) is not read."""

KIND = "go"
Key = tuple[Any, ...]
_MISSING = object()


def shape(options: LinkOptions) -> str:
    """What the link was made with besides the indexes and the control files (which a sync compares)."""
    return state_shape(KIND, STATE_VERSION, options)


def handles(indexes: Iterable[FileIndex]) -> bool:
    """Whether this state is the one to keep: a project of Go files, not fewer of them than of
    Python or JavaScript/TypeScript (whose linkers keep states of their own). The Go linker reads
    only Go files, and no other linker reads them, so the other languages' files (a Go tree's
    assembly, C, a script) are linked in full beside the state, as they are now."""
    counts: dict[str, int] = {}
    for index in indexes:
        language = "javascript" if index.language == "typescript" else index.language
        counts[language] = counts.get(language, 0) + 1
    found = counts.get(go.LANGUAGE, 0)
    return found > 0 and found >= max(counts.get("python", 0), counts.get("javascript", 0))


def _go(indexes: Iterable[FileIndex]) -> list[FileIndex]:
    return [i for i in indexes if i.language == go.LANGUAGE]


def _package_key(ident: str) -> str:
    """A package's key in the read keys: a build-excluded file's overlay is its folder's package."""
    return ident.partition("#")[0]


# ---- the recorded reads -------------------------------------------------------------------------
class _Keyed(dict[Any, Any]):
    """A table of the linker that notes each key asked of it (``prefix + (key,)``) and, when walked
    whole, ``whole``."""

    owner: TracedGoLinker
    prefix: tuple[str, ...]
    whole: Key

    def _note(self, key: Any) -> None:
        owner = self.owner
        if owner.noting:
            owner.stack[-1].add((*self.prefix, key))

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return dict.__contains__(self, key)

    def _walk(self) -> None:
        owner = self.owner
        if owner.noting:
            owner.stack[-1].add(self.whole)

    def __iter__(self) -> Any:
        self._walk()
        return dict.__iter__(self)

    def keys(self) -> Any:
        self._walk()
        return dict.keys(self)

    def values(self) -> Any:
        self._walk()
        return dict.values(self)

    def items(self) -> Any:
        self._walk()
        return dict.items(self)


class _Whole(dict[Any, Any]):
    """A table read as one key (a file's imports)."""

    owner: TracedGoLinker
    key: Key

    def _note(self) -> None:
        owner = self.owner
        if owner.noting:
            owner.stack[-1].add(self.key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._note()
        return dict.get(self, key, default)

    def __getitem__(self, key: Any) -> Any:
        self._note()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._note()
        return dict.__contains__(self, key)

    def __iter__(self) -> Any:
        self._note()
        return dict.__iter__(self)

    def items(self) -> Any:
        self._note()
        return dict.items(self)


class _WholeList(list[Any]):
    """A list read as one key (a file's dot imports)."""

    owner: TracedGoLinker
    key: Key

    def __iter__(self) -> Any:
        owner = self.owner
        if owner.noting:
            owner.stack[-1].add(self.key)
        return list.__iter__(self)

    def __len__(self) -> int:
        owner = self.owner
        if owner.noting:
            owner.stack[-1].add(self.key)
        return list.__len__(self)


def _keyed(data: dict[Any, Any], owner: TracedGoLinker, prefix: tuple[str, ...], whole: Key) -> _Keyed:
    table = _Keyed(data)
    table.owner, table.prefix, table.whole = owner, prefix, whole
    return table


class _Memo(dict[Any, Any]):
    """A memo of the linker that keeps, with each answer, the keys its computation read, and notes
    them on each hit. ``provisional``: the linker sets a slot twice (a placeholder that breaks a
    cycle, then the answer), so the computation runs between the two sets; otherwise from the miss
    to the one set."""

    owner: TracedGoLinker
    provisional: bool
    reads: dict[Any, frozenset[Key]]
    tag: str

    def _hit(self, slot: Any) -> None:
        found = self.reads.get(slot)
        owner = self.owner
        if found and owner.noting:
            owner.stack[-1].update(found)

    def _miss(self, slot: Any) -> None:
        if not self.provisional:
            self.owner.open_frame((self.tag, slot))

    def get(self, slot: Any, default: Any = None) -> Any:
        found = dict.get(self, slot, _MISSING)
        if found is _MISSING:
            self._miss(slot)
            return default
        self._hit(slot)
        return found

    def __contains__(self, slot: object) -> bool:
        if dict.__contains__(self, slot):
            self._hit(slot)
            return True
        self._miss(slot)
        return False

    def __getitem__(self, slot: Any) -> Any:
        found = dict.__getitem__(self, slot)
        self._hit(slot)
        return found

    def __setitem__(self, slot: Any, value: Any) -> None:
        owner = self.owner
        name = (self.tag, slot)
        if self.provisional and not dict.__contains__(self, slot):
            owner.open_frame(name)
        else:
            frame = owner.close_frame(name)
            if frame is not None:
                self.reads[slot] = frame
        dict.__setitem__(self, slot, value)


_PROVISIONAL = ("_memo", "_assigned_memo", "_methods_memo", "_interface_memo")
_SINGLE = ("_types", "_type_def_memo", "_underlying_memo", "_implementation_memo", "_params_memo", "_loads")
_TABLES = ("_methods_by_name", "_concrete_types", "_own_methods", "_method_sets", "_types_with_method")


def _base(name: str) -> Callable[[go.GoLinker], Any]:
    return go.GoLinker.__dict__[name].func  # type: ignore[no-any-return]


# ---- the recording linker ---------------------------------------------------------------------
@dataclass
class _Plan:
    """A relink's plan: the link units to run again, the others' stored outputs, the pass units'
    stored shares and which to compute again; ``prepare`` makes it from the new linker."""

    prepare: Callable[[TracedGoLinker], None]
    dirty: set[int] = field(default_factory=set)
    blobs: dict[int, bytes] = field(default_factory=dict)
    shares: list[list[tuple[str, list[str]]]] | None = None
    pass_dirty: set[int] = field(default_factory=set)


class TracedGoLinker(go.GoLinker):
    """The Go linker, file by file, recording what each file's link reads and gives (and, with a
    plan, replaying the units it does not run again)."""

    plan: _Plan | None = None

    def start(self) -> None:
        self.stack: list[set[Key]] = [set()]
        self.opened: dict[Any, int] = {}  # a memo slot being computed -> its frame in the stack
        self.noting = True
        self.link_reads: dict[int, set[Key]] = {}
        self.pass_reads: dict[int, set[Key]] = {}
        self.shares: list[list[tuple[str, list[str]]]] | None = None
        self.outputs: dict[int, bytes] = {}
        self.ran = 0
        for gofile in self.files.values():
            path = gofile.path
            gofile.defs = _keyed(gofile.defs, self, ("d", path), ("D", path))
            gofile.bindings = _keyed(gofile.bindings, self, ("b", path), ("B", path))
            imports = _Whole(gofile.imports)
            imports.owner, imports.key = self, ("i", path)
            gofile.imports = imports
            dots = _WholeList(gofile.dot_imports)
            dots.owner, dots.key = self, ("i", path)
            gofile.dot_imports = dots
        for package in [*self.packages.values(), *self.overlays.values()]:
            ident = _package_key(package.ident)
            package.scope = _keyed(package.scope, self, ("s", ident), ("S", ident))
            package.methods = _keyed(package.methods, self, ("m", ident), ("M", ident))
        for name in (*_PROVISIONAL, *_SINGLE):
            memo = _Memo(getattr(self, name))
            memo.owner, memo.provisional, memo.reads, memo.tag = self, name in _PROVISIONAL, {}, name
            setattr(self, name, memo)

    # ---- frames
    def open_frame(self, name: Any) -> None:
        if name not in self.opened:
            self.opened[name] = len(self.stack)
            self.stack.append(set())

    def close_frame(self, name: Any) -> frozenset[Key] | None:
        at = self.opened.pop(name, None)
        if at is None:
            return None
        stack = self.stack
        frame = stack[at]
        while len(stack) > at + 1:  # (a frame left open: its reads are this one's)
            frame |= stack.pop()
        stack.pop()
        stack[-1] |= frame
        return frozenset(frame)

    def _alone(self, work: Callable[[], Any]) -> tuple[Any, set[Key]]:
        """``work()`` in a frame of its own, whose reads are returned, not the caller's."""
        at = len(self.stack)
        self.stack.append(set())
        try:
            found = work()
        finally:
            frame = self.stack[at]
            while len(self.stack) > at + 1:
                frame |= self.stack.pop()
            self.stack.pop()
            if self.opened:  # (a slot left open in the frame: forgotten with it)
                for name in [n for n, where in self.opened.items() if where >= at]:
                    del self.opened[name]
        return found, frame

    # ---- the global tables, computed in frames of their own
    @cached_property
    def _methods_by_name(self) -> dict[str, list[Any]]:
        table, _reads = self._alone(lambda: _base("_methods_by_name")(self))
        return _keyed(table, self, ("bn",), ("BN",))

    @cached_property
    def _concrete_types(self) -> list[Any]:
        return self._alone(lambda: _base("_concrete_types")(self))[0]  # type: ignore[no-any-return]

    @cached_property
    def _own_methods(self) -> dict[tuple[str, str], set[str]]:
        return self._alone(lambda: _base("_own_methods")(self))[0]  # type: ignore[no-any-return]

    @cached_property
    def _method_sets(self) -> dict[Any, frozenset[str]]:
        return self._alone(lambda: _base("_method_sets")(self))[0]  # type: ignore[no-any-return]

    @cached_property
    def _types_with_method(self) -> dict[str, list[Any]]:
        return self._alone(lambda: _base("_types_with_method")(self))[0]  # type: ignore[no-any-return]

    @cached_property
    def _passed(self) -> dict[str, list[str]]:
        """Each file's share (a pass unit), stored or computed in a frame of its own, merged in
        file order as the base linker merges them."""
        plan = self.plan
        stored = plan.shares if plan is not None else None
        shares: list[list[tuple[str, list[str]]]] = []
        passed: dict[str, dict[str, None]] = {}
        for uid, gofile in enumerate(self.files.values()):
            if stored is not None and plan is not None and uid not in plan.pass_dirty:
                share = stored[uid]
            else:
                share, reads = self._alone(lambda f=gofile: self._passed_of(f))  # type: ignore[misc]
                reads.add(("F", gofile.path))
                self.pass_reads[uid] = reads
            shares.append(share)
            for target, functions in share:
                slot = passed.setdefault(target, {})
                for key in functions:
                    slot.setdefault(key, None)
        self.shares = shares
        return _keyed({key: list(found) for key, found in passed.items()}, self, ("p",), ("P",))

    def _load_targets(self, package: go._Package) -> list[str]:
        for gofile in package.files:  # (what it reads of each file of the package)
            if self.noting:
                self.stack[-1].add(("L", gofile.path))
        return super()._load_targets(package)

    # ---- the units
    def link(self) -> None:
        for gofile in self.files.values():
            self.builder.node(module_node(gofile.path, go.LANGUAGE, 0))
            for info in gofile.defs.values():
                self.builder.node(node_for(info))
        _sets = self._method_sets  # (as the base linker: before any unit)
        if self.plan is not None:
            self.plan.prepare(self)
        for uid, gofile in enumerate(self.files.values()):
            self._unit(uid, gofile)
        self._type_edges()  # (computed again on every relink: not a unit)

    def _unit(self, uid: int, gofile: go._File) -> None:
        builder = self.builder
        assert isinstance(builder, _LogBuilder)
        plan = self.plan
        if plan is not None and uid not in plan.dirty:
            builder.replay(marshal.loads(plan.blobs[uid]))
            return
        ops: list[tuple[Any, ...]] = []
        builder.ops = ops
        try:
            _done, reads = self._alone(lambda: self._link_file(gofile))
        finally:
            builder.ops = None
        reads.add(("F", gofile.path))
        self.link_reads[uid] = reads
        self.outputs[uid] = marshal.dumps(ops)
        self.ran += 1


# ---- what a file holds that another file's link reads ----------------------------------------
def _flags(index: FileIndex) -> tuple[str, bool]:
    package = next((f[8:] for f in index.flags if f.startswith("package:")), "")
    return package, "build-excluded" in index.flags


def surface(index: FileIndex) -> dict[Key, Any]:
    """The keys a file's index gives the link (as ``GoLinker._read_file`` reads it), with what
    each stands for, to compare an old and a new index of a file."""
    path = index.path
    package, excluded = _flags(index)
    ident = f"{posixpath.dirname(path)}:{package}"
    found: dict[Key, Any] = {}
    imports: dict[str, str] = {}
    dots: list[str] = []
    for imp in index.imports:
        if imp.star:
            dots.append(imp.module)
        elif imp.alias != "_":
            imports[imp.alias or go._guess_name(imp.module)] = imp.module
    found[("i", path)] = (tuple(imports.items()), tuple(dots))
    defs: dict[str, Any] = {}
    for d in index.definitions:
        key = keys.first_party(path, d.qualname)
        defs.setdefault(d.qualname, d)
        if d.kind == "method":
            owner = d.qualname.rpartition(".")[0]
            slot: Key = ("m", ident, (owner, d.name))
            found[slot] = (*found.get(slot, ()), (key, d))
            if not excluded:
                named = ("bn", d.name)
                found[named] = (*found.get(named, ()), (key, d))
        elif "$" not in d.qualname:
            slot = ("s", ident, d.qualname)
            found[slot] = (*found.get(slot, ()), (key, d))
    for qualname, d in defs.items():
        found[("d", path, qualname)] = d
    found[("D", path)] = tuple(defs)
    bindings: dict[tuple[str, str], list[Any]] = {}
    for a in index.assignments:
        bindings.setdefault((a.scope, a.target), []).append(a)
    for target, assigned in bindings.items():
        found[("b", path, target)] = tuple(sorted(assigned))
    found[("B", path)] = tuple(bindings)
    busy = any(c.scope == "" for c in index.calls) or "init" in defs
    found[("L", path)] = not excluded and not path.endswith("_test.go") and busy
    return found


def type_shape(index: FileIndex) -> tuple[Any, ...]:
    """What the method sets and the implementations read of a file: its types and methods (kind,
    embedded types, fields, underlying type) and, when it has any, the imports their types are
    written with; not where they are."""
    shapes = tuple(
        sorted(
            (d.qualname, d.kind, d.name, tuple(d.bases), tuple(d.returns), tuple(d.params))
            for d in index.definitions
            if d.kind in ("struct", "interface", "type", "alias", "method") or "." in d.qualname
        )
    )
    return (shapes, surface(index)[("i", index.path)]) if shapes else ()


def changed_keys(old: FileIndex, new: FileIndex) -> set[Key]:
    before, after = surface(old), surface(new)
    found = {
        key for key in before.keys() | after.keys() if before.get(key, _MISSING) != after.get(key, _MISSING)
    }
    found.add(("F", new.path))
    return found


# ---- a full link that keeps its state -----------------------------------------------------------
def _link(
    indexes: Sequence[FileIndex], options: LinkOptions, plan: _Plan | None
) -> tuple[Graph, TracedGoLinker]:
    made: list[TracedGoLinker] = []

    def make_go(ordered: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext) -> go.GoLinker:
        if context.unit is not None:  # (a unit of dependency code's own link)
            return go.make_linker(ordered, builder, context)
        linker = TracedGoLinker(ordered, _LogBuilder(builder), context)
        linker.plan = plan
        linker.start()
        made.append(linker)
        return linker

    plain: Any = go.make_linker
    factories: list[Any] = [make_go if make is plain else make for make in _linker_factories()]
    graph = build(indexes, options, factories)
    if not made:
        raise NotFollowed("no Go linker")
    return graph, made[0]


def _digest(value: Any) -> str:
    data = repr(value).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _passed_digests(linker: TracedGoLinker, asked: Iterable[str]) -> dict[str, str]:
    table = linker.__dict__.get("_passed")
    return {key: _digest(dict.get(table, key) if table is not None else None) for key in sorted(asked)}


def _state(
    linker: TracedGoLinker, indexes: Sequence[FileIndex], options: LinkOptions, asked: set[str]
) -> dict[str, Any]:
    return {
        "kind": KIND,
        "shape": shape(options),
        "token": uuid.uuid4().hex,
        "files": {i.path: i.hash for i in _go(indexes)},
        "flags": {i.path: _flags(i) for i in _go(indexes)},
        "units": len(linker.files),
        "passes": linker.shares is not None,
        "passed": _passed_digests(linker, asked),
        "method_sets": _method_sets_digest(linker) if "_method_sets" in linker.__dict__ else None,
        "deps": _units_digest(options),
    }


def _units_digest(options: LinkOptions) -> str:
    """The units of dependency code the link read (a Go unit's result types, fields, methods): the
    state holds while they are the same files."""
    return _digest(
        [
            (made.unit.name, made.unit.root, sorted((i.path, i.hash) for i in made.indexes))
            for made in options.units or ()
        ]
    )


def _method_sets_digest(linker: TracedGoLinker) -> str:
    """The method set of every concrete type, which the implementations of each interface (and so
    every interface call, and the type edges) are read from."""
    table = linker._method_sets
    return _digest([(tuple(typ), sorted(names)) for typ, names in table.items()])


def _inverted(reads: dict[int, set[Key]]) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for uid, keys_read in reads.items():
        for key in keys_read:
            found.setdefault(key_hash(key), []).append(uid)
    return found


def _asked_passed(reads: Iterable[set[Key]]) -> set[str]:
    return {key[1] for keys_read in reads for key in keys_read if key[0] == "p" and len(key) == 2}


def _all_reads(linker: TracedGoLinker) -> dict[int, set[Key]]:
    count = len(linker.files)
    return {**linker.link_reads, **{count + uid: reads for uid, reads in linker.pass_reads.items()}}


def build_saved(
    indexes: Sequence[FileIndex], options: LinkOptions
) -> tuple[Graph, Callable[[Any], None] | None]:
    """A full link of a Go project, and what writes its state (None: a graph the state cannot
    follow, a truncated one)."""
    graph, linker = _link(indexes, options, None)
    if graph.truncations:
        return graph, None
    reads = _all_reads(linker)
    state = _state(linker, indexes, options, _asked_passed(reads.values()))
    outputs = linker.outputs
    shares = linker.shares

    def save(connection: Any) -> None:
        blobs = [(f"g{uid}", blob) for uid, blob in sorted(outputs.items())]
        if shares is not None:
            blobs.append(("gp", marshal.dumps(shares)))
        rows = [(key, array("i", sorted(set(units))).tobytes()) for key, units in _inverted(reads).items()]
        sql.write_link_state(connection, marshal.dumps(state), blobs, rows, state["token"])

    return graph, save


# ---- relink in a fresh process ------------------------------------------------------------------
@dataclass(frozen=True)
class Relinked:
    """A graph linked from the stored state, the units run again, and what writes the new state."""

    graph: Graph
    units: int
    save: Callable[[Any], None]


def relink(
    connection: Any,
    indexes: Sequence[FileIndex],
    options: LinkOptions,
    old_index: Callable[[str, str], FileIndex | None],
) -> tuple[Relinked | None, str]:
    """The graph of ``indexes`` from the stored state, or (None, why not)."""
    return followed(lambda: _relink(connection, indexes, options, old_index))


def _relink(
    connection: Any,
    indexes: Sequence[FileIndex],
    options: LinkOptions,
    old_index: Callable[[str, str], FileIndex | None],
) -> Relinked:
    state = read_state(connection, shape(options), KIND)
    if not handles(indexes):
        raise NotFollowed("not a project of Go files")
    if {i.path: _flags(i) for i in _go(indexes)} != state["flags"]:
        raise NotFollowed("Go files came or went, or a package clause or build flag changed")
    if state["deps"] != _units_digest(options):
        raise NotFollowed("the units of dependency code changed")
    files: dict[str, str] = state["files"]
    changed: set[Key] = set()
    changed_paths: set[str] = set()
    for index in _go(indexes):
        if index.hash == files[index.path]:
            continue
        old = old_index(index.path, files[index.path])
        if old is None:
            raise NotFollowed(f"no stored index of the old {index.path}")
        if type_shape(old) != type_shape(index):
            raise NotFollowed(f"a type or method of {index.path} changed")
        changed |= changed_keys(old, index)
        changed_paths.add(index.path)
    count: int = state["units"]
    asked: dict[str, str] = state["passed"]

    def prepare(linker: TracedGoLinker) -> None:
        if len(linker.files) != count:
            raise NotFollowed("another set of units")
        paths = list(linker.files)
        own = {uid for uid, path in enumerate(paths) if path in changed_paths}
        readers = sql.read_link_readers(connection, [key_hash(key) for key in changed])
        plan.pass_dirty = own | {uid - count for uid in readers if uid >= count}
        plan.dirty = own | {uid for uid in readers if uid < count}
        if state["passes"]:  # the passed functions now (the dirty pass units run): the entries that moved
            plan.shares = marshal.loads(sql.read_link_blobs(connection, ["gp"])[0])
            table = linker._passed
            if asked:
                moved = [
                    ("p", key) for key, digest in asked.items() if _digest(dict.get(table, key)) != digest
                ]
                plan.dirty |= {
                    u for u in sql.read_link_readers(connection, [key_hash(k) for k in moved]) if u < count
                }
        clean = [uid for uid in range(count) if uid not in plan.dirty]
        found = _read_blobs(connection, [f"g{uid}" for uid in clean])
        plan.blobs = dict(zip(clean, found, strict=True))

    plan = _Plan(prepare)
    graph, linker = _link(indexes, options, plan)
    if graph.truncations:
        raise NotFollowed("truncated")
    if state["method_sets"] is not None and _method_sets_digest(linker) != state["method_sets"]:
        raise NotFollowed("the method sets changed")  # (the units replayed read them as they were)
    reads = _all_reads(linker)
    # the digests of the passed-functions entries asked, old ones kept for the units replayed
    passed_now = set(asked) | _asked_passed(reads.values())
    new_state = _state(linker, indexes, options, passed_now)
    outputs = linker.outputs
    shares = linker.shares

    def save(connection: Any) -> None:
        blobs = [(f"g{uid}", blob) for uid, blob in sorted(outputs.items())]
        if shares is not None:
            blobs.append(("gp", marshal.dumps(shares)))
        sql.patch_link_state(
            connection, marshal.dumps(new_state), blobs, _inverted(reads), new_state["token"]
        )

    return Relinked(graph, linker.ran + len(linker.pass_reads), save)


def _read_blobs(connection: Any, names: Sequence[str]) -> list[bytes]:
    found: list[bytes] = []
    for start in range(0, len(names), 500):
        found += sql.read_link_blobs(connection, names[start : start + 500])
    return found


__all__ = [
    "STATE_VERSION",
    "Relinked",
    "TracedGoLinker",
    "build_saved",
    "changed_keys",
    "handles",
    "relink",
    "shape",
    "surface",
]
