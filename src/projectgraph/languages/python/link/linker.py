"""The Python resolver: modules and import roots, name scopes, receivers, MRO, calls to edges.

Name lookup follows Python's rules as far as records allow: the function's own bindings
(assignments, parameters, nested definitions, local imports), then enclosing *function* scopes
(class bodies are not enclosing scopes), then the module (definitions, imports, assignments, star
imports), then builtins. Within one scope, the binding closest before the use wins; a use from an
inner function sees the module's last binding.

Receivers: ``self``/``cls`` bind the enclosing class; an annotated parameter or variable binds its
declared type; ``x = Foo()`` binds an instance of ``Foo``; ``self.a = Bar()`` in any method binds
the attribute ``a`` of instances of the class; a call's result binds the function's return
annotation or what it visibly returns. What stays unknown becomes an unresolved site with a reason.
"""

from __future__ import annotations

import builtins
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from projectgraph import keys
from projectgraph.fileindex import Assignment, Call, Definition, FileIndex, Import, Reference, filter_may_hold
from projectgraph.gcpause import paused_gc
from projectgraph.graph import Dynamic, Site, Unresolved
from projectgraph.languages.python import frameworks
from projectgraph.link import gates
from projectgraph.link.core import (
    DefInfo,
    GraphBuilder,
    LinkContext,
    Value,
    c3_linearize,
    module_node,
    node_for,
    subclasses_closure,
)
from projectgraph.manifests import EntryPoint

BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_")) | {"__import__"}
# Methods of builtin containers and strings: an unknown receiver calling one of these is far more
# likely a list/dict/str than a first-party class, so no name edge is made for them (the site stays
# unresolved, so reach stays honest).
_CONTAINER_METHODS = frozenset(
    name
    for kind in (list, dict, str, set, bytes, tuple, frozenset, int, float)
    for name in dir(kind)
    if not name.startswith("_")
) | {"read", "write", "close", "readline", "readlines", "flush", "seek", "tell"}
# builtins that call a function passed to them, where they are called
_CALLING_BUILTINS = frozenset(f"builtins//{name}" for name in ("map", "filter", "sorted", "min", "max")) | {
    "functools//reduce"
}
_LANGUAGE = "python"
# the kinds of a lookup step (PythonLinker._step)
_CANDIDATES, _PARAM, _STARS, _NOTHING = range(4)
_MISSING = object()
_MEMO, _BY_LINE = object(), object()  # plans of a name's lookup that are not a constant (_name_plan)
# the stamps of memoized values that read no bindings (PythonLinker._memo)
_PURE = -1
_NONE: tuple[None, str] = (None, "none")
_BUILTIN_VALUES = {name: (Value("ext", f"builtins//{name}"), "builtin") for name in BUILTINS}
_PENDING = object()  # a self-attribute value being resolved
# Declared types that name no class of the value: a typing form (Callable, Any, IO, Iterable,
# Type[...]: a protocol any class may meet) or object. A value declared so may be an instance of any
# first-party class (duck typing), so it is unknown, never an instance of the typing name (whose
# calls, bound to ``typing//IO//read``, would leave the project's own ``read`` silent).
_OPAQUE_TYPES = ("typing//", "typing_extensions//", "collections//abc//", "_typeshed//")
_OPAQUE_CLASSES = frozenset({"builtins//object", "builtins//type", "builtins//callable"})
_PROTOCOLS = frozenset({"typing//Protocol", "typing_extensions//Protocol"})


@dataclass
class _File:
    index: FileIndex
    module: str  # the dotted module name
    is_package: bool
    defs: dict[str, DefInfo] = field(default_factory=dict)  # by qualname
    assigns: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)  # (scope, target)
    imports: dict[tuple[str, str], list[Import]] = field(default_factory=dict)  # (scope, bound name)
    stars: dict[str, list[Import]] = field(default_factory=dict)  # scope -> star imports
    # assignments in a class body: (class qualname, target) -> assignments; they bind no name of
    # the scope around the class (the index gives them that scope, since class bodies run in it)
    class_attrs: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)
    # function scope -> by line number, the innermost class whose body holds the line in that
    # scope (None: no class body); see _class_body_at
    class_lines: dict[str, list[str | None]] = field(default_factory=dict)
    children: dict[str, list[tuple[str, Definition]]] | None = None  # built by _members
    class_attr_names: dict[str, list[str]] | None = None  # built by _class_attr_names
    # the references each call passes (PythonLinker._arguments_of), kept from the argument pass
    # for the edges of the file (PythonLinker._argument_refs)
    arguments: dict[Call, list[Reference]] | None = None
    # built on first use, from this file's records alone: what each scope binds to a name, the
    # lookup plan of a (scope, name), the scope chains and enclosing function scopes
    binders: dict[str, dict[str, tuple[Any, ...]]] | None = None
    star_steps: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    chains: dict[str, tuple[str, ...]] = field(default_factory=dict)
    function_scopes: dict[str, str] = field(default_factory=dict)
    name_plans: dict[tuple[str, str], Any] = field(default_factory=dict)  # see PythonLinker._name_plan
    class_scopes: frozenset[str] = frozenset()  # the function scopes of class_lines
    # resolved values of this file's bindings (see PythonLinker._memo), by id of the record, and
    # of the dotted texts used in a scope; what a name used in a scope resolves to, by (scope, name)
    memo: dict[Any, tuple[Any, int, int]] = field(default_factory=dict)
    lookups: dict[tuple[str, str], tuple[Any, int, int]] = field(default_factory=dict)

    path: str = field(init=False)

    def __post_init__(self) -> None:
        self.path = self.index.path

    @property
    def package(self) -> str:
        return self.module if self.is_package else self.module.rpartition(".")[0]


class PythonLinker:
    languages = (_LANGUAGE,)

    def __init__(
        self,
        indexes: Iterable[FileIndex],
        builder: GraphBuilder,
        import_roots: Iterable[str],
        max_hops: int,
    ) -> None:
        self.builder = builder
        self.max_hops = max_hops
        self.files: dict[str, _File] = {}
        self.modules: dict[str, str] = {}  # dotted module name -> path
        self.defs: dict[str, DefInfo] = {}  # key -> info
        ordered = sorted((i for i in indexes if i.language == _LANGUAGE), key=lambda i: i.path)
        module_of, self.modules = module_table([i.path for i in ordered], import_roots)
        for index in ordered:
            module = module_of.get(index.path)
            if module is None:
                continue
            pyfile = _new_file(index, module)
            self.files[index.path] = pyfile
            for info in pyfile.defs.values():
                self.defs.setdefault(info.key, info)
        self._depth = 0
        self._limit = max_hops * 4  # the depth cap of one resolution
        self._resolving: set[tuple[str, str, str, int]] = set()
        self._returning: set[str] = set()  # functions whose returns are being expanded (_fact_values)
        # what memoized resolution needs to know (see _memo): how deep a resolution went, how many
        # guards cut one short, how many reads of the parameter bindings, how often they changed
        self._peak = 0
        self._cuts = 0
        self._reads = 0
        self._attr_reads = 0
        self._attr_stamp = -2  # below _PURE, one less each time the attribute values are recomputed
        self._generation = 0
        self._member_cache: dict[tuple[str, str, int], DefInfo | None] = {}
        self._subclass_cache: dict[str, list[str]] = {}
        self._dotted: dict[str, tuple[str, bool, tuple[tuple[str, bool], ...]]] = {}
        self._bases_pending: set[str] = set()
        self._forget_values()
        # what a parameter receives where the records show it: "<function key>//<param>" -> values
        self._bindings: dict[str, list[Value]] = {}
        # what a call of a decorated definition's name runs: definition key -> values
        self._decorated: dict[str, list[Value]] = {}
        self._call_tables: dict[str, dict[tuple[int, str], list[Call]]] = {}
        self._passed: set[str] = set()  # bindings from call sites, which may miss some callers
        self._cls_params: set[str] = set()  # the cls parameters of classmethods called through a subclass
        self._end_tables: dict[str, list[int]] = {}

    # ---- the whole run ----------------------------------------------------------------------
    def link(self) -> None:
        with paused_gc(keep=True):
            self._link()

    def _link(self) -> None:
        for path, pyfile in self.files.items():
            self.builder.node(module_node(path, _LANGUAGE, 0))
            for info in pyfile.defs.values():
                self.builder.node(node_for(info))
        self._decorations()
        self._arguments()
        self._classmethod_receivers()
        # the bindings are complete only now: forget values memoized while they grew
        self.__dict__.pop("_attr_values", None)
        self._bindings_complete()
        for pyfile in self.files.values():
            self._link_file(pyfile)
        self.decorator_edges()
        self._release()

    def _release(self) -> None:
        """Drop the tables that only made linking fast (rebuilt on demand), so that the collector,
        once it runs again, does not rescan them; what defines answers (bases, MROs, attribute
        values, bindings) stays for the entry points the roots resolve."""
        self._forget_values()
        for pyfile in self.files.values():
            pyfile.binders, pyfile.chains, pyfile.function_scopes, pyfile.name_plans = None, {}, {}, {}
            pyfile.arguments = None
        self._member_cache = {}
        self._subclass_cache = {}
        self._dotted = {}
        self._call_tables = {}
        for name in (
            "_method_plans",
            "_member_tables",
            "_constructions",
            "_self_assign_tables",
            "_subclass_table_cache",
            "_member_key_cache",
            "_property_names",
        ):
            self.__dict__.pop(name, None)

    def _link_file(self, pyfile: _File) -> None:
        index = pyfile.index
        path = index.path
        for imp in index.imports:
            self._import_edges(pyfile, imp)
        for info in pyfile.defs.values():
            if info.is_class:
                self._class_edges(pyfile, info)
        for call in index.calls:
            self._call(pyfile, call)
        self._read_edges(pyfile)
        class_lines = {
            (info.definition.line, base)
            for info in pyfile.defs.values()
            if info.is_class
            for base in info.definition.bases
        }
        for ref in index.references:
            if (ref.line, ref.name) in class_lines:
                continue  # a base class: an extends edge says it
            caller = self._caller(pyfile, ref.scope)
            value = self._resolve_dotted(pyfile, ref.scope, ref.name, ref.line)
            site = Site(path, ref.line, ref.column)
            target = self._value_target(value)
            if target is not None and target != caller:
                self.builder.edge(caller, target, "references", "reference", site)
        for flag in index.dynamic:
            self.builder.dynamic.append(
                Dynamic(
                    self._caller(pyfile, flag.scope),
                    Site(path, flag.line, flag.column),
                    flag.kind,
                    keys.external(flag.prefix, _LANGUAGE) if flag.prefix else "",
                )
            )
            if flag.kind in ("import_module", "__import__"):
                self.builder.unresolved_site(
                    Unresolved(
                        self._caller(pyfile, flag.scope),
                        Site(path, flag.line, flag.column),
                        "dynamic-import",
                        "",
                        flag.kind,
                        prefix=keys.external(flag.prefix, _LANGUAGE) if flag.prefix else "",
                    )
                )
        frameworks.link_file(self, pyfile)  # the calls Django, Flask, FastAPI, ... make (issue 21)

    def _caller(self, pyfile: _File, scope: str) -> str:
        if scope and scope in pyfile.defs:
            return pyfile.defs[scope].key
        return pyfile.path

    def _value_target(self, value: Value | None) -> str | None:
        if value is None:
            return None
        if value.kind == "def":
            return value.key
        if value.kind == "ext":
            return self.builder.external(value.key, _LANGUAGE)
        return None

    # ---- imports --------------------------------------------------------------------------
    def _absolute(self, pyfile: _File, imp: Import) -> str:
        if imp.level == 0:
            return imp.module
        base = pyfile.package.split(".") if pyfile.package else []
        if imp.level > 1:
            base = base[: len(base) - (imp.level - 1)] if imp.level - 1 <= len(base) else []
        return ".".join([*base, imp.module] if imp.module else base)

    def _import_edges(self, pyfile: _File, imp: Import) -> None:
        caller = self._caller(pyfile, imp.scope)
        site = Site(pyfile.path, imp.line, 0)
        module = self._absolute(pyfile, imp)
        targets: list[str] = []
        if module in self.modules or (imp.name and f"{module}.{imp.name}" in self.modules):
            parts = module.split(".") if module else []
            for i in range(1, len(parts) + 1):
                targets.append(".".join(parts[:i]))
            if imp.name and f"{module}.{imp.name}" in self.modules:
                targets.append(f"{module}.{imp.name}")
            for name in targets:
                path = self.modules.get(name, "")
                if path and path != pyfile.path:
                    self.builder.edge(caller, path, "imports", "import", site)
            if imp.name and imp.name != "*" and module in self.modules:
                self._module_getattr(pyfile, caller, site, module, imp.name)
        elif module:
            key = keys.external(module, _LANGUAGE)
            self.builder.edge(caller, self.builder.external(key, _LANGUAGE), "imports", "import", site)

    @cached_property
    def _getattr_modules(self) -> frozenset[str]:
        """The project's modules that define a module-level ``__getattr__`` (PEP 562). A stored
        or incremental relink sets it from its own tables (reading every file would make them
        all); it links in full when the set changes."""
        return self._modules_at(getattr_paths(self.files.values()))

    def _modules_at(self, paths: set[str]) -> frozenset[str]:
        """The module names of these files (a file may be a module under more than one name)."""
        return frozenset(module for module, path in self.modules.items() if path in paths)

    def _module_getattr(self, pyfile: _File, caller: str, site: Site, module: str, name: str) -> None:
        """PEP 562: ``from m import x`` where m's namespace binds no ``x`` runs m's module-level
        ``__getattr__("x")`` (IMPORT_FROM asks the module for the attribute), unless ``x`` is a
        submodule the import system loads first. A submodule known only by its stub (``x.pyi``:
        an extension module the index cannot see, maybe not built) may be missing: the call may
        run, so the edge is made too. A name the module's text does not hold at all (its word
        filter) is surely not bound there."""
        path = self.modules[module]
        target = self.files.get(path)
        if target is None or target is pyfile:
            return
        getattr_info = target.defs.get("__getattr__")
        if getattr_info is None or not getattr_info.is_callable:
            return
        binders = target.binders if target.binders is not None else self._binders(target)
        if "" in binders.get(name, {}) or "" in target.star_steps:
            return  # bound in the module (or maybe, by a star import): the attribute is read
        submodule = self.modules.get(f"{module}.{name}", "")
        if submodule:
            if not submodule.endswith(".pyi"):
                return
        elif filter_may_hold(target.index.words, name):
            # the records do not hold every binding (``x = 1``): a name the module's text holds
            # may be bound there, so no edge is guessed (as before this rule)
            return
        self.builder.edge(caller, getattr_info.key, "calls", "module-getattr", site)

    # ---- classes --------------------------------------------------------------------------
    def _class_edges(self, pyfile: _File, info: DefInfo) -> None:
        site = Site(pyfile.path, info.definition.line, info.definition.column)
        edge = self.builder.edge
        for base in self._bases(info.key):
            if base.kind == "def":
                edge(info.key, base.key, "extends", "extends", site)
            elif base.kind == "ext":
                external = self.builder.external(base.key, _LANGUAGE)
                edge(info.key, external, "extends", "extends", site)
        # a class statement runs the __init_subclass__ of its first base that has one
        hook = self._class_member(info.key, "__init_subclass__", start=1)
        if hook is not None:
            scope = self._function_scope(pyfile, info.qualname.rpartition(".")[0])
            edge(self._caller(pyfile, scope), hook.key, "calls", "member", site)
        # what Python calls on an instance by itself (dunders, properties): the class refers to the
        # member of each name that its MRO gives, so what reaches the class reaches them
        mro = self._mro(info.key)
        implicit: set[str] = set()
        for cls in mro:
            table = self._member_table(cls)
            if table is None:
                continue
            for name, key, member_site in table[0]:
                if name not in implicit:
                    implicit.add(name)
                    edge(info.key, key, "references", "reference", member_site, via="implicit")
        # an override of a base method: the class refers to it (the rule "override")
        own_table = self._member_table(info.key)
        own = dict(own_table[1]) if own_table is not None else {}
        for cls in mro[1:]:
            if not own:
                break
            table = self._member_table(cls)
            if table is None:
                continue
            for name in table[2]:
                method = own.pop(name, None)
                if method is not None:
                    edge(info.key, method[0], "references", "reference", method[1], via="override")

    def _member_table(
        self, cls: str
    ) -> tuple[list[tuple[str, str, Site]], dict[str, tuple[str, Site]], list[str]] | None:
        """A class's members, once: the implicit ones (name, key, site) in qualified-name order,
        every member by name (key, site), and the names of those that are not classes."""
        try:
            return self._member_tables[cls]
        except KeyError:
            pass
        info = self.defs.get(cls)
        table = None
        if info is not None:
            owner_file = self.files[info.path]
            implicit: list[tuple[str, str, Site]] = []
            members: dict[str, tuple[str, Site]] = {}
            names: list[str] = []
            for qualname, member in _members(owner_file, info.qualname):
                key = keys.first_party(info.path, qualname)
                member_site = Site(info.path, member.line, member.column)
                if _implicit(member):
                    implicit.append((member.name, key, member_site))
                members[member.name] = (key, member_site)
                if member.kind != "class":
                    names.append(member.name)
            table = (implicit, members, names)
        self._member_tables[cls] = table
        return table

    @cached_property
    def _member_tables(
        self,
    ) -> dict[str, tuple[list[tuple[str, str, Site]], dict[str, tuple[str, Site]], list[str]] | None]:
        return {}

    def _bases(self, cls: str) -> list[Value]:
        """The resolved bases of a class, computed once; a class whose bases are being resolved
        (a base expression that reaches back into the class) has none meanwhile."""
        cached = self._bases_cache.get(cls)
        if cached is not None:
            if cls in self._bases_pending:
                self._cuts += 1
            return cached
        self._bases_cache[cls] = []
        self._bases_pending.add(cls)
        info = self.defs.get(cls)
        values: list[Value] = []
        try:
            if info is not None and info.is_class:
                pyfile = self.files[info.path]
                scope = self._function_scope(pyfile, info.qualname.rpartition(".")[0])
                for base in info.definition.bases:
                    value = self._resolve_dotted(pyfile, scope, base, info.definition.line)
                    if value is None or value.kind not in ("def", "ext") or value.key == cls:
                        continue
                    if value.kind == "def" and not self.defs[value.key].is_class:
                        continue
                    values.append(value)
        finally:
            self._bases_pending.discard(cls)
        self._bases_cache[cls] = values
        return values

    @cached_property
    def _bases_cache(self) -> dict[str, list[Value]]:
        return {}

    @cached_property
    def _subclasses(self) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {}
        for cls in sorted(k for k, info in self.defs.items() if info.is_class):
            for base in self._bases(cls):
                if base.kind == "def":
                    table.setdefault(base.key, []).append(cls)
        return table

    def _all_subclasses(self, cls: str) -> list[str]:
        """Every transitive subclass of ``cls`` (the table is complete once built)."""
        found = self._subclass_cache.get(cls)
        if found is None:
            found = self._subclass_cache[cls] = subclasses_closure(self._subclasses, cls)
        return found

    def _mro(self, cls: str) -> list[str]:
        cached = self._mro_cache.get(cls)
        if cached is None:
            cached = c3_linearize(
                cls, lambda name: [v.key for v in self._bases(name) if v.kind == "def"], self.max_hops * 4
            )
            self._mro_cache[cls] = cached
        return cached

    @cached_property
    def _mro_cache(self) -> dict[str, list[str]]:
        return {}

    def _external_bases(self, cls: str) -> list[str]:
        return self._memo(self._ext_memo, cls, self._compute_external_bases, cls)  # type: ignore[no-any-return]

    def _compute_external_bases(self, cls: str) -> list[str]:
        found: list[str] = []
        for name in self._mro(cls):
            for base in self._bases(name):
                if base.kind == "ext" and base.key not in found:
                    found.append(base.key)
        return found

    def _class_member(self, cls: str, name: str, start: int = 0) -> DefInfo | None:
        """A member (method, nested class, lambda attribute) by name along the MRO.

        Memoized: it reads only the MRO, which is computed once per class and then kept."""
        slot = (cls, name, start)
        try:
            return self._member_cache[slot]
        except KeyError:
            pass
        found = None
        for owner in self._mro(cls)[start:]:
            info = self.defs.get(owner)
            if info is None:
                continue
            member = self.files[info.path].defs.get(f"{info.qualname}.{name}")
            if member is not None:
                found = member
                break
        self._member_cache[slot] = found
        return found

    def _class_attr_value(self, cls: str, name: str) -> Value | None:
        """The value bound to ``self.name`` in a method of the class or a base, or a class attribute.

        Memoized per (class, name); an attribute whose value reaches back to itself
        (``self.a = self.a.copy()``) is unknown while it is being resolved."""
        slot = (cls, name)
        self._attr_reads += 1
        known = self._attr_values.get(slot, _MISSING)
        if known is not _MISSING:
            if known is _PENDING:
                self._cuts += 1
                return None
            return known  # type: ignore[return-value]
        self._attr_values[slot] = _PENDING
        found: Value | None = None
        try:
            for owner in self._mro(cls):
                info = self.defs.get(owner)
                if info is None:
                    continue
                pyfile = self.files[info.path]
                prefix = info.qualname + "."
                for scope, assign in self._self_assigns(pyfile).get(name, ()):
                    if not scope.startswith(prefix):
                        continue
                    found = self._assignment_value(pyfile, scope, assign)
                    if found is not None:
                        break
                if found is not None:
                    break
        finally:
            self._attr_values[slot] = found
        return found

    @cached_property
    def _attr_values(self) -> dict[tuple[str, str], object]:
        return {}

    def _self_assigns(self, pyfile: _File) -> dict[str, list[tuple[str, Assignment]]]:
        """``self.x = ...`` assignments of a file by attribute name, declared types first."""
        table = self._self_assign_tables.get(pyfile.path)
        if table is None:
            table = {}
            for (scope, target), assigns in pyfile.assigns.items():
                if target.startswith("self.") and target.count(".") == 1:
                    for assign in assigns:
                        table.setdefault(target[5:], []).append((scope, assign))
            for pairs in table.values():
                pairs.sort(key=lambda p: _typed_first(p[1]))  # stable, as the sort of each use was
            self._self_assign_tables[pyfile.path] = table
        return table

    @cached_property
    def _self_assign_tables(self) -> dict[str, dict[str, list[tuple[str, Assignment]]]]:
        return {}

    def _class_body_value(self, cls: str, name: str) -> Value | None:
        """The value a class body assigns to ``name`` (``parse = parse_words``), along the MRO,
        unless a method of that name comes first. One that reaches back to itself is cut, as the
        cycle guard cuts a binding (dateutil: ``class private_class(c): __doc__ = c.__doc__``, and
        ``c`` is bound to ``private_class``)."""
        slot = (cls, "", name, -1)  # no lookup's slot has line -1
        if slot in self._resolving:
            self._cuts += 1
            return None
        self._resolving.add(slot)
        try:
            return self._memo(self._body_memo, (cls, name), self._compute_class_body_value, cls, name)  # type: ignore[no-any-return]
        finally:
            self._resolving.discard(slot)

    def _compute_class_body_value(self, cls: str, name: str) -> Value | None:
        for owner in self._mro(cls):
            info = self.defs.get(owner)
            if info is None:
                continue
            pyfile = self.files[info.path]
            if f"{info.qualname}.{name}" in pyfile.defs:
                return None
            assigns = pyfile.class_attrs.get((info.qualname, name))
            if assigns:
                scope = self._function_scope(pyfile, info.qualname)
                for assign in sorted(assigns, key=lambda a: -a.line):
                    value = self._assignment_value(pyfile, scope, assign)
                    if value is not None:
                        return value
                return None
        return None

    # ---- memoized resolution --------------------------------------------------------------
    def _forget_values(self) -> None:
        """Drop every memoized value."""
        self._attr_memo: dict[tuple[Value, str], tuple[Any, int, int]] = {}
        self._result_memo: dict[Value, tuple[Any, int, int]] = {}
        self._body_memo: dict[tuple[str, str], tuple[Any, int, int]] = {}
        self._ext_memo: dict[str, tuple[Any, int, int]] = {}
        for pyfile in self.files.values():
            pyfile.memo, pyfile.lookups = {}, {}

    def _bindings_complete(self) -> None:
        """Memoized values that read the bindings or a self-attribute value expire (those values
        are recomputed now); the rest stay."""
        self._generation += 1
        self._attr_stamp -= 1

    def _memo(
        self,
        table: dict[Any, tuple[Any, int, int]],
        key: Any,
        compute: Callable[..., Any],
        *args: Any,
    ) -> Any:
        """``compute(*args)``, once per ``key`` where that gives the same answer as computing again.

        A resolution is pure but for its guards: the cycle guard (``_resolving``), the depth cap,
        values in progress, and the parameter bindings, which grow before the edges are made. So
        a value is kept only when no guard cut it short (``_cuts`` unchanged); it is reused only
        where its depth (``rel``, how much deeper than its start it went) fits under the cap; one
        that read the bindings (``_reads``) only while they have not changed (its ``stamp`` is the
        ``_generation``). One that read a self-attribute value (``_attr_reads``; its stamp is the
        ``_attr_stamp``) is kept until the bindings are complete, when those values are recomputed;
        the rest (stamp ``_PURE``) for the whole run. Reusing a value counts its reads again.
        """
        hit = table.get(key)
        depth = self._depth
        if hit is not None:
            value, rel, stamp = hit
            if depth + rel <= self._limit:
                if stamp == _PURE:
                    if depth + rel > self._peak:
                        self._peak = depth + rel
                    return value
                if stamp == self._generation or stamp == self._attr_stamp:
                    if depth + rel > self._peak:
                        self._peak = depth + rel
                    if stamp < 0:
                        self._attr_reads += 1
                    else:
                        self._reads += 1
                    return value
        cuts, reads, attr_reads, peak = self._cuts, self._reads, self._attr_reads, self._peak
        self._peak = depth
        value = compute(*args)  # (an exception ends the whole run: no state to restore)
        rel = self._peak - depth
        if peak > self._peak:
            self._peak = peak
        if self._cuts == cuts:
            if self._reads != reads:
                stamp = self._generation
            else:
                stamp = self._attr_stamp if self._attr_reads != attr_reads else _PURE
            table[key] = (value, rel, stamp)
        return value

    def _changed_bindings(self) -> None:
        self._generation += 1

    def _assignment_value(self, pyfile: _File, scope: str, assign: Assignment) -> Value | None:
        """``_assigned_value``, memoized per record (its value does not depend on the use)."""
        if scope != assign.scope:
            return self._assigned_value(pyfile, scope, assign)
        return self._memo(pyfile.memo, id(assign), self._assigned_value, pyfile, scope, assign)  # type: ignore[no-any-return]

    # ---- name resolution ------------------------------------------------------------------
    def _scopes(self, pyfile: _File, scope: str) -> tuple[str, ...]:
        """The scope chain of a use: the scope, enclosing function scopes, the module."""
        chain = pyfile.chains.get(scope)
        if chain is None:
            found = []
            current = scope
            while current:
                info = pyfile.defs.get(current)
                if info is None or not info.is_class:
                    found.append(current)
                current = current.rpartition(".")[0]
            found.append("")
            chain = pyfile.chains[scope] = tuple(found)
        return chain

    def _function_scope(self, pyfile: _File, scope: str) -> str:
        found = pyfile.function_scopes.get(scope)
        if found is None:
            found = pyfile.function_scopes[scope] = _function_scope(pyfile, scope)
        return found

    def _lookup(self, pyfile: _File, scope: str, name: str, line: int) -> tuple[Value | None, str]:
        """Resolve a bare name: (value, how) with how in def, import, assign, wildcard, param, builtin.

        Outside a class body, what a (scope, name) resolves to is planned once (``_name_plan``): a
        constant, a value memoized per (scope, name), or a binding the line chooses."""
        lines = pyfile.class_lines.get(scope)
        if lines is not None and 0 <= line < len(lines) and lines[line] is not None:
            return self._lookup_at(pyfile, scope, name, line)
        key = (scope, name)
        plan = pyfile.name_plans.get(key)
        if plan is None:
            plan = self._name_plan(pyfile, scope, name)
        if plan is _MEMO:
            return self._memo(pyfile.lookups, key, self._lookup_at, pyfile, scope, name, line)  # type: ignore[no-any-return]
        if plan is _BY_LINE:
            return self._lookup_at(pyfile, scope, name, line)
        # a constant, unless a guard cuts the lookup short: then as _lookup_at does it
        depth = self._depth + 1
        if depth > self._limit or (self._resolving and (pyfile.path, scope, name, line) in self._resolving):
            return self._lookup_at(pyfile, scope, name, line)
        if depth > self._peak:
            self._peak = depth
        return plan  # type: ignore[no-any-return]

    def _name_plan(self, pyfile: _File, scope: str, name: str) -> Any:
        """How a use of ``name`` in ``scope`` (outside a class body) resolves, from the records alone:
        ``_BY_LINE`` when the first scope of its chain binds it twice (the line of the use chooses);
        a constant (value, how) when the binding it finds is a definition, a ``self`` or ``cls``
        parameter, or none at all (a builtin or nothing); else ``_MEMO`` (the same on every line)."""
        binders = pyfile.binders
        if binders is None:
            binders = self._binders(pyfile)
        by_scope = binders.get(name)
        stars = pyfile.star_steps
        chain = pyfile.chains.get(scope) or self._scopes(pyfile, scope)
        plan: Any = _MEMO
        first = by_scope.get(chain[0]) if by_scope is not None else None
        if first is not None and first[0] == _CANDIDATES and len(first[1]) > 1:
            plan = _BY_LINE
        else:
            for current in chain:
                step = by_scope.get(current) if by_scope is not None else None
                if step is None:
                    if current in stars:
                        break  # a star import may bind it
                    continue
                if step[0] == _CANDIDATES:
                    prio, item = step[2][-1]  # the only binding here, or the last one for an inner use
                    if prio == 2:
                        plan = item
                elif step[0] == _PARAM and step[1] == "fixed":
                    plan = step[2]
                break
            else:
                plan = _BUILTIN_VALUES.get(name, _NONE)
        pyfile.name_plans[(scope, name)] = plan
        return plan

    def _lookup_at(self, pyfile: _File, scope: str, name: str, line: int) -> tuple[Value | None, str]:
        slot = (pyfile.path, scope, name, line)
        resolving = self._resolving
        if slot in resolving:  # a binding that reaches back to itself
            self._cuts += 1
            return None, "limit"
        depth = self._depth = self._depth + 1
        if depth > self._peak:
            self._peak = depth
        resolving.add(slot)
        try:
            if depth > self._limit:
                self._cuts += 1
                return None, "limit"
            if scope in pyfile.class_scopes:
                body = _class_body_at(pyfile, scope, line)
                if body is not None:  # a use in a class body sees the names the body bound before it
                    found = self._lookup_class_body(pyfile, body, name, line)
                    if found is not None:
                        return found
            binders = pyfile.binders
            if binders is None:
                binders = self._binders(pyfile)
            by_scope = binders.get(name)
            stars = pyfile.star_steps
            if by_scope is not None or stars:
                chain = pyfile.chains.get(scope) or self._scopes(pyfile, scope)
                for index, current in enumerate(chain):
                    step = by_scope.get(current) if by_scope is not None else None
                    if step is None:
                        step = stars.get(current)
                        if step is None:
                            continue
                    found = self._take(pyfile, current, name, step, line if index == 0 else None)
                    if found[1] != "none":
                        return found
            return _BUILTIN_VALUES.get(name, _NONE)
        finally:
            self._depth -= 1
            resolving.discard(slot)

    def _lookup_class_body(
        self, pyfile: _File, cls: str, name: str, line: int
    ) -> tuple[Value | None, str] | None:
        """A name a class body bound before ``line`` (a def or an assignment of the body)."""
        info = pyfile.defs.get(f"{cls}.{name}")
        assigns = [a for a in pyfile.class_attrs.get((cls, name), ()) if a.line < line]
        if (
            info is not None
            and info.definition.line < line
            and not any(a.line > info.definition.line for a in assigns)
        ):
            return Value("def", info.key), "def"
        if assigns:
            assign = max(assigns, key=lambda a: a.line)
            value = self._assignment_value(pyfile, self._function_scope(pyfile, cls), assign)
            return value, "assign" if value is not None else _unknown_local(assign)
        return None

    def _lookup_in(self, pyfile: _File, scope: str, name: str, line: int | None) -> tuple[Value | None, str]:
        binders = pyfile.binders
        if binders is None:
            binders = self._binders(pyfile)
        by_scope = binders.get(name)
        step = by_scope.get(scope) if by_scope is not None else None
        if step is None:
            step = pyfile.star_steps.get(scope)
            if step is None:
                return _NONE
        return self._take(pyfile, scope, name, step, line)

    def _binders(self, pyfile: _File) -> dict[str, dict[str, tuple[Any, ...]]]:
        """name -> scope -> what that scope binds to the name, from the file's records (built once).

        ``(_CANDIDATES, lines, entries)``: the bindings in line order, of which the closest before
        a use wins (a def over an import over an assignment on one line, the first of equals),
        the last for a use with no line or before all of them; ``(_PARAM, ...)``: a parameter (when
        the scope has no other binding of the name). A scope without either may hold star imports
        (``star_steps``)."""
        grouped: dict[tuple[str, str], list[tuple[int, int, Any]]] = {}
        for qualname, info in pyfile.defs.items():
            scope, _, name = qualname.rpartition(".")
            grouped.setdefault((scope, name), []).append(
                (info.definition.line, 2, (Value("def", info.key), "def"))
            )
        for slot, imports in pyfile.imports.items():
            group = grouped.setdefault(slot, [])
            group.extend((imp.line, 1, imp) for imp in imports)
        for slot, assigns in pyfile.assigns.items():
            if "." not in slot[1]:  # ``self.x = ...`` binds no name
                group = grouped.setdefault(slot, [])
                group.extend((assign.line, 0, assign) for assign in assigns)
        binders: dict[str, dict[str, tuple[Any, ...]]] = {}
        for (scope, name), candidates in grouped.items():
            candidates.sort(key=lambda c: (c[0], c[1]))  # stable: the first of equals stays first
            kept: list[tuple[int, int, Any]] = []
            for candidate in candidates:
                if not kept or (kept[-1][0], kept[-1][1]) != (candidate[0], candidate[1]):
                    kept.append(candidate)
            binders.setdefault(name, {})[scope] = (
                _CANDIDATES,
                [c[0] for c in kept],
                [(c[1], c[2]) for c in kept],
            )
        for qualname, info in pyfile.defs.items():
            for param in info.definition.params:
                by_scope = binders.setdefault(param.name, {})
                if qualname not in by_scope:
                    step = self._param_step(pyfile, qualname, param.name)
                    if step is not None:
                        by_scope[qualname] = step
        pyfile.star_steps = {scope: (_STARS, tuple(stars)) for scope, stars in pyfile.stars.items() if stars}
        pyfile.binders = binders
        return binders

    def _take(
        self, pyfile: _File, scope: str, name: str, step: tuple[Any, ...], line: int | None
    ) -> tuple[Value | None, str]:
        """The binding a step gives a use on ``line`` (None: the scope's last binding)."""
        kind = step[0]
        if kind == _CANDIDATES:
            index = -1 if line is None else bisect_right(step[1], line) - 1
            prio, item = step[2][index]
            if prio == 2:
                return item  # type: ignore[no-any-return]
            if prio == 1:
                return self._memo(pyfile.memo, id(item), self._import_value, pyfile, item), "import"
            # an assignment of this scope: its value is memoized per record (_assignment_value)
            value = self._memo(pyfile.memo, id(item), self._assigned_value, pyfile, scope, item)
            return value, "assign" if value is not None else _unknown_local(item)
        if kind == _PARAM:
            return self._param_value(pyfile, scope, step)
        if kind == _STARS:
            for star in step[1]:
                value = self._memo(pyfile.memo, (id(star), name), self._from_star, pyfile, star, name)
                if value is not None:
                    return value, "wildcard"
        return None, "none"

    def _branch_alternatives(
        self, pyfile: _File, scope: str, name: str, line: int
    ) -> list[tuple[Value | None, str]]:
        """What else a name may hold at a use when the binding ``_lookup`` chose is an assignment
        in a branch (``if cb is None: cb = default``): the binding before it in the same scope (and
        the one before that while those are branches too), or, before the scope's first binding,
        its parameter of that name. Empty when the chosen binding runs on every path."""
        binders = pyfile.binders
        if binders is None:
            binders = self._binders(pyfile)
        by_scope = binders.get(name)
        if by_scope is None:
            return []
        chain = pyfile.chains.get(scope) or self._scopes(pyfile, scope)
        for index, current in enumerate(chain):
            step = by_scope.get(current)
            if step is None:
                if current in pyfile.star_steps:
                    return []
                continue
            if step[0] != _CANDIDATES:
                return []
            entries = step[2]
            at = len(entries) - 1 if index else bisect_right(step[1], line) - 1
            if at < 0:
                at = len(entries) - 1
            found: list[tuple[Value | None, str]] = []
            while True:
                prio, item = entries[at]
                if prio != 0 or item.value[:1] != "?":
                    return found
                at -= 1
                if at < 0:
                    param = self._param_step(pyfile, current, name)
                    if param is not None:
                        found.append(self._param_value(pyfile, current, param))
                    return found
                found.append(self._candidate_value(pyfile, current, entries[at]))
        return []

    def _candidate_value(self, pyfile: _File, scope: str, entry: tuple[int, Any]) -> tuple[Value | None, str]:
        """The value of one binding of a ``_CANDIDATES`` step, as ``_take`` gives it."""
        prio, item = entry
        if prio == 2:
            return item  # type: ignore[no-any-return]
        if prio == 1:
            return self._memo(pyfile.memo, id(item), self._import_value, pyfile, item), "import"
        value = self._memo(pyfile.memo, id(item), self._assigned_value, pyfile, scope, item)
        return value, "assign" if value is not None else _unknown_local(item)

    def _param_step(self, pyfile: _File, scope: str, name: str) -> tuple[Any, ...] | None:
        """The step of a parameter named ``name`` of the definition ``scope``, or None."""
        info = pyfile.defs.get(scope)
        if info is None:
            return None
        for position, param in enumerate(info.definition.params):
            if param.name != name:
                continue
            bound = keys.join(info.key, name)
            if param.type:
                return (_PARAM, "typed", info, param.type, bound)
            owner = pyfile.defs.get(scope.rpartition(".")[0])
            if position == 0 and owner is not None and owner.is_class:
                decorators = info.definition.decorators
                if "staticmethod" in decorators:
                    return (_PARAM, "fixed", (None, "param"))
                if "classmethod" in decorators:  # the classes it is called through, else its own
                    return (_PARAM, "bound", bound, (Value("def", owner.key), "param"))
                return (_PARAM, "fixed", (Value("inst", owner.key), "param"))
            return (_PARAM, "bound", bound, (None, "param"))
        return None

    def _param_value(self, pyfile: _File, scope: str, step: tuple[Any, ...]) -> tuple[Value | None, str]:
        how = step[1]
        if how == "fixed":
            return step[2]  # type: ignore[no-any-return]
        if how == "bound":
            self._reads += 1
            if step[3][0] is None:
                # pytest passes a test the fixture's value, whatever else a direct call passes
                fixture = self._fixture_value(pyfile, scope, step[2].rpartition("//")[2])
                if fixture is not None:
                    return fixture, "param"
            if step[2] in self._bindings or step[3][0] is None:
                # a parameter that nothing binds yet is still that parameter: a value passed on from
                # it (``self.cb = cb``, ``use(cb)``) carries what its callers pass, as they bind it
                return Value("param", step[2]), "param"
            return step[3]  # type: ignore[no-any-return]
        info = step[2]
        value = self._memo(
            pyfile.memo,
            id(step),
            self._type_value,
            pyfile,
            scope.rpartition(".")[0],
            step[3],
            info.definition.line,
        )
        if value is None:
            # a declared type that names no class (Callable, Any, a typing form): what the call
            # sites pass, as for a parameter with no annotation
            return Value("param", step[4]), "param"
        return value, "param"

    def _fixture_value(self, pyfile: _File, scope: str, name: str) -> Value | None:
        """What pytest passes a test's (or a fixture's) parameter: the value the fixture function
        of that name returns, found as pytest looks it up (the requester's class, its module, the
        ``conftest.py`` files of its folder and above: ``frameworks.pytest.find_fixture``)."""
        from projectgraph.languages.python.frameworks import pytest as pytest_rules

        info = pyfile.defs.get(scope)
        if info is None:
            return None
        d = info.definition
        registered = pytest_rules.fixture_name(self, pyfile, d, strict=False)
        if registered is None and not pytest_rules.is_test(pyfile, d):
            return None
        own = info.key if name == registered else ""
        key = pytest_rules.find_fixture(self, pyfile, scope, name, own, strict=False)
        if key is None:
            return None
        return self._result_of(Value("def", key))

    def _type_value(self, pyfile: _File, scope: str, type_name: str, line: int) -> Value | None:
        value = self._resolve_dotted(pyfile, scope, type_name, line)
        if value is None:
            return None
        if value.kind == "def" and self.defs[value.key].is_class:
            if any(base in _PROTOCOLS for base in self._external_bases(value.key)):
                return None  # a typing.Protocol of the project: any class with its methods
            return Value("inst", value.key)
        if value.kind == "ext":
            if value.key.startswith(_OPAQUE_TYPES) or value.key in _OPAQUE_CLASSES:
                return None
            return Value("inst_ext", value.key)
        return None

    def _assigned_value(self, pyfile: _File, scope: str, assign: Assignment) -> Value | None:
        kind, _, text = assign.value.removeprefix("?").partition(":")
        if kind == "type":
            return self._type_value(pyfile, scope, text, assign.line)
        # the right-hand side runs before the name is bound: `node = node.parent` reads the old node
        if kind == "call":
            if text == "cast" or text.endswith(".cast"):
                cast = self._cast_value(pyfile, scope, assign, text)
                if cast is not _MISSING:
                    return cast  # type: ignore[return-value]
            return self._call_result(pyfile, scope, text, assign.line - 1, assign.line)
        if kind == "name":
            if text == assign.target:
                return None
            return self._resolve_dotted(pyfile, scope, text, assign.line - 1)
        if kind == "each":  # for fn in (a, b), steps = [a, b]: the items, resolved where called
            return Value("each", f"{pyfile.path}\0{scope}\0{assign.line}\0{text}")
        if kind == "iter":  # for fn in steps: an item of what steps holds, when it is a literal
            held = self._resolve_dotted(pyfile, scope, text, assign.line - 1)
            # the container may have grown since (steps.append(f)): its items are open
            return Value("each", held.key + "\0+") if held is not None and held.kind == "each" else None
        return None

    def _cast_value(self, pyfile: _File, scope: str, assign: Assignment, callee: str) -> object:
        """``x = typing.cast(T, value)`` binds x to ``value`` itself (cast returns its second
        argument unchanged): the value of that argument when it is a name chain, None when it is
        another expression, ``_MISSING`` when the callee is not ``typing.cast``."""
        target = self._resolve_dotted(pyfile, scope, callee, assign.line - 1)
        if target is None or target.kind != "ext" or target.key not in _CASTS:
            return _MISSING
        for call in pyfile.index.calls:
            if call.line == assign.line and call.scope == assign.scope and call.callee == callee:
                arguments = _call_arguments(call.text)
                if len(arguments) >= 2 and arguments[1][0] == 1 and _NAME_CHAIN(arguments[1][2]):
                    return self._resolve_dotted(pyfile, scope, arguments[1][2], assign.line - 1)
                break
        return None

    def _import_value(self, pyfile: _File, imp: Import) -> Value | None:
        module = self._absolute(pyfile, imp)
        if imp.kind == "import" or imp.name is None:
            if imp.kind == "import" and not imp.alias:
                module = module.split(".")[0]
            if module in self.modules:
                return Value("module", module)
            return Value("ext", keys.external(module, _LANGUAGE)) if module else None
        if module in self.modules:
            return self._module_member(module, imp.name)
        if not module:
            return None
        return Value("ext", keys.external(module, _LANGUAGE, imp.name))

    def _from_star(self, pyfile: _File, star: Import, name: str) -> Value | None:
        module = self._absolute(pyfile, star)
        if module in self.modules:
            target = self.files.get(self.modules[module])
            if target is None or name.startswith("_"):
                return None
            exported = self._exported(target)
            if exported and name not in exported:
                return None
            return self._module_member(module, name, allow_submodule=False)
        if module and not name.startswith("_"):
            # a star import of an external module may bring in any public name
            return Value("ext", keys.external(module, _LANGUAGE, name))
        return None

    def _exported(self, pyfile: _File) -> frozenset[str]:
        found = self._exports.get(pyfile.path)
        if found is None:
            found = self._exports[pyfile.path] = frozenset(e.name for e in pyfile.index.exports)
        return found

    @cached_property
    def _exports(self) -> dict[str, frozenset[str]]:
        return {}

    def _module_member(self, module: str, name: str, allow_submodule: bool = True) -> Value | None:
        path = self.modules.get(module, "")
        target = self.files.get(path) if path else None
        if target is not None:
            depth = self._depth = self._depth + 1
            if depth > self._peak:
                self._peak = depth
            try:
                if depth <= self._limit:
                    value, how = self._lookup_in(target, "", name, None)
                    if how != "none" and value is not None:
                        return value
                else:
                    self._cuts += 1
            finally:
                self._depth -= 1
        if allow_submodule and f"{module}.{name}" in self.modules:
            return Value("module", f"{module}.{name}")
        return None

    def _resolve_dotted(self, pyfile: _File, scope: str, text: str, line: int) -> Value | None:
        """Resolve ``a.b().c``: the first name by scope, then attributes and call results.

        Memoized per (scope, text) where the line cannot matter to the first name."""
        parsed = self._dotted.get(text)
        if parsed is None:
            parts = text.split(".")
            parsed = self._dotted[text] = (
                parts[0].removesuffix("()"),
                parts[0].endswith("()"),
                tuple((part.removesuffix("()"), part.endswith("()")) for part in parts[1:]),
            )
        head = parsed[0]
        if head == text:
            return self._lookup(pyfile, scope, head, line)[0]
        lines = pyfile.class_lines.get(scope)
        if lines is not None and 0 <= line < len(lines) and lines[line] is not None:
            return self._dotted_value(pyfile, scope, parsed, line)
        plan = pyfile.name_plans.get((scope, head))
        if plan is None:
            plan = self._name_plan(pyfile, scope, head)
        if plan is _BY_LINE:
            return self._dotted_value(pyfile, scope, parsed, line)
        return self._memo(pyfile.memo, (scope, text), self._dotted_value, pyfile, scope, parsed, line)  # type: ignore[no-any-return]

    def _dotted_value(
        self, pyfile: _File, scope: str, parsed: tuple[str, bool, tuple[tuple[str, bool], ...]], line: int
    ) -> Value | None:
        head, call, rest = parsed
        value, _how = self._lookup(pyfile, scope, head, line)
        if call:
            value = self._result_of(value)
        for part, call in rest:
            if value is None:
                return None
            value = self._attribute(value, part)
            if call:
                value = self._result_of(value)
        return value

    def _call_result(
        self, pyfile: _File, scope: str, callee: str, line: int, at: int | None = None
    ) -> Value | None:
        """The value a call of ``callee`` in ``scope`` returns. ``at``: the line of that call when
        known (an assignment's), else any call of ``callee`` in ``scope`` (a return statement's)."""
        target = self._resolve_dotted(pyfile, scope, callee, line)
        if target is not None and target.kind == "ext" and target.key in _PARTIALS:
            return self._partial_target(pyfile, scope, callee, at)
        return self._result_of(target)

    def _partial_target(self, pyfile: _File, scope: str, callee: str, at: int | None) -> Value | None:
        """``functools.partial(f, ...)`` makes an object whose call calls ``f`` with the bound
        arguments first: for calls it stands for ``f`` (a function, a class, another partial),
        the value of its first argument when that is a name chain. None when the first argument is
        another expression or the call's text does not show it."""
        for call in pyfile.index.calls:
            if call.scope != scope or call.callee != callee or (at is not None and call.line != at):
                continue
            arguments = _call_arguments(call.text)
            if arguments and arguments[0][:2] == (0, "") and _NAME_CHAIN(arguments[0][2]):
                return self._resolve_dotted(pyfile, scope, arguments[0][2], call.line - 1)
            return None
        return None

    def _attribute(self, value: Value, name: str) -> Value | None:
        return self._memo(self._attr_memo, (value, name), self._compute_attribute, value, name)  # type: ignore[no-any-return]

    def _compute_attribute(self, value: Value, name: str) -> Value | None:
        if value.kind == "param":  # as the first value it receives (a classmethod's own class)
            bound = self._bound_values(value.key)
            # an instance passed is one of the values the callers pass: not the attribute's only one
            return self._attribute(bound[0], name) if bound and bound[0].kind != "inst" else None
        if value.kind == "module":
            return self._module_member(value.key, name)
        if value.kind in ("ext", "inst_ext"):
            return Value("ext", keys.join(value.key, name))
        if value.kind == "def":
            made = self._made_instance(value)
            if made is not None:
                return self._attribute(made, name)
            info = self.defs[value.key]
            if info.is_class:
                body = self._class_body_value(value.key, name)
                if body is not None:
                    return body
                member = self._class_member(value.key, name)
                if member is not None:
                    return Value("def", member.key)
                for base in self._external_bases(value.key):
                    return Value("ext", keys.join(base, name))
            return None
        if value.kind == "inst":
            if name == "__class__":
                return Value("def", value.key)
            attr = self._class_attr_value(value.key, name) or self._class_body_value(value.key, name)
            if attr is not None:
                return attr
            member = self._class_member(value.key, name)
            if member is not None:
                return Value("def", member.key)
            for base in self._external_bases(value.key):
                return Value("ext", keys.join(base, name))
        return None

    def _made_instance(self, value: Value) -> Value | None:
        """The instance a decorated definition's name is bound to (``@click.group() def cli``
        makes ``cli`` a ``Group``), when its decorators make one instance and nothing else."""
        self._reads += 1  # the decorated names grow while the decorators are applied
        made = self._decorated.get(value.key)
        if made is not None and len(made) == 1 and made[0].kind in ("inst", "inst_ext"):
            return made[0]
        return None

    def _result_of(self, value: Value | None) -> Value | None:
        """The value a call of ``value`` returns, as far as records show it."""
        if value is None:
            return None
        return self._memo(self._result_memo, value, self._compute_result, value)  # type: ignore[no-any-return]

    def _compute_result(self, value: Value) -> Value | None:
        if value.kind == "def":
            info = self.defs[value.key]
            if info.is_class:
                return Value("inst", value.key)
            return self._returns(info)
        if value.kind == "ext":
            last = keys.last_segment(value.key)
            if last[:1].isupper() and not last.isupper():
                return Value("inst_ext", value.key)
            return None
        if value.kind == "inst":
            member = self._class_member(value.key, "__call__")
            return self._returns(member) if member is not None else None
        if value.kind == "param":  # as the first value it receives (a classmethod's own class)
            bound = self._bound_values(value.key)
            return self._result_of(bound[0]) if bound else None
        return None

    def _returned(self, value: Value | None) -> list[Value]:
        """Every value a call of ``value`` may return that can be called (a function, a class or an
        instance, an external function), as the return facts of a function show them; else the
        one ``_result_of`` gives. A decorator factory returns its inner decorator on one path and
        the decorated result on another (``return decorator(f) if f else decorator``)."""
        if value is None:
            return []
        found: list[Value] = []
        if value.kind == "def":
            info = self.defs[value.key]
            if info.is_callable and not info.is_class:
                facts = [fact for fact in info.definition.returns if ":" in fact]
                for fact in facts:
                    for each in self._fact_values(info, fact):
                        if each.kind in ("def", "inst", "ext") and each not in found:
                            found.append(each)
        if not found:
            made = self._result_of(value)
            if made is not None and made.kind in ("def", "inst", "ext"):
                found.append(made)
        return found

    def _fact_values(self, info: DefInfo, fact: str) -> list[Value]:
        """Every value one return fact may stand for: for ``return f(...)``, each value ``f``
        may return (``return command(name, cls)`` returns what ``command`` returns on each of
        its paths, the inner decorator as well as a made instance), else ``_fact_value``'s."""
        kind, _, text = fact.partition(":")
        if kind == "call" and not text.endswith(")"):
            depth = self._depth = self._depth + 1
            if depth > self._peak:
                self._peak = depth
            try:
                if depth > self._limit:
                    self._cuts += 1
                    return []
                pyfile = self.files[info.path]
                callee = self._resolve_dotted(pyfile, info.qualname, text, info.definition.end_line)
                if callee is not None and callee.key in self._returning:
                    self._cuts += 1  # a function returning its own result: a guard cut it short
                    return []
                if callee is not None and callee.kind == "def" and not self.defs[callee.key].is_class:
                    self._returning.add(callee.key)
                    try:
                        return self._returned(callee)
                    finally:
                        self._returning.discard(callee.key)
            finally:
                self._depth -= 1
        made = self._fact_value(info, fact)
        return [made] if made is not None else []

    def _returns(self, info: DefInfo) -> Value | None:
        depth = self._depth = self._depth + 1
        if depth > self._peak:
            self._peak = depth
        try:
            if depth > self._limit:
                self._cuts += 1
                return None
            for fact in info.definition.returns:
                value = self._fact_value(info, fact)
                if value is not None:
                    return value
            return None
        finally:
            self._depth -= 1

    def _fact_value(self, info: DefInfo, fact: str) -> Value | None:
        """The value one return fact of a function stands for (an annotation, a call, a name)."""
        pyfile = self.files[info.path]
        scope = info.qualname
        kind, sep, text = fact.partition(":")
        if not sep:  # an annotation
            outer = self._function_scope(pyfile, scope.rpartition(".")[0])
            return self._type_value(pyfile, outer, fact, info.definition.line)
        if kind == "call":
            return self._call_result(pyfile, scope, text, info.definition.end_line, None)
        return self._resolve_dotted(pyfile, scope, text, info.definition.end_line)

    # ---- calls ----------------------------------------------------------------------------
    def _call(self, pyfile: _File, call: Call) -> None:
        caller = self._caller(pyfile, call.scope)
        site = Site(pyfile.path, call.line, call.column)
        if call.callee == "<expr>":
            self._unresolved(caller, site, "computed-name", "", call.text)
            return
        if call.text.startswith(_IMPLICIT):
            self._implicit_call(pyfile, caller, site, call)
            return
        if call.receiver is None and not call.name and call.callee.endswith("()"):
            # a()(), x.f()(): each function or instance the inner call may return
            inner = self._resolve_dotted(pyfile, call.scope, call.callee[:-2], call.line)
            for made in self._returned(inner):
                self._call_value(caller, site, made, "returned", call)
            # the index records the returns it can read, not every return statement: the set of
            # returned values may lack one, so the site stays (honesty)
            self._unresolved(caller, site, "computed-name", call.name, call.text)
            return
        if call.name == "__class__" and call.receiver:
            # type(x)(), x.__class__(): x's class, or a subclass of it
            cls = self._resolve_dotted(pyfile, call.scope, call.callee, call.line)
            if cls is None or cls.kind != "def" or not self.defs[cls.key].is_class:
                self._unresolved(caller, site, "computed-name", call.name, call.text)
                return
            self._call_value(caller, site, cls, "member", call)
            for sub in self._all_subclasses(cls.key):
                self._call_value(caller, site, Value("def", sub), "cha", call)
            return
        if call.receiver is None:
            value, how = self._lookup(pyfile, call.scope, call.name, call.line)
            if how in ("assign", "unknown-local") or how.startswith("unknown-attribute:"):
                others = self._branch_alternatives(pyfile, call.scope, call.name, call.line)
                if others:
                    self._call_alternatives(pyfile, caller, site, call, others)
            if value is None:
                if how == "param":
                    self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
                elif how.startswith("unknown-attribute:"):
                    # f = obj.method with obj unknown: f() is a call of ``method`` on an unknown receiver
                    self._unknown_receiver(caller, site, call._replace(name=how.partition(":")[2]))
                elif how in ("unknown-local", "limit"):
                    reason = "limit" if how == "limit" else "computed-name"
                    self._unresolved(caller, site, reason, call.name, call.text)
                else:
                    # no record binds the name: a loop, with, except or comprehension variable
                    # (bindings the index does not record), so any function may be its value
                    self._unresolved(caller, site, "computed-name", call.name, call.text)
                return
            kind = {"assign": "assignment", "wildcard": "wildcard"}.get(how, "direct")
            self._call_value(caller, site, value, kind, call)
            if value.kind == "ext" and value.key in _DUNDER_BUILTINS:
                for method in _DUNDER_BUILTINS[value.key]:
                    self._dunder_builtin(pyfile, caller, site, method, call)
            elif value.kind == "ext" and value.key == "builtins//print":
                # print(a, b) runs str() of each value it is passed
                for position, keyword, text in _call_arguments(call.text):
                    if position >= 0 and not keyword and _NAME_CHAIN(text):
                        self._format_value(pyfile, caller, site, call, text, "__str__")
            return
        if call.super_call:
            self._super_call(pyfile, caller, site, call)
            return
        receiver = (
            None
            if call.receiver == "<expr>"
            else self._resolve_dotted(pyfile, call.scope, call.receiver, call.line)
        )
        if receiver is None:
            self._unknown_receiver(caller, site, call)
            return
        if receiver.kind == "def":
            receiver = self._made_instance(receiver) or receiver
        if receiver.kind == "inst":
            self._method_call(caller, site, receiver.key, call)
            return
        if receiver.kind == "param" and receiver.key not in self._cls_params:
            self._param_receiver_call(caller, site, receiver.key, call)
            return
        target = self._attribute(receiver, call.name)
        if target is None:
            if receiver.kind == "def" and self.defs[receiver.key].is_class:
                self._unresolved(caller, site, "no-definition", call.name, call.text)
            else:
                if receiver.kind == "module":  # m.x() reads m.x first: PEP 562's __getattr__
                    self._module_getattr(pyfile, caller, site, receiver.key, call.name)
                self._unknown_receiver(caller, site, call)
            return
        kind = "member" if receiver.kind == "def" else "direct"
        self._call_value(caller, site, target, kind, call)
        if target.kind == "ext" and target.key in _DUNDER_FUNCTIONS:
            for method in _DUNDER_FUNCTIONS[target.key]:
                self._dunder_builtin(pyfile, caller, site, method, call)

    def _call_value(
        self, caller: str, site: Site, value: Value, kind: str, call: Call, decorated: bool = True
    ) -> None:
        """Edges for a call of ``value``. A decorated name runs what its decorators made of it
        (``decorated``); a parameter runs what the records show it receives."""
        if value.kind == "def":
            made = self._decorated.get(value.key) if decorated else None
            if made is not None:
                for target in made:
                    self._call_value(caller, site, target, kind, call, decorated=False)
                return
            info = self.defs[value.key]
            self.builder.edge(caller, value.key, "calls", kind, site)
            if info.is_class:
                self._construction(caller, site, value.key, kind)
            return
        if value.kind == "param":
            bound = self._bound_values(value.key)
            for index, target in enumerate(bound):
                # cls() of a classmethod: its own class as written, the subclasses it is called through
                how = (kind if index == 0 else "cha") if value.key in self._cls_params else "reference"
                self._call_value(caller, site, target, how, call, decorated=False)
            if not bound or value.key in self._passed:  # the records may not show every argument
                self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
            return
        if value.kind == "ext":
            self.builder.edge(caller, self.builder.external(value.key, _LANGUAGE), "calls", kind, site)
            return
        if value.kind == "each":
            path, scope, line, names, *more = value.key.split("\0")
            complete = not more
            for name in names.split(","):
                item = self._resolve_dotted(self.files[path], scope, name, int(line))
                if item is None or item.kind == "each":
                    complete = False
                else:
                    self._call_value(caller, site, item, "container", call)
            if not complete:  # an item the records cannot resolve: any function may run
                self._unresolved(caller, site, "computed-name", call.name, call.text)
            return
        if value.kind == "inst":
            member = self._class_member(value.key, "__call__")
            if member is not None:
                self.builder.edge(caller, member.key, "calls", "member", site)
                return
        if value.kind == "inst_ext":
            key = self.builder.external(keys.join(value.key, "__call__"), _LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
            return
        self._unresolved(caller, site, "unknown-receiver", call.name, call.text)

    def _call_alternatives(
        self, pyfile: _File, caller: str, site: Site, call: Call, others: list[tuple[Value | None, str]]
    ) -> None:
        """Edges for what a called name may hold besides the binding ``_lookup`` chose (see
        ``_branch_alternatives``); a value not known keeps the site, as a lone one would."""
        for value, how in others:
            if value is None:
                if how == "param":
                    self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
                else:
                    self._unresolved(caller, site, "computed-name", call.name, call.text)
                continue
            kind = {"assign": "assignment", "wildcard": "wildcard", "param": "reference"}.get(how, "direct")
            self._call_value(caller, site, value, kind, call)

    def _param_receiver_call(self, caller: str, site: Site, param: str, call: Call) -> None:
        """``p.method()`` with ``p`` a parameter: the method of each instance (and the attribute of
        each other value) the call sites pass; the callers the records do not show may pass
        anything, so the site stays (with the methods of that name when nothing is passed)."""
        bound = self._bound_values(param)
        for value in bound:
            if value.kind == "inst":
                self._method_call(caller, site, value.key, call, via="argument")
                continue
            target = self._attribute(value, call.name)
            if target is not None:
                self._call_value(caller, site, target, "argument", call)
        if bound:
            self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
        else:
            self._unknown_receiver(caller, site, call)

    def _implicit_call(self, pyfile: _File, caller: str, site: Site, call: Call) -> None:
        """What a with, for or raise statement calls (extract.py's implicit call records): the
        method of a first-party class that the value is an instance of (and, for a class of an
        iterator, ``__next__`` when ``__iter__`` returns the instance), or the class raised. A
        value the linker does not know (a parameter, an unknown result) may be an instance of any
        class: the site stays, named by the method (``__iter__`` and ``__next__`` for a loop), so
        callers of a project's ``__iter__`` say uncertain there, never "no caller"."""
        if call.text.startswith("<fmt> "):
            self._format_call(pyfile, caller, site, call)
            return
        if call.text.startswith("raise "):
            value = self._resolve_dotted(pyfile, call.scope, call.callee, call.line)
            if value is not None and value.kind == "def" and self.defs[value.key].is_class:
                self._call_value(caller, site, value, "protocol", call)
            return
        receiver = self._resolve_dotted(pyfile, call.scope, call.receiver or "", call.line)
        if receiver is None or receiver.kind == "param":
            self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
            then = _PROTOCOL_STEPS.get(call.name) if call.text.startswith("for ") else None
            if then is not None:
                self._unresolved(caller, site, "unknown-receiver", then, call.text)
            if receiver is not None:  # the instances the call sites pass run it too
                for value in self._bound_values(receiver.key):
                    if value.kind == "inst":
                        self._protocol_call(pyfile, caller, site, value, call, "argument")
            return
        if receiver.kind == "inst":
            self._protocol_call(pyfile, caller, site, receiver, call, "protocol")

    def _format_call(self, pyfile: _File, caller: str, site: Site, call: Call) -> None:
        """A value formatted (``f"{x}"``, ``"%s" % x``, ``"{}".format(x)``; extract.py's ``<fmt>``
        records, named by the conversion): the method that runs on an instance of a project class
        (``_conversion``: object's ``__format__`` calls ``__str__``, object's ``__str__`` calls
        ``__repr__``). A value the linker does not know may be an instance of any class: the site
        stays, named by each method the conversion may run that a project class defines (none
        defines it: no project code runs, the site says nothing and is not made); a literal, a
        function, a class or a library's value formats with no project method."""
        self._format_value(pyfile, caller, site, call, call.receiver or "", call.name)

    def _format_value(
        self, pyfile: _File, caller: str, site: Site, call: Call, operand: str, method: str
    ) -> None:
        value = self._resolve_dotted(pyfile, call.scope, operand, call.line)
        if value is None and "()" in operand:
            # what a library's function returns (``f"{len(items)}"``) is no project instance
            called = self._resolve_dotted(pyfile, call.scope, operand.partition("()")[0], call.line)
            if called is not None and called.kind == "ext":
                return
        value = self._operand(caller, site, call, value, method)
        if value is None or value.kind == "param":
            steps = _CONVERSION_STEPS[method]
            # object's __str__ calling __repr__ is left out here: most classes define a __repr__,
            # and every formatted unknown value would be a site of each
            for name in steps[:-1] if len(steps) > 1 else steps:
                if name in self._by_name:
                    self._unresolved(caller, site, "unknown-receiver", name, call.text)
            if value is not None:  # the instances the call sites pass
                for passed in self._bound_values(value.key):
                    if passed.kind == "inst":
                        member = self._conversion(passed.key, method)
                        if member is not None:
                            self._call_value(caller, site, Value("def", member.key), "argument", call)
            return
        if value.kind == "inst":
            member = self._conversion(value.key, method)
            if member is not None:
                self._call_value(caller, site, Value("def", member.key), "protocol", call)

    def _operand(self, caller: str, site: Site, call: Call, value: Value | None, method: str) -> Value | None:
        """The value a builtin or a format works on, for a name bound to a definition: the one
        instance its decorators make (``@click.command() def cli``: ``repr(cli)`` runs the
        Command's ``__repr__``); for a property (``str(t.module)``), the instances its getter
        returns, each method of theirs an edge here, and None after them: the records do not hold
        every return, so the site stays."""
        if value is None or value.kind != "def":
            return value
        made = self._made_instance(value)
        if made is not None:
            return made
        info = self.defs[value.key]
        if not info.is_callable or not _is_property(info.definition):
            return value
        for returned in self._returned(value):
            if returned.kind == "inst":
                if method in _CONVERSION_STEPS:
                    member = self._conversion(returned.key, method)
                else:
                    member = self._class_member(returned.key, method)
                if member is not None and member.is_callable:
                    self._call_value(caller, site, Value("def", member.key), "protocol", call)
        return None

    def _conversion(self, cls: str, method: str) -> DefInfo | None:
        """The project method a conversion runs on an instance of ``cls``: the class's own
        ``__format__``, ``__str__`` or ``__repr__`` along the MRO, else object's, which calls the
        next (``__format__`` calls ``__str__``, which calls ``__repr__``), while every base outside
        the project is one that keeps object's (a library base, ``str`` or ``Exception``, has its
        own, which the linker does not read)."""
        steps = _CONVERSION_STEPS[method]
        for step in steps:
            member = self._class_member(cls, step)
            if member is not None:
                return member if member.is_callable else None
            if any(base not in _OBJECT_BASES for base in self._external_bases(cls)):
                return None
        return None

    def _protocol_call(
        self, pyfile: _File, caller: str, site: Site, receiver: Value, call: Call, kind: str
    ) -> None:
        """The dunder an implicit call runs on an instance of a project class, if its class has it."""
        if call.name in _REFLECTED and call.text.startswith("<op> "):
            # b.__radd__ runs when a has no __add__ of its own (or a is not the project's)
            left = call.text[5:].split(" ", 1)[0]
            value = None if left == "…" else self._resolve_dotted(pyfile, call.scope, left, call.line)
            if value is not None and value.kind == "inst":
                own = self._class_member(value.key, "__" + call.name[3:])
                if own is not None and own.is_callable:
                    return
        member = self._class_member(receiver.key, call.name)
        if member is None or not member.is_callable:
            return
        self._call_value(caller, site, Value("def", member.key), kind, call)
        if call.name in ("__iter__", "__aiter__") and "name:self" in member.definition.returns:
            step = self._class_member(receiver.key, "__next__" if call.name == "__iter__" else "__anext__")
            if step is not None and step.is_callable:
                self._call_value(caller, site, Value("def", step.key), kind, call)

    def _dunder_builtin(self, pyfile: _File, caller: str, site: Site, method: str, call: Call) -> None:
        """``len(x)``, ``next(x)``, ``str(x)``, ``list(x)``: the method of x's class, for a first
        argument that is an instance of a project class. An argument the linker does not know (a
        parameter, a call's result, an unknown name) may be an instance of any class: the site
        stays, named by the method; a literal or a known external value runs no project code."""
        argument = _first_argument(call)
        value: Value | None = None
        if argument is None:
            refs = self._argument_refs(pyfile).get(call)
            start = call.column + call.text.find("(") + 1
            made = _call_arguments(call.text)[:1]
            if refs and refs[0].line == call.line and refs[0].column == start and _NAME_CHAIN(refs[0].name):
                value = self._argument_value(pyfile, refs[0])  # a name chain, the text cut after it
            elif made and not made[0][1]:  # a constructor's call (``copy.copy(Snapshot())``)
                value = self._instance_value(pyfile, call, made[0][2])
            if value is None:
                self._unresolved(caller, site, "unknown-receiver", method, call.text)
                return
        elif not argument:
            return  # a literal, a generator expression, or nothing passed
        else:
            value = self._resolve_dotted(pyfile, call.scope, argument, call.line)
        value = self._operand(caller, site, call, value, method)
        if value is None or value.kind == "param":
            self._unresolved(caller, site, "unknown-receiver", method, call.text)
            if value is not None:  # the instances the call sites pass
                for passed in self._bound_values(value.key):
                    if passed.kind == "inst":
                        member = self._class_member(passed.key, method)
                        if member is not None and member.is_callable:
                            self._call_value(caller, site, Value("def", member.key), "argument", call)
            return
        if value.kind != "inst":
            return
        if method in _CONVERSION_STEPS:  # str(x), repr(x), format(x, spec): object's defaults
            member = self._conversion(value.key, method)
        else:
            member = self._class_member(value.key, method)
        if member is not None and member.is_callable:
            self._call_value(caller, site, Value("def", member.key), "protocol", call)

    def _argument_refs(self, pyfile: _File) -> dict[Call, list[Reference]]:
        """The references each call of a file passes (``_arguments_of``), once per file (the
        argument pass keeps the table it made)."""
        table = pyfile.arguments
        if table is None:
            table = pyfile.arguments = dict(self._arguments_of(pyfile))
        return table

    def _read_edges(self, pyfile: _File) -> None:
        """A property read (``result.output``) runs its getter: an edge of kind ``property`` to it
        when the receiver is an instance of a first-party class whose MRO gives a property of that
        name, and ``cha`` edges to the properties of that name in its subclasses (which may
        override a plain attribute of the class). A receiver the linker does not know may be an
        instance of any class with such a property: the read is an unresolved site named by it,
        with ``name`` edges to those properties when they are few (as an unknown method call)."""
        answering = self._getattr_modules
        for read in pyfile.index.reads:
            receiver_text, _, name = read.name.rpartition(".")
            if answering and receiver_text and receiver_text.partition(".")[0] not in ("self", "cls"):
                # ``m.x`` where module m binds no x: m's module-level __getattr__ answers (PEP 562)
                module = self._resolve_dotted(pyfile, read.scope, receiver_text, read.line)
                if (
                    module is not None
                    and module.kind == "module"
                    and module.key in answering
                    and self._attribute(module, name) is None
                ):
                    caller = self._caller(pyfile, read.scope)
                    site = Site(pyfile.path, read.line, read.column)
                    self._module_getattr(pyfile, caller, site, module.key, name)
            if not self._property_name(name):
                continue
            receiver = self._resolve_dotted(pyfile, read.scope, receiver_text, read.line)
            if receiver is None or receiver.kind == "param":
                caller = self._caller(pyfile, read.scope)
                self._unknown_read(caller, Site(pyfile.path, read.line, read.column), name, read.name)
                continue
            if receiver.kind != "inst":
                continue
            member = self._class_member(receiver.key, name)
            caller = self._caller(pyfile, read.scope)
            site = Site(pyfile.path, read.line, read.column)
            if member is not None and _is_property(member.definition):
                self.builder.edge(caller, member.key, "calls", "property", site)
            for key in self._subclass_tables(receiver.key)[0].get(name, ()):
                self._def_read(key)
                if (member is None or key != member.key) and _is_property(self.defs[key].definition):
                    self.builder.edge(caller, key, "calls", "cha", site)

    def _unknown_read(self, caller: str, site: Site, name: str, text: str) -> None:
        """A read of a property name on an unknown receiver: the site, and the getters by name."""
        self._unresolved(caller, site, "unknown-receiver", name, text)
        candidates = [info for info in self._by_name.get(name, []) if _is_property(info.definition)]
        gates.name_edges(self.builder, caller, site, candidates)

    def _property_name(self, name: str) -> bool:
        """Whether some class of the project has a property of that name (most reads are of no
        property: they are left before their receiver is resolved)."""
        return name in self._property_names

    @cached_property
    def _property_names(self) -> frozenset[str]:
        return frozenset(
            info.definition.name
            for info in self.defs.values()
            if info.is_callable and _is_property(info.definition) and "." in info.qualname
        )

    def _def_read(self, key: str) -> None:
        """A hook: the traced linker records that a unit read the definition of ``key``."""

    def _construction(self, caller: str, site: Site, cls: str, kind: str) -> None:
        """What ``Cls()`` runs: ``__new__`` and ``__init__`` by the MRO, or an external base's
        ``__init__``; a dataclass's generated ``__init__`` runs ``__post_init__``."""
        targets = self._constructions.get(cls)
        if targets is None:
            targets = self._constructions[cls] = self._construction_targets(cls)
        for key, external in targets:
            self.builder.edge(
                caller, self.builder.external(key, _LANGUAGE) if external else key, "calls", kind, site
            )

    def _construction_targets(self, cls: str) -> list[tuple[str, bool]]:
        """(key, is external) of what ``Cls()`` runs, once per class: it reads only the MRO, the
        bases and the decorators of the classes, each resolved once and kept."""
        found: list[tuple[str, bool]] = []
        new = self._class_member(cls, "__new__")
        if new is not None:
            found.append((new.key, False))
        init = self._class_member(cls, "__init__")
        if init is not None:
            found.append((init.key, False))
            return found
        if self._generated_init(cls):
            for name in ("__post_init__", "__attrs_post_init__"):
                post = self._class_member(cls, name)
                if post is not None:
                    found.append((post.key, False))
            return found
        for base in self._external_bases(cls)[:1]:
            found.append((keys.join(base, "__init__"), True))
        return found

    @cached_property
    def _constructions(self) -> dict[str, list[tuple[str, bool]]]:
        return {}

    def _generated_init(self, cls: str) -> bool:
        """Whether a class of the MRO is a dataclass (or attrs class), whose ``__init__`` is made."""
        known = self._generated_inits.get(cls)
        if known is not None:
            return known
        found = False
        for owner in self._mro(cls):
            info = self.defs.get(owner)
            if info is None or found:
                continue
            pyfile = self.files[info.path]
            scope = _function_scope(pyfile, info.qualname.rpartition(".")[0])
            for decorator in info.definition.decorators:
                value = self._resolve_dotted(pyfile, scope, decorator, info.definition.line)
                if value is not None and value.kind == "ext" and value.key in _GENERATED_INIT:
                    found = True
        self._generated_inits[cls] = found
        return found

    @cached_property
    def _generated_inits(self) -> dict[str, bool]:
        return {}

    def _method_call(self, caller: str, site: Site, cls: str, call: Call, via: str = "") -> None:
        """A call of a method on an instance of ``cls``; ``via``: the kind of every edge, for an
        instance that came through a parameter (``argument``), else each rule's own (and then a
        class with no such method leaves no no-definition site: the parameter's site stands)."""
        plan = self._method_plans.get((cls, call.name))
        if plan is None:
            plan = self._method_plans[(cls, call.name)] = self._method_plan(cls, call.name)
        attr, given, member, external, overrides = plan
        if attr is not None:
            self._call_value(caller, site, attr, via or "assignment", call)
        for value in given:
            self._call_value(caller, site, value, via or "cha", call)
        if member is not None:
            self._call_value(caller, site, member, via or "member", call)
        if external is not None:
            if external:
                key = self.builder.external(external, _LANGUAGE)
                self.builder.edge(caller, key, "calls", via or "member", site)
            elif not via:  # (through a parameter, the caller keeps one unknown-receiver site)
                self._unresolved(caller, site, "no-definition", call.name, call.text)
        for value in overrides:
            self._call_value(caller, site, value, via or "cha", call)

    def _method_plan(self, cls: str, name: str) -> tuple[Any, ...]:
        """What a call of ``name`` on an instance of ``cls`` runs, once per (class, name): the
        values called in order (an attribute, subclass attributes, the member, an external base's
        method or "" for no definition, overrides). Calls are linked after the bindings are
        complete, outside any resolution, so the same question always gets the same answer."""
        attr = self._class_attr_value(cls, name) or self._class_body_value(cls, name)
        member = self._class_member(cls, name)
        if attr is not None and member is None:
            return (attr, (), None, None, ())
        # an attribute set on some instances only (self.run = ... in one branch): the method of
        # the class runs on the others; class hierarchy analysis: an override in each subclass
        # may run instead
        members, attrs = self._subclass_tables(cls)
        overrides = [
            Value("def", key) for key in members.get(name, ()) if member is None or key != member.key
        ]
        # class attributes of subclasses (``_address_class = IPv4Address``) override too
        given: list[Value] = []
        if attr is None:
            for sub in attrs.get(name, ()):
                value = self._class_body_value(sub, name)
                if value is not None and value not in given:
                    given.append(value)
        called = None
        external = None
        if member is not None:
            # an abstract method of an ABC runs on no instance: only its overrides do
            if not (overrides and self._abstract(member)):
                called = Value("def", member.key)
        elif not given:
            bases = self._external_bases(cls)
            external = keys.join(bases[0], name) if bases else ""
        return (attr, tuple(given), called, external, tuple(overrides))

    @cached_property
    def _method_plans(self) -> dict[tuple[str, str], tuple[Any, ...]]:
        return {}

    def _subclass_tables(self, cls: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """For the transitive subclasses of ``cls`` in order, once: the keys of their members by
        name, and which of them assign each name in their class body."""
        found = self._subclass_table_cache.get(cls)
        if found is None:
            members: dict[str, list[str]] = {}
            attrs: dict[str, list[str]] = {}
            for sub in self._all_subclasses(cls):
                info = self.defs[sub]
                sub_file = self.files[info.path]
                for segment, key in self._member_keys(info):
                    members.setdefault(segment, []).append(key)
                for target in _class_attr_names(sub_file).get(info.qualname, ()):
                    attrs.setdefault(target, []).append(sub)
            found = self._subclass_table_cache[cls] = (members, attrs)
        return found

    def _member_keys(self, info: DefInfo) -> list[tuple[str, str]]:
        """(last segment of the qualified name, key) of each member of a class, once per class."""
        found = self._member_key_cache.get(info.key)
        if found is None:
            found = self._member_key_cache[info.key] = [
                (qualname.rpartition(".")[2], keys.first_party(info.path, qualname))
                for qualname, _member in _members(self.files[info.path], info.qualname)
            ]
        return found

    @cached_property
    def _member_key_cache(self) -> dict[str, list[tuple[str, str]]]:
        return {}

    @cached_property
    def _subclass_table_cache(self) -> dict[str, tuple[dict[str, list[str]], dict[str, list[str]]]]:
        return {}

    def _abstract(self, method: DefInfo) -> bool:
        """An ``@abstractmethod`` of a class whose MRO holds ``abc.ABC`` (no instance can have it)."""
        if not any(d in ("abstractmethod", "abc.abstractmethod") for d in method.definition.decorators):
            return False
        owner = self.files[method.path].defs.get(method.qualname.rpartition(".")[0])
        return owner is not None and "abc//ABC" in self._external_bases(owner.key)

    def _super_call(self, pyfile: _File, caller: str, site: Site, call: Call) -> None:
        cls = self._enclosing_class(pyfile, call.scope)
        if cls is None:
            self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
            return
        # super() is the class after ``cls`` in the MRO of the instance, which may be a subclass
        # of ``cls`` with more classes between (cooperative multiple inheritance)
        member = None
        for owner in [cls, *self._all_subclasses(cls)]:
            mro = self._mro(owner)
            if cls not in mro:
                continue
            found = self._class_member(owner, call.name, start=mro.index(cls) + 1)
            if found is None:
                continue
            if owner == cls:
                member = found
            self._call_value(caller, site, Value("def", found.key), "member" if owner == cls else "cha", call)
        if member is not None:
            return
        bases = self._external_bases(cls)
        self._def_read(cls)
        if bases:
            key = self.builder.external(keys.join(bases[0], call.name), _LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
            if key in _SUPER_DUNDERS and ")." in call.text:
                # the arguments of the method's call, not super()'s
                method_call = call._replace(text=call.text.split(").", 1)[1])
                argument = _first_argument(method_call)
                value = self._resolve_dotted(pyfile, call.scope, argument, call.line) if argument else None
                for method in _SUPER_DUNDERS[key]:
                    if argument == "":
                        break  # a literal: no project method runs
                    if value is not None and value.kind not in ("inst", "param"):
                        # a tuple or mapping of values (``(Helper(v),)``): its items are formatted,
                        # which the linker does not follow: any class's method of that name may run
                        self._unresolved(caller, site, "unknown-receiver", method, call.text)
                        continue
                    self._dunder_builtin(pyfile, caller, site, method, method_call)
        elif len(self._bases(cls)) < len(self.defs[cls].definition.bases):
            # a base the records do not resolve (``class L(base)`` with ``base`` a parameter):
            # its method, whatever class it is, runs here
            self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
        # else: object's own method (object.__init__ and friends): nothing to link

    def _enclosing_class(self, pyfile: _File, scope: str) -> str | None:
        current = scope
        while current:
            info = pyfile.defs.get(current)
            if info is not None and info.is_class:
                return info.key
            current = current.rpartition(".")[0]
        return None

    def _unknown_receiver(self, caller: str, site: Site, call: Call) -> None:
        self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
        if call.name in _CONTAINER_METHODS or not call.name:
            return
        candidates = gates.name_candidates(site.path, self._by_name.get(call.name, []))
        gates.name_edges(self.builder, caller, site, candidates)

    @cached_property
    def _by_name(self) -> dict[str, list[DefInfo]]:
        table: dict[str, list[DefInfo]] = {}
        for info in self.defs.values():
            if info.is_callable and "." in info.qualname:
                owner = self.files[info.path].defs.get(info.qualname.rpartition(".")[0])
                if owner is not None and owner.is_class:
                    table.setdefault(info.definition.name, []).append(info)
        return table

    def _unresolved(
        self, caller: str, site: Site, reason: str, name: str, text: str, covered: bool = False
    ) -> None:
        self.builder.unresolved_site(Unresolved(caller, site, reason, name, text, covered=covered))

    # ---- decorators -----------------------------------------------------------------------
    def _decorations(self) -> None:
        """Apply the decorators of each definition, the innermost first, as Python does.

        A first-party function decorator's first parameter receives the definition (or what the
        decorators below made of it), and the name is bound to what the decorator returns: that
        parameter (the definition itself), a function (a wrapper it defines), or an instance. A
        first-party class used as a decorator receives it in ``__init__`` and binds the name to an
        instance, whose calls go to ``__call__``. An external or unknown decorator leaves the name
        as it is (``functools.wraps``, ``lru_cache``, ``staticmethod``, ``property`` keep calling the
        definition). ``@factory(...)`` applies what the factory returns, a call made where the
        definition is.
        """
        for pyfile in self.files.values():
            for info in pyfile.defs.values():
                if info.definition.decorators:
                    self._decorate(pyfile, info)

    def _decorate(self, pyfile: _File, info: DefInfo) -> None:
        d = info.definition
        scope = _function_scope(pyfile, d.qualname.rpartition(".")[0])
        caller = self._caller(pyfile, scope)
        original = [Value("def", info.key)]
        current = original
        for text, call in reversed(list(zip(d.decorators, self._decorator_calls(pyfile, d), strict=True))):
            if call is None:
                continue  # not seen as written: leave the name as it is
            value = self._resolve_dotted(pyfile, scope, text, d.line)
            if call.text.startswith("@"):
                if value is not None:
                    current = self._apply_decorator(value, current)
                continue
            # a factory: each function or instance it returns is the decorator, called here
            site = Site(pyfile.path, call.line, call.column)
            made: list[Value] = []
            returns = self._returned(value)
            if not returns and (value is None or (value.kind == "def" and self.defs[value.key].is_callable)):
                # a factory whose decorator the records do not show: what runs on the definition is
                # not known. A first-party factory's is a value it refers to (a reference edge), so
                # the site is covered; an unknown factory's may be anything; an external factory's
                # decorator is external code
                self._unresolved(caller, site, "computed-name", "", call.text, covered=value is not None)
            for returned in returns:
                self._call_value(caller, site, returned, "returned", call)
                made.extend(self._apply_decorator(returned, current))
            if made:
                current = list(dict.fromkeys(made))
        if current != original:
            self._decorated[info.key] = current
            self._changed_bindings()

    def _apply_decorator(self, decorator: Value, current: list[Value]) -> list[Value]:
        """What a name is bound to after ``decorator`` is applied to ``current``."""
        if decorator.kind != "def":
            return current
        target = self.defs[decorator.key]
        if target.is_class:
            init = self._class_member(decorator.key, "__init__")
            if init is not None:
                self._bind(init, 0, current)
            return [Value("inst", decorator.key)]
        if not target.is_callable:
            return current
        param = self._bind(target, 0, current)
        made: list[Value] = []
        for fact in target.definition.returns or ("",):
            kind, _, text = fact.partition(":")
            value = self._fact_value(target, fact) if fact else None
            if kind == "name" and text == param:
                made.extend(current)  # returns the definition itself
            elif value is not None and value.kind in ("def", "inst"):
                made.append(value)
            elif value is None and kind == "call" and (wrapper := self._updated_wrapper(target, text)):
                made.append(wrapper)
            else:
                made.extend(current)  # unknown: the name may still run the definition
        return list(dict.fromkeys(made))

    def _updated_wrapper(self, function: DefInfo, callee: str) -> Value | None:
        """``return functools.update_wrapper(wrapper, f)`` in a decorator: the wrapper it returns
        (the first argument of that call in the function, a definition)."""
        pyfile = self.files[function.path]
        target = self._resolve_dotted(pyfile, function.qualname, callee, function.definition.end_line)
        if target is None or target.key != "functools//update_wrapper":
            return None
        for call in pyfile.index.calls:
            if call.scope == function.qualname and call.callee == callee:
                argument = _first_argument(call)
                if argument:
                    value = self._resolve_dotted(pyfile, function.qualname, argument, call.line)
                    if value is not None and value.kind == "def":
                        return value
        return None

    def _bound_values(self, key: str) -> list[Value]:
        """What a parameter receives, through parameters passed on to other parameters."""
        self._reads += 1
        found: list[Value] = []
        seen = {key}
        stack = [key]
        while stack:
            for value in self._bindings.get(stack.pop(), ()):
                if value.kind != "param":
                    if value not in found:
                        found.append(value)
                elif value.key not in seen:
                    seen.add(value.key)
                    stack.append(value.key)
        return found

    def _classmethod_receivers(self) -> None:
        """``Sub.create()`` with ``create`` a classmethod of a base binds ``cls`` to ``Sub``, so
        ``cls()`` in it makes a ``Sub`` too (alternate constructors inherited by subclasses)."""
        names = self._classmethod_names()
        for pyfile in self.files.values():
            self._classmethod_receivers_of(pyfile, names)

    def _classmethod_names(self) -> frozenset[str]:
        return frozenset(
            info.definition.name for info in self.defs.values() if "classmethod" in info.definition.decorators
        )

    def _classmethod_receivers_of(self, pyfile: _File, names: frozenset[str]) -> None:
        """``_classmethod_receivers`` for the calls of one file."""
        for call in pyfile.index.calls:
            if call.name not in names or call.receiver in (None, "<expr>") or call.super_call:
                continue
            if not _written(call):
                continue
            receiver = self._resolve_dotted(pyfile, call.scope, call.receiver or "", call.line)
            if receiver is None or receiver.kind not in ("def", "inst"):
                continue
            if not self.defs[receiver.key].is_class:
                continue
            method = self._class_member(receiver.key, call.name)
            if method is None or "classmethod" not in method.definition.decorators:
                continue
            params = method.definition.params
            owner = self.files[method.path].defs.get(method.qualname.rpartition(".")[0])
            if not params or params[0].variadic or owner is None or owner.key == receiver.key:
                continue
            key = keys.join(method.key, params[0].name)
            bound = self._bindings.get(key)
            if bound is None:
                bound = self._bindings[key] = [Value("def", owner.key)]
                self._changed_bindings()
            if Value("def", receiver.key) not in bound:
                bound.append(Value("def", receiver.key))
                self._changed_bindings()
            self._cls_params.add(key)

    # ---- arguments ------------------------------------------------------------------------
    def _arguments(self) -> None:
        """Bind the parameters of first-party functions to the functions passed to them.

        The index gives each function used as a value (a reference) but not the call and position
        it is an argument of, so a reference belongs to the innermost call that starts before it
        on its line and whose text reaches it; every parameter of the callee receives it (a call
        of a parameter that got no function never happens, so the position matters little). A
        call of a builtin that calls its function argument (map, sorted, ...) calls it there.
        """
        for pyfile in self.files.values():
            self._arguments_of_file(pyfile)

    def _arguments_of_file(self, pyfile: _File) -> None:
        """``_arguments`` for the calls of one file: functions passed, then instances passed."""
        table = pyfile.arguments = dict(self._arguments_of(pyfile))
        for call, refs in table.items():
            self._bind_arguments(pyfile, call, refs)
        self._instance_arguments(pyfile)

    def _instance_arguments(self, pyfile: _File) -> None:
        """An instance passed as an argument (``use(reader)``, ``use(Reader())``, ``use(r=x)``)
        binds the parameter at its position or keyword, read from the call's text (a call cut
        short gives its complete arguments only; after ``*args`` no position is known). A method
        called on the parameter then runs on each class passed (``_param_receiver_call``)."""
        for call in pyfile.index.calls:
            text = call.text
            if call.callee == "<expr>" or call.super_call or not call.args or text.startswith(_NO_ARGUMENTS):
                continue
            # the callee first: most calls (of external or unknown callees) bind no parameter, and
            # their arguments need not be read (resolution is pure, so the order changes nothing)
            callee = self._resolve_dotted(pyfile, call.scope, call.callee, call.line)
            if callee is None or callee.kind not in ("def", "inst"):
                continue
            passed: list[tuple[int, str, Value]] = []
            for position, keyword, expression in _call_arguments(text):
                value = self._instance_value(pyfile, call, expression)
                if value is not None:
                    passed.append((position, keyword, value))
            if not passed:
                continue
            targets = self._decorated.get(callee.key, [callee]) if callee.kind == "def" else [callee]
            for target in targets:
                function = None
                if target.kind == "def":
                    info = self.defs[target.key]
                    function = self._class_member(info.key, "__init__") if info.is_class else info
                elif target.kind == "inst":
                    function = self._class_member(target.key, "__call__")
                if function is None or not function.is_callable:
                    continue
                params = function.definition.params
                shift = 1 if self._is_method(function) else 0
                for position, keyword, value in passed:
                    if keyword:
                        index = next(
                            (i for i, p in enumerate(params) if p.name == keyword and not p.variadic), -1
                        )
                        if index < shift:
                            continue
                        position = index - shift
                    elif position < 0:
                        continue
                    name = self._bind(function, position, [value])
                    if name is not None:
                        self._passed.add(keys.join(function.key, name))

    def _is_method(self, function: DefInfo) -> bool:
        """Whether a call of the function passes the instance or class first (a method, not static)."""
        owner = self.files[function.path].defs.get(function.qualname.rpartition(".")[0])
        return owner is not None and owner.is_class and "staticmethod" not in function.definition.decorators

    def _instance_value(self, pyfile: _File, call: Call, expression: str) -> Value | None:
        """The value an argument's text stands for: a name chain bound to an instance, a definition
        or a parameter, or a call (of a class, of a function returning an instance) written as a
        name chain with its arguments."""
        if _NAME_CHAIN(expression):
            if expression in ("self", "cls"):
                return None  # the receiver passed on: its class is known where it is used
            value = self._resolve_dotted(pyfile, call.scope, expression, call.line)
            if value is not None and value.kind in ("param", "def"):
                # a parameter passed on (``cls(callback=f)``: what its callers pass) or a function
                # or class passed, at its position or keyword (a call written over several lines
                # has its references on lines that are not the call's)
                return value
        else:
            callee = _CALL_OF_NAME(expression)
            if callee is None:
                return None
            value = self._call_result(pyfile, call.scope, callee.group(1), call.line)
        return value if value is not None and value.kind == "inst" else None

    def _arguments_of(self, pyfile: _File) -> list[tuple[Call, list[Reference]]]:
        references = pyfile.index.references
        if not references:
            return []
        # per (scope, line): each call's start, end, whether its text was cut, how inner it is
        calls: dict[tuple[str, int], list[tuple[int, int, bool, tuple[int, int], Call]]] = {}
        for call in pyfile.index.calls:
            text = call.text
            if not text.startswith(("@", *_IMPLICIT)):
                calls.setdefault((call.scope, call.line), []).append(
                    (
                        call.column,
                        call.column + len(text),
                        text.endswith("…"),
                        (call.column, -len(text)),
                        call,
                    )
                )
        found: dict[Call, list[Reference]] = {}
        for ref in references:
            group = calls.get((ref.scope, ref.line))
            if group is None:
                continue
            best = best_inner = None
            column = ref.column
            for start, end, cut, inner, call in group:
                if start < column and (cut or column < end) and (best_inner is None or inner > best_inner):
                    best, best_inner = call, inner
            if best is not None:
                found.setdefault(best, []).append(ref)
        return sorted(found.items(), key=lambda item: (item[0].line, item[0].column, item[0].text))

    def _argument_value(self, pyfile: _File, ref: Reference) -> Value | None:
        """The value a reference passes; a parameter passed on is that parameter, bound or not."""
        if not ref.name.isidentifier():
            return self._resolve_dotted(pyfile, ref.scope, ref.name, ref.line)
        value, how = self._lookup(pyfile, ref.scope, ref.name, ref.line)
        if how == "param" and value is None:
            for scope in self._scopes(pyfile, ref.scope):
                info = pyfile.defs.get(scope)
                if info is not None and any(p.name == ref.name for p in info.definition.params):
                    return Value("param", keys.join(info.key, ref.name))
        return value

    def _bind_arguments(self, pyfile: _File, call: Call, refs: list[Reference]) -> None:
        if call.callee == "<expr>" or call.super_call:
            return
        # the callee first: the references passed to one that binds nothing need not be resolved
        callee = self._resolve_dotted(pyfile, call.scope, call.callee, call.line)
        if callee is None or callee.kind not in ("def", "inst", "ext"):
            return
        if callee.kind == "ext" and callee.key not in _CALLING_BUILTINS:
            return
        values = []
        for ref in refs:
            value = self._argument_value(pyfile, ref)
            if value is not None and value.kind in ("def", "ext", "param") and value not in values:
                values.append(value)
        if not values:
            return
        if callee.kind == "ext":
            if callee.key in _CALLING_BUILTINS:
                caller = self._caller(pyfile, call.scope)
                site = Site(pyfile.path, call.line, call.column)
                for value in values:
                    if value.kind != "param":
                        self._call_value(caller, site, value, "reference", call)
            return
        targets = self._decorated.get(callee.key, [callee]) if callee.kind == "def" else [callee]
        for target in targets:
            function = None
            if target.kind == "def":
                info = self.defs[target.key]
                function = self._class_member(info.key, "__init__") if info.is_class else info
            elif target.kind == "inst":
                function = self._class_member(target.key, "__call__")
            if function is None or not function.is_callable:
                continue
            for position in range(len(function.definition.params)):
                name = self._bind(function, position, values)
                if name is not None:
                    key = keys.join(function.key, name)
                    self._passed.add(key)
                    bound = self._bindings[key]
                    if Value("param", key) in bound:  # a parameter passed on to itself
                        bound.remove(Value("param", key))
                        self._changed_bindings()

    def _bind(self, function: DefInfo, position: int, values: list[Value]) -> str | None:
        """Record that a parameter (by position after self/cls) receives ``values``; its name."""
        params = function.definition.params
        owner = self.files[function.path].defs.get(function.qualname.rpartition(".")[0])
        if owner is not None and owner.is_class and "staticmethod" not in function.definition.decorators:
            position += 1
        if position >= len(params) or params[position].variadic:
            return None
        name = params[position].name
        key = keys.join(function.key, name)
        bound = self._bindings.get(key)
        if bound is None:
            bound = self._bindings[key] = []
            self._changed_bindings()
        for value in values:
            if value not in bound:
                bound.append(value)
                self._changed_bindings()
        return name

    def _decorator_calls(self, pyfile: _File, d: Definition) -> list[Call | None]:
        """The call record of each decorator of ``d`` (``@name`` or ``name(...)``), None if unseen.

        Decorators stand on the lines just above ``def``, one column right of it (after ``@``),
        below the end of any earlier definition.
        """
        table = self._calls_by_column(pyfile.path)
        ends = self._end_lines(pyfile.path)
        floor = ends[bisect_left(ends, d.line) - 1] if ends and ends[0] < d.line else 0
        found: list[Call | None] = []
        limit = d.line
        for text in reversed(d.decorators):
            best = None
            for call in table.get((d.column + 1, text), ()):
                if floor < call.line < limit and (best is None or call.line > best.line):
                    best = call
            found.append(best)
            if best is not None:
                limit = best.line
        return list(reversed(found))

    def _calls_by_column(self, path: str) -> dict[tuple[int, str], list[Call]]:
        table = self._call_tables.get(path)
        if table is None:
            table = {}
            for call in self.files[path].index.calls:
                table.setdefault((call.column, call.callee), []).append(call)
            self._call_tables[path] = table
        return table

    def _end_lines(self, path: str) -> list[int]:
        ends = self._end_tables.get(path)
        if ends is None:
            ends = sorted({info.definition.end_line for info in self.files[path].defs.values()})
            self._end_tables[path] = ends
        return ends

    def decorator_edges(self) -> None:
        """A first-party decorator gets the function it decorates (and may call it). Any other
        decorator but a few known ones that only wrap it (property, lru_cache, ...) gets it from
        the code around the definition, which refers to it: a registering decorator
        (``@dispatcher.register``, a framework's) may have it called at any time."""
        for pyfile in self.files.values():
            self._decorator_edges_of(pyfile)

    def _decorator_edges_of(self, pyfile: _File) -> None:
        """``decorator_edges`` for the definitions of one file."""
        for info in pyfile.defs.values():
            d = info.definition
            scope = _function_scope(pyfile, d.qualname.rpartition(".")[0])
            for decorator in d.decorators:
                value = None
                if decorator != "<expr>":
                    value = self._resolve_dotted(pyfile, scope, decorator, d.line)
                if value is None or value.kind != "def":
                    if not _inert_decorator(decorator, value):
                        self.builder.edge(
                            self._caller(pyfile, scope),
                            info.key,
                            "references",
                            "reference",
                            Site(pyfile.path, d.line, d.column),
                            via="decorator",
                        )
                    continue
                if value.kind == "def":
                    target = self.defs[value.key]
                    self.builder.edge(
                        value.key,
                        info.key,
                        "references",
                        "reference",
                        Site(pyfile.path, d.line, d.column),
                        via="decorator",
                    )
                    if target.is_class:
                        call = self._class_member(value.key, "__call__")
                        if call is not None:
                            self.builder.edge(
                                call.key,
                                info.key,
                                "references",
                                "reference",
                                Site(pyfile.path, d.line, d.column),
                                via="decorator",
                            )

    # ---- what roots need ------------------------------------------------------------------
    def resolve_entry_point(self, entry: EntryPoint) -> str | None:
        """A manifest's ``pkg.mod:func`` entry point (pyproject scripts, setup.cfg, entry points)."""
        if ":" not in entry.target or entry.group in ("bin", "main", "exports"):
            return None
        module, _, qualname = entry.target.partition(":")
        return self.resolve_entry(module.strip(), qualname.strip().split("[")[0].strip())

    def resolve_entry(self, module: str, qualname: str) -> str | None:
        """The key of ``module:qualname`` (a manifest entry point), or None."""
        path = self.modules.get(module)
        if not path:
            return None
        if not qualname:
            return path
        info = self.files[path].defs.get(qualname)
        if info is not None:
            return info.key
        head, _, rest = qualname.partition(".")
        value = self._module_member(module, head)
        if value is not None and value.kind == "def" and not rest:
            return value.key
        return None


# class decorators whose class gets a generated __init__ that calls a post-init hook
_GENERATED_INIT = frozenset(
    {"dataclasses//dataclass"}
    | {f"{module}//{name}" for module in ("attr", "attrs") for name in ("s", "attrs", "define", "frozen")}
    | {"attr//mutable", "attrs//mutable"}
)
# external decorators that wrap a definition (or mark it) and call it only when its name is called
_INERT_DECORATORS = frozenset(
    {f"builtins//{name}" for name in ("property", "staticmethod", "classmethod")}
    | {f"functools//{name}" for name in ("wraps", "lru_cache", "cache", "cached_property", "total_ordering")}
    | {f"abc//{name}" for name in ("abstractmethod", "abstractproperty")}
    | {f"contextlib//{name}" for name in ("contextmanager", "asynccontextmanager")}
    | {f"typing//{name}" for name in ("overload", "final", "override", "no_type_check", "runtime_checkable")}
    | {"dataclasses//dataclass", "enum//unique"}
)


def _inert_decorator(text: str, value: Value | None) -> bool:
    if text.endswith((".setter", ".getter", ".deleter")):
        return True
    return value is not None and value.kind == "ext" and value.key in _INERT_DECORATORS


_PROPERTY_DECORATORS = frozenset(
    {"property", "cached_property", "functools.cached_property", "abc.abstractproperty"}
)
# the text of the call records of what a statement calls with no call written (extract.py)
_IMPLICIT = ("with ", "for ", "raise ", "<op> ", "<fmt> ")
_CASTS = frozenset(("typing//cast", "typing_extensions//cast"))
_PARTIALS = frozenset(("functools//partial",))
# calls whose text holds no argument list of their own (decorators, implicit calls)
_NO_ARGUMENTS = ("@", *_IMPLICIT)
_NAME_CHAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*").fullmatch
_CALL_OF_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\(.*\)").fullmatch
# library functions that call methods of their first argument: pickling and copying an object
# runs its class's __reduce_ex__ (object's calls __reduce__, __getstate__, __getnewargs__), and
# unpickling or a copy runs __setstate__ of a class the records cannot tell
_REDUCE = ("__reduce_ex__", "__reduce__", "__getstate__", "__getnewargs_ex__", "__getnewargs__")
_PRINTF = ("__str__", "__repr__", "__int__", "__index__", "__float__", "__getitem__")
_DUNDER_FUNCTIONS = {
    "pickle//dumps": _REDUCE,
    "pickle//dump": _REDUCE,
    "copy//copy": (*_REDUCE, "__copy__", "__setstate__"),
    "copy//deepcopy": (*_REDUCE, "__deepcopy__", "__setstate__"),
}
# methods of a builtin base that call a method of their first argument, called as super().m(x):
# printf-style formatting in a str subclass (``super().__mod__(value)``) formats with a format the
# linker does not read (self), so each conversion may run (%s, %r, %d/%i, %f, %(key)s)
_SUPER_DUNDERS = {f"builtins//{kind}//__mod__": _PRINTF for kind in ("str", "bytes")}
# the methods a conversion may run: object's __format__ calls str(), object's __str__ calls repr()
_CONVERSION_STEPS = {
    "__format__": ("__format__", "__str__", "__repr__"),
    "__str__": ("__str__", "__repr__"),
    "__repr__": ("__repr__",),
}
# bases outside the project that keep object's conversion methods
_OBJECT_BASES = frozenset(
    ("builtins//object", "abc//ABC", "typing//Generic", "typing//Protocol", "typing_extensions//Protocol")
)
# the method a loop calls after the one its record names
_PROTOCOL_STEPS = {"__iter__": "__next__", "__aiter__": "__anext__"}
_REFLECTED = frozenset(
    f"__r{name}__" for name in "add sub mul matmul truediv floordiv mod pow lshift rshift and or xor".split()
)
# builtins that call a method of their argument: len(x) runs type(x).__len__
_DUNDER_BUILTINS = {
    f"builtins//{name}": tuple(f"__{method}__" for method in methods.split())
    for name, methods in (
        ("len", "len"),
        ("iter", "iter"),
        ("next", "next"),
        ("str", "str"),
        ("repr", "repr"),
        ("hash", "hash"),
        ("bool", "bool"),
        ("int", "int"),
        ("float", "float"),
        ("abs", "abs"),
        ("format", "format"),
        ("reversed", "reversed"),
        # builtins that iterate their first argument (list and tuple ask its length first)
        ("list", "len iter"),
        ("tuple", "len iter"),
        ("set", "iter"),
        ("frozenset", "iter"),
        ("sorted", "iter"),
        ("enumerate", "iter"),
        ("sum", "iter"),
        ("any", "iter"),
        ("all", "iter"),
    )
}


# where _call_arguments stops: a quote, a bracket or a comma (outside a string), and inside a
# string of each quote, its end or a backslash
_ARGUMENT_STOPS = re.compile(r"[\"'()\[\]{},]").search
_STRING_STOPS = {'"': re.compile(r'[\\"]').search, "'": re.compile(r"[\\']").search}


def _call_arguments(text: str) -> list[tuple[int, str, str]]:
    """The arguments of a call from its text: (position or -1 after a starred one, keyword or "",
    the argument's text), the complete ones only (a text cut short loses its last)."""
    opening = text.find("(")
    if opening < 0:
        return []
    found: list[tuple[int, str, str]] = []
    depth = 0
    start = opening + 1
    position = 0
    index = start
    stops = _ARGUMENT_STOPS
    while True:
        match = stops(text, index)
        if match is None:
            break
        index = match.start()
        char = text[index]
        if char == '"' or char == "'":
            in_string = _STRING_STOPS[char]
            index += 1
            while True:
                end = in_string(text, index)
                if end is None:
                    return found  # a string cut short: no argument ends after it
                index = end.start()
                if text[index] == "\\":
                    index += 2  # the escaped character
                    continue
                break
        elif char in "([{":
            depth += 1
        elif depth and char in ")]}":
            depth -= 1
        elif (char == "," or char == ")") and not depth:
            argument = text[start:index].strip()
            if argument.startswith("*"):
                position = -1
            elif argument:
                keyword, sep, value = argument.partition("=")
                if sep and keyword.strip().isidentifier() and not value.startswith("="):
                    found.append((-1, keyword.strip(), value.strip()))
                else:
                    found.append((position, "", argument))
                    if position >= 0:
                        position += 1
            if char == ")":
                break
            start = index + 1
        index += 1
    return found


def _first_argument(call: Call) -> str | None:
    """The first argument of a call as written, from its text: a name chain (``x``, ``self.x``),
    "" for a literal or no argument, None for another expression (a call, an operator) or text
    cut short."""
    text = call.text
    opening = text.find("(")
    if opening < 0 or text.endswith("…"):
        return None
    inner = text[opening + 1 : -1] if text.endswith(")") else ""
    arguments = _call_arguments(text)
    if arguments and " for " in arguments[0][2]:
        return ""  # a generator expression: a builtin generator, whose body the function holds
    first = inner.split(",", 1)[0].strip()
    if not first:
        return ""
    if first[0] in "\"'0123456789[{-" or first[:2] in ("f'", 'f"', "b'", 'b"', "r'", 'r"'):
        return ""
    if all(part.isidentifier() for part in first.split(".")):
        return first
    return None


def _is_property(member: Definition) -> bool:
    return any(decorator in _PROPERTY_DECORATORS for decorator in member.decorators)


def _written(call: Call) -> bool:
    """A call written in the source, not one a statement makes (a with, for or raise record)."""
    return not call.text.startswith(_IMPLICIT)


def _implicit(member: Definition) -> bool:
    """A member Python calls without a call written: a dunder, a property, a setter or deleter."""
    if member.kind == "class":
        return False
    name = member.name
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        return True
    return any(
        decorator in _PROPERTY_DECORATORS or decorator.endswith((".setter", ".getter", ".deleter"))
        for decorator in member.decorators
    )


def _unknown_local(assign: Assignment) -> str:
    """How a name bound to an unknown value is known: ``unknown-attribute:<name>`` for an alias of
    an attribute (``add = items.append``), so a call of it is a call of that attribute."""
    kind, _, text = assign.value.removeprefix("?").partition(":")
    if kind == "name" and "." in text:
        return "unknown-attribute:" + text.rpartition(".")[2].removesuffix("()")
    return "unknown-local"


def _typed_first(assign: Assignment) -> tuple[int, int]:
    return (0 if assign.value.startswith(("type:", "?type:")) else 1, assign.line)


def _members(pyfile: _File, qualname: str) -> list[tuple[str, Definition]]:
    """The direct members of a definition, by qualified name (one index per file, built once)."""
    if pyfile.children is None:
        children: dict[str, list[tuple[str, Definition]]] = {}
        for q, info in sorted(pyfile.defs.items()):
            children.setdefault(q.rpartition(".")[0], []).append((q, info.definition))
        pyfile.children = children
    return pyfile.children.get(qualname, [])


def _class_attr_names(pyfile: _File) -> dict[str, list[str]]:
    """The names each class body of a file assigns, by class qualified name (built once)."""
    if pyfile.class_attr_names is None:
        names: dict[str, list[str]] = {}
        for owner, target in pyfile.class_attrs:
            names.setdefault(owner, []).append(target)
        pyfile.class_attr_names = names
    return pyfile.class_attr_names


def getattr_paths(pyfiles: Iterable[_File]) -> set[str]:
    """The paths of these files whose module defines a module-level ``__getattr__`` (PEP 562)."""
    found = set()
    for pyfile in pyfiles:
        info = pyfile.defs.get("__getattr__")
        if info is not None and info.is_callable:
            found.add(pyfile.path)
    return found


def _new_file(index: FileIndex, module: str) -> _File:
    """The tables of one module that the linker reads: its definitions (the first of a qualified
    name), class bodies, assignments (in a class body or a scope), star and bound imports."""
    is_package = index.path.endswith(("/__init__.py", "/__init__.pyi")) or index.path in (
        "__init__.py",
        "__init__.pyi",
    )
    pyfile = _File(index, module, is_package)
    for d in index.definitions:
        known = pyfile.defs.get(d.qualname)
        # the first definition of a name stands for it, unless it is a typing.overload stub: the
        # definition after the stubs is the one a call runs (and the one whose body returns)
        if known is None or (_overload(known.definition) and not _overload(d)):
            info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, _LANGUAGE)
            pyfile.defs[d.qualname] = info
    pyfile.class_lines = _class_bodies(pyfile)
    pyfile.class_scopes = frozenset(pyfile.class_lines)
    for a in index.assignments:
        owner = _class_body_at(pyfile, a.scope, a.line)
        if owner is not None:
            pyfile.class_attrs.setdefault((owner, a.target), []).append(a)
        else:
            pyfile.assigns.setdefault((a.scope, a.target), []).append(a)
    for imp in index.imports:
        if imp.star:
            pyfile.stars.setdefault(imp.scope, []).append(imp)
        elif imp.bound is not None:
            pyfile.imports.setdefault((imp.scope, imp.bound), []).append(imp)
    return pyfile


_OVERLOAD = frozenset(("overload", "typing.overload", "t.overload", "typing_extensions.overload"))


def _overload(d: Definition) -> bool:
    return bool(d.decorators) and not _OVERLOAD.isdisjoint(d.decorators)


def _class_bodies(pyfile: _File) -> dict[str, list[str | None]]:
    """Function scope -> by line, the innermost class whose body holds that line in that scope
    (a list per scope, as long as its last class body: a line's slot, not a key per line)."""
    classes = sorted(
        (info.definition.line, -info.definition.end_line, qualname)
        for qualname, info in pyfile.defs.items()
        if info.is_class
    )
    bodies: dict[str, list[str | None]] = {}
    for line, neg_end, qualname in classes:  # outer classes first: inner ones paint over them
        scope = _function_scope(pyfile, qualname.rpartition(".")[0])
        lines = bodies.get(scope)
        if lines is None:
            lines = bodies[scope] = []
        end = -neg_end + 1
        if len(lines) < end:
            lines.extend([None] * (end - len(lines)))
        lines[line:end] = [qualname] * (end - line)
    return bodies


def _class_body_at(pyfile: _File, scope: str, line: int) -> str | None:
    """The innermost class whose body holds ``line`` of the function scope ``scope``, or None."""
    lines = pyfile.class_lines.get(scope)
    if lines is None or not 0 <= line < len(lines):
        return None
    return lines[line]


def _function_scope(pyfile: _File, scope: str) -> str:
    """The nearest enclosing function scope of ``scope`` (class bodies are transparent)."""
    current = scope
    while current:
        info = pyfile.defs.get(current)
        if info is not None and not info.is_class:
            return current
        current = current.rpartition(".")[0]
    return ""


def module_table(paths: Sequence[str], import_roots: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The module name of each Python file (of ``paths``, in path order) and the file of each
    dotted module name ("" for a package with no ``__init__``): from the paths alone, so a linker
    can make a file's tables when it first reads them (``python.link.persisted``)."""
    roots = sorted({r.strip("/") for r in import_roots}, key=lambda r: (-len(r), r))
    module_of: dict[str, str] = {}
    modules: dict[str, str] = {}
    for path in paths:
        names = _module_names(path, roots)
        if not names:
            continue
        module_of[path] = names[0]
        for name in names:
            existing = modules.get(name)
            if existing is None or (existing.endswith(".pyi") and not path.endswith(".pyi")):
                modules[name] = path
    # packages that have no __init__ (namespace packages) are still modules
    for name in list(modules):
        parts = name.split(".")
        for i in range(1, len(parts)):
            modules.setdefault(".".join(parts[:i]), "")
    return module_of, modules


def _module_names(path: str, roots: list[str]) -> list[str]:
    """Every dotted name a file has, the most specific import root first."""
    if not path.endswith((".py", ".pyi")):
        return [f"<{path}>"]  # a script its shebang names Python (bin/tool): no import names it
    stem = path.rsplit(".", 1)[0]
    names: list[str] = []
    for root in [*roots, ""]:
        if root and not stem.startswith(root + "/"):
            continue
        rel = stem[len(root) + 1 :] if root else stem
        parts = rel.split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or not all(p.isidentifier() for p in parts):
            continue
        name = ".".join(parts)
        if name not in names:
            names.append(name)
    if not names:
        # a script (run-server.py, 2fa.py, my-tools/x.py, a name with a space): no import can name
        # it, yet `python run-server.py` runs it, so it keeps its nodes, edges and roots under a
        # name no import statement can spell (the brackets), which never collides with a module's
        names.append(f"<{stem}>")
    return names


def make_linker(indexes: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext) -> PythonLinker:
    return PythonLinker(
        indexes, builder, [*context.manifests.python_roots, *context.sys_path], context.max_hops
    )
