"""The incremental link's state in the store, so that a fresh process (a one-shot ``sync``, an
``index`` after an edit) re-links only what read what changed, as a watcher does in memory.

A tracked link (``python.link.incremental.build_tracked``) gives, per *unit* (one file's share of a pass),
its output and the keys it read. ``save`` keeps, in the same transaction as the graph:

- each unit's output, split by *group* (the file of the rows' caller, as the store groups rows),
  with the external keys it asked for: one blob per unit (``link_blobs``, ``u<id>``); unit ids
  follow the full link's order, so merging outputs in id order is merging them in that order;
- the keys each unit read, inverted: a stable 64-bit hash of a key -> the ids of the units that
  read it (``link_reads``); the classes' resolved bases as pseudo-units (``id >= len(units)``), so a
  changed key finds the classes whose bases may resolve otherwise (the subclass table follows);
- one ``globals`` blob: the units, the files' hashes, the binding tables as the binding passes left
  them, the classmethod names, each class's bases, which units have rows in which group and the
  counts of each group's rows (for the stats), the external keys' counts, the roots each file gives.

``relink`` (a fresh process; no tracked link in memory) builds the Python linker over the new
indexes with those binding tables and no memoized answer, takes the changed files' keys before
(from the old index, which the store keeps by content) and after, runs again the units that read
a changed key and the changed files' own, merges the groups they touch from the stored outputs
(``graph.strongest`` over the outputs in id order, as the full link keeps the first of equals),
and gives those groups' rows, the stats and the patch of the state. It gives up (None: link in
full, and save again) whenever it cannot be sure, as the in-memory relink does and more: files came
or went, another language, a binding-pass unit (decorators, arguments, classmethod receivers) whose
input or reads changed (the in-memory relink replays those; this one does not), other classmethod
names, an old index the store no longer has, a project with files of other linkers, a truncation.

A key's hash collides with another's only by chance (2^-64): a unit then runs again for nothing.
A unit's inverted entries are added to, never removed, when it runs again: an entry it no longer
reads makes it run again for nothing, until the next full link rewrites the index.
"""

from __future__ import annotations

import marshal
import uuid
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from projectgraph import fileindex
from projectgraph.fileindex import FileIndex
from projectgraph.gcpause import paused_gc
from projectgraph.graph import VERSION, Dynamic, Edge, FileEntry, Node, Root, Site, Unresolved, strongest
from projectgraph.languages.python.link import linker as py
from projectgraph.languages.python.link.incremental import (
    _PHASES,
    LinkState,
    TracedPythonLinker,
    _Collector,
    _GiveUp,
    _LoggingBuilder,
    _Output,
    _python_external,
    changed_keys,
    inputs_of,
    replay,
    surface,
)
from projectgraph.link import (
    _INCOMPLETE,
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_EXPORT_HOPS,
    LinkOptions,
    _linker_factories,
)
from projectgraph.link.core import DefInfo, LinkContext, Value, module_node, node_for
from projectgraph.link.entries import resolve_entry
from projectgraph.link.state import NotFollowed, followed, key_hash, read_state
from projectgraph.manifests import Manifests
from projectgraph.roots import _STRONG, entry_roots, file_roots, merge_rules
from projectgraph.store import sqlite as sql

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values

STATE_VERSION = 5
"""The form of the stored state; a state of another version (or link rules) is not read."""

Key = tuple[Any, ...]
Unit = tuple[str, str]
Rows = tuple[list[Node], list[Edge], list[Unresolved], list[Dynamic], list[Root]]
_new = tuple.__new__


def shape(options: LinkOptions) -> str:
    """What the link was made with besides the indexes and the control files (which a sync compares)."""
    return repr(
        (
            VERSION,
            STATE_VERSION,
            fileindex.VERSION,
            options.root,
            tuple(options.sys_path),
            tuple(options.test_paths),
            tuple(options.rules),
            options.max_edges or DEFAULT_MAX_EDGES,
            options.max_export_hops or DEFAULT_MAX_EXPORT_HOPS,
        )
    )


def group_of(caller: str) -> str:
    """The store's group of a Python unit's row: its caller's file (a module key is its path)."""
    return caller.partition("//")[0]


# ---- records to plain tuples (marshal) and back -------------------------------------------------
def _edge_out(e: Edge) -> tuple[Any, ...]:
    return (e[0], e[1], e[2], e[3], tuple(e[4]), e[5])


def _edge_in(t: Sequence[Any]) -> Edge:
    return _new(Edge, (t[0], t[1], t[2], t[3], _new(Site, t[4]), t[5]))


def _unresolved_out(u: Unresolved) -> tuple[Any, ...]:
    return (u[0], tuple(u[1]), *u[2:])


def _unresolved_in(t: Sequence[Any]) -> Unresolved:
    return _new(Unresolved, (t[0], _new(Site, t[1]), *t[2:]))


def _dynamic_out(d: Dynamic) -> tuple[Any, ...]:
    return (d[0], tuple(d[1]), *d[2:])


def _dynamic_in(t: Sequence[Any]) -> Dynamic:
    return _new(Dynamic, (t[0], _new(Site, t[1]), *t[2:]))


def _values_out(values: Iterable[Any]) -> tuple[tuple[str, str], ...]:
    return tuple((v[0], v[1]) for v in values)


def _values_in(values: Iterable[Sequence[str]]) -> list[Any]:
    return [Value(v[0], v[1]) for v in values]


def _roots_out(roots: Iterable[Root]) -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted(tuple(r) for r in roots))  # type: ignore[misc]


def _roots_in(rows: Iterable[Sequence[str]]) -> set[Root]:
    return {_new(Root, r) for r in rows}


def _output_blob(output: _Output) -> bytes:
    """A unit's output by group, and the external keys it asked for."""
    by_group: dict[str, tuple[list[Any], list[Any], list[Any]]] = {}
    for edge in output.edges:
        by_group.setdefault(group_of(edge[0]), ([], [], []))[0].append(_edge_out(edge))
    for site in output.unresolved:
        by_group.setdefault(group_of(site[0]), ([], [], []))[1].append(_unresolved_out(site))
    for flag in output.dynamic:
        by_group.setdefault(group_of(flag[0]), ([], [], []))[2].append(_dynamic_out(flag))
    return marshal.dumps((by_group, sorted(output.externals)))


@dataclass
class _Stored:
    """One unit's stored output: rows by group and the external keys it asked for."""

    groups: dict[str, tuple[list[Any], list[Any], list[Any]]]
    externals: list[str]


def _load_output(blob: bytes) -> _Stored:
    groups, externals = marshal.loads(blob)
    return _Stored(groups, externals)


# ---- save ---------------------------------------------------------------------------------------
def savable(state: LinkState) -> bool:
    """Whether the state is one ``relink`` can follow: the other linkers' rows are kept as they
    are (``_others_out``), so any project with Python files, no truncation and its own roots."""
    others = state.others
    return not (
        others.truncations
        or not any(i.language == py._LANGUAGE for i in state.indexes.values())
        or state.last_root_set is None
        or state.last_root_set.fallback
        or any(_root_group(r.key) != path for path, kept in state.file_roots.items() for r in kept[1])
    )


def save(connection: Any, state: LinkState, entries: Sequence[FileEntry], graph: Any = None) -> None:
    """Write the whole state of a tracked link (inside the graph's write transaction). ``graph``:
    the graph it gave, for the counts of the other linkers' rows (none without it: Python only)."""
    linker = state.linker
    order = list(state.order)
    ids = {unit: position for position, unit in enumerate(order)}
    classes = sorted(key for key, info in linker.defs.items() if info.is_class)
    bases = _bases_now(linker, classes)  # (computed now where the link did not need them)
    blobs: list[tuple[str, bytes]] = []
    groups: dict[str, list[int]] = {}
    externals: Counter[str] = Counter()
    for unit in order:
        output = linker.outputs[unit]
        blob = _output_blob(output)
        blobs.append((f"u{ids[unit]}", blob))
        for group in marshal.loads(blob)[0]:
            groups.setdefault(group, []).append(ids[unit])
        externals.update(output.externals)
    inverted: dict[int, list[int]] = {}
    hashes: dict[Key, int] = {}
    for unit in order:
        uid = ids[unit]
        for key in linker.unit_deps[unit]:
            h = hashes.get(key)
            if h is None:
                h = hashes[key] = key_hash(key)
            inverted.setdefault(h, []).append(uid)
    for position, cls in enumerate(classes, start=len(order)):
        for key in linker._deps.get(("bases", cls), ()):
            h = hashes.get(key)
            if h is None:
                h = hashes[key] = key_hash(key)
            inverted.setdefault(h, []).append(position)
    counts = _group_counts(state, groups)
    for path, kept in sorted(state.file_roots.items()):
        if kept[1]:
            blobs.append((f"r{path}", marshal.dumps(_roots_out(kept[1]))))
    history = {k: [(at, _snapshot_out(k, v)) for at, v in h] for k, h in linker.history.items()}
    effects = {u: {k: _snapshot_out(k, v) for k, v in e.items()} for u, e in linker.effects.items()}
    blobs += [("history", marshal.dumps(history)), ("effects", marshal.dumps(effects))]
    state_globals = {
        "token": uuid.uuid4().hex,
        "shape": shape(state.options),
        "units": [list(u) for u in order],
        "files": {path: index.hash for path, index in state.indexes.items()},
        "incomplete": sorted(e.path for e in entries if e.status in ("failed", "missing")),
        "bindings": _bindings_out(linker),
        "classmethods": sorted(linker.classmethod_names),
        "classes": classes,
        "bases": {cls: bases[cls] for cls in classes},
        "groups": groups,
        "counts": counts,
        "externals": dict(externals),
        **_Tables.of(linker.files.values()).state(),
        "entry_roots": _roots_out(state.last_entry_roots),
        "root_count": len(state.last_roots),
        "strong_roots": sum(1 for r in state.last_roots if r.kind in _STRONG),
        "others": _others_out(state, counts, graph),
    }
    sql.write_link_state(
        connection,
        marshal.dumps(state_globals),
        blobs,
        ((h, array("i", units).tobytes()) for h, units in inverted.items()),
        state_globals["token"],
    )


def _bases_now(linker: TracedPythonLinker, classes: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each class's bases that are project classes, resolved (and their reads recorded) now."""
    saved, linker._frame = linker._frame, set()
    try:
        return {cls: tuple(v.key for v in linker._bases(cls) if v.kind == "def") for cls in classes}
    finally:
        linker._frame = saved


def _bindings_out(linker: TracedPythonLinker) -> tuple[Any, ...]:
    return (
        {k: _values_out(v) for k, v in dict.items(linker._bindings)},
        {k: _values_out(v) for k, v in dict.items(linker._decorated)},
        sorted(set.__iter__(linker._passed)),
        sorted(set.__iter__(linker._cls_params)),
    )


def _snapshot_out(key: Key, value: Any) -> Any:
    """A binding-table snapshot of a key (``TracedPythonLinker._snapshot``) as plain tuples."""
    if value is None:
        return None
    if key[0] == "b":
        values, passed, cls = value
        return (None if values is None else _values_out(values), passed, cls)
    return _values_out(value)


def _snapshot_in(key: Key, value: Any) -> Any:
    if value is None:
        return None
    if key[0] == "b":
        values, passed, cls = value
        return (None if values is None else tuple(_values_in(values)), passed, cls)
    return tuple(_values_in(value))


def _bindings_in(linker: TracedPythonLinker, data: Sequence[Any]) -> None:
    bindings, decorated, passed, cls_params = data
    for k, v in bindings.items():
        dict.__setitem__(linker._bindings, k, _values_in(v))
    for k, v in decorated.items():
        dict.__setitem__(linker._decorated, k, _values_in(v))
    for k in passed:
        set.add(linker._passed, k)
    for k in cls_params:
        set.add(linker._cls_params, k)


def _group_counts(state: LinkState, groups: dict[str, list[int]]) -> dict[str, tuple[int, int, int]]:
    """Each group's edges (one per slot), distinct unresolved sites and dynamic flags."""
    edges: Counter[str] = Counter(group_of(e[0]) for e in state.edges)
    unresolved: Counter[str] = Counter(group_of(u[0]) for u in state.unresolved_sorted)
    dynamic: Counter[str] = Counter(group_of(d[0]) for d in state.dynamic_sorted)
    return {g: (edges.get(g, 0), unresolved.get(g, 0), dynamic.get(g, 0)) for g in groups}


def _others_out(state: LinkState, counts: dict[str, tuple[int, int, int]], graph: Any) -> dict[str, Any]:
    """What a relink needs of the other linkers' rows, which it keeps as they are while only Python
    files change (a relink does not run them: ``_relink``): the keys of their nodes and of
    the module nodes of files no linker handles (the node count, and an edge's callee), their
    external nodes (group "", which Python's externals share: the first asked for a key wins) and
    their share of the edge and unresolved counts."""
    others = state.others
    keys = {n.key for n in (*others.nodes_before, *others.nodes_after)}
    keys |= {i.path for i in state.indexes.values() if i.language not in others.handled}
    stats = graph.stats if graph is not None else {}
    python_edges = sum(c[0] for c in counts.values())
    python_unresolved = sum(c[1] for c in counts.values())
    return {
        "keys": sorted(keys),
        "externals_before": [tuple(n) for n in others.nodes_before if not n.path],
        "externals_after": [tuple(n) for n in others.nodes_after if not n.path],
        "edges": int(stats.get("edges", python_edges)) - python_edges,
        "unresolved": int(stats.get("unresolved", python_unresolved)) - python_unresolved,
    }


# ---- relink in a fresh process ------------------------------------------------------------------
@dataclass(frozen=True)
class Relinked:
    """What a relink from the stored state gives: the rows of the groups that may have changed (a
    group not here is as stored), the graph's stats and files, and the state's patch to write."""

    groups: dict[str, Rows]
    stats: dict[str, Any]
    files: tuple[FileEntry, ...]
    units: int  # units run again
    patch: Callable[[Any], None]  # writes the state's patch (inside the write transaction)


def relink(
    connection: Any,
    indexes: Sequence[FileIndex],
    entries: tuple[FileEntry, ...],
    options: LinkOptions,
    manifests: Manifests,
    old_index: Callable[[str, str], FileIndex | None],
) -> tuple[Relinked | None, str]:
    """The changed groups of the graph of ``indexes`` from the stored state, or (None, why not)."""
    # the linker's tables of every file and the stored outputs are records with no cycles,
    # as in a full link (``PythonLinker.link``): on Django the collector doubled the relink
    with paused_gc(keep=True):
        return followed(
            lambda: _relink(connection, indexes, entries, options, manifests, old_index),
            (KeyError, ValueError, EOFError),
        )


def _relink(
    connection: Any,
    indexes: Sequence[FileIndex],
    entries: tuple[FileEntry, ...],
    options: LinkOptions,
    manifests: Manifests,
    old_index: Callable[[str, str], FileIndex | None],
) -> Relinked:
    state = read_state(connection, shape(options))
    ordered = sorted(indexes, key=lambda i: i.path)
    files: dict[str, str] = state["files"]
    if {i.path for i in ordered} != set(files):
        raise NotFollowed("files came or went")
    changed = [i.path for i in ordered if i.hash != files[i.path]]
    if not changed:
        raise NotFollowed("no file's index changed")
    if any(i.language != py._LANGUAGE for i in ordered if i.path in set(changed)):
        raise NotFollowed("a file of another language changed")
    kept_others: dict[str, Any] = state["others"]
    extra = {e.path for e in entries if e.status in ("failed", "missing")}
    if sorted(extra) != state["incomplete"]:
        raise NotFollowed("files with no index came or went")
    hops = options.max_export_hops or DEFAULT_MAX_EXPORT_HOPS
    context = LinkContext(manifests, hops, tuple(options.test_paths), tuple(options.sys_path), options.root)
    # The other linkers read only their own languages' indexes (each filters ``ordered`` by
    # language), the manifests and the options: none of those changed here (only Python files did;
    # a control file that changed is a link in full before this), so their rows are the stored
    # ones and they are not run. They are made, unlinked, for the entry points they resolve (from
    # the file tables their constructors build); ``test_sync_stored_mixed`` checks the rows.
    scratch = _LoggingBuilder()
    others: list[Any] = []
    python: TracedPythonLinker | None = None
    roots_of_import = [*manifests.python_roots, *context.sys_path]
    for make in _linker_factories():
        if make.__module__ == py.__name__:
            python = _lazy_linker(ordered, roots_of_import, hops, state)
            others.append(python)
        else:
            others.append(make(ordered, scratch, context))
    if python is None:
        raise RuntimeError("no Python linker")
    other_keys = set(kept_others["keys"])
    linker = python
    if any(path not in linker.files for path in changed):
        raise NotFollowed("a changed Python file that is no module")
    _bindings_in(linker, state["bindings"])
    # the tables over every definition, from the stored ones and the changed files' before and after
    tables = _Tables.stored(state)
    getattr_before = set(tables.getattr_paths)
    befores: dict[str, py._File] = {}
    for path in changed:
        old = old_index(path, files[path])
        if old is None:
            raise NotFollowed("the old index is gone")
        before = linker.new_file(old)
        if before is None or before.module != linker.files[path].module:
            raise NotFollowed("module names changed")
        befores[path] = before
        tables.replace(path, before, linker.files[path])
    if tables.getattr_paths != getattr_before:
        raise NotFollowed("a module __getattr__ came or went")  # (every m.x read may change)
    linker.__dict__["_getattr_modules"] = linker._modules_at(tables.getattr_paths)
    linker.__dict__["_by_name"] = _ByName(tables.methods, linker.defs)
    linker.__dict__["_property_names"] = frozenset(n for n, c in tables.properties.items() if c > 0)
    linker.classmethod_names = frozenset(n for n, c in tables.classmethods.items() if c > 0)
    if sorted(linker.classmethod_names) != state["classmethods"]:
        raise NotFollowed("classmethod names changed")
    units: list[Unit] = [(u[0], u[1]) for u in state["units"]]
    ids = {unit: position for position, unit in enumerate(units)}
    classes: list[str] = state["classes"]

    # the changed keys, from the old index (the store keeps it by content) and the new one
    dirty: set[Key] = set()
    touched_classes: set[str] = set()
    moved_inputs: dict[str, set[Unit]] = {}  # the binding-pass units whose input changed
    for path in changed:
        before, after = befores[path], linker.files[path]
        old_inputs = _inputs_with(linker, before)
        new_inputs = _inputs_with(linker, after)
        moved_inputs[path] = {unit for unit in new_inputs if new_inputs[unit] != old_inputs.get(unit)}
        dirty |= changed_keys(surface(before), surface(after))
        touched_classes.update(info.key for f in (before, after) for info in f.defs.values() if info.is_class)
    readers = set(sql.read_link_readers(connection, (key_hash(k) for k in dirty)))
    touched_classes.update(classes[i - len(units)] for i in readers if i >= len(units))
    # a class whose bases resolve otherwise changes the subclass table of its old and new bases
    old_bases: dict[str, tuple[str, ...]] = state["bases"]
    new_bases: dict[str, tuple[str, ...]] = {}
    saved, linker._frame = linker._frame, set()
    try:
        for cls in sorted(touched_classes):
            info = linker.defs.get(cls)
            now = (
                tuple(v.key for v in linker._bases(cls) if v.kind == "def")
                if info is not None and info.is_class
                else ()
            )
            if now != old_bases.get(cls, ()):
                grown = {("sub", base) for base in (*old_bases.get(cls, ()), *now)}
                readers |= set(sql.read_link_readers(connection, (key_hash(k) for k in grown)))
            new_bases[cls] = now
    finally:
        linker._frame = saved
    # the subclass table from the stored bases (as ``PythonLinker._subclasses`` makes it from all
    # of them resolved), so no unit resolves every class's bases again
    bases_now = {**old_bases, **new_bases}
    # (every class of bases_now with bases is one now: a class gone was a changed file's, whose
    # bases are () now; so no file is made for its classes' sake)
    table: dict[str, list[str]] = {}
    for cls in sorted(bases_now):
        for base in bases_now[cls]:
            table.setdefault(base, []).append(cls)
    linker.__dict__["_subclasses"] = table
    class_ids = {cls: position for position, cls in enumerate(classes, start=len(units))}
    for cls in sorted(new_bases):
        if cls not in class_ids:  # a new class: its bases' reads get an id of their own
            class_ids[cls] = len(units) + len(classes)
            classes.append(cls)
    bases_reads = {class_ids[cls]: linker._deps.get(("bases", cls), set()) for cls in new_bases}
    changed_set = set(changed)
    passes = sorted(
        {i for i in readers if i < len(units) and units[i][0] in _PHASES}
        | {ids[unit] for found in moved_inputs.values() for unit in found}
    )
    rerun = sorted(
        {i for i in readers if i < len(units) and units[i][0] not in _PHASES}
        | {ids[(phase, path)] for path in changed for phase in ("L", "E")}
    )
    rerun_all = sorted({*passes, *rerun})
    if passes:  # as the full link's order had them: each must bind as it did (else: in full)
        history, effects = (marshal.loads(b) for b in sql.read_link_blobs(connection, ("history", "effects")))
        linker.history = {k: [(at, _snapshot_in(k, v)) for at, v in h] for k, h in history.items()}
        linker.effects = {u: {k: _snapshot_in(k, v) for k, v in e.items()} for u, e in effects.items()}

    # run the units again; their old outputs go, their new ones come
    shared = linker.builder
    fresh: dict[int, _Stored] = {}
    reads: dict[int, set[Key]] = {}
    try:
        for count, uid in enumerate(passes, start=1):
            try:
                replay(linker, units[uid], uid, count)  # (a pass unit's id is its position)
            except _GiveUp as why:
                raise NotFollowed(str(why)) from why
            fresh[uid] = _load_output(_output_blob(linker.outputs[units[uid]]))
            reads[uid] = linker.unit_keys(units[uid])
        for uid in rerun:
            phase, path = units[uid]
            pyfile = linker.files[path]
            if phase == "L":
                linker._run_unit(units[uid], lambda f=pyfile: linker._link_file(f))  # type: ignore[misc]
            else:
                linker._run_unit(units[uid], lambda f=pyfile: linker._decorator_edges_of(f))  # type: ignore[misc]
            fresh[uid] = _load_output(_output_blob(linker.outputs[units[uid]]))
            reads[uid] = linker.unit_keys(units[uid])
    finally:
        linker.builder = shared
    old_outputs = {uid: _load_output(b) for uid, b in sql.read_link_units(connection, rerun_all).items()}
    if len(old_outputs) != len(rerun_all):
        raise NotFollowed("a unit's stored output is missing")
    groups: dict[str, list[int]] = {g: list(u) for g, u in state["groups"].items()}
    externals: Counter[str] = Counter(state["externals"])
    affected: set[str] = set(changed_set)
    for uid in rerun_all:
        was, new = old_outputs[uid], fresh[uid]
        for group in was.groups.keys() - new.groups.keys():
            groups[group].remove(uid)
            if not groups[group]:
                del groups[group]
        for group in new.groups.keys() - was.groups.keys():
            at = groups.setdefault(group, [])
            at.append(uid)
            at.sort()
        affected |= was.groups.keys() | new.groups.keys()
        externals.subtract(was.externals)
        externals.update(new.externals)
    alive_before = {k for k, n in state["externals"].items() if n > 0}
    externals = Counter({k: n for k, n in externals.items() if n > 0})
    if set(externals) != alive_before:
        affected.add("")

    # the roots: a group's are the entry points' in it and its file's own (each file's rules
    # give roots of its own definitions: ``savable``); the changed files' are found again
    active = merge_rules(options.rules)
    by_path = {i.path: i for i in ordered}
    entry_before = _roots_in(state["entry_roots"])
    entry_now = entry_roots(
        active, manifests, lambda entry: resolve_entry(entry, others, by_path, manifests), by_path
    )
    own_now: dict[str, set[Root]] = {}
    for path in changed:
        own_now[path] = file_roots(active, by_path[path], manifests.dependencies, options.test_paths, None)
        if any(_root_group(r.key) != path for r in own_now[path]):
            raise NotFollowed("a file gives roots of another file")
    root_groups = set(changed) | {_root_group(r.key) for r in entry_before ^ entry_now}
    own_before = {p: _roots_in(rows) for p, rows in sql.read_link_roots(connection, root_groups).items()}
    root_count: int = state["root_count"]
    strong: int = state["strong_roots"]

    def group_roots(group: str, entry: set[Root], own: dict[str, set[Root]]) -> set[Root]:
        return {r for r in entry if _root_group(r.key) == group} | own.get(group, set())

    for group in root_groups:
        roots_was = group_roots(group, entry_before, own_before)
        roots_now = group_roots(group, entry_now, {**own_before, **own_now})
        if roots_was != roots_now:
            affected.add(group)
            root_count += len(roots_now) - len(roots_was)
            strong += sum(1 for r in roots_now if r.kind in _STRONG)
            strong -= sum(1 for r in roots_was if r.kind in _STRONG)
    if strong <= 0:
        raise NotFollowed("no strong root: the fallback roots count")

    # the affected groups' rows, merged from the outputs in the full link's order
    loaded: dict[int, _Stored] = dict(fresh)
    wanted = sorted({uid for g in affected for uid in groups.get(g, ()) if uid not in loaded})
    loaded.update((uid, _load_output(b)) for uid, b in sql.read_link_units(connection, wanted).items())
    counts: dict[str, tuple[int, int, int]] = {g: (c[0], c[1], c[2]) for g, c in state["counts"].items()}

    def is_node(key: str) -> bool:
        return (
            key in tables.defs or key in linker.files or key in externals or key in extra or key in other_keys
        )

    own = {
        **{p: _roots_in(rows) for p, rows in sql.read_link_roots(connection, affected - root_groups).items()},
        **own_before,
        **own_now,
    }
    rows: dict[str, Rows] = {}
    for group in sorted(affected):
        edges: list[Edge] = []
        unresolved: set[Unresolved] = set()
        dynamic: set[Dynamic] = set()
        for uid in groups.get(group, ()):
            part = loaded[uid].groups.get(group)
            if part is None:
                continue
            edges.extend(_edge_in(t) for t in part[0])
            unresolved.update(_unresolved_in(t) for t in part[1])
            dynamic.update(_dynamic_in(t) for t in part[2])
        kept = strongest(edges)
        counts[group] = (len(kept), len(unresolved), len(dynamic))
        if group in linker.files:
            nodes = _file_nodes(linker, group)
        elif group == "":  # as the full link keeps them: the first asked for a key wins
            first: dict[str, Node] = {}
            for node in (
                *(Node(*n) for n in kept_others["externals_before"]),
                *(_python_external(k) for k in sorted(externals)),
                *(Node(*n) for n in kept_others["externals_after"]),
            ):
                first.setdefault(node.key, node)
            nodes = sorted(first.values())
        elif group in extra:
            nodes = [n for n in _extra_nodes(entries) if n.path == group]
        else:
            nodes = []
        node_keys = {n.key for n in nodes}
        rows[group] = (
            nodes,
            [e for e in kept if e[0] in node_keys and is_node(e[1])],
            sorted(u for u in unresolved if u[0] in node_keys),
            sorted(d for d in dynamic if d[0] in node_keys),
            sorted(r for r in group_roots(group, entry_now, own) if r.key in node_keys),
        )
        if not any(counts[group]) and group not in groups:
            del counts[group]
    total_edges = sum(c[0] for c in counts.values()) + kept_others["edges"]
    if total_edges > (options.max_edges or DEFAULT_MAX_EDGES):
        raise NotFollowed("truncated")
    node_count = len(
        {*tables.defs, *linker.files, *externals, *(n.key for n in _extra_nodes(entries)), *other_keys}
    )
    stats = {
        "version": VERSION,
        "files": len(entries),
        "nodes": node_count,
        "edges": total_edges,
        "unresolved": sum(c[1] for c in counts.values()) + kept_others["unresolved"],
        "roots": root_count,
        "root_fallback": False,
        "incomplete_files": sum(1 for e in entries if e.status in _INCOMPLETE),
        "manifest_problems": list(manifests.problems),
    }

    def patch(write: Any) -> None:
        state["token"] = uuid.uuid4().hex
        state["files"] = {path: by_path[path].hash for path in files}
        state["groups"] = groups
        state["counts"] = counts
        state["externals"] = dict(externals)
        state["bases"] = bases_now
        state["classes"] = classes
        state["entry_roots"] = _roots_out(entry_now)
        state["root_count"] = root_count
        state["strong_roots"] = strong
        tables.patch(state)
        added: dict[int, list[int]] = {}
        for uid, keys in (*reads.items(), *bases_reads.items()):
            for key in keys:
                added.setdefault(key_hash(key), []).append(uid)
        sql.patch_link_state(
            write,
            marshal.dumps(state),
            [(f"u{uid}", _output_blob(linker.outputs[units[uid]])) for uid in rerun_all]
            + [(f"r{path}", marshal.dumps(_roots_out(own_now[path]))) for path in changed],
            added,
            state["token"],
        )

    return Relinked(rows, stats, entries, len(rerun_all), patch)


# ---- the Python linker of a relink: a file's tables made when first read -----------------------
def _lazy_linker(
    ordered: Sequence[FileIndex], roots: list[str], hops: int, state: dict[str, Any]
) -> TracedPythonLinker:
    """The Python linker over ``ordered`` whose files (and their definitions) are made from their
    indexes when first read: a relink reads the changed files, those their resolution reaches and
    the definitions its name tables name, so the others' indexes are not even decoded
    (``StoredIndex``). Its tables over every definition come from the state (``_Tables``)."""
    linker = TracedPythonLinker((), _Collector(), roots, hops)
    python = {i.path: i for i in ordered if i.language == py._LANGUAGE}
    module_of, linker.modules = py.module_table(list(python), roots)
    linker.files = _LazyFiles(module_of, python)
    linker.defs = _LazyDefs(linker.files)
    return linker


class _LazyFiles(dict[str, py._File]):
    """The linker's files by path, each made from its index when first read; iterated in path
    order, as ``PythonLinker.__init__`` makes them (then every one is made)."""

    def __init__(self, module_of: dict[str, str], indexes: dict[str, FileIndex]) -> None:
        super().__init__()
        self._module_of = module_of
        self._indexes = indexes

    def _make(self, path: str) -> py._File:
        pyfile = py._new_file(self._indexes[path], self._module_of[path])
        dict.__setitem__(self, path, pyfile)
        return pyfile

    def __getitem__(self, path: str) -> py._File:
        found = dict.get(self, path)
        if found is not None:
            return found
        if path not in self._module_of:
            raise KeyError(path)
        return self._make(path)

    def get(self, path: str, default: Any = None) -> Any:
        found = dict.get(self, path)
        if found is not None:
            return found
        return self._make(path) if path in self._module_of else default

    def __contains__(self, path: object) -> bool:
        return path in self._module_of

    def __iter__(self) -> Iterator[str]:
        return iter(self._module_of)

    def __len__(self) -> int:
        return len(self._module_of)

    def _every(self) -> dict[str, py._File]:
        return {path: self[path] for path in self._module_of}

    def keys(self) -> dict_keys[str, py._File]:
        return cast("dict_keys[str, py._File]", self._module_of.keys())

    def values(self) -> dict_values[str, py._File]:
        return self._every().values()

    def items(self) -> dict_items[str, py._File]:
        return self._every().items()

    def copy(self) -> dict[str, py._File]:
        return self._every()


class _LazyDefs(dict[str, DefInfo]):
    """The linker's definitions by key, from the file the key names (its path: ``keys.first_party``)."""

    def __init__(self, files: _LazyFiles) -> None:
        super().__init__()
        self._files = files
        self._of_file: dict[str, dict[str, DefInfo]] = {}

    def _of(self, key: object) -> dict[str, DefInfo]:
        path = key.partition("//")[0] if isinstance(key, str) else ""
        table = self._of_file.get(path)
        if table is None:
            table = {}
            pyfile = self._files.get(path)
            if pyfile is not None:
                for info in pyfile.defs.values():
                    table.setdefault(info.key, info)
            self._of_file[path] = table
        return table

    def __getitem__(self, key: str) -> DefInfo:
        return self._of(key)[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._of(key).get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._of(key)

    def _every(self) -> dict[str, DefInfo]:
        every: dict[str, DefInfo] = {}
        for path in self._files:
            for key, info in self._of(path).items():
                every.setdefault(key, info)
        return every

    def __iter__(self) -> Iterator[str]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())

    def keys(self) -> dict_keys[str, DefInfo]:
        return self._every().keys()

    def values(self) -> dict_values[str, DefInfo]:
        return self._every().values()

    def items(self) -> dict_items[str, DefInfo]:
        return self._every().items()

    def copy(self) -> dict[str, DefInfo]:
        return self._every()


class _ByName(dict[str, list[DefInfo]]):
    """``PythonLinker._by_name`` from the stored method keys of each name."""

    def __init__(self, methods: dict[str, list[str]], defs: dict[str, DefInfo]) -> None:
        super().__init__()
        self._methods = methods
        self._defs = defs

    def get(self, name: str, default: Any = None) -> Any:
        found = dict.get(self, name)
        if found is None:
            keys = self._methods.get(name)
            if not keys:
                return default
            found = [self._defs[key] for key in keys]
            dict.__setitem__(self, name, found)
        return found

    def __getitem__(self, name: str) -> list[DefInfo]:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found  # type: ignore[no-any-return]

    def __contains__(self, name: object) -> bool:
        return bool(self._methods.get(name)) if isinstance(name, str) else False


@dataclass
class _Tables:
    """What the Python linker's tables over every definition hold, kept with the state so that a
    relink makes them without every file: the methods of each name in definition order
    (``_by_name``), the counts of each property and classmethod name (``_property_names``,
    ``_classmethod_names``), and the keys of the definitions (which edges' callees are nodes)."""

    methods: dict[str, list[str]]
    properties: Counter[str]
    classmethods: Counter[str]
    defs: set[str]
    getattr_paths: set[str]  # the files whose module defines ``__getattr__`` (``_getattr_modules``)

    @classmethod
    def of(cls, pyfiles: Iterable[py._File]) -> _Tables:
        tables = cls({}, Counter(), Counter(), set(), set())
        for pyfile in pyfiles:  # (in path order: the definitions' order)
            tables._add(pyfile)
        return tables

    @classmethod
    def stored(cls, state: dict[str, Any]) -> _Tables:
        return cls(
            {name: list(keys) for name, keys in state["methods"].items()},
            Counter(state["properties"]),
            Counter(state["classmethod_counts"]),
            set(state["def_keys"]),
            set(state["getattr_paths"]),
        )

    def state(self) -> dict[str, Any]:
        return {
            "methods": {name: keys for name, keys in self.methods.items() if keys},
            "properties": {name: n for name, n in self.properties.items() if n > 0},
            "classmethod_counts": {name: n for name, n in self.classmethods.items() if n > 0},
            "def_keys": sorted(self.defs),
            "getattr_paths": sorted(self.getattr_paths),
        }

    def patch(self, state: dict[str, Any]) -> None:
        state.update(self.state())

    @staticmethod
    def _share(pyfile: py._File) -> tuple[dict[str, list[str]], Counter[str], Counter[str], set[str]]:
        """One file's share, as ``PythonLinker._by_name``, ``_property_names`` and
        ``_classmethod_names`` read the definitions."""
        methods: dict[str, list[str]] = {}
        properties: Counter[str] = Counter()
        classmethods: Counter[str] = Counter()
        for info in pyfile.defs.values():
            d = info.definition
            if "classmethod" in d.decorators:
                classmethods[d.name] += 1
            if info.is_callable and "." in info.qualname:
                if py._is_property(d):
                    properties[d.name] += 1
                owner = pyfile.defs.get(info.qualname.rpartition(".")[0])
                if owner is not None and owner.is_class:
                    methods.setdefault(d.name, []).append(info.key)
        return methods, properties, classmethods, {info.key for info in pyfile.defs.values()}

    def _add(self, pyfile: py._File) -> None:
        methods, properties, classmethods, keys = self._share(pyfile)
        self.properties.update(properties)
        self.classmethods.update(classmethods)
        self.defs |= keys
        self.getattr_paths |= py.getattr_paths([pyfile])
        for name, found in methods.items():
            self.methods.setdefault(name, []).extend(found)

    def replace(self, path: str, before: py._File, after: py._File) -> None:
        """A file's definitions ``before`` became ``after``; each name's methods stay in path order."""
        old_methods, old_properties, old_classmethods, old_keys = self._share(before)
        new_methods, new_properties, new_classmethods, new_keys = self._share(after)
        self.properties.subtract(old_properties)
        self.properties.update(new_properties)
        self.classmethods.subtract(old_classmethods)
        self.classmethods.update(new_classmethods)
        self.defs -= old_keys
        self.defs |= new_keys
        self.getattr_paths -= py.getattr_paths([before])
        self.getattr_paths |= py.getattr_paths([after])
        for name in old_methods.keys() | new_methods.keys():
            kept = [key for key in self.methods.get(name, ()) if group_of(key) != path]
            # (a stable sort: the other files' keys are in path order, and this file's in its own)
            self.methods[name] = sorted([*kept, *new_methods.get(name, ())], key=group_of)


def _inputs_with(linker: TracedPythonLinker, pyfile: py._File) -> dict[Unit, Any]:
    """``inputs_of`` a file that the linker holds for the time of the call (the tables of a file's
    calls and definition ends are made from the linker's file of the path)."""
    path = pyfile.path
    kept = linker.files[path]
    linker.files[path] = pyfile
    linker._call_tables.pop(path, None)
    linker._end_tables.pop(path, None)
    try:
        return inputs_of(linker, pyfile)
    finally:
        linker.files[path] = kept
        linker._call_tables.pop(path, None)
        linker._end_tables.pop(path, None)


def _root_group(key: str) -> str:
    """The group of a root's rows: its node's file (a first-party key's path)."""
    return key.partition("//")[0]


def _file_nodes(linker: TracedPythonLinker, path: str) -> list[Node]:
    pyfile = linker.files[path]
    return sorted([module_node(path, py._LANGUAGE, 0), *(node_for(info) for info in pyfile.defs.values())])


def _extra_nodes(entries: Iterable[FileEntry]) -> list[Node]:
    return [module_node(e.path, e.language) for e in entries if e.status in ("failed", "missing")]


__all__ = ["STATE_VERSION", "Relinked", "key_hash", "relink", "savable", "save", "shape"]
