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
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from projectgraph import keys
from projectgraph.fileindex import Assignment, Call, Definition, FileIndex, Import
from projectgraph.graph import Dynamic, Site, Unresolved
from projectgraph.link.core import (
    DefInfo,
    GraphBuilder,
    Value,
    c3_linearize,
    module_node,
    node_for,
    subclasses_closure,
)

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
MAX_NAME_CANDIDATES = 8
_LANGUAGE = "python"


@dataclass
class _File:
    index: FileIndex
    module: str  # the dotted module name
    is_package: bool
    defs: dict[str, DefInfo] = field(default_factory=dict)  # by qualname
    assigns: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)  # (scope, target)
    imports: dict[tuple[str, str], list[Import]] = field(default_factory=dict)  # (scope, bound name)
    stars: dict[str, list[Import]] = field(default_factory=dict)  # scope -> star imports

    @property
    def path(self) -> str:
        return self.index.path

    @property
    def package(self) -> str:
        return self.module if self.is_package else self.module.rpartition(".")[0]


class PythonLinker:
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
        roots = sorted({r.strip("/") for r in import_roots}, key=lambda r: (-len(r), r))
        for index in sorted(indexes, key=lambda i: i.path):
            if index.language != _LANGUAGE:
                continue
            names = _module_names(index.path, roots)
            if not names:
                continue
            is_package = index.path.endswith(("/__init__.py", "/__init__.pyi")) or index.path in (
                "__init__.py",
                "__init__.pyi",
            )
            pyfile = _File(index, names[0], is_package)
            self.files[index.path] = pyfile
            for name in names:
                existing = self.modules.get(name)
                if existing is None or (existing.endswith(".pyi") and not index.path.endswith(".pyi")):
                    self.modules[name] = index.path
            for d in index.definitions:
                info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, _LANGUAGE)
                pyfile.defs.setdefault(d.qualname, info)
                self.defs.setdefault(info.key, info)
            for a in index.assignments:
                pyfile.assigns.setdefault((a.scope, a.target), []).append(a)
            for imp in index.imports:
                if imp.star:
                    pyfile.stars.setdefault(imp.scope, []).append(imp)
                elif imp.bound is not None:
                    pyfile.imports.setdefault((imp.scope, imp.bound), []).append(imp)
        # packages that have no __init__ (namespace packages) are still modules
        for name in list(self.modules):
            parts = name.split(".")
            for i in range(1, len(parts)):
                self.modules.setdefault(".".join(parts[:i]), "")
        self._depth = 0

    # ---- the whole run ----------------------------------------------------------------------
    def link(self) -> None:
        for path, pyfile in self.files.items():
            self.builder.node(module_node(path, _LANGUAGE, 0))
            for info in pyfile.defs.values():
                self.builder.node(node_for(info))
        for pyfile in self.files.values():
            self._link_file(pyfile)

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
        class_lines = {
            (info.definition.line, base) for info in pyfile.defs.values() if info.is_class
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
        elif module:
            key = keys.external(module, _LANGUAGE)
            self.builder.edge(caller, self.builder.external(key, _LANGUAGE), "imports", "import", site)

    # ---- classes --------------------------------------------------------------------------
    def _class_edges(self, pyfile: _File, info: DefInfo) -> None:
        site = Site(pyfile.path, info.definition.line, info.definition.column)
        for base in self._bases(info.key):
            if base.kind == "def":
                self.builder.edge(info.key, base.key, "extends", "extends", site)
            elif base.kind == "ext":
                self.builder.edge(info.key, self.builder.external(base.key, _LANGUAGE), "extends", "extends", site)
        # an override of a base method: the class refers to it (the rule "override")
        own = {d.name: d for q, d in _members(pyfile, info.qualname)}
        for cls in self._mro(info.key)[1:]:
            base_info = self.defs.get(cls)
            if base_info is None:
                continue
            base_file = self.files[base_info.path]
            for _q, base_def in _members(base_file, base_info.qualname):
                method = own.get(base_def.name)
                if method is not None and base_def.kind != "class":
                    own.pop(base_def.name)
                    self.builder.edge(
                        info.key,
                        keys.first_party(pyfile.path, method.qualname),
                        "references",
                        "reference",
                        Site(pyfile.path, method.line, method.column),
                        via="override",
                    )

    @cached_property
    def _bases_table(self) -> dict[str, list[Value]]:
        table: dict[str, list[Value]] = {}
        for key, info in self.defs.items():
            if not info.is_class:
                continue
            pyfile = self.files[info.path]
            scope = _function_scope(pyfile, info.qualname.rpartition(".")[0])
            values = []
            for base in info.definition.bases:
                value = self._resolve_dotted(pyfile, scope, base, info.definition.line)
                if value is not None and value.kind in ("def", "ext") and value.key != key:
                    if value.kind == "def" and not self.defs[value.key].is_class:
                        continue
                    values.append(value)
            table[key] = values
        return table

    def _bases(self, cls: str) -> list[Value]:
        return self._bases_table.get(cls, [])

    @cached_property
    def _subclasses(self) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {}
        for cls, bases in sorted(self._bases_table.items()):
            for base in bases:
                if base.kind == "def":
                    table.setdefault(base.key, []).append(cls)
        return table

    def _mro(self, cls: str) -> list[str]:
        cached = self._mro_cache.get(cls)
        if cached is None:
            bases_of = {k: [v.key for v in vs if v.kind == "def"] for k, vs in self._bases_table.items()}
            cached = c3_linearize(cls, bases_of, self.max_hops * 4)
            self._mro_cache[cls] = cached
        return cached

    @cached_property
    def _mro_cache(self) -> dict[str, list[str]]:
        return {}

    def _external_bases(self, cls: str) -> list[str]:
        found: list[str] = []
        for name in self._mro(cls):
            for base in self._bases(name):
                if base.kind == "ext" and base.key not in found:
                    found.append(base.key)
        return found

    def _class_member(self, cls: str, name: str, start: int = 0) -> DefInfo | None:
        """A member (method, nested class, lambda attribute) by name along the MRO."""
        for owner in self._mro(cls)[start:]:
            info = self.defs.get(owner)
            if info is None:
                continue
            member = self.files[info.path].defs.get(f"{info.qualname}.{name}")
            if member is not None:
                return member
        return None

    def _class_attr_value(self, cls: str, name: str) -> Value | None:
        """The value bound to ``self.name`` in a method of the class or a base, or a class attribute."""
        for owner in self._mro(cls):
            info = self.defs.get(owner)
            if info is None:
                continue
            pyfile = self.files[info.path]
            prefix = info.qualname + "."
            for (scope, target), assigns in pyfile.assigns.items():
                if target != f"self.{name}" or not scope.startswith(prefix):
                    continue
                for assign in sorted(assigns, key=_typed_first):
                    value = self._assigned_value(pyfile, scope, assign)
                    if value is not None:
                        return value
        return None

    # ---- name resolution ------------------------------------------------------------------
    def _scopes(self, pyfile: _File, scope: str) -> list[str]:
        """The scope chain of a use: the scope, enclosing function scopes, the module."""
        chain = []
        current = scope
        while current:
            info = pyfile.defs.get(current)
            if info is None or not info.is_class:
                chain.append(current)
            current = current.rpartition(".")[0]
        chain.append("")
        return chain

    def _lookup(self, pyfile: _File, scope: str, name: str, line: int) -> tuple[Value | None, str]:
        """Resolve a bare name: (value, how) with how in def, import, assign, wildcard, param, builtin."""
        self._depth += 1
        try:
            if self._depth > self.max_hops * 4:
                return None, "limit"
            for index, current in enumerate(self._scopes(pyfile, scope)):
                found = self._lookup_in(pyfile, current, name, line if index == 0 else None)
                if found[1] != "none":
                    return found
            if name in BUILTINS:
                return Value("ext", f"builtins//{name}"), "builtin"
            return None, "none"
        finally:
            self._depth -= 1

    def _lookup_in(self, pyfile: _File, scope: str, name: str, line: int | None) -> tuple[Value | None, str]:
        candidates: list[tuple[int, int, str, object]] = []
        qualname = f"{scope}.{name}" if scope else name
        info = pyfile.defs.get(qualname)
        if info is not None:
            candidates.append((info.definition.line, 2, "def", info))
        for imp in pyfile.imports.get((scope, name), ()):
            candidates.append((imp.line, 1, "import", imp))
        for assign in pyfile.assigns.get((scope, name), ()):
            candidates.append((assign.line, 0, "assign", assign))
        if not candidates and scope:
            param = self._param(pyfile, scope, name)
            if param is not None:
                return param
        if not candidates:
            for star in pyfile.stars.get(scope, ()):
                value = self._from_star(pyfile, star, name)
                if value is not None:
                    return value, "wildcard"
            return None, "none"
        before = [c for c in candidates if line is None or c[0] <= line]
        chosen = max(before or candidates, key=lambda c: (c[0], c[1]))
        how, item = chosen[2], chosen[3]
        if how == "def":
            assert isinstance(item, DefInfo)
            return Value("def", item.key), "def"
        if how == "import":
            assert isinstance(item, Import)
            return self._import_value(pyfile, item), "import"
        assert isinstance(item, Assignment)
        value = self._assigned_value(pyfile, scope, item)
        return value, "assign" if value is not None else "unknown-local"

    def _param(self, pyfile: _File, scope: str, name: str) -> tuple[Value | None, str] | None:
        info = pyfile.defs.get(scope)
        if info is None:
            return None
        params = info.definition.params
        for position, param in enumerate(params):
            if param.name != name:
                continue
            if param.type:
                value = self._type_value(pyfile, scope.rpartition(".")[0], param.type, info.definition.line)
                return value, "param"
            owner = pyfile.defs.get(scope.rpartition(".")[0])
            if position == 0 and owner is not None and owner.is_class:
                decorators = info.definition.decorators
                if "staticmethod" in decorators:
                    return None, "param"
                if "classmethod" in decorators:
                    return Value("def", owner.key), "param"
                return Value("inst", owner.key), "param"
            return None, "param"
        return None

    def _type_value(self, pyfile: _File, scope: str, type_name: str, line: int) -> Value | None:
        value = self._resolve_dotted(pyfile, scope, type_name, line)
        if value is None:
            return None
        if value.kind == "def" and self.defs[value.key].is_class:
            return Value("inst", value.key)
        if value.kind == "ext":
            return Value("inst_ext", value.key)
        return None

    def _assigned_value(self, pyfile: _File, scope: str, assign: Assignment) -> Value | None:
        kind, _, text = assign.value.partition(":")
        if kind == "type":
            return self._type_value(pyfile, scope, text, assign.line)
        if kind == "call":
            return self._call_result(pyfile, scope, text, assign.line)
        if kind == "name":
            if text == assign.target:
                return None
            return self._resolve_dotted(pyfile, scope, text, assign.line)
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
            exported = {e.name for e in target.index.exports}
            if exported and name not in exported:
                return None
            return self._module_member(module, name, allow_submodule=False)
        if module and not name.startswith("_"):
            # a star import of an external module may bring in any public name
            return Value("ext", keys.external(module, _LANGUAGE, name))
        return None

    def _module_member(self, module: str, name: str, allow_submodule: bool = True) -> Value | None:
        path = self.modules.get(module, "")
        target = self.files.get(path) if path else None
        if target is not None:
            self._depth += 1
            try:
                if self._depth <= self.max_hops * 4:
                    value, how = self._lookup_in(target, "", name, None)
                    if how != "none" and value is not None:
                        return value
            finally:
                self._depth -= 1
        if allow_submodule and f"{module}.{name}" in self.modules:
            return Value("module", f"{module}.{name}")
        return None

    def _resolve_dotted(self, pyfile: _File, scope: str, text: str, line: int) -> Value | None:
        """Resolve ``a.b().c``: the first name by scope, then attributes and call results."""
        parts = text.split(".")
        head = parts[0]
        call = head.endswith("()")
        value, _how = self._lookup(pyfile, scope, head.removesuffix("()"), line)
        if call:
            value = self._result_of(value)
        for part in parts[1:]:
            if value is None:
                return None
            call = part.endswith("()")
            value = self._attribute(value, part.removesuffix("()"))
            if call:
                value = self._result_of(value)
        return value

    def _call_result(self, pyfile: _File, scope: str, callee: str, line: int) -> Value | None:
        return self._result_of(self._resolve_dotted(pyfile, scope, callee, line))

    def _attribute(self, value: Value, name: str) -> Value | None:
        if value.kind == "module":
            return self._module_member(value.key, name)
        if value.kind in ("ext", "inst_ext"):
            return Value("ext", keys.join(value.key, name))
        if value.kind == "def":
            info = self.defs[value.key]
            if info.is_class:
                member = self._class_member(value.key, name)
                if member is not None:
                    return Value("def", member.key)
                for base in self._external_bases(value.key):
                    return Value("ext", keys.join(base, name))
            return None
        if value.kind == "inst":
            attr = self._class_attr_value(value.key, name)
            if attr is not None:
                return attr
            member = self._class_member(value.key, name)
            if member is not None:
                return Value("def", member.key)
            for base in self._external_bases(value.key):
                return Value("ext", keys.join(base, name))
        return None

    def _result_of(self, value: Value | None) -> Value | None:
        """The value a call of ``value`` returns, as far as records show it."""
        if value is None:
            return None
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
        return None

    def _returns(self, info: DefInfo) -> Value | None:
        self._depth += 1
        try:
            if self._depth > self.max_hops * 4:
                return None
            pyfile = self.files[info.path]
            scope = info.qualname
            outer = _function_scope(pyfile, scope.rpartition(".")[0])
            for fact in info.definition.returns:
                kind, sep, text = fact.partition(":")
                if not sep:  # an annotation
                    value = self._type_value(pyfile, outer, fact, info.definition.line)
                elif kind == "call":
                    value = self._call_result(pyfile, scope, text, info.definition.end_line)
                else:
                    value = self._resolve_dotted(pyfile, scope, text, info.definition.end_line)
                if value is not None:
                    return value
            return None
        finally:
            self._depth -= 1

    # ---- calls ----------------------------------------------------------------------------
    def _call(self, pyfile: _File, call: Call) -> None:
        caller = self._caller(pyfile, call.scope)
        site = Site(pyfile.path, call.line, call.column)
        if call.callee == "<expr>":
            self._unresolved(caller, site, "computed-name", "", call.text)
            return
        if call.receiver is None:
            value, how = self._lookup(pyfile, call.scope, call.name, call.line)
            if value is None:
                if how == "param":
                    self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
                elif how in ("unknown-local", "limit"):
                    reason = "limit" if how == "limit" else "computed-name"
                    self._unresolved(caller, site, reason, call.name, call.text)
                else:
                    self._unresolved(caller, site, "no-definition", call.name, call.text)
                return
            kind = {"assign": "assignment", "wildcard": "wildcard"}.get(how, "direct")
            self._call_value(caller, site, value, kind, call)
            return
        if call.super_call:
            self._super_call(pyfile, caller, site, call)
            return
        receiver = None if call.receiver == "<expr>" else self._resolve_dotted(
            pyfile, call.scope, call.receiver, call.line
        )
        if receiver is None:
            self._unknown_receiver(caller, site, call)
            return
        if receiver.kind == "inst":
            self._method_call(caller, site, receiver.key, call)
            return
        target = self._attribute(receiver, call.name)
        if target is None:
            if receiver.kind == "def" and self.defs[receiver.key].is_class:
                self._unresolved(caller, site, "no-definition", call.name, call.text)
            else:
                self._unknown_receiver(caller, site, call)
            return
        kind = "member" if receiver.kind == "def" else "direct"
        self._call_value(caller, site, target, kind, call)

    def _call_value(self, caller: str, site: Site, value: Value, kind: str, call: Call) -> None:
        if value.kind == "def":
            info = self.defs[value.key]
            self.builder.edge(caller, value.key, "calls", kind, site)
            if info.is_class:
                init = self._class_member(value.key, "__init__")
                if init is not None:
                    self.builder.edge(caller, init.key, "calls", kind, site)
                else:
                    for base in self._external_bases(value.key)[:1]:
                        ext = self.builder.external(keys.join(base, "__init__"), _LANGUAGE)
                        self.builder.edge(caller, ext, "calls", kind, site)
            return
        if value.kind == "ext":
            self.builder.edge(caller, self.builder.external(value.key, _LANGUAGE), "calls", kind, site)
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

    def _method_call(self, caller: str, site: Site, cls: str, call: Call) -> None:
        attr = self._class_attr_value(cls, call.name)
        if attr is not None:
            self._call_value(caller, site, attr, "assignment", call)
            return
        member = self._class_member(cls, call.name)
        if member is not None:
            self.builder.edge(caller, member.key, "calls", "member", site)
            if member.is_class:
                init = self._class_member(member.key, "__init__")
                if init is not None:
                    self.builder.edge(caller, init.key, "calls", "member", site)
        else:
            bases = self._external_bases(cls)
            if bases:
                key = self.builder.external(keys.join(bases[0], call.name), _LANGUAGE)
                self.builder.edge(caller, key, "calls", "member", site)
            else:
                self._unresolved(caller, site, "no-definition", call.name, call.text)
        # class hierarchy analysis: an override in each subclass may run instead
        for sub in subclasses_closure(self._subclasses, cls):
            info = self.defs[sub]
            override = self.files[info.path].defs.get(f"{info.qualname}.{call.name}")
            if override is not None and (member is None or override.key != member.key):
                self.builder.edge(caller, override.key, "calls", "cha", site)

    def _super_call(self, pyfile: _File, caller: str, site: Site, call: Call) -> None:
        cls = self._enclosing_class(pyfile, call.scope)
        if cls is None:
            self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
            return
        member = self._class_member(cls, call.name, start=1)
        if member is not None:
            self.builder.edge(caller, member.key, "calls", "member", site)
            return
        bases = self._external_bases(cls)
        if bases:
            key = self.builder.external(keys.join(bases[0], call.name), _LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
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
        candidates = self._by_name.get(call.name, [])
        if 0 < len(candidates) <= MAX_NAME_CANDIDATES:
            for info in candidates:
                self.builder.edge(caller, info.key, "calls", "name", site)

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
    def decorator_edges(self) -> None:
        """A first-party decorator gets the function it decorates (and may call it)."""
        for pyfile in self.files.values():
            for info in pyfile.defs.values():
                d = info.definition
                scope = _function_scope(pyfile, d.qualname.rpartition(".")[0])
                for decorator in d.decorators:
                    if decorator == "<expr>":
                        continue
                    value = self._resolve_dotted(pyfile, scope, decorator, d.line)
                    if value is not None and value.kind == "def":
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
                                    call.key, info.key, "references", "reference",
                                    Site(pyfile.path, d.line, d.column), via="decorator",
                                )

    # ---- what roots need ------------------------------------------------------------------
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


def _typed_first(assign: Assignment) -> tuple[int, int]:
    return (0 if assign.value.startswith("type:") else 1, assign.line)


def _members(pyfile: _File, qualname: str) -> list[tuple[str, Definition]]:
    prefix = qualname + "."
    return sorted(
        (q, info.definition)
        for q, info in pyfile.defs.items()
        if q.startswith(prefix) and "." not in q[len(prefix) :]
    )


def _function_scope(pyfile: _File, scope: str) -> str:
    """The nearest enclosing function scope of ``scope`` (class bodies are transparent)."""
    current = scope
    while current:
        info = pyfile.defs.get(current)
        if info is not None and not info.is_class:
            return current
        current = current.rpartition(".")[0]
    return ""


def _module_names(path: str, roots: list[str]) -> list[str]:
    """Every dotted name a file has, the most specific import root first."""
    if not path.endswith((".py", ".pyi")):
        return []
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
    return names
