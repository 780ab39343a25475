"""Incremental link: after an edit to a few Python files, re-link only what read what changed.

The Python link is not file-local (a name resolves through other files, class hierarchies and name
candidates are global, parameter bindings flow from call sites elsewhere), so a process that syncs
again (a watcher, a server, a ``Project`` kept open) links once with ``build_tracked`` and keeps a
``LinkState``: the Python linker, whose every memoized answer and every *unit* of work records the
**keys** it read (``TracedPythonLinker``), and each unit's output. A unit is one file's share of a
pass: its decorators (``D``), the functions passed as arguments (``A``), classmethod receivers
(``C``) — the passes that bind parameters, each file in path order — then its calls, references,
imports and classes (``L``) and its decorator edges (``E``).

A key names one thing a file holds that another computation can read, with the records it stands
for (``surface``): ``("n", path, scope, name)`` the bindings of a name in a scope (definitions,
parameters, imports, assignments, a class body's assignments by their class), ``("sa", path, attr)``
the ``self.attr = ...`` assignments, ``("c", path, qualname)`` a class's members, ``("e", path)``
``__all__``, ``("*", path)`` star imports, ``("cl", path, scope, line)`` / ``("cs", path, scope)``
which class body holds a line; global ones: ``("bn", name)`` the methods of a name (name
candidates), ``("pn", name)`` the properties of a name (attribute reads), ``("sub", cls)`` a
class's direct subclasses, ``("b", key)`` / ``("d", key)`` what a parameter receives and what a
decorated name runs.

``LinkState.relink`` compares the changed files' keys before and after, drops the memoized answers
that read a changed key, re-runs the units that did (and the changed files' own), and puts the graph
together from the units' outputs exactly as ``link.build`` would (one edge per caller, callee and
site, the first of equals in the full link's order). It gives up — the caller links in full — when
it cannot be sure: a file added or removed, another language changed, a parameter-binding pass
(``D``, ``A``, ``C``) whose input or reads changed (those passes read the bindings while they grow,
so they are only exact in their full-link order), other classmethod names, a truncation.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from projectgraph import keys as keys_module
from projectgraph.fileindex import FileIndex
from projectgraph.gcpause import paused_gc
from projectgraph.graph import (
    VERSION,
    Dynamic,
    Edge,
    FileEntry,
    Graph,
    Node,
    Root,
    Unresolved,
    placing_every_file,
    strongest,
)
from projectgraph.languages.python.link import linker as py
from projectgraph.link import (
    _INCOMPLETE,
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_EXPORT_HOPS,
    LinkOptions,
    _file_entries,
    _linker_factories,
)
from projectgraph.link.core import DefInfo, GraphBuilder, LinkContext, Value, module_node, node_for
from projectgraph.link.entries import resolve_entry
from projectgraph.manifests import EntryPoint, Manifests, read_manifests
from projectgraph.roots import (
    _STRONG as _STRONG_KINDS,
)
from projectgraph.roots import (
    RootSet,
    entry_roots,
    fallback_roots,
    file_roots,
    merge_rules,
    with_fallback,
)

Key = tuple[Any, ...]
Unit = tuple[str, str]  # (pass, path)
_PHASES = ("D", "A", "C")
_UNIT_ORDER = {"D": 0, "A": 1, "C": 2, "L": 3, "E": 4}


class _Collector(GraphBuilder):
    """A builder for one unit's output; it also keeps the external keys the unit asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def external(self, key: str, language: str) -> str:
        self.asked.add(key)
        return key


_BINDING_KEYS = ("b", "d")


class _Bindings(dict[str, Any]):
    """A binding table of the traced linker (parameter bindings, decorated names): a read of a
    key is a key read (``("b", key)`` or ``("d", key)``), a write is logged for the pass unit."""

    def __init__(self, linker: TracedPythonLinker, kind: str) -> None:
        super().__init__()
        self.linker = linker
        self.kind = kind

    def get(self, key: str, default: Any = None) -> Any:
        self.linker._read_binding((self.kind, key))
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self.linker._read_binding((self.kind, key))
        return dict.__contains__(self, key)

    def __getitem__(self, key: str) -> Any:
        self.linker._read_binding((self.kind, key))
        return dict.__getitem__(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self.linker._wrote_binding((self.kind, key))
        dict.__setitem__(self, key, value)


class _Params(set[str]):
    """``_passed`` and ``_cls_params`` of the traced linker: reads and writes of ``("b", key)``."""

    def __init__(self, linker: TracedPythonLinker) -> None:
        super().__init__()
        self.linker = linker

    def __contains__(self, key: object) -> bool:
        self.linker._read_binding(("b", key))
        return set.__contains__(self, key)

    def add(self, key: str) -> None:
        self.linker._wrote_binding(("b", key))
        set.add(self, key)


class _Replayed(_Bindings):
    """A binding table as it stood before one pass unit (the history's values), written apart."""

    def __init__(self, linker: TracedPythonLinker, kind: str, before: Callable[[Key], Any]) -> None:
        super().__init__(linker, kind)
        self.before = before

    def _load(self, key: str) -> bool:
        if dict.__contains__(self, key):
            return True
        value = self.before((self.kind, key))
        if self.kind == "b":
            value = value[0]
        if value is None:
            return False
        dict.__setitem__(self, key, list(value))
        return True

    def get(self, key: str, default: Any = None) -> Any:
        self.linker._read_binding((self.kind, key))
        return dict.__getitem__(self, key) if self._load(key) else default

    def __contains__(self, key: object) -> bool:
        self.linker._read_binding((self.kind, key))
        return self._load(key)  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> Any:
        self.linker._read_binding((self.kind, key))
        if not self._load(key):
            raise KeyError(key)
        return dict.__getitem__(self, key)


class _ReplayedParams(_Params):
    def __init__(self, linker: TracedPythonLinker, index: int, before: Callable[[Key], Any]) -> None:
        super().__init__(linker)
        self.index = index
        self.before = before

    def __contains__(self, key: object) -> bool:
        self.linker._read_binding(("b", key))
        return set.__contains__(self, key) or bool(self.before(("b", key))[self.index])


class _Reads:
    """The keys one memoized answer read: its own, and the answers it used, shared rather than
    copied (an answer's reads hold those of every answer below it, so copied sets grew to 7 M
    entries and 560 MB on Django; the shared form is linear in the reads made). Immutable once
    made; iterating gives every key once."""

    __slots__ = ("keys", "parts")

    def __init__(self, keys: tuple[Key, ...], parts: tuple[_Reads, ...]) -> None:
        self.keys = keys
        self.parts = parts

    def __iter__(self) -> Any:
        return iter(_flat(self.keys, self.parts))


_NO_READS = _Reads((), ())


class _Frame(set[Key]):
    """The reads of a computation in progress: the keys it read itself (the set), and the
    answers it used (``parts``)."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[_Reads] = []


def _absorb(frame: set[Key], reads: _Reads) -> None:
    """Add an answer's reads to a frame (a plain set gets the keys themselves)."""
    if type(frame) is _Frame:
        parts = frame.parts
        if not parts or parts[-1] is not reads:
            parts.append(reads)
    else:
        frame.update(_flat(reads.keys, reads.parts))


def _done(frame: set[Key]) -> _Reads:
    """The reads of a finished computation, its frame frozen (one answer used and nothing else
    read: that answer's reads themselves)."""
    parts = tuple(dict.fromkeys(frame.parts)) if type(frame) is _Frame else ()
    if not frame:
        if not parts:
            return _NO_READS
        if len(parts) == 1:
            return parts[0]
    return _Reads(tuple(frame), parts)


def _flat(keys: Iterable[Key], parts: Iterable[_Reads]) -> set[Key]:
    """Every key of ``keys`` and of the answers ``parts`` (each answer visited once)."""
    found = set(keys)
    seen: set[int] = set()
    stack = list(parts)
    while stack:
        reads = stack.pop()
        if id(reads) in seen:
            continue
        seen.add(id(reads))
        found.update(reads.keys)
        stack.extend(reads.parts)
    return found


class _Readers:
    """Who read what, upward, so a relink finds the answers that read a changed key without a pass
    over every memoized answer (on Django 40,000 answers and 53,000 reads: 0.3-0.4 s of CPU per
    edit were that pass): the reads whose own keys hold a key, the reads made of a read (its
    ``parts``), the slots a read is the answer of. An answer is added when it is recorded
    (``add``), taken in at the next look (``readers``). Entries are not removed when an answer is
    forgotten: a slot found is taken only while it still holds that read (the caller checks), and
    every read taken in is kept (``known``) so that its id names it alone; ``stale`` says when
    they outgrew the live ones and the table should be made again from the live answers."""

    __slots__ = ("by_key", "known", "live", "pending", "slots", "up")

    def __init__(self) -> None:
        self.known: dict[int, _Reads] = {}
        self.by_key: dict[Key, list[_Reads]] = {}
        self.up: dict[int, list[_Reads]] = {}
        self.slots: dict[int, list[Any]] = {}
        self.pending: list[tuple[Any, _Reads]] = []
        self.live = 0  # reads known when the table was last made

    def add(self, slot: Any, reads: _Reads) -> None:
        if reads is not _NO_READS:
            self.pending.append((slot, reads))

    def _take_in(self) -> None:
        known, by_key, up, slots = self.known, self.by_key, self.up, self.slots
        for slot, reads in self.pending:
            stack = [reads]
            while stack:
                item = stack.pop()
                at = id(item)
                if at in known:
                    continue
                known[at] = item
                for key in item.keys:
                    found = by_key.get(key)
                    if found is None:
                        by_key[key] = [item]
                    else:
                        found.append(item)
                for part in item.parts:
                    above = up.get(id(part))
                    if above is None:
                        up[id(part)] = [item]
                    else:
                        above.append(item)
                    if id(part) not in known:
                        stack.append(part)
            found_slots = slots.get(id(reads))
            if found_slots is None:
                slots[id(reads)] = [slot]
            else:
                found_slots.append(slot)
        self.pending.clear()

    def readers(self, dirty: Iterable[Key]) -> list[tuple[Any, _Reads]]:
        """(slot, read) of every read that read a key of ``dirty``, itself or through its parts
        (the slot may hold another read by now)."""
        if self.pending:
            self._take_in()
        found: dict[int, _Reads] = {}
        stack = [item for key in dirty for item in self.by_key.get(key, ())]
        up = self.up
        while stack:
            item = stack.pop()
            if id(item) in found:
                continue
            found[id(item)] = item
            stack.extend(up.get(id(item), ()))
        return [(slot, item) for at, item in found.items() for slot in self.slots.get(at, ())]

    def stale(self) -> bool:
        return len(self.known) + len(self.pending) > 2 * self.live + 100_000

    def remake(self, answers: Iterable[tuple[Any, _Reads]]) -> None:
        self.known, self.by_key, self.up, self.slots = {}, {}, {}, {}
        self.pending = [(slot, reads) for slot, reads in answers if reads is not _NO_READS]
        self._take_in()
        self.live = len(self.known)


@dataclass
class _Output:
    edges: list[Edge] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    dynamic: list[Dynamic] = field(default_factory=list)
    externals: set[str] = field(default_factory=set)


class TracedPythonLinker(py.PythonLinker):
    """The Python linker, recording the keys each memoized answer and each unit read."""

    def __init__(
        self, indexes: Iterable[FileIndex], builder: GraphBuilder, roots: list[str], hops: int
    ) -> None:
        self._frame: set[Key] = _Frame()
        self._deps: dict[Any, Any] = {}  # (cache, slot) -> the keys its answer read (_Reads)
        self._cache_slots: dict[str, dict[Any, None]] = {}  # cache -> its slots in _deps
        self.readers = _Readers()  # what read each key, upward (filled as answers are recorded)
        self._structure_keys: dict[str, dict[str, tuple[Key, ...]]] = {}  # path -> qualname -> keys
        self.import_roots = roots
        # unit -> the keys it read, shared with the answers it used (``_Reads``: flattened sets
        # of every unit held 167 MB on Django); ``unit_keys`` flattens one for a relink
        self.unit_deps: dict[Unit, _Reads] = {}
        self._unit_keys: dict[Unit, set[Key]] = {}
        self.outputs: dict[Unit, _Output] = {}
        self._touched: set[Key] | None = None  # the keys a pass unit writes
        self.history: dict[Key, list[tuple[int, Any]]] = {}  # key -> (unit position, value after it)
        self.effects: dict[Unit, dict[Key, Any]] = {}  # a pass unit's writes: key -> value after it
        self.replaying = False
        self.hit_reads: set[Key] = set()  # binding keys read through answers memoized elsewhere
        self.fresh: set[Any] = set()  # cache slots computed during a replay
        self.last_touched: set[Key] = set()
        self.attr_cache = "attr"  # the name of the self-attribute cache ("attr-replay" in a replay)
        super().__init__(indexes, builder, roots, hops)
        self._bindings = _Bindings(self, "b")
        self._decorated = _Bindings(self, "d")
        self._passed = _Params(self)
        self._cls_params = _Params(self)

    # ---- units --------------------------------------------------------------------------
    def _run_unit(self, unit: Unit, work: Callable[[], None], position: int = -1) -> None:
        collector = _Collector()
        self.builder = collector
        saved, self._frame = self._frame, _Frame()
        self._touched = set() if position >= 0 else None
        try:
            work()
        finally:
            frame = self._frame
            self.unit_deps[unit] = _done(frame) if type(frame) is _Frame else _Reads(tuple(frame), ())
            self._unit_keys.pop(unit, None)
            self._frame = saved
        if self._touched is not None:
            if self.replaying:
                self.last_touched = self._touched
            else:
                effect = {key: self._snapshot(key) for key in self._touched}
                self.effects[unit] = effect
                for key, value in effect.items():
                    self.history.setdefault(key, []).append((position, value))
            self._touched = None
        self.outputs[unit] = _Output(
            collector.edges, collector.unresolved, collector.dynamic, collector.asked
        )

    def unit_keys(self, unit: Unit) -> set[Key]:
        """Every key ``unit`` read, flattened at the first relink that asks and kept for the next."""
        found = self._unit_keys.get(unit)
        if found is None:
            reads = self.unit_deps[unit]
            found = self._unit_keys[unit] = _flat(reads.keys, reads.parts)
        return found

    def _link(self) -> None:
        shared = self.builder
        for path, pyfile in self.files.items():
            shared.node(module_node(path, py._LANGUAGE, 0))
            for info in pyfile.defs.values():
                shared.node(node_for(info))
        try:
            position = 0
            for phase in _PHASES:
                if phase == "C":
                    self.classmethod_names = self._classmethod_names()
                for pyfile in self.files.values():
                    self._run_unit((phase, pyfile.path), self.phase_work(phase, pyfile), position)
                    position += 1
            self.__dict__.pop("_attr_values", None)
            self._drop_deps("attr")
            self._bindings_complete()
            for pyfile in self.files.values():
                self._run_unit(("L", pyfile.path), lambda f=pyfile: self._link_file(f))  # type: ignore[misc]
            for pyfile in self.files.values():
                self._run_unit(("E", pyfile.path), lambda f=pyfile: self._decorator_edges_of(f))  # type: ignore[misc]
        finally:
            self.builder = shared
        self._release()

    def phase_work(self, phase: str, pyfile: py._File) -> Callable[[], None]:
        """The work of one file's share of a binding pass."""
        if phase == "D":
            return lambda: self._decorations_of(pyfile)
        if phase == "A":
            return lambda: self._arguments_of_file(pyfile)
        names = self.classmethod_names
        return lambda: self._classmethod_receivers_of(pyfile, names)

    def _decorations_of(self, pyfile: py._File) -> None:
        for info in pyfile.defs.values():
            if info.definition.decorators:
                self._decorate(pyfile, info)

    def _release(self) -> None:
        super()._release()  # (its _forget_values drops the memo tables' keys)
        self._drop_deps("member", "subs", "mplan", "cons", "mtable", "subtab", "mkeys")

    def _forget_values(self) -> None:
        super()._forget_values()
        if hasattr(self, "_deps"):
            self._drop_deps("memo")

    def _drop_deps(self, *caches: str) -> None:
        deps = self._deps
        for cache in caches:
            for slot in self._cache_slots.pop(cache, ()):
                deps.pop(slot, None)

    def _record(self, slot: Any, read: _Reads) -> None:
        """``slot``'s answer read ``read`` (kept by cache, and taken in by the readers' table)."""
        self._deps[slot] = read
        slots = self._cache_slots.get(slot[0])
        if slots is None:
            slots = self._cache_slots[slot[0]] = {}
        slots[slot] = None
        self.readers.add(slot, read)

    def _forget(self, slot: Any) -> None:
        del self._deps[slot]
        slots = self._cache_slots.get(slot[0])
        if slots is not None:
            slots.pop(slot, None)

    # ---- recording ----------------------------------------------------------------------
    def _cached(self, cache: str, table: Any, slot: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` (a method that answers from ``table`` when ``slot`` is in it), with the
        keys its answer read: recorded on a miss, added to the reader's on a hit."""
        if slot in table:
            known = self._deps.get((cache, slot))
            if known is not None and known is not _NO_READS:
                _absorb(self._frame, known)
                if self.replaying and (cache, slot) not in self.fresh:
                    self.hit_reads.update(k for k in known if k[0] in _BINDING_KEYS)
            return compute()
        saved, self._frame = self._frame, _Frame()
        try:
            return compute()
        finally:
            read = _done(self._frame)
            self._frame = saved
            if read is not _NO_READS:
                _absorb(saved, read)
            self._record((cache, slot), read)
            if self.replaying:
                self.fresh.add((cache, slot))

    def _structure(self, path: str, qualname: str) -> tuple[Key, ...]:
        """The keys of the definitions along a qualified name (what a scope chain reads)."""
        by_name = self._structure_keys.get(path)
        if by_name is None:
            by_name = self._structure_keys[path] = {}
        found = by_name.get(qualname)
        if found is None:
            parts = qualname.split(".") if qualname else []
            found = tuple(("n", path, ".".join(parts[:i]), parts[i]) for i in range(len(parts)))
            by_name[qualname] = found
        return found

    def _def_read(self, key: str) -> None:
        info = self.defs.get(key)
        if info is None:  # (a key of no definition: the one that would have it)
            path, _, rest = key.partition("//")
            self._frame.update(self._structure(path, rest.replace("//", ".")))
        else:
            self._frame.update(self._structure(info.path, info.qualname))

    def _use(self, pyfile: py._File, scope: str, name: str, line: int | None) -> None:
        frame = self._frame
        path = pyfile.path
        for current in pyfile.chains.get(scope) or self._scopes(pyfile, scope):
            frame.add(("n", path, current, name))
        if scope:
            frame.update(self._structure(path, scope))
        if pyfile.stars:
            frame.add(("*", path))
        if line is not None:
            if scope in pyfile.class_scopes:
                frame.add(("cl", path, scope, line))
                body = py._class_body_at(pyfile, scope, line)
                if body is not None:
                    frame.add(("n", path, body, name))
                    frame.update(self._structure(path, body))
            else:
                frame.add(("cs", path, scope))

    def _lookup(self, pyfile: py._File, scope: str, name: str, line: int) -> tuple[Value | None, str]:
        self._use(pyfile, scope, name, line)
        return super()._lookup(pyfile, scope, name, line)

    def _lookup_at(self, pyfile: py._File, scope: str, name: str, line: int) -> tuple[Value | None, str]:
        self._use(pyfile, scope, name, line)
        return super()._lookup_at(pyfile, scope, name, line)

    def _lookup_in(
        self, pyfile: py._File, scope: str, name: str, line: int | None
    ) -> tuple[Value | None, str]:
        self._frame.add(("n", pyfile.path, scope, name))
        if pyfile.stars:
            self._frame.add(("*", pyfile.path))
        return super()._lookup_in(pyfile, scope, name, line)

    def _resolve_dotted(self, pyfile: py._File, scope: str, text: str, line: int) -> Value | None:
        head = text.partition(".")[0].removesuffix("()")
        self._use(pyfile, scope, head, line)
        return super()._resolve_dotted(pyfile, scope, text, line)

    def _exported(self, pyfile: py._File) -> frozenset[str]:
        self._frame.add(("e", pyfile.path))
        return super()._exported(pyfile)

    def _enclosing_class(self, pyfile: py._File, scope: str) -> str | None:
        self._frame.update(self._structure(pyfile.path, scope))
        return super()._enclosing_class(pyfile, scope)

    def _returns(self, info: DefInfo) -> Value | None:
        self._def_read(info.key)
        return super()._returns(info)

    def _fact_value(self, info: DefInfo, fact: str) -> Value | None:
        self._def_read(info.key)
        return super()._fact_value(info, fact)

    def _compute_attribute(self, value: Value, name: str) -> Value | None:
        if value.kind in ("def", "inst"):
            self._def_read(value.key)
        return super()._compute_attribute(value, name)

    def _compute_result(self, value: Value) -> Value | None:
        if value.kind in ("def", "inst"):
            self._def_read(value.key)
        return super()._compute_result(value)

    def _type_value(self, pyfile: py._File, scope: str, type_name: str, line: int) -> Value | None:
        found = super()._type_value(pyfile, scope, type_name, line)
        if found is not None and found.kind == "inst":
            self._def_read(found.key)
        return found

    def _abstract(self, method: DefInfo) -> bool:
        self._def_read(method.key)
        return super()._abstract(method)

    def _call_value(
        self, caller: str, site: Any, value: Value, kind: str, call: Any, decorated: bool = True
    ) -> None:
        if value.kind == "def":
            self._def_read(value.key)
        super()._call_value(caller, site, value, kind, call, decorated)

    # ---- the binding tables: reads are keys, writes are logged per pass unit ---------------
    def _read_binding(self, key: Key) -> None:
        self._frame.add(key)

    def _wrote_binding(self, key: Key) -> None:
        if self._touched is not None:
            self._touched.add(key)

    def _bind(self, function: DefInfo, position: int, values: list[Value]) -> str | None:
        name = super()._bind(function, position, values)
        if name is not None:
            self._wrote_binding(("b", keys_module.join(function.key, name)))
        return name

    def _snapshot(self, key: Key) -> Any:
        """What the binding tables hold for one key (read without recording it)."""
        if key[0] == "d":
            made = dict.get(self._decorated, key[1])
            return None if made is None else tuple(made)
        bound = dict.get(self._bindings, key[1])
        return (
            None if bound is None else tuple(bound),
            set.__contains__(self._passed, key[1]),
            set.__contains__(self._cls_params, key[1]),
        )

    def _unknown_receiver(self, caller: str, site: Any, call: Any) -> None:
        self._frame.add(("bn", call.name))
        super()._unknown_receiver(caller, site, call)

    def _property_name(self, name: str) -> bool:
        self._frame.add(("pn", name))
        return super()._property_name(name)

    def _unknown_read(self, caller: str, site: Any, name: str, text: str) -> None:
        self._frame.add(("bn", name))
        super()._unknown_read(caller, site, name, text)

    def _memo(self, table: dict[Any, Any], key: Any, compute: Callable[..., Any], *args: Any) -> Any:
        slot = ("memo", id(table), key)
        ran = False

        def run(*given: Any) -> Any:
            nonlocal ran
            ran = True
            saved, self._frame = self._frame, _Frame()
            try:
                return compute(*given)
            finally:
                read = _done(self._frame)
                self._frame = saved
                if read is not _NO_READS:
                    _absorb(saved, read)
                known = self._deps.get(slot)
                if known is not None and known is not _NO_READS and known is not read:
                    read = _Reads((), (known, read)) if read is not _NO_READS else known
                self._record(slot, read)

        value = super()._memo(table, key, run, *args)
        if not ran:
            known = self._deps.get(slot)
            if known is not None and known is not _NO_READS:
                _absorb(self._frame, known)
                if self.replaying and slot not in self.fresh:
                    self.hit_reads.update(k for k in known if k[0] in _BINDING_KEYS)
        elif self.replaying:
            self.fresh.add(slot)
        return value

    def _bases(self, cls: str) -> list[Value]:
        def compute() -> list[Value]:
            self._def_read(cls)
            return super(TracedPythonLinker, self)._bases(cls)

        return self._cached("bases", self._bases_cache, cls, compute)  # type: ignore[no-any-return]

    def _mro(self, cls: str) -> list[str]:
        return self._cached("mro", self._mro_cache, cls, lambda: super(TracedPythonLinker, self)._mro(cls))  # type: ignore[no-any-return]

    def _all_subclasses(self, cls: str) -> list[str]:
        def compute() -> list[str]:
            found = super(TracedPythonLinker, self)._all_subclasses(cls)
            self._frame.add(("sub", cls))
            self._frame.update(("sub", sub) for sub in found)
            return found

        return self._cached("subs", self._subclass_cache, cls, compute)  # type: ignore[no-any-return]

    def _owners_read(self, cls: str, name: str | None, start: int = 0) -> None:
        """The keys a walk along the MRO of ``cls`` reads, for ``name`` (None: the classes only)."""
        frame = self._frame
        for owner in self._mro(cls)[start:]:
            info = self.defs.get(owner)
            if info is None:
                continue
            frame.update(self._structure(info.path, info.qualname))
            if name is not None:
                frame.add(("n", info.path, info.qualname, name))

    def _class_member(self, cls: str, name: str, start: int = 0) -> DefInfo | None:
        def compute() -> DefInfo | None:
            self._owners_read(cls, name, start)
            return super(TracedPythonLinker, self)._class_member(cls, name, start)

        return self._cached("member", self._member_cache, (cls, name, start), compute)  # type: ignore[no-any-return]

    def _member_table(self, cls: str) -> Any:
        def compute() -> Any:
            info = self.defs.get(cls)
            if info is not None:
                self._def_read(cls)
                self._frame.add(("c", info.path, info.qualname))
            return super(TracedPythonLinker, self)._member_table(cls)

        return self._cached("mtable", self._member_tables, cls, compute)

    def _class_attr_value(self, cls: str, name: str) -> Value | None:
        def compute() -> Value | None:
            frame = self._frame
            for owner in self._mro(cls):
                info = self.defs.get(owner)
                if info is not None:
                    frame.update(self._structure(info.path, info.qualname))
                    frame.add(("sa", info.path, name))
            return super(TracedPythonLinker, self)._class_attr_value(cls, name)

        slot = (cls, name)
        if self._attr_values.get(slot) is py._PENDING:
            return super()._class_attr_value(cls, name)
        return self._cached(self.attr_cache, self._attr_values, slot, compute)  # type: ignore[no-any-return]

    def _compute_class_body_value(self, cls: str, name: str) -> Value | None:
        self._owners_read(cls, name)
        return super()._compute_class_body_value(cls, name)

    def _compute_external_bases(self, cls: str) -> list[str]:
        self._owners_read(cls, None)
        return super()._compute_external_bases(cls)

    def _generated_init(self, cls: str) -> bool:
        def compute() -> bool:
            self._owners_read(cls, None)
            return super(TracedPythonLinker, self)._generated_init(cls)

        return self._cached("init", self._generated_inits, cls, compute)  # type: ignore[no-any-return]

    def _construction(self, caller: str, site: Any, cls: str, kind: str) -> None:
        # the targets are memoized per class by the call itself: record them as a cached answer
        targets = self._cached(
            "cons",
            self._constructions,
            cls,
            lambda: self._constructions.get(cls) or self._construction_targets(cls),
        )
        self._constructions[cls] = targets
        super()._construction(caller, site, cls, kind)

    def _method_call(self, caller: str, site: Any, cls: str, call: Any, via: str = "") -> None:
        slot = (cls, call.name)
        plan = self._cached(
            "mplan",
            self._method_plans,
            slot,
            lambda: self._method_plans.get(slot) or self._method_plan(cls, call.name),
        )
        self._method_plans[slot] = plan
        super()._method_call(caller, site, cls, call, via)

    def _subclass_tables(self, cls: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        def compute() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
            for sub in self._all_subclasses(cls):
                info = self.defs[sub]
                self._def_read(sub)
                self._frame.add(("c", info.path, info.qualname))
            return super(TracedPythonLinker, self)._subclass_tables(cls)

        return self._cached("subtab", self._subclass_table_cache, cls, compute)  # type: ignore[no-any-return]

    def _member_keys(self, info: DefInfo) -> list[tuple[str, str]]:
        def compute() -> list[tuple[str, str]]:
            self._frame.add(("c", info.path, info.qualname))
            return super(TracedPythonLinker, self)._member_keys(info)

        return self._cached("mkeys", self._member_key_cache, info.key, compute)  # type: ignore[no-any-return]

    # ---- what a file holds that others read -----------------------------------------------
    def new_file(self, index: FileIndex) -> py._File | None:
        """A ``_File`` for an index, as ``__init__`` makes one (None: not a Python module)."""
        roots = sorted({r.strip("/") for r in self.import_roots}, key=lambda r: (-len(r), r))
        names = py._module_names(index.path, roots)
        if not names:
            return None
        return py._new_file(index, names[0])


def surface(pyfile: py._File) -> dict[Key, Any]:
    """What the keys of one file stand for (see the module docstring), from its records alone."""
    path = pyfile.path
    table: dict[Key, list[Any]] = {}
    for qualname, info in pyfile.defs.items():
        d = info.definition
        parent, _, name = qualname.rpartition(".")
        table.setdefault(("n", path, parent, name), []).append(d)
        table.setdefault(("c", path, parent), []).append(d)
        for param in d.params:
            table.setdefault(("n", path, qualname, param.name), []).append(d)
        owner = pyfile.defs.get(parent)
        if info.is_callable and parent and owner is not None and owner.is_class:
            table.setdefault(("bn", name), []).append(info.key)
        if info.is_callable and "." in qualname and py._is_property(d):
            table.setdefault(("pn", name), []).append(info.key)
    for (scope, bound), imports in pyfile.imports.items():
        table.setdefault(("n", path, scope, bound), []).extend(imports)
    for stars in pyfile.stars.values():
        table.setdefault(("*", path), []).extend(stars)
    for (scope, target), assigns in pyfile.assigns.items():
        if "." not in target:
            table.setdefault(("n", path, scope, target), []).extend(assigns)
        elif target.startswith("self.") and target.count(".") == 1:
            table.setdefault(("sa", path, target[5:]), []).extend(assigns)
    for (owner_name, target), assigns in pyfile.class_attrs.items():
        table.setdefault(("n", path, owner_name, target), []).extend(assigns)
        table.setdefault(("c", path, owner_name), []).append(("attr", target))
    found: dict[Key, Any] = {k: tuple(v) for k, v in table.items()}
    found[("e", path)] = tuple(pyfile.index.exports)
    for scope, lines in pyfile.class_lines.items():
        for line, cls in enumerate(lines):
            if cls is not None:
                found[("cl", path, scope, line)] = cls
    for scope in pyfile.class_scopes:
        found[("cs", path, scope)] = True
    return found


def inputs_of(linker: TracedPythonLinker, pyfile: py._File) -> dict[Unit, Any]:
    """What the binding passes of a file iterate over, from its records (and the class method
    names, for C); ``pyfile`` is the linker's file of its path."""
    path = pyfile.path
    decorated = tuple(
        (info.definition, tuple(linker._decorator_calls(pyfile, info.definition)))
        for info in pyfile.defs.values()
        if info.definition.decorators
    )
    arguments = tuple((call, tuple(refs)) for call, refs in linker._arguments_of(pyfile))
    names = linker.classmethod_names
    receivers = tuple(
        call
        for call in pyfile.index.calls
        if call.name in names
        and call.receiver not in (None, "<expr>")
        and not call.super_call
        and py._written(call)
    )
    return {("D", path): decorated, ("A", path): arguments, ("C", path): receivers}


def changed_keys(old: dict[Key, Any], new: dict[Key, Any]) -> set[Key]:
    return {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}


def _global(key: Key) -> bool:
    return key[0] in ("bn", "pn", "sub")


# ---- the state a tracked link leaves ------------------------------------------------------
@dataclass
class _Others:
    """What the linkers other than Python's gave (they do not change while only Python files do)."""

    position: int  # where the Python linker runs among the linkers
    nodes_before: list[Node]  # node() and external() calls of the linkers before Python's, in order
    nodes_after: list[Node]
    edges_before: list[Edge]
    edges_after: list[Edge]
    unresolved: list[Unresolved]
    dynamic: list[Dynamic]
    truncations: list[Any]
    handled: frozenset[str]
    linkers: list[Any]


class _LoggingBuilder(GraphBuilder):
    """The shared builder of a tracked link: it logs the nodes each linker asks for, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[Node] = []

    def node(self, node: Node) -> None:
        self.log.append(node)
        super().node(node)

    def external(self, key: str, language: str) -> str:
        self.log.append(
            Node(
                key=key, kind="external", language=language, external=key, name=keys_module.last_segment(key)
            )
        )
        return super().external(key, language)


@dataclass(frozen=True)
class _DefShare:
    """One file's share of the Python linker's tables over every definition: its definitions by
    key (``defs``), the names ``_property_names`` and ``_classmethod_names`` take from them, and its
    methods by name (``_by_name``: a callable whose owner in the file is a class)."""

    pyfile: py._File
    defs: dict[str, DefInfo]
    properties: frozenset[str]
    classmethods: frozenset[str]
    methods: dict[str, list[DefInfo]]

    @classmethod
    def of(cls, pyfile: py._File) -> _DefShare:
        infos = list(pyfile.defs.values())
        methods: dict[str, list[DefInfo]] = {}
        for info in infos:
            if info.is_callable and "." in info.qualname:
                owner = pyfile.defs.get(info.qualname.rpartition(".")[0])
                if owner is not None and owner.is_class:
                    methods.setdefault(info.definition.name, []).append(info)
        return cls(
            pyfile,
            {info.key: info for info in infos},
            frozenset(
                info.definition.name
                for info in infos
                if info.is_callable and py._is_property(info.definition) and "." in info.qualname
            ),
            frozenset(info.definition.name for info in infos if "classmethod" in info.definition.decorators),
            methods,
        )


class LinkState:
    """A tracked link of a project, ready to be brought up to date by ``relink``."""

    def __init__(
        self,
        options: LinkOptions,
        manifests: Manifests,
        context: LinkContext,
        indexes: dict[str, FileIndex],
        linker: TracedPythonLinker,
        others: _Others,
    ) -> None:
        self.options = options
        self.manifests = manifests
        self.context = context
        self.indexes = indexes
        self.linker = linker
        self.others = others
        self.surfaces: dict[str, dict[Key, Any]] = {p: surface(f) for p, f in linker.files.items()}
        self.inputs: dict[Unit, Any] = {}
        for pyfile in linker.files.values():
            self.inputs.update(self._inputs(pyfile))
        self.order: list[Unit] = sorted(linker.outputs, key=_unit_sort)
        self.phase_units: list[Unit] = [unit for unit in self.order if unit[0] in _PHASES]
        self.replays = 0
        # edges by the path of their site: the units that made some, and the strongest per slot
        self.by_site: dict[str, set[Unit]] = {}
        self.unit_sites: dict[Unit, dict[str, list[Edge]]] = {}
        for unit in self.order:
            self._index_unit(unit)
        self.final_by_site: dict[str, list[Edge]] = {}
        self.externals: Counter[str] = Counter()
        self.unresolved: Counter[Unresolved] = Counter()
        self.dynamic: Counter[Dynamic] = Counter()
        for output in linker.outputs.values():
            self.externals.update(output.externals)
            self.unresolved.update(set(output.unresolved))
            self.dynamic.update(set(output.dynamic))
        other_edges = [*others.edges_before, *others.edges_after]
        self.other_sites: dict[str, list[Edge]] = {}
        for edge in other_edges:
            self.other_sites.setdefault(edge[4][0], []).append(edge)
        for site in set(self.by_site) | set(self.other_sites):
            self.final_by_site[site] = self._strongest_at(site)
        self.edges: list[Edge] = sorted(e for edges in self.final_by_site.values() for e in edges)
        self.other_unresolved = set(others.unresolved)
        self.other_dynamic = set(others.dynamic)
        self.unresolved_sorted: list[Unresolved] = sorted(self.other_unresolved | set(self.unresolved))
        self.dynamic_sorted: list[Dynamic] = sorted(self.other_dynamic | set(self.dynamic))
        self.relinked_units = 0
        self.python_nodes: dict[str, list[Node]] = {}
        self.before_nodes: dict[str, Node] = {}
        for node in others.nodes_before:
            self.before_nodes.setdefault(node.key, node)
        self.after_nodes: dict[str, Node] = {}
        for node in others.nodes_after:
            self.after_nodes.setdefault(node.key, node)
        self.node_map: dict[str, Node] = {}
        self.nodes_sorted: list[Node] = []
        self.node_incomplete: frozenset[tuple[str, str]] = frozenset()  # what node_map was made with
        self.active_rules = merge_rules(options.rules)
        self.file_roots: dict[str, tuple[FileIndex, set[Root], set[Root]]] = {}
        self.changed_groups: set[str] = set()  # the store's groups the last relink may have changed
        self.last_roots: tuple[Root, ...] = ()
        self.last_root_set: Any = None
        self.root_counts: Counter[Root] = Counter()
        self.root_list: list[Root] = []
        self.last_entry_roots: set[Root] = set()
        self.gave_up = ""  # why the last relink gave up ("" when it did not)
        # each file's share of the tables over every definition (``_rebuild_defs``), by path
        self.def_shares: dict[str, _DefShare] = {}
        self.classmethods_of: tuple[dict[str, DefInfo], frozenset[str]] | None = None  # (defs, names)
        # the ``_by_name`` table ``_rebuild_defs`` last made, with the file order it was made in
        self.by_name_of: tuple[list[str], dict[str, list[DefInfo]]] | None = None
        linker.readers.remake(linker._deps.items())  # now, not at the first edit

    # ---- pieces -------------------------------------------------------------------------
    def _inputs(self, pyfile: py._File) -> dict[Unit, Any]:
        return inputs_of(self.linker, pyfile)

    def _index_unit(self, unit: Unit) -> None:
        sites: dict[str, list[Edge]] = {}
        for edge in self.linker.outputs[unit].edges:
            sites.setdefault(edge[4][0], []).append(edge)
        self.unit_sites[unit] = sites
        for site in sites:
            self.by_site.setdefault(site, set()).add(unit)

    def _unindex_unit(self, unit: Unit) -> set[str]:
        sites = self.unit_sites.pop(unit, {})
        for site in sites:
            units = self.by_site.get(site)
            if units is not None:
                units.discard(unit)
                if not units:
                    del self.by_site[site]
        return set(sites)

    def _strongest_at(self, site: str) -> list[Edge]:
        """The edges of one site path, as ``strongest`` keeps them from the full link's order."""
        ordered: list[Edge] = []
        if self.others.edges_before:
            ordered.extend(e for e in self.other_sites.get(site, ()) if e in self._before_set)
        for unit in sorted(self.by_site.get(site, ()), key=_unit_sort):
            ordered.extend(self.unit_sites[unit][site])
        if self.others.edges_after:
            ordered.extend(e for e in self.other_sites.get(site, ()) if e in self._after_set)
        return strongest(ordered)

    @property
    def _before_set(self) -> set[Edge]:
        found: set[Edge] | None = self.__dict__.get("_before_cache")
        if found is None:
            found = self.__dict__["_before_cache"] = set(self.others.edges_before)
        return found

    @property
    def _after_set(self) -> set[Edge]:
        found: set[Edge] | None = self.__dict__.get("_after_cache")
        if found is None:
            found = self.__dict__["_after_cache"] = set(self.others.edges_after)
        return found

    def _all_nodes(self, entries: tuple[FileEntry, ...]) -> dict[str, Node]:
        """Every node, as ``link.build`` keeps them (the first asked for a key wins)."""
        linker = self.linker
        others = self.others
        nodes: dict[str, Node] = {}
        for node in others.nodes_before:
            nodes.setdefault(node.key, node)
        for path in linker.files:
            for node in self._file_nodes(path):
                nodes.setdefault(node.key, node)
        for key in sorted(self.externals):
            if key not in nodes:
                nodes[key] = _python_external(key)
        for node in others.nodes_after:
            nodes.setdefault(node.key, node)
        for index in self.indexes.values():
            if index.language not in others.handled:
                nodes.setdefault(index.path, module_node(index.path, index.language))
        for entry in entries:
            if entry.status in ("failed", "missing"):
                nodes.setdefault(entry.path, module_node(entry.path, entry.language))
        return nodes

    def _file_nodes(self, path: str) -> list[Node]:
        found = self.python_nodes.get(path)
        if found is None:
            pyfile = self.linker.files[path]
            found = [module_node(path, py._LANGUAGE, 0), *(node_for(info) for info in pyfile.defs.values())]
            self.python_nodes[path] = found
        return found

    def _node_of(self, key: str) -> Node | None:
        """The node of one key that only Python files or Python externals can have changed."""
        node = self.before_nodes.get(key)
        if node is not None:
            return node
        path = key.partition("//")[0]
        if path in self.linker.files:
            for node in self._file_nodes(path):
                if node.key == key:
                    return node
        if self.externals.get(key, 0) > 0:
            return _python_external(key)
        return self.after_nodes.get(key)

    def _group_of(self, key: str) -> str:
        """The store's group (a node's path) of the rows of a node key."""
        node = self.node_map.get(key)
        return node.path if node is not None else key.partition("//")[0]

    def _patch_nodes(self, keys: set[str]) -> None:
        nodes = self.nodes_sorted
        for key in keys:
            old = self.node_map.get(key)
            new = self._node_of(key)
            if old == new:
                continue
            self.changed_groups.update(n.path for n in (old, new) if n is not None)
            if old is not None:
                del nodes[bisect_left(nodes, old)]
                del self.node_map[key]
            if new is not None:
                insort(nodes, new)
                self.node_map[key] = new

    def _roots(self) -> Any:
        """``roots.find``, from the roots each file gave (kept by index) and the entry points: the
        root list is patched with what changed, and made again only when a strong root came or
        went (the fallback roots count only without one)."""
        active = self.active_rules
        deps = self.manifests.dependencies
        test_paths = self.options.test_paths
        entries = entry_roots(active, self.manifests, self._resolve_entry, self.indexes)
        gone: list[set[Root]] = []
        came: list[set[Root]] = []
        if entries != self.last_entry_roots:
            gone.append(self.last_entry_roots)
            came.append(entries)
        for path, index in self.indexes.items():
            kept = self.file_roots.get(path)
            if kept is None or kept[0] is not index:
                fresh = (
                    index,
                    file_roots(active, index, deps, test_paths, self._handler_refs),
                    fallback_roots(index, test_paths),
                )
                self.file_roots[path] = fresh
                if kept is not None and kept[1:] != fresh[1:]:
                    gone.extend(kept[1:])
                    came.extend(fresh[1:])
                elif kept is None:
                    self.last_root_set = None
        self.last_entry_roots = entries
        counts = self.root_counts
        if self.last_root_set is not None and (gone or came):
            if self.last_root_set.fallback:
                self.last_root_set = None  # the fallback roots count: find them all again
            else:
                for group, sign in ((gone, -1), (came, 1)):
                    for roots in group:
                        for root in roots:
                            if root.rule != "root-fallback":
                                counts[root] += sign
                if any(n > 0 and root.kind in _STRONG_KINDS for root, n in counts.items()):
                    for root in {r for roots in (*gone, *came) for r in roots if r.rule != "root-fallback"}:
                        _patch_sorted(self.root_list, root, counts.get(root, 0) > 0)
                    self.last_root_set = RootSet(tuple(self.root_list), fallback=False)
                else:
                    self.last_root_set = None  # no strong root left: the fallback roots count
        if self.last_root_set is None:
            found = set(entries)
            for path in sorted(self.indexes):
                found |= self.file_roots[path][1]
            fallbacks = [self.file_roots[p][2] for p in sorted(self.indexes)]
            self.last_root_set = with_fallback(found, fallbacks)
            counts.clear()
            counts.update(entries)
            for path in self.indexes:
                counts.update(self.file_roots[path][1])
            self.root_list = list(self.last_root_set.roots)
        return self.last_root_set

    def graph_of(self, entries: tuple[FileEntry, ...]) -> Graph:
        """The graph as ``link.build`` gives it, from the units' outputs."""
        # a file that failed or went missing has a module node of its own: when that set changes
        # (a failed file deleted, which changes no index), the nodes are made again
        incomplete = frozenset((e.path, e.language) for e in entries if e.status in ("failed", "missing"))
        if not self.node_map or incomplete != self.node_incomplete:
            if self.node_map:
                self.changed_groups.update(
                    self._group_of(path) for path, _ in incomplete ^ self.node_incomplete
                )
            self.node_map = self._all_nodes(entries)
            self.nodes_sorted = sorted(self.node_map.values())
            self.node_incomplete = incomplete
        root_set = self._roots()
        if root_set.roots != self.last_roots:
            moved = set(root_set.roots) ^ set(self.last_roots)
            self.changed_groups.update(self._group_of(root.key) for root in moved)
            self.last_roots = root_set.roots
        edges = self.edges
        max_edges = self.options.max_edges or DEFAULT_MAX_EDGES
        if len(edges) > max_edges or self.others.truncations:
            raise _GiveUp("truncated")
        stats = {
            "version": VERSION,
            "files": len(entries),
            "nodes": len(self.nodes_sorted),
            "edges": len(edges),
            "unresolved": len(self.unresolved_sorted),
            "roots": len(root_set.roots),
            "root_fallback": root_set.fallback,
            "incomplete_files": sum(1 for e in entries if e.status in _INCOMPLETE),
            "manifest_problems": list(self.manifests.problems),
        }
        graph = Graph(
            nodes=tuple(self.nodes_sorted),
            edges=tuple(edges),
            roots=root_set.roots,
            unresolved=tuple(self.unresolved_sorted),
            dynamic=tuple(self.dynamic_sorted),
            truncations=(),
            files=entries,
            stats=stats,
        )
        # its nodes by key are the node map (a copy: the map changes with the next relink), not a
        # pass over every node again
        graph.__dict__["node_by_key"] = dict(self.node_map)
        return placing_every_file(graph)

    def _resolve_entry(self, entry: EntryPoint) -> str | None:
        return resolve_entry(entry, self.others.linkers, self.indexes, self.manifests)

    def _handler_refs(self, index: FileIndex, methods: Sequence[str]) -> list[str]:
        for linker in self.others.linkers:
            if hasattr(linker, "handler_refs") and index.language in getattr(linker, "languages", ()):
                found: list[str] = linker.handler_refs(index, methods)
                return found
        return []

    # ---- the incremental link -------------------------------------------------------------
    def relink(self, indexes: Sequence[FileIndex], entries: tuple[FileEntry, ...]) -> Graph | None:
        """The graph of ``indexes`` (the same files as the state's, some of them changed), or None
        when the change is not one this state can follow (then link in full)."""
        self.gave_up = ""
        try:
            with paused_gc(keep=True):
                return self._relink(indexes, entries)
        except _GiveUp as reason:
            self.gave_up = str(reason)
            return None

    def _relink(self, indexes: Sequence[FileIndex], entries: tuple[FileEntry, ...]) -> Graph:
        linker = self.linker
        self.changed_groups = set()
        new = {i.path: i for i in indexes}
        if new.keys() != self.indexes.keys():
            raise _GiveUp("files came or went")
        changed = sorted(p for p, i in new.items() if i is not self.indexes[p] and i != self.indexes[p])
        if any(new[p].language != py._LANGUAGE or p not in linker.files for p in changed):
            raise _GiveUp("a file of another language changed")
        # the changed keys, the new files in the linker's tables
        dirty: set[Key] = set()
        old_files = {p: linker.files[p] for p in changed}
        classes: list[str] = []
        for path in changed:
            pyfile = linker.new_file(new[path])
            if pyfile is None or pyfile.module != old_files[path].module:
                raise _GiveUp("module names changed")
            fresh = surface(pyfile)
            dirty |= changed_keys(self.surfaces[path], fresh)
            self.surfaces[path] = fresh
            classes.extend(
                info.key for f in (old_files[path], pyfile) for info in f.defs.values() if info.is_class
            )
            linker.files[path] = pyfile
            linker._structure_keys.pop(path, None)
        self.indexes = new
        if changed:
            getattr_before = linker.__dict__.pop("_getattr_modules", None)
            self._rebuild_defs()
            if getattr_before is not None and linker._getattr_modules != getattr_before:
                raise _GiveUp("a module __getattr__ came or went")  # (every m.x read may change)
        names = self._classmethod_names()
        if names != linker.classmethod_names:
            raise _GiveUp("classmethod names changed")
        fresh_inputs: dict[Unit, Any] = {}
        for path in changed:
            fresh_inputs.update(self._inputs(linker.files[path]))
        # answers that read a changed key are forgotten; subclasses follow the new bases
        self._invalidate(dirty, changed, classes)
        # the binding passes: a unit whose input or reads changed runs again as it stood in the
        # full link's order, and must leave the bindings as it did (else: link in full)
        touched: set[str] = set()
        node_keys: set[str] = set()
        sites: set[Any] = set()  # unresolved sites and dynamic flags whose count changed
        replayed = 0
        for position, unit in enumerate(self.phase_units):
            moved = unit in fresh_inputs and fresh_inputs[unit] != self.inputs.get(unit)
            if moved or not dirty.isdisjoint(linker.unit_keys(unit)):
                self._swap(unit, lambda u=unit, p=position: self._replay(u, p), touched, node_keys, sites)  # type: ignore[misc]
                replayed += 1
        self.inputs.update(fresh_inputs)
        rerun = [
            unit
            for unit in self.order
            if unit[0] in ("L", "E") and (unit[1] in changed or not dirty.isdisjoint(linker.unit_keys(unit)))
        ]
        for path in changed:
            node_keys.update(node.key for node in self.python_nodes.pop(path, ()))
            node_keys.update(node.key for node in self._file_nodes(path))
        for unit in rerun:
            self._swap(unit, self._link_work(unit), touched, node_keys, sites)
        # as after a full link: only the answers that define others stay (bounded by the classes),
        # so what a long-lived process keeps, and scans for the next relink, does not grow
        linker._release()
        for external in node_keys:
            if self.externals.get(external, 1) <= 0:
                del self.externals[external]
        self._patch_edges(touched)
        self._patch_nodes(node_keys)
        for site in sites:
            table: Counter[Any] = self.unresolved if isinstance(site, Unresolved) else self.dynamic
            if table.get(site, 1) <= 0:
                del table[site]
        self.changed_groups.update(self._group_of(site.caller) for site in sites)
        for site in sites:
            if isinstance(site, Unresolved):
                _patch_sorted(
                    self.unresolved_sorted, site, site in self.unresolved or site in self.other_unresolved
                )
            else:
                _patch_sorted(self.dynamic_sorted, site, site in self.dynamic or site in self.other_dynamic)
        self.relinked_units = len(rerun) + replayed
        return self.graph_of(entries)

    def _link_work(self, unit: Unit) -> Callable[[], None]:
        linker = self.linker
        pyfile = linker.files[unit[1]]
        if unit[0] == "L":
            return lambda: linker._run_unit(unit, lambda: linker._link_file(pyfile))
        return lambda: linker._run_unit(unit, lambda: linker._decorator_edges_of(pyfile))

    def _swap(
        self, unit: Unit, run: Callable[[], None], touched: set[str], node_keys: set[str], sites: set[Any]
    ) -> None:
        """Run a unit again and put its new output in place of its old one."""
        old = self.linker.outputs[unit]
        touched |= self._unindex_unit(unit)
        self.externals.subtract(old.externals)
        node_keys |= old.externals
        self.unresolved.subtract(set(old.unresolved))
        self.dynamic.subtract(set(old.dynamic))
        sites.update(old.unresolved)
        sites.update(old.dynamic)
        run()
        output = self.linker.outputs[unit]
        self._index_unit(unit)
        touched |= set(self.unit_sites[unit])
        self.externals.update(output.externals)
        node_keys |= output.externals
        self.unresolved.update(set(output.unresolved))
        self.dynamic.update(set(output.dynamic))
        sites.update(output.unresolved)
        sites.update(output.dynamic)

    def _replay(self, unit: Unit, position: int) -> None:
        self.replays += 1
        replay(self.linker, unit, position, self.replays)

    def _rebuild_defs(self) -> None:
        """``defs`` and the tables made from it, as ``PythonLinker.__init__`` makes them: each
        file's share (its definitions by key, its property and classmethod names) is kept while
        its ``_File`` is, so that only a changed file's is made again, and the rest is dict and
        set unions in C (a key is its file's path and a qualified name, one file's only: the
        union of the files' definitions in file order is ``defs``, without ``setdefault``)."""
        linker = self.linker
        shares = self.def_shares
        defs: dict[str, DefInfo] = {}
        properties: list[frozenset[str]] = []
        classmethods: list[frozenset[str]] = []
        touched: set[str] = set()  # the method names of the files whose share was made again
        for path, pyfile in linker.files.items():
            share = shares.get(path)
            if share is None or share.pyfile is not pyfile:
                if share is not None:
                    touched.update(share.methods)
                share = shares[path] = _DefShare.of(pyfile)
                touched.update(share.methods)
            defs.update(share.defs)
            if share.properties:
                properties.append(share.properties)
            if share.classmethods:
                classmethods.append(share.classmethods)
        for path in shares.keys() - linker.files.keys():
            del shares[path]
        linker.defs = defs
        linker.__dict__["_by_name"] = self._by_name(touched)
        linker.__dict__["_property_names"] = frozenset().union(*properties)
        linker.__dict__.pop("_exports", None)
        self.classmethods_of = (defs, frozenset().union(*classmethods))

    def _by_name(self, touched: set[str]) -> dict[str, list[DefInfo]]:
        """``PythonLinker._by_name`` from the files' shares (in file order, each file's methods in
        its order, as the linker makes it): while the files and their order are those of the last
        table, only the lists of the ``touched`` names are made again (new lists: a caller may hold
        an old one), else the whole table."""
        paths = list(self.linker.files)
        shares = self.def_shares
        kept = self.by_name_of
        if kept is not None and kept[0] == paths:
            table = kept[1]
            for name in touched:
                found = [info for path in paths for info in shares[path].methods.get(name, ())]
                if found:
                    table[name] = found
                else:
                    table.pop(name, None)
        else:
            table = {}
            for path in paths:
                for name, infos in shares[path].methods.items():
                    table.setdefault(name, []).extend(infos)
        self.by_name_of = (paths, table)
        return table

    def _classmethod_names(self) -> frozenset[str]:
        """``linker._classmethod_names()``, from the shares when ``_rebuild_defs`` made its defs."""
        kept = self.classmethods_of
        if kept is not None and kept[0] is self.linker.defs:
            return kept[1]
        return self.linker._classmethod_names()

    def _invalidate(self, dirty: set[Key], changed: Sequence[str], classes: Iterable[str]) -> None:
        """Forget every memoized answer that read a key in ``dirty`` (which grows with the
        subclass tables that change as bases are resolved again), and every one of a changed file."""
        linker = self.linker
        tables: dict[str, Any] = {
            "bases": linker._bases_cache,
            "mro": linker._mro_cache,
            "attr": linker.__dict__.get("_attr_values", {}),
            "init": linker._generated_inits,
            "member": linker._member_cache,
            "subs": linker._subclass_cache,
            "mtable": linker.__dict__.get("_member_tables", {}),
            "cons": linker.__dict__.get("_constructions", {}),
            "mplan": linker.__dict__.get("_method_plans", {}),
            "subtab": linker.__dict__.get("_subclass_table_cache", {}),
            "mkeys": linker.__dict__.get("_member_key_cache", {}),
        }
        subclasses_built = "_subclasses" in linker.__dict__
        memos: dict[int, dict[Any, Any]] = {
            id(table): table
            for table in (linker._attr_memo, linker._result_memo, linker._body_memo, linker._ext_memo)
        }
        for pyfile in linker.files.values():
            memos[id(pyfile.memo)] = pyfile.memo
            memos[id(pyfile.lookups)] = pyfile.lookups
        previous: dict[str, list[Value]] = {}  # forgotten bases, for the subclass table
        for key in classes:  # the classes of the changed files, before and after
            previous.setdefault(key, linker._bases_cache.get(key, []))
        readers = linker.readers
        if readers.stale():
            readers.remake(linker._deps.items())
        fresh: Iterable[Key] = dirty
        while True:
            deps = linker._deps
            for slot, read in readers.readers(fresh):
                if deps.get(slot) is not read:
                    continue  # (forgotten already, or another answer since)
                linker._forget(slot)
                if slot[0] == "memo":
                    memo = memos.get(slot[1])
                    if memo is not None:
                        memo.pop(slot[2], None)
                    continue
                gone = tables[slot[0]].pop(slot[1], None)
                if slot[0] == "bases" and gone is not None:
                    previous.setdefault(slot[1], gone)
            for cls in previous:
                linker._bases_cache.pop(cls, None)
                linker._mro_cache.pop(cls, None)
            if not subclasses_built:
                break
            # the direct subclasses of the classes whose bases were forgotten, resolved again
            table = linker._subclasses
            grown: set[Key] = set()
            for cls in sorted(previous):
                if cls in linker._bases_cache:
                    continue  # (already resolved again in an earlier round)
                info = linker.defs.get(cls)
                now = linker._bases(cls) if info is not None and info.is_class else []
                before = [v.key for v in previous[cls] if v.kind == "def"]
                after = [v.key for v in now if v.kind == "def"]
                if before == after:
                    continue
                for base in set(before):
                    subs = table.get(base, [])
                    subs[:] = [c for c in subs if c != cls]
                    if not subs:
                        table.pop(base, None)
                for base in after:
                    insort(table.setdefault(base, []), cls)
                grown |= {("sub", b) for b in (*before, *after)}
            grown -= dirty
            if not grown:
                break
            dirty |= grown
            fresh = grown
        linker._subclass_cache.clear()
        linker._drop_deps("subs")
        # a changed file's own memo tables went with its old _File; answers elsewhere that read it
        # read a key of it, so they are gone above
        for path in changed:
            if "_self_assign_tables" in linker.__dict__:
                linker._self_assign_tables.pop(path, None)
            linker._call_tables.pop(path, None)
            linker._end_tables.pop(path, None)
            if "_exports" in linker.__dict__:
                linker._exports.pop(path, None)

    def _patch_edges(self, touched: set[str]) -> None:
        edges = self.edges
        removed: list[Edge] = []
        added: list[Edge] = []
        for site in touched:
            old = self.final_by_site.get(site, [])
            fresh = self._strongest_at(site)
            if fresh:
                self.final_by_site[site] = fresh
            else:
                self.final_by_site.pop(site, None)
            old_set = set(old)
            fresh_set = set(fresh)
            removed.extend(e for e in old if e not in fresh_set)
            added.extend(e for e in fresh if e not in old_set)
        self.changed_groups.update(self._group_of(e[0]) for e in (*removed, *added))
        for edge in removed:
            position = bisect_left(edges, edge)
            if position < len(edges) and edges[position] == edge:
                del edges[position]
        for edge in added:
            insort(edges, edge)


def replay(linker: TracedPythonLinker, unit: Unit, position: int, replays: int) -> None:
    """Run a binding-pass unit again on the bindings as they stood before it in the full link's
    order (its history), apart from the real tables; give up unless it leaves them as it did
    and read nothing a later unit wrote through an answer memoized elsewhere. ``replays``: how
    many replays this linker ran (this one included): each stamps its memoized values apart."""
    history = linker.history

    def before(key: Key) -> Any:
        found: Any = None if key[0] == "d" else (None, False, False)
        for at, value in history.get(key, ()):
            if at >= position:
                break
            found = value
        return found

    saved = (
        linker._bindings,
        linker._decorated,
        linker._passed,
        linker._cls_params,
        linker._generation,
        linker._attr_stamp,
        linker.__dict__.get("_attr_values"),
    )
    bindings = _Replayed(linker, "b", before)
    decorated = _Replayed(linker, "d", before)
    passed = _ReplayedParams(linker, 1, before)
    cls_params = _ReplayedParams(linker, 2, before)
    linker._bindings, linker._decorated = bindings, decorated
    linker._passed, linker._cls_params = passed, cls_params
    linker._generation = saved[4] + 1_000_000 * replays  # memoized values that read
    linker._attr_stamp = saved[5] - 1_000_000 * replays  # the bindings: none is reused
    linker.__dict__["_attr_values"] = {}
    linker.attr_cache = "attr-replay"
    linker.replaying = True
    linker.hit_reads = set()
    linker.fresh = set()
    try:
        linker._run_unit(unit, linker.phase_work(unit[0], linker.files[unit[1]]), position)
    finally:
        linker._bindings, linker._decorated, linker._passed, linker._cls_params = saved[:4]
        linker._generation, linker._attr_stamp = saved[4], saved[5]
        if saved[6] is None:
            linker.__dict__.pop("_attr_values", None)
        else:
            linker.__dict__["_attr_values"] = saved[6]
        linker.attr_cache = "attr"
        linker._drop_deps("attr-replay")
        linker.replaying = False

    def after(key: Key) -> Any:
        if key[0] == "d":
            made = dict.get(decorated, key[1])
            return tuple(made) if made is not None else before(key)
        was = before(key)
        bound = dict.get(bindings, key[1])
        return (
            tuple(bound) if bound is not None else was[0],
            set.__contains__(passed, key[1]) or was[1],
            set.__contains__(cls_params, key[1]) or was[2],
        )

    old = linker.effects[unit]
    for key in linker.last_touched | old.keys():
        if after(key) != old.get(key, before(key)):
            raise _GiveUp(f"{unit} binds otherwise")
    for key in linker.hit_reads:
        if any(at >= position for at, _value in history.get(key, ())):
            raise _GiveUp(f"{unit} read a binding written after it")


class _GiveUp(Exception):
    """The change is not one the state can follow: link in full."""


def _patch_sorted(rows: list[Any], row: Any, present: bool) -> None:
    """Make a sorted list of distinct rows hold ``row`` or not."""
    position = bisect_left(rows, row)
    there = position < len(rows) and rows[position] == row
    if present and not there:
        rows.insert(position, row)
    elif there and not present:
        del rows[position]


def _python_external(key: str) -> Node:
    return Node(
        key=key, kind="external", language=py._LANGUAGE, external=key, name=keys_module.last_segment(key)
    )


def _unit_sort(unit: Unit) -> tuple[int, str]:
    return (_UNIT_ORDER[unit[0]], unit[1])


def build_tracked(indexes: Iterable[FileIndex], options: LinkOptions) -> tuple[Graph, LinkState]:
    """``link.build``, with the Python linker traced: the graph and the state to relink it."""
    if options.max_edges < 0 or options.max_export_hops < 0:
        raise ValueError("max_edges and max_export_hops cannot be negative")
    hops = options.max_export_hops or DEFAULT_MAX_EXPORT_HOPS
    ordered = sorted(indexes, key=lambda i: i.path)
    paths = tuple(i.path for i in ordered) + tuple(getattr(f, "path", "") for f in options.files)
    manifests = options.manifests or read_manifests(options.root, paths)
    builder = _LoggingBuilder()
    context = LinkContext(manifests, hops, tuple(options.test_paths), tuple(options.sys_path), options.root)
    linkers: list[Any] = []
    python: TracedPythonLinker | None = None
    position = 0
    marks: list[tuple[int, int, int, int, int]] = []
    for make in _linker_factories():
        if make.__module__ == py.__name__:
            roots = [*manifests.python_roots, *context.sys_path]
            python = TracedPythonLinker(ordered, builder, roots, hops)
            position = len(linkers)
            linkers.append(python)
        else:
            linkers.append(make(ordered, builder, context))
    if python is None:
        raise RuntimeError("no Python linker")
    for linker in linkers:
        marks.append((len(builder.log), len(builder.edges), len(builder.unresolved), len(builder.dynamic), 0))
        linker.link()
    marks.append((len(builder.log), len(builder.edges), len(builder.unresolved), len(builder.dynamic), 0))
    start, end = marks[position], marks[position + 1]
    # a linker may set a node of its own again (Rust, Java: the external key of a public item):
    # each logged node as the builder holds it at the end, as the full link gives it
    final = builder.nodes
    logged = [final.get(n.key, n) for n in builder.log]
    others = _Others(
        position=position,
        nodes_before=logged[: start[0]],
        nodes_after=logged[end[0] :],
        edges_before=builder.edges[: start[1]],
        edges_after=builder.edges[end[1] :],
        unresolved=builder.unresolved[: start[2]] + builder.unresolved[end[2] :],
        dynamic=builder.dynamic[: start[3]] + builder.dynamic[end[3] :],
        truncations=list(builder.truncations),
        handled=frozenset(language for linker in linkers for language in linker.languages),
        linkers=linkers,
    )
    state = LinkState(options, manifests, context, {i.path: i for i in ordered}, python, others)
    entries = _file_entries(ordered, options.files)
    return state.graph_of(entries), state


__all__ = ["LinkState", "TracedPythonLinker", "build_tracked", "changed_keys", "surface"]
