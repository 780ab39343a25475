"""The Rust resolver: crates and module trees, use paths, impl blocks, receiver types, trait dispatch.

Crates. Each folder with a Cargo.toml (read from the project root; without one, the folder above
``src/``) is a package: its lib (``[lib] path`` or ``src/lib.rs``) and its binaries, examples,
tests, benches and ``build.rs`` are crate roots. The module tree follows ``mod foo;`` to
``foo.rs`` or ``foo/mod.rs`` (from a ``mod.rs``/crate root, in its folder; from ``a/b.rs``, in
``a/b/``) and ``#[path]``; an inline ``mod`` is a module of its file. A file no ``mod`` reaches is a
module of its own in its package's crate. ``[dependencies]`` (every table of them) give the crate
names that code writes; ``helper = { package = "kit" }`` renames: ``helper::serve`` is the
external key ``helper//serve`` (the written name, as the seed says), whose node notes the crate
``kit``. A dependency that is a package of the project resolves into its module tree.

Paths resolve as rustc does, as far as records show: ``crate``/``self``/``super``, the items of the
function scopes, the module's items, ``use`` bindings (any visibility) and glob imports, extern
crates, the std prelude, primitive types. A path whose first segment is none of these is an extern
crate (the 2018 rule). ``core::`` and ``alloc::`` keys are written ``std//``.

Receivers. ``self`` is the impl's type; a parameter, a field, a ``let`` binds its declared type,
else the type of its value's chain: an associated function (``Type::from_vec(v)``) or a method
gives its return type, ``unwrap``/``expect``/``?`` give the ``T`` of an ``Option``/``Result``;
``clone``/``to_owned`` keep the type, and so do ``Type::default()``/``Type::from()`` of a derive.
A type's methods come from its impl blocks (inherent first), then the default methods of the traits
it implements, then derived traits. A trait type (``&dyn Trait``, ``impl Trait``, ``T: Trait``)
gets a member edge to the trait's default method and ``cha`` edges to the method of each impl
(blanket impls included); a first-party trait with neither is a ``trait-receiver`` site, and so is
a call with more than ``MAX_CHA`` impls (the record keeps the method name, which scopes it). A trait
or type of a dependency gets the edge to its external key, plus the ``cha`` edges to the project's
impls of it. A type's trait impl methods are referred to by the type (the rule ``override``):
what constructs it reaches what external code calls on it (``Drop``, ``Display``, ``Iterator``).

Units of dependency code (``projectgraph.languages.rust.units``). A unit linked as a project of its own
(``context.unit``) reads its Cargo.toml at the unit's root: its crate is the unit, and each public
item's external key is its shortest public path (``public_paths``), as ``smallvec//SmallVec`` for
an item of a private module the root gives on with ``pub use``. A project linked beside cargo units
(``context.units``) reads the return type of a unit's public function or method through that path
(``helper::make()`` of a renamed ``kit`` gives ``kit//Tool``, whose ``run`` is ``kit//Tool//run``);
with units, a renamed crate's external node keeps its written key and a ``package`` edge goes on
to the unit's key (``helper//serve`` -> ``kit//serve``), whose own ``package`` edge reaches the
definition. A call on a trait object or bound of a unit's trait gets ``cha`` edges to the impls
its crate gives, at their external keys. ``unit_surface`` gives ``link/units.py`` the external
keys of a unit's definitions.

Function values. A closure is a node of its own (``f$1``, see the extractor); a name a ``let``
binds to one (or to ``Box::new`` of one, or to the result of a function whose body ends in one) is
an ``assignment`` edge to it where it is called, and a closure called where it is written is a
direct edge; a closure sees the bindings of the functions around it. A call of a parameter (``f:
impl Fn()``, ``F: Fn()``, ``fn(i32) -> i32``) is a covered ``computed-name`` site plus an edge
(kind ``reference``) to each function and closure referred to on the line of a call of its
function (the index gives no argument positions). A function whose declared result is a trait
(``Box<dyn Shape>``, ``impl Shape``) returns the concrete types its body ends in when the records
give them (``Box::new(Circle)``): a call on its result runs their methods, not every impl's.

What stays unknown is an unresolved site: ``unknown-receiver`` (with ``name`` edges, low, to the
project methods of that name when few), ``no-dependency-source`` (a method on what an external
function returned), ``no-definition``, ``trait-receiver``, ``computed-name`` (a call of a parameter
or of an expression).
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from projectgraph import keys
from projectgraph.fileindex import Assignment, Call, FileIndex, Import, Reference
from projectgraph.graph import NO_SITE, Site, Unresolved
from projectgraph.link import gates
from projectgraph.link.core import (
    DefInfo,
    GraphBuilder,
    LinkContext,
    Surface,
    Value,
    enclosing_key,
    module_node,
    node_for,
    value_target,
)
from projectgraph.manifests import Manifests, read_controls

LANGUAGE = "rust"
MAX_CHA = 64
DEFAULT_HOPS = 10
_STD_CRATES = {"std": "std", "core": "std", "alloc": "std"}
_TYPE_KINDS = frozenset(("struct", "enum", "union", "trait", "type"))
_VALUE_KINDS = frozenset(("function", "method", "macro", "struct"))
PRIMITIVES = frozenset(
    "bool char str i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 slice array".split()
)
PRELUDE = {
    "Vec": "std//vec//Vec",
    "String": "std//string//String",
    "Box": "std//boxed//Box",
    "Option": "std//option//Option",
    "Result": "std//result//Result",
    "ToString": "std//string//ToString",
    "ToOwned": "std//borrow//ToOwned",
    "Clone": "std//clone//Clone",
    "Copy": "std//marker//Copy",
    "Send": "std//marker//Send",
    "Sync": "std//marker//Sync",
    "Sized": "std//marker//Sized",
    "Unpin": "std//marker//Unpin",
    "Default": "std//default//Default",
    "Drop": "std//ops//Drop",
    "Fn": "std//ops//Fn",
    "FnMut": "std//ops//FnMut",
    "FnOnce": "std//ops//FnOnce",
    "Iterator": "std//iter//Iterator",
    "IntoIterator": "std//iter//IntoIterator",
    "DoubleEndedIterator": "std//iter//DoubleEndedIterator",
    "ExactSizeIterator": "std//iter//ExactSizeIterator",
    "Extend": "std//iter//Extend",
    "FromIterator": "std//iter//FromIterator",
    "From": "std//convert//From",
    "Into": "std//convert//Into",
    "TryFrom": "std//convert//TryFrom",
    "TryInto": "std//convert//TryInto",
    "AsRef": "std//convert//AsRef",
    "AsMut": "std//convert//AsMut",
    "PartialEq": "std//cmp//PartialEq",
    "Eq": "std//cmp//Eq",
    "PartialOrd": "std//cmp//PartialOrd",
    "Ord": "std//cmp//Ord",
    "drop": "std//mem//drop",
}
VARIANTS = {
    "Some": "std//option//Option",
    "None": "std//option//Option",
    "Ok": "std//result//Result",
    "Err": "std//result//Result",
}
STD_MACROS = frozenset(
    """assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne print println eprint
    eprintln format format_args write writeln panic todo unimplemented unreachable vec dbg matches
    concat stringify include include_str include_bytes env option_env cfg line column file
    module_path compile_error thread_local try is_x86_feature_detected concat_idents addr_of""".split()
)
DERIVED = {
    "clone": "std//clone//Clone//clone",
    "clone_from": "std//clone//Clone//clone_from",
    "default": "std//default//Default//default",
    "eq": "std//cmp//PartialEq//eq",
    "ne": "std//cmp//PartialEq//ne",
    "cmp": "std//cmp//Ord//cmp",
    "partial_cmp": "std//cmp//PartialOrd//partial_cmp",
    "hash": "std//hash//Hash//hash",
    "fmt": "std//fmt//Debug//fmt",
    "to_string": "std//string//ToString//to_string",
    "to_owned": "std//borrow//ToOwned//to_owned",
    "into": "std//convert//Into//into",
    "try_into": "std//convert//TryInto//try_into",
    "from": "std//convert//From//from",
}
KEEP_TYPE = frozenset(
    (
        "clone",
        "to_owned",
        "default",
        "from",
        "borrow",
        "borrow_mut",
        "as_ref",
        "as_mut",
        "deref",
        "deref_mut",
        "lock",
        "read",
        "write",
        "get_mut",
        "by_ref",
    )
)
# methods of Option/Result that give the same wrapper of the same type
WRAP_KEEP = frozenset(
    (
        "as_ref",
        "as_mut",
        "clone",
        "take",
        "cloned",
        "copied",
        "as_deref",
        "as_deref_mut",
        "or",
        "or_else",
        "filter",
        "replace",
        "inspect",
    )
)
UNWRAPS = frozenset(
    ("unwrap", "expect", "unwrap_or", "unwrap_or_else", "unwrap_or_default", "unwrap_unchecked")
)
# Methods of std types that an unknown receiver far more likely calls than a project method: no
# name edge for them (the site stays an unresolved record).
COMMON_METHODS = frozenset(
    """iter iter_mut into_iter len is_empty push pop insert remove get get_mut contains contains_key
    clone map and_then unwrap expect collect into as_ref as_mut as_str to_string to_owned borrow
    borrow_mut lock read write next extend join split trim starts_with ends_with find filter fold
    for_each any all count sum min max sort sort_by sort_by_key entry or_insert or_default keys values
    send recv spawn ok err is_some is_none is_ok is_err ok_or ok_or_else map_err unwrap_or
    unwrap_or_else unwrap_or_default as_slice to_vec chars bytes lines parse fmt eq ne cmp hash drop
    take replace flush write_all write_str write_fmt push_str with_capacity capacity clear truncate
    retain dedup reverse first last zip enumerate rev skip chain cloned copied flatten flat_map
    filter_map position windows chunks as_bytes deref deref_mut index call poll as_ptr min_by_key
    max_by_key partial_cmp try_into try_from from default len_utf8 split_at peek get_or_insert_with
    values_mut drain append""".split()
)
_TOKEN = re.compile(r"::|\.|\(\)|\?|[A-Za-z_][A-Za-z0-9_]*|\d+")


class _Ty(NamedTuple):
    """A receiver type: the candidate types (def, ext) and a wrapper (Option/Result), or a mark:
    ``closure`` (a closure value) or ``extern`` (what an external function returned)."""

    types: tuple[Value, ...]
    wrap: str = ""


_CLOSURE = _Ty((), "closure")
_EXTERN = _Ty((), "extern")


@dataclass
class _Crate:
    name: str  # as code writes it ('-' read as '_')
    package: str  # the package folder ("" at the root)
    deps: dict[str, str] = field(default_factory=dict)  # written name -> crate name
    root: _Mod | None = None
    lib: bool = False
    manifest: bool = False  # a Cargo.toml was read
    edition: str = "2018"  # 2015: a use path starts at the crate root


@dataclass(eq=False)
class _Mod:
    key: str  # the node key: the file path, or path//inline//module
    path: str
    prefix: str  # qualified name of the module inside its file ("" for a file module)
    crate: _Crate
    parent: _Mod | None
    name: str
    children: dict[str, _Mod] = field(default_factory=dict)


@dataclass
class _File:
    index: FileIndex
    defs: dict[str, DefInfo] = field(default_factory=dict)
    # parent qualname -> name -> definitions (an item and a module may share a name)
    items: dict[str, dict[str, list[DefInfo]]] = field(default_factory=dict)
    uses: dict[str, dict[str, list[Import]]] = field(default_factory=dict)  # scope -> bound -> imports
    globs: dict[str, list[Import]] = field(default_factory=dict)  # scope -> star imports
    assigns: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)
    assign_lines: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    modules: dict[str, _Mod] = field(default_factory=dict)  # prefix -> module

    @property
    def path(self) -> str:
        return self.index.path


class _ImplTables(NamedTuple):
    """What the impl blocks of the linked files say, read once."""

    methods: dict[str, dict[str, list[DefInfo]]]  # type key -> method name -> its methods
    implementors: dict[str, list[str]]  # trait key -> type keys ("" blanket)
    impl_traits: dict[str, list[str]]  # type key -> trait keys
    trait_impl_methods: dict[str, dict[str, list[DefInfo]]]  # trait key -> method name -> impl methods


class _Ctx(NamedTuple):
    file: _File
    scope: str
    module: _Mod


class RustLinker:
    languages = (LANGUAGE,)

    def __init__(
        self, indexes: Iterable[FileIndex], builder: GraphBuilder, context: LinkContext, unit: Any = None
    ) -> None:
        self.builder = builder
        own = context.unit if context.unit is not None and context.unit.ecosystem == "cargo" else None
        self.unit = unit if unit is not None else own
        # a unit's Cargo.toml is at its root: its crate name, its dependencies and their renames
        self.root = context.root if context.root is not None or self.unit is None else self.unit.root
        self.controls = context.manifests.controls  # the Cargo.toml files, read before the link
        self.max_hops = context.max_hops
        self.files: dict[str, _File] = {}
        self.defs: dict[str, DefInfo] = {}
        self._guesses = gates.MethodGuesses(self.defs.values(), COMMON_METHODS)
        for index in sorted(indexes, key=lambda i: i.path):
            if index.language != LANGUAGE:
                continue
            rfile = _File(index)
            self.files[index.path] = rfile
            for d in index.definitions:
                info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, LANGUAGE)
                rfile.defs.setdefault(d.qualname, info)
                self.defs.setdefault(info.key, info)
                parent, _, name = d.qualname.rpartition(".")
                rfile.items.setdefault(parent, {}).setdefault(name, []).append(info)
            for imp in index.imports:
                if imp.kind != "use":
                    continue
                if imp.star:
                    rfile.globs.setdefault(imp.scope, []).append(imp)
                elif imp.bound is not None:
                    rfile.uses.setdefault(imp.scope, {}).setdefault(imp.bound, []).append(imp)
            for a in index.assignments:
                rfile.assigns.setdefault((a.scope, a.target), []).append(a)
        self.crates: list[_Crate] = []
        self.libs: dict[str, _Crate] = {}  # crate name -> lib crate of the project
        self._renamed: dict[str, str] = {}  # written external crate -> real crate name
        self._build_modules()
        self.units = _RustUnits(context, self)
        self._depth = 0
        self._resolving: set[tuple[str, str]] = set()
        self._cache: dict[tuple[str, str, str], Value | None] = {}
        self._assigned_memo: dict[tuple[str, str, Assignment], _Ty | None] = {}
        self._macro_use: dict[int, list[str]] = {}
        self._externs: dict[int, dict[str, str]] = {}
        self._impls: _ImplTables | None = None  # made by _tables on first use

    # ---- crates and module trees -------------------------------------------------------------
    def _build_modules(self) -> None:
        packages: dict[str, list[str]] = {}
        for path in self.files:
            packages.setdefault(self._package_of(path), []).append(path)
        claimed: dict[str, _Mod] = {}
        for folder in sorted(packages):
            paths = set(packages[folder])
            manifest = self._read_cargo(folder)
            base = f"{folder}/" if folder else ""
            name = _crate_name(
                manifest.get("lib_name") or manifest.get("name") or posixpath.basename(folder) or "crate"
            )
            deps = manifest.get("deps", {})
            roots: list[tuple[str, str, bool]] = []  # (file, crate name, is lib)
            lib_path = manifest.get("lib_path") or f"{base}src/lib.rs"
            if lib_path in paths:
                roots.append((lib_path, name, True))
            for candidate in sorted(paths):
                rel = candidate[len(base) :]
                if (
                    rel in ("src/main.rs", "build.rs")
                    or re.fullmatch(r"(src/bin|examples|tests|benches)/[^/]+\.rs", rel)
                    or re.fullmatch(r"(src/bin|examples|tests|benches)/[^/]+/main\.rs", rel)
                    or candidate in manifest.get("bins", ())
                ):
                    stem = posixpath.splitext(posixpath.basename(rel))[0]
                    if stem == "main" and rel != "src/main.rs":
                        stem = posixpath.basename(posixpath.dirname(rel))
                    roots.append((candidate, _crate_name(stem if rel != "src/main.rs" else name), False))
            for root_path, crate_name, is_lib in roots:
                if root_path in claimed:
                    continue
                crate = _Crate(crate_name, folder, dict(deps), lib=is_lib, manifest=bool(manifest),
                               edition=manifest.get("edition", "2018"))  # fmt: skip
                if not is_lib and name not in crate.deps and (lib_path in paths):
                    crate.deps[name] = name  # a binary, test or example uses its package's lib
                module = _Mod(root_path, root_path, "", crate, None, crate_name)
                crate.root = module
                self.crates.append(crate)
                if is_lib:
                    self.libs.setdefault(crate_name, crate)
                self._walk(module, claimed)
            default = next((c for c in self.crates if c.package == folder and c.lib), None) or next(
                (c for c in self.crates if c.package == folder), None
            )
            for orphan in sorted(paths - set(claimed)):
                if default is None:
                    default = _Crate(name, folder, dict(deps), manifest=bool(manifest),
                                     edition=manifest.get("edition", "2018"))  # fmt: skip
                    self.crates.append(default)
                stem = posixpath.splitext(posixpath.basename(orphan))[0]
                module = _Mod(orphan, orphan, "", default, None, stem)
                if default.root is None:
                    default.root = module
                self._walk(module, claimed)
        for crate in self.crates:
            for written, real in crate.deps.items():
                if written != real and real not in self.libs:
                    self._renamed.setdefault(written, real)

    def _walk(self, module: _Mod, claimed: dict[str, _Mod]) -> None:
        """Claim ``module``'s file and follow its ``mod`` declarations and inline modules."""
        rfile = self.files[module.path]
        claimed[module.path] = module
        rfile.modules[""] = module
        inline = sorted(
            (info for info in rfile.defs.values() if info.definition.kind == "module"),
            key=lambda i: i.qualname.count("."),
        )
        for info in inline:
            parent = rfile.modules.get(info.qualname.rpartition(".")[0])
            if parent is None:
                continue  # a module inside a function: its items are the function's
            child = _Mod(info.key, module.path, info.qualname, module.crate, parent, info.definition.name)
            parent.children.setdefault(child.name, child)
            rfile.modules[info.qualname] = child
        for imp in rfile.index.imports:
            if imp.kind != "mod" or imp.name is None:
                continue
            parent = rfile.modules.get(imp.scope)
            if parent is None:
                continue
            if parent.prefix == imp.name and imp.module and parent.prefix in rfile.modules:
                continue  # the #[path] of an inline module: its items are in this file
            target = self._mod_file(module, parent, imp)
            if target is None or target in claimed:
                if target is not None and imp.name not in parent.children:
                    parent.children[imp.name] = claimed[target]
                continue
            child = _Mod(target, target, "", module.crate, parent, imp.name)
            parent.children[imp.name] = child
            self._walk(child, claimed)

    def _mod_file(self, file_module: _Mod, parent: _Mod, imp: Import) -> str | None:
        path = file_module.path
        folder = posixpath.dirname(path)
        stem = posixpath.splitext(posixpath.basename(path))[0]
        mod_rs = stem == "mod" or file_module.parent is None
        inline = [p for p in parent.prefix.split(".") if p] if parent.prefix else []
        if imp.module:  # #[path = "..."]: relative to the folder of the file (and inline modules)
            base = folder if mod_rs or not inline else posixpath.join(folder, stem)
            candidate = posixpath.normpath(posixpath.join(base, *inline, imp.module))
            return candidate if candidate in self.files else None
        base = folder if mod_rs else posixpath.join(folder, stem)
        base = posixpath.join(base, *inline) if inline else base
        name = str(imp.name)
        for written in (posixpath.join(base, f"{name}.rs"), posixpath.join(base, name, "mod.rs")):
            candidate = posixpath.normpath(written)
            if candidate in self.files:
                return candidate
        return None

    def _package_of(self, path: str) -> str:
        folder = posixpath.dirname(path)
        if self.root is not None:
            current = folder
            while True:
                if self.controls.exists(f"{current}/Cargo.toml" if current else "Cargo.toml"):
                    return current
                if not current:
                    break
                current = posixpath.dirname(current)
        parts = path.split("/")
        for marker in ("src", "tests", "examples", "benches"):
            if marker in parts[:-1]:
                return "/".join(parts[: len(parts) - 1 - parts[::-1].index(marker) - 1])
        return folder

    def _read_cargo(self, folder: str) -> dict[str, Any]:
        if self.root is None:
            return {}
        path = f"{folder}/Cargo.toml" if folder else "Cargo.toml"
        try:
            data = tomllib.loads(self.controls.read_text(path))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            return {}
        out: dict[str, Any] = {}
        package = data.get("package") or {}
        if isinstance(package, dict) and isinstance(package.get("name"), str):
            out["name"] = package["name"]
        edition = package.get("edition", "2015") if isinstance(package, dict) else "2015"
        out["edition"] = edition if isinstance(edition, str) else "2018"  # `edition.workspace = true`
        base = f"{folder}/" if folder else ""
        lib = data.get("lib") or {}
        if isinstance(lib, dict):
            if isinstance(lib.get("name"), str):
                out["lib_name"] = lib["name"]
            if isinstance(lib.get("path"), str):
                out["lib_path"] = posixpath.normpath(base + lib["path"])
        bins = []
        for table in ("bin", "example", "test", "bench"):
            for target in data.get(table) or []:
                if isinstance(target, dict) and isinstance(target.get("path"), str):
                    bins.append(posixpath.normpath(base + target["path"]))
        out["bins"] = tuple(bins)
        deps: dict[str, str] = {}
        for dependencies in _dependency_tables(data):
            for written, spec in dependencies.items():
                real = spec.get("package") if isinstance(spec, dict) else None
                deps[_crate_name(written)] = _crate_name(real if isinstance(real, str) else written)
        out["deps"] = deps
        return out

    # ---- the whole run -------------------------------------------------------------------------
    def link(self) -> None:
        for path, rfile in self.files.items():
            self.builder.node(module_node(path, LANGUAGE))
            for info in rfile.defs.values():
                self.builder.node(node_for(info))
        for rfile in self.files.values():
            self._link_file(rfile)
        # a renamed dependency keeps its written name in keys; its nodes say which crate it is
        for written, real in sorted(self._renamed.items()):
            for key, node in list(self.builder.nodes.items()):
                if (
                    node.kind == "external"
                    and node.language == LANGUAGE
                    and (key == written or key.startswith(written + keys.SEP))
                ):
                    real_key = real + key[len(written) :]
                    self.builder.nodes[key] = node._replace(
                        doc=f"crate {real} (Cargo.toml renames it {written}): {real_key}"
                    )
                    if self.units.active:  # on to the key the unit's definition has, and its package edge
                        target = self.builder.external(real_key, LANGUAGE)
                        self.builder.edge(key, target, "calls", "package", NO_SITE)
        # the public items of a lib crate stand for the key another crate writes for them
        for key, external in sorted(self.public_paths().items()):
            public = self.builder.nodes.get(key)
            if public is not None and not public.external:
                self.builder.nodes[key] = public._replace(external=external)

    def public_paths(self) -> dict[str, str]:
        """The shortest public path of each public item of the project's lib crates, as an external
        key (``shop//Product`` for an ``Item`` of a private module that the root gives on with
        ``pub use``); a method of a public type is the type's path and its name."""
        found: dict[str, str] = {}
        for crate in sorted(self.libs.values(), key=lambda c: c.name):
            if crate.root is None:
                continue
            queue: list[tuple[_Mod, tuple[str, ...]]] = [(crate.root, (crate.name,))]
            seen: set[str] = set()
            while queue:
                queue.sort(key=lambda entry: (len(entry[1]), entry[1]))
                level = [entry for entry in queue if len(entry[1]) == len(queue[0][1])]
                queue = queue[len(level) :]
                for module, path in level:
                    if module.key in seen:
                        continue
                    seen.add(module.key)
                    queue += self._public_level(module, path, found)
        return found

    def _public_level(
        self, module: _Mod, path: tuple[str, ...], found: dict[str, str]
    ) -> list[tuple[_Mod, tuple[str, ...]]]:
        """Record the public items of one module at ``path``; the public modules under it."""
        rfile = self.files[module.path]
        below: list[tuple[_Mod, tuple[str, ...]]] = []

        def record(key: str, name: str) -> None:
            external = keys.SEP.join((*path, name))
            found.setdefault(key, external)
            info = self.defs.get(key)
            if info is not None and info.definition.kind in ("struct", "enum", "union", "trait"):
                for method, infos in sorted(self.methods.get(key, {}).items()):
                    for method_info in infos:
                        if method_info.definition.exported:
                            found.setdefault(method_info.key, keys.join(external, method))
                if info.definition.kind == "trait":
                    for member in self.files[info.path].items.get(info.qualname, {}).values():
                        for member_info in member:
                            found.setdefault(
                                member_info.key, keys.join(external, member_info.definition.name)
                            )

        for name, infos in sorted(rfile.items.get(module.prefix, {}).items()):
            for info in infos:
                if info.definition.exported and info.definition.kind != "module":
                    record(info.key, name)
        public_mods = {e.name for e in rfile.index.exports if e.module is None and not e.star}
        for name, child in sorted(module.children.items()):
            inline = rfile.defs.get(child.prefix) if child.path == module.path else None
            if (inline is not None and inline.definition.exported) or (
                child.path != module.path and name in public_mods
            ):
                below.append((child, (*path, name)))
        scope_module = module.prefix
        for export in rfile.index.exports:
            if export.module is None:
                continue
            imports = [
                i
                for i in rfile.index.imports
                if i.kind == "use" and i.line == export.line and i.scope == scope_module
                and (i.star if export.star else (i.bound == export.name))
            ]  # fmt: skip
            for imp in imports:
                if imp.star:
                    target = self._resolve_path(self._ctx(rfile, imp.scope), imp.module)
                    globbed = (
                        self._module(target.key) if target is not None and target.kind == "module" else None
                    )
                    if globbed is not None:
                        below.append((globbed, path))
                    continue
                for want in ("value", "type"):
                    value = self._use_value(rfile, imp, want)
                    if value is None:
                        continue
                    if value.kind == "module":
                        reexported = self._module(value.key)
                        if reexported is not None:
                            below.append((reexported, (*path, export.name)))
                    elif value.kind == "def":
                        record(value.key, export.name)
        return below

    def _link_file(self, rfile: _File) -> None:
        index = rfile.index
        path = index.path
        for imp in index.imports:
            if imp.kind == "mod" and imp.name is not None:
                parent = rfile.modules.get(imp.scope)
                child = parent.children.get(imp.name) if parent is not None else None
                if parent is not None and child is not None and child.path != path:
                    self.builder.edge(parent.key, child.key, "imports", "import", Site(path, imp.line, 0))
        for info in rfile.defs.values():
            if info.definition.kind == "trait":
                self._trait_edges(rfile, info)
        for a in index.assignments:
            if a.value.startswith("impl:"):
                self._impl_edges(rfile, a)
        for call in index.calls:
            self._call(rfile, call)
        for ref in index.references:
            self._reference(rfile, ref)

    def _caller(self, rfile: _File, scope: str) -> str:
        return enclosing_key(rfile.defs, rfile.path, scope)

    def _ctx(self, rfile: _File, scope: str) -> _Ctx:
        current = scope
        while True:
            module = rfile.modules.get(current)
            if module is not None:
                return _Ctx(rfile, scope, module)
            if not current:
                break
            current = current.rpartition(".")[0]
        fallback = rfile.modules.get("")
        if fallback is None:  # never claimed: cannot happen, every file is a module
            crate = _Crate("crate", "")
            fallback = _Mod(rfile.path, rfile.path, "", crate, None, "crate")
            rfile.modules[""] = fallback
        return _Ctx(rfile, scope, fallback)

    def _def_ctx(self, info: DefInfo) -> _Ctx:
        """The context a definition's own signature is read in (its container's scope)."""
        rfile = self.files[info.path]
        scope = info.qualname.rpartition(".")[0]
        if info.definition.kind == "method" and info.definition.bases:
            scope = scope.rpartition(".")[0]  # past the impl's type segment
        return self._ctx(rfile, scope)

    # ---- structure edges -----------------------------------------------------------------------
    def _trait_edges(self, rfile: _File, info: DefInfo) -> None:
        ctx = self._def_ctx(info)
        site = Site(rfile.path, info.definition.line, info.definition.column)
        for base in info.definition.bases:
            value = self._resolve_path(ctx, base)
            target = self._target(value)
            if target is not None and target != info.key:
                self.builder.edge(info.key, target, "extends", "extends", site)

    def _impl_edges(self, rfile: _File, a: Assignment) -> None:
        ctx = self._ctx(rfile, a.scope)
        owner = self._resolve_path(ctx, a.target) if not a.target.startswith("<") else None
        trait = self._resolve_path(ctx, a.value.removeprefix("impl:"))
        if owner is None or owner.kind != "def" or trait is None:
            return
        target = self._target(trait)
        if target is None:
            return
        site = Site(rfile.path, a.line, 0)
        self.builder.edge(owner.key, target, "implements", "implements", site)

    def _target(self, value: Value | None) -> str | None:
        """``value_target``, and a module's own key for a module value."""
        if value is not None and value.kind == "module":
            return value.key
        return value_target(self.builder, value, LANGUAGE)

    # ---- impl tables ---------------------------------------------------------------------------
    def _tables(self) -> None:
        methods: dict[str, dict[str, list[DefInfo]]] = {}
        implementors: dict[str, list[str]] = {}
        impl_traits: dict[str, list[str]] = {}
        by_trait: dict[str, dict[str, list[DefInfo]]] = {}
        for info in self.defs.values():
            d = info.definition
            if d.kind != "method" or not d.bases:
                continue
            ctx = self._def_ctx(info)
            owner = self._type_key(ctx, d.bases[0])
            if owner is not None:
                methods.setdefault(owner, {}).setdefault(d.name, []).append(info)
            if len(d.bases) > 1:
                trait = self._type_key(ctx, d.bases[1])
                if trait is not None:
                    by_trait.setdefault(trait, {}).setdefault(d.name, []).append(info)
        for rfile in self.files.values():
            for a in rfile.index.assignments:
                if not a.value.startswith("impl:"):
                    continue
                ctx = self._ctx(rfile, a.scope)
                trait = self._type_key(ctx, a.value.removeprefix("impl:"))
                owner = "" if a.target.startswith("<") else self._type_key(ctx, a.target)
                if trait is None or owner is None:
                    continue
                implementors.setdefault(trait, []).append(owner)
                if owner:
                    impl_traits.setdefault(owner, []).append(trait)
        self._impls = _ImplTables(
            methods,
            {k: list(dict.fromkeys(v)) for k, v in implementors.items()},
            {k: list(dict.fromkeys(v)) for k, v in impl_traits.items()},
            by_trait,
        )
        # the override rule: a type refers to the methods of its trait impls
        for info in self.defs.values():
            d = info.definition
            if d.kind == "method" and len(d.bases) > 1:
                owner = self._type_key(self._def_ctx(info), d.bases[0])
                if owner is not None and owner in self.defs:
                    self.builder.edge(
                        owner,
                        info.key,
                        "references",
                        "reference",
                        Site(info.path, d.line, d.column),
                        via="override",
                    )

    def _type_key(self, ctx: _Ctx, text: str) -> str | None:
        """The key of the type or trait a written path names (a definition or an external key)."""
        if text.startswith("<"):
            return None
        value = self._resolve_path(ctx, text.split("<")[0].split("+")[0])
        if value is None:
            return None
        if value.kind == "def":
            info = self.defs[value.key]
            if info.definition.kind == "type" and info.definition.returns:
                return self._alias_key(info)
            return value.key if info.definition.kind in _TYPE_KINDS else None
        if value.kind == "ext":
            return value.key
        return None

    def _alias_key(self, info: DefInfo) -> str | None:
        self._depth += 1
        try:
            if self._depth > self.max_hops * 4:
                return None
            return self._type_key(self._def_ctx(info), info.definition.returns[0])
        finally:
            self._depth -= 1

    @property
    def impls(self) -> _ImplTables:
        if self._impls is None:
            self._tables()
        assert self._impls is not None
        return self._impls

    @property
    def methods(self) -> dict[str, dict[str, list[DefInfo]]]:
        return self.impls.methods

    @property
    def implementors(self) -> dict[str, list[str]]:
        return self.impls.implementors

    @property
    def impl_traits(self) -> dict[str, list[str]]:
        return self.impls.impl_traits

    @property
    def trait_impl_methods(self) -> dict[str, dict[str, list[DefInfo]]]:
        return self.impls.trait_impl_methods

    # ---- paths -------------------------------------------------------------------------------
    def _resolve_path(self, ctx: _Ctx, path: str, want: str = "type") -> Value | None:
        """The value a path names from ``ctx``: a definition, a module or an external key."""
        segments = [s for s in path.split("::") if s]
        if not segments:
            return None
        value = self._first(ctx, segments[0], want if len(segments) == 1 else "type")
        if value is None:
            # the 2018 rule: a path whose first segment is not in scope names an extern crate; with
            # a Cargo.toml read, the crates are known, and any other name is no definition
            if (
                len(segments) > 1
                and segments[0] not in ("self", "super", "crate", "Self")
                and not ctx.module.crate.manifest
            ):
                return Value("ext", self._external(segments))
            return None
        for position, segment in enumerate(segments[1:], start=2):
            value = self._member(value, segment, want if position == len(segments) else "type")
            if value is None:
                return None
        return value

    def _external(self, segments: Sequence[str]) -> str:
        head = _STD_CRATES.get(segments[0], segments[0])
        return keys.SEP.join([head, *segments[1:]])

    def _first(self, ctx: _Ctx, name: str, want: str) -> Value | None:
        module = ctx.module
        if name == "crate":
            return Value("module", module.crate.root.key) if module.crate.root is not None else None
        if name == "self":
            return Value("module", module.key)
        if name == "super":
            return Value("module", module.parent.key) if module.parent is not None else None
        # items and uses of the function scopes around the path
        rfile = ctx.file
        current = ctx.scope
        while current and len(current) > len(module.prefix):
            owner = rfile.defs.get(current)
            if owner is not None and owner.definition.kind in ("function", "method"):
                found = self._in_scope(rfile, current, name, want)
                if found is not None:
                    return found
            current = current.rpartition(".")[0]
        found = self._in_module(module, name, want)
        if found is not None:
            return found
        return self._global(module.crate, name)

    def _global(self, crate: _Crate, name: str) -> Value | None:
        if name == crate.name and crate.root is not None and name in self._self_aliases(crate):
            return Value("module", crate.root.key)  # `extern crate self as name;`
        alias = self._extern_aliases(crate).get(name)
        if alias is not None and alias != name:
            return self._global(crate, alias)
        if name in crate.deps:
            real = crate.deps[name]
            lib = self.libs.get(real)
            if lib is not None and lib.root is not None:
                return Value("module", lib.root.key)
            return Value("ext", name)
        if name in _STD_CRATES:
            return Value("ext", "std")
        if name in ("proc_macro", "test") or alias is not None:
            return Value("ext", name)  # the compiler's own crates; an `extern crate` of no manifest
        lib = self.libs.get(name)
        if lib is not None and lib.root is not None and not crate.manifest:
            return Value("module", lib.root.key)
        if name in PRELUDE:
            return Value("ext", PRELUDE[name])
        if name in VARIANTS:
            return Value("variant", VARIANTS[name])
        if name in PRIMITIVES:
            return Value("ext", f"std//primitive//{name}")
        return None

    def _self_aliases(self, crate: _Crate) -> set[str]:
        root = crate.root
        if root is None:
            return set()
        imports = self.files[root.path].index.imports
        return {imp.alias for imp in imports if imp.kind == "extern" and imp.name == "self" and imp.alias}

    def _extern_aliases(self, crate: _Crate) -> dict[str, str]:
        """``extern crate a as b;`` in a crate's files: the name bound -> the crate."""
        cached = self._externs.get(id(crate))
        if cached is None:
            cached = {}
            for rfile in self.files.values():
                module = rfile.modules.get("")
                if module is None or module.crate is not crate:
                    continue
                for imp in rfile.index.imports:
                    if imp.kind == "extern" and imp.name and imp.name != "self":
                        cached.setdefault(imp.alias or imp.name, _crate_name(imp.name))
            self._externs[id(crate)] = cached
        return cached

    def _in_scope(self, rfile: _File, scope: str, name: str, want: str) -> Value | None:
        infos = rfile.items.get(scope, {}).get(name)
        if infos:
            return _pick(infos, want)
        uses = rfile.uses.get(scope, {}).get(name)
        if uses:
            return self._use_value(rfile, uses[0], want)
        for glob in rfile.globs.get(scope, ()):
            found = self._glob_member(rfile, glob, name, want)
            if found is not None:
                return found
        return None

    def _in_module(self, module: _Mod, name: str, want: str) -> Value | None:
        cache_key = (module.key, name, want)
        if cache_key in self._cache:
            return self._cache[cache_key]
        marker = (module.key, f"{name}:{want}")
        if marker in self._resolving:
            return None
        self._resolving.add(marker)
        try:
            found = self._in_module_uncached(module, name, want)
        finally:
            self._resolving.discard(marker)
        self._cache[cache_key] = found
        return found

    def _in_module_uncached(self, module: _Mod, name: str, want: str) -> Value | None:
        rfile = self.files[module.path]
        child = module.children.get(name)
        infos = rfile.items.get(module.prefix, {}).get(name)
        infos = [i for i in infos if i.definition.kind != "module"] if infos else None
        if want == "type" and child is not None:
            return Value("module", child.key)
        if infos:
            return _pick(infos, want)
        uses = rfile.uses.get(module.prefix, {}).get(name)
        if uses:
            for imp in uses:
                found = self._use_value(rfile, imp, want)
                if found is not None and (found.kind != "module" or child is None):
                    return found
        if child is not None:  # a value of the name that a use brings goes first
            return Value("module", child.key)
        for glob in rfile.globs.get(module.prefix, ()):
            found = self._glob_member(rfile, glob, name, want)
            if found is not None:
                return found
        return None

    def _use_value(self, rfile: _File, imp: Import, want: str = "type") -> Value | None:
        """What a use binds: a use brings every namespace of its name, ``want`` picks one (a
        module ``spawn`` and a function ``spawn`` can share it)."""
        path = f"{imp.module}::{imp.name}" if imp.module else str(imp.name)
        ctx = self._ctx(rfile, imp.scope)
        marker = (f"use:{rfile.path}:{imp.line}:{want}", path)
        return self._guarded(marker, lambda: self._use_path(ctx, path, imp, want))

    def _guarded(self, marker: tuple[str, str], resolve: Callable[[], Value | None]) -> Value | None:
        """``resolve()``, or None when the resolution named ``marker`` is already under way (a cycle
        of uses) or the resolutions under way are too deep."""
        if marker in self._resolving or self._depth > self.max_hops * 4:
            return None
        self._resolving.add(marker)
        self._depth += 1
        try:
            return resolve()
        finally:
            self._depth -= 1
            self._resolving.discard(marker)

    def _use_path(self, ctx: _Ctx, path: str, imp: Import, want: str) -> Value | None:
        segments = path.split("::")
        if ctx.module.crate.edition == "2015" and segments[0] not in ("self", "super", "crate"):
            # Rust 2015: a use path starts at the crate root (where `extern crate` binds)
            root = ctx.module.crate.root
            if root is not None:
                ctx = _Ctx(self.files[root.path], root.prefix, root)
        # a use path starts at the crate root, an extern crate, or a name of the module
        if len(segments) == 1:
            return self._in_module_skip(ctx.module, segments[0], imp) or self._global(
                ctx.module.crate, segments[0]
            )
        return self._resolve_path(ctx, path, want)

    def _in_module_skip(self, module: _Mod, name: str, imp: Import) -> Value | None:
        """``use foo;``: ``foo`` as a child module or item, never the use itself."""
        child = module.children.get(name)
        if child is not None:
            return Value("module", child.key)
        infos = self.files[module.path].items.get(module.prefix, {}).get(name)
        return _pick(infos, "type") if infos else None

    def _glob_member(self, rfile: _File, glob: Import, name: str, want: str) -> Value | None:
        marker = (f"glob:{rfile.path}:{glob.line}:{glob.module}", name)
        return self._guarded(marker, lambda: self._glob_target(rfile, glob, name, want))

    def _glob_target(self, rfile: _File, glob: Import, name: str, want: str) -> Value | None:
        target = self._resolve_path(self._ctx(rfile, glob.scope), glob.module)
        if target is None:
            return None
        if target.kind == "module":
            module = self._module(target.key)
            return self._in_module(module, name, want) if module is not None else None
        if target.kind == "def" and self.defs[target.key].definition.kind == "enum":
            return Value("variant", target.key) if name[:1].isupper() else None
        return None  # a glob of an external module: unknown which names it brings

    def _module(self, key: str) -> _Mod | None:
        path, _, rest = key.partition(keys.SEP)
        rfile = self.files.get(path)
        if rfile is None:
            return None
        return rfile.modules.get(rest.replace(keys.SEP, "."))

    def _member(self, value: Value, name: str, want: str) -> Value | None:
        if value.kind == "module":
            module = self._module(value.key)
            return self._in_module(module, name, want) if module is not None else None
        if value.kind == "ext":
            return Value("ext", keys.join(value.key, name))
        if value.kind == "variant":
            return None
        if value.kind == "def":
            info = self.defs[value.key]
            kind = info.definition.kind
            if kind == "type":
                alias = self._alias_key(info) if info.definition.returns else None
                if alias is None:
                    return None
                return self._member(Value("def" if alias in self.defs else "ext", alias), name, want)
            if kind == "trait":
                method = self.files[info.path].defs.get(f"{info.qualname}.{name}")
                return Value("def", method.key) if method is not None else None
            if kind in _TYPE_KINDS:
                found = self._assoc(value.key, name)
                if found is not None:
                    return Value("def", found[0].key)
                if kind == "enum" and name[:1].isupper():
                    return Value("variant", value.key)
                derived = DERIVED.get(name)
                if derived is not None and name in ("default", "from", "clone"):
                    return Value("derived", f"{value.key}\n{derived}")
        return None

    def _assoc(self, type_key: str, name: str) -> list[DefInfo] | None:
        """The methods ``name`` of a type's impl blocks (inherent ones first), or of the default
        methods of the first-party traits it implements."""
        found = self.methods.get(type_key, {}).get(name)
        if found:
            inherent = [m for m in found if len(m.definition.bases) == 1]
            return inherent or found
        for trait in self.impl_traits.get(type_key, ()):
            info = self.defs.get(trait)
            if info is None:
                continue
            default = self.files[info.path].defs.get(f"{info.qualname}.{name}")
            if default is not None:
                return [default]
        return None

    # ---- types ---------------------------------------------------------------------------------
    def _resolve_type(self, ctx: _Ctx, text: str) -> _Ty | None:
        wrap = ""
        head, sep, inner = text.partition("<")
        if sep and head in ("Option", "Result") and inner.endswith(">"):
            wrap, text = head, inner[:-1]
        if text.startswith("<") or not text:
            return None
        types: list[Value] = []
        for part in text.split("+"):
            key = self._type_key(ctx, part)
            if key is not None:
                types.append(Value("def" if key in self.defs else "ext", key))
        if not types:
            return None
        return _Ty(tuple(types), wrap)

    def _returns(self, info: DefInfo) -> _Ty | None:
        returns = info.definition.returns
        if not returns:
            return None
        self._depth += 1
        try:
            if self._depth > self.max_hops * 4:
                return None
            ty = self._resolve_type(self._def_ctx(info), returns[0])
            if ty is None:
                return None
            wrap = next((r.removeprefix("wraps:") for r in returns[1:] if r.startswith("wraps:")), "")
            return ty._replace(wrap=wrap) if wrap else ty
        finally:
            self._depth -= 1

    def _returned_types(self, info: DefInfo, declared: _Ty | None) -> _Ty | None:
        """A function that returns a trait object or ``impl Trait`` (its declared result a trait)
        returns the concrete types its body ends in, when the records give them all: a call on
        the result runs their methods, not every impl's."""
        if declared is None or declared.wrap or not declared.types:
            return declared
        if not all(t.kind == "def" and self.defs[t.key].definition.kind == "trait" for t in declared.types):
            return declared
        rfile = self.files[info.path]
        facts = rfile.assigns.get((info.qualname, "return"), [])
        if not facts:
            return declared
        ctx = self._ctx(rfile, info.qualname)
        found: dict[Value, None] = {}
        for fact in facts:
            given = self._assigned(ctx, fact) if not fact.value.startswith("closure:") else None
            if given is None or given.wrap or not given.types:
                return declared
            for t in given.types:
                if t.kind != "def" or self.defs[t.key].definition.kind not in ("struct", "enum", "union"):
                    return declared
                found[t] = None
        return _Ty(tuple(found))

    def _result(self, value: Value | None) -> _Ty | None:
        """The type a call of ``value`` returns."""
        if value is None:
            return None
        if value.kind == "def":
            info = self.defs[value.key]
            kind = info.definition.kind
            if kind in ("function", "method"):
                return self._returned_types(info, self._returns(info))
            if kind in ("struct", "enum", "union"):
                return _Ty((value,))
            return None
        if value.kind == "variant":
            return _Ty((Value("def" if value.key in self.defs else "ext", value.key),))
        if value.kind == "derived":
            owner = value.key.partition("\n")[0]
            return _Ty((Value("def", owner),))
        if value.kind == "ext":
            given = self.units.result(value.key)
            if given is not None:
                return given if given.types else None  # no types: a type another crate cannot name
            parts = value.key.split(keys.SEP)
            if (
                len(parts) >= 2
                and parts[-2][:1].isupper()
                and parts[-1] in ("new", "default", "from", "with_capacity")
            ):
                return _Ty((Value("ext", keys.SEP.join(parts[:-1])),))
            return _EXTERN
        return None

    def _local(self, ctx: _Ctx, name: str, line: int) -> _Ty | None:
        """The type of a local binding or parameter ``name`` before ``line``, or None; a closure
        (``f$1``) sees the names of the functions around it."""
        found = self._own_local(ctx, name, line)
        while found is None and "$" in ctx.scope:
            ctx = ctx._replace(scope=ctx.scope.rpartition("$")[0])
            found = self._own_local(ctx, name, line)
        return found

    def _own_local(self, ctx: _Ctx, name: str, line: int) -> _Ty | None:
        rfile = ctx.file
        assigns = rfile.assigns.get((ctx.scope, name))
        if assigns:
            # records are in (line, value) order: the last one at or before the line, a declared
            # type before a value on the same line
            lines = rfile.assign_lines.get((ctx.scope, name))
            if lines is None:
                lines = rfile.assign_lines[(ctx.scope, name)] = [a.line for a in assigns]
            index = bisect_right(lines, line)
            if index:
                return self._assigned(ctx, assigns[index - 1])
        info = rfile.defs.get(ctx.scope)
        if info is not None:
            for param in info.definition.params:
                if param.name == name:
                    if param.type is None:
                        return _Ty((), "param")
                    return self._resolve_type(self._def_ctx(info), param.type) or _Ty((), "param")
        return None

    def _assigned(self, ctx: _Ctx, a: Assignment) -> _Ty | None:
        memo_key = (ctx.file.path, ctx.scope, a)
        if memo_key in self._assigned_memo:
            return self._assigned_memo[memo_key]
        self._assigned_memo[memo_key] = None  # a binding that reaches back to itself is unknown
        found = self._assigned_uncached(ctx, a)
        self._assigned_memo[memo_key] = found
        return found

    def _assigned_uncached(self, ctx: _Ctx, a: Assignment) -> _Ty | None:
        kind, _, text = a.value.partition(":")
        if kind == "type":
            return self._resolve_type(ctx, text)
        if kind == "closure":  # a closure's node (``f$1``), or one an old index does not name
            return _Ty((), f"closure:{text}") if text else _CLOSURE
        if kind == "name":
            self._depth += 1
            try:
                if self._depth > self.max_hops * 4:
                    return None
                return self._eval(ctx, text, a.line - 1)
            finally:
                self._depth -= 1
        return None

    def _field(self, ty: _Ty, name: str) -> _Ty | None:
        for value in ty.types:
            if value.kind != "def":
                continue
            info = self.defs[value.key]
            assigns = self.files[info.path].assigns.get((info.qualname, f"self.{name}"))
            if assigns:
                found = self._resolve_type(self._def_ctx(info), assigns[0].value.removeprefix("type:"))
                if found is not None:
                    return found
        return None

    def _eval(self, ctx: _Ctx, chain: str, line: int) -> _Ty | None:
        """The type of an expression chain (``a::b()``, ``x.f.m()?``) at ``line``."""
        tokens = _TOKEN.findall(chain)
        if not tokens:
            return None
        position = 0
        segments = [tokens[0]]
        position = 1
        while position + 1 < len(tokens) and tokens[position] == "::":
            segments.append(tokens[position + 1])
            position += 2
        called = position < len(tokens) and tokens[position] == "()"
        ty: _Ty | None
        if called:
            position += 1
            ty = self._call_result(ctx, "::".join(segments), line)
        elif len(segments) == 1:
            ty = self._name_type(ctx, segments[0], line)
        else:
            ty = None
        while ty is not None and position < len(tokens):
            token = tokens[position]
            if token == "?":
                ty = ty._replace(wrap="") if ty.types else ty
                position += 1
            elif token == "." and position + 1 < len(tokens):
                member = tokens[position + 1]
                position += 2
                if position < len(tokens) and tokens[position] == "()":
                    position += 1
                    ty = self._method_result(ty, member)
                else:
                    ty = self._field(ty, member) if not ty.wrap else None
            else:
                return None
        return ty

    def _name_type(self, ctx: _Ctx, name: str, line: int) -> _Ty | None:
        if name == "self":
            scope = ctx.scope
            while "$" in scope:  # a closure's self is its method's
                scope = scope.rpartition("$")[0]
            info = ctx.file.defs.get(scope)
            if info is not None and info.definition.params and info.definition.params[0].name == "self":
                declared = info.definition.params[0].type
                if declared is None or declared.startswith("<"):
                    return None
                return self._resolve_type(self._def_ctx(info), declared)
            return None
        local = self._local(ctx, name, line)
        if local is not None:
            return local
        if name[:1].isupper() and not self._binds(ctx, name):  # a unit struct named as a value
            value = self._resolve_path(ctx, name, "value")
            if value is not None and value.kind == "def" and self.defs[value.key].definition.kind == "struct":
                return _Ty((value,))
        # a const or a static of the module
        module = ctx.module
        assigns = self.files[module.path].assigns.get((module.prefix, name))
        if assigns and assigns[0].value.startswith("type:"):
            return self._resolve_type(
                self._ctx(self.files[module.path], module.prefix), assigns[0].value.removeprefix("type:")
            )
        return None

    def _call_result(self, ctx: _Ctx, callee: str, line: int) -> _Ty | None:
        if "::" not in callee:
            local = self._local(ctx, callee, line)
            if local is not None:
                return None
        value = self._resolve_path(ctx, callee, "value")
        return self._result(value)

    def _method_result(self, ty: _Ty, name: str) -> _Ty | None:
        if ty is _EXTERN:
            return _EXTERN
        if ty.wrap:
            if name in UNWRAPS:
                return ty._replace(wrap="")
            if name in WRAP_KEEP:
                return ty
            return None
        if not ty.types:
            return None
        for value in ty.types:
            if value.kind == "def":
                info = self.defs[value.key]
                if info.definition.kind == "trait":
                    method = self._trait_method(value.key, name)
                    if method is not None:
                        return self._returns(method)
                    continue
                found = self._assoc(value.key, name)
                if found:
                    return self._returns(found[0])
            else:
                found = self.methods.get(value.key, {}).get(name)
                if found:
                    return self._returns(found[0])
                given = self.units.result(keys.join(value.key, name))
                if given is not None:
                    return given if given.types else None
        if name in KEEP_TYPE:
            return ty
        if any(v.kind == "ext" for v in ty.types):
            return _EXTERN
        return None

    def _trait_method(self, trait_key: str, name: str, depth: int = 0) -> DefInfo | None:
        info = self.defs.get(trait_key)
        if info is None or depth > self.max_hops:
            return None
        method = self.files[info.path].defs.get(f"{info.qualname}.{name}")
        if method is not None:
            return method
        for base in info.definition.bases:
            key = self._type_key(self._def_ctx(info), base)
            if key is not None and key in self.defs:
                found = self._trait_method(key, name, depth + 1)
                if found is not None:
                    return found
        return None

    # ---- calls ---------------------------------------------------------------------------------
    def _call(self, rfile: _File, call: Call) -> None:
        caller = self._caller(rfile, call.scope)
        site = Site(rfile.path, call.line, call.column)
        ctx = self._ctx(rfile, call.scope)
        if call.callee.startswith("closure:"):  # a closure called where it is written
            closure = rfile.defs.get(call.callee[8:])
            if closure is not None:
                self.builder.edge(caller, closure.key, "calls", "direct", site)
            return
        if call.callee == "<expr>" or not call.name:
            self._unresolved(caller, site, "computed-name", "", call.text)
            return
        if call.callee.endswith("!"):
            self._macro_call(ctx, caller, site, call)
            return
        if call.receiver is None:
            self._path_call(ctx, caller, site, call)
            return
        if call.receiver == "<expr>":
            self._unknown(caller, site, call, "unknown-receiver")
            return
        ty = self._eval(ctx, call.receiver, call.line)
        if ty is None or ty.wrap.startswith("closure") or ty.wrap == "param":
            self._unknown(caller, site, call, "unknown-receiver")
            return
        if ty is _EXTERN:
            self._unknown(caller, site, call, "no-dependency-source")
            return
        self._dispatch(caller, site, ty, call)

    def _dispatch(self, caller: str, site: Site, ty: _Ty, call: Call) -> None:
        name = call.name
        if ty.wrap:
            wrapper = "std//option//Option" if ty.wrap == "Option" else "std//result//Result"
            key = self.builder.external(keys.join(wrapper, name), LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
            return
        made = 0
        trait_sites = 0
        types = ty.types
        if len(types) > 1:  # several bounds: the project's traits that have the method, else all
            own = [v for v in types if v.kind == "def" and self._has_method(v.key, name)]
            types = tuple(own) or types
        for value in types:
            if value.kind == "def" and self.defs[value.key].definition.kind == "trait":
                made += self._trait_call(caller, site, value.key, name)
                trait_sites += 1
                continue
            if value.kind == "def":
                found = self._assoc(value.key, name)
                if found:
                    for info in found:
                        self.builder.edge(caller, info.key, "calls", "member", site)
                    made += len(found)
                    continue
                inherited = self._inherited_external(value.key, name)
                if inherited is not None:
                    target = self.builder.external(inherited, LANGUAGE)
                    self.builder.edge(caller, target, "calls", "member", site)
                    made += 1
                continue
            # an external type or trait: its key, the project's impls on it, and the project's
            # implementations of it (a trait object of a dependency's trait)
            extension = self.methods.get(value.key, {}).get(name)
            if extension:
                for info in extension:
                    self.builder.edge(caller, info.key, "calls", "member", site)
                made += len(extension)
                continue
            key = self.builder.external(keys.join(value.key, name), LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
            made += 1
            own_impls = self._cha(caller, site, value.key, name, None)
            # a trait of a unit: the impls its crate gives, at their external keys
            targets, unknown = self.units.implementations(value.key, name)
            for target in targets:
                if target != key:
                    self.builder.edge(caller, self.builder.external(target, LANGUAGE), "calls", "cha", site)
            if unknown and not own_impls:  # no body and no impl known: any code may run
                self._unresolved(caller, site, "trait-receiver", name, call.text)
        if made == 0:
            if trait_sites:
                self._unresolved(caller, site, "trait-receiver", name, call.text)
            else:
                self._unresolved(caller, site, "no-definition", name, call.text)

    def _has_method(self, key: str, name: str) -> bool:
        if self.defs[key].definition.kind == "trait":
            return self._trait_method(key, name) is not None
        return bool(self._assoc(key, name))

    def _inherited_external(self, type_key: str, name: str) -> str | None:
        """The external key of a method a type gets from a derive or a dependency's trait."""
        info = self.defs[type_key]
        traits = [t for t in self.impl_traits.get(type_key, ()) if t not in self.defs]
        derived = [d[7:-1] for d in info.definition.decorators if d.startswith("derive(")]
        if name in DERIVED and (
            name not in ("clone", "default", "eq", "ne", "cmp", "partial_cmp", "hash", "fmt")
            or any(
                d.rsplit("::", 1)[-1]
                in ("Clone", "Default", "PartialEq", "Eq", "Ord", "PartialOrd", "Hash", "Debug")
                for d in derived
            )
            or traits
        ):
            return DERIVED[name]
        candidates = [
            t
            for t in traits
            if not t.startswith(
                (
                    "std//fmt",
                    "std//clone",
                    "std//cmp",
                    "std//hash",
                    "std//default",
                    "std//marker",
                    "std//ops//Drop",
                    "std//convert",
                )
            )
        ]
        if len(candidates) == 1:
            return keys.join(candidates[0], name)
        return None

    def _trait_call(self, caller: str, site: Site, trait_key: str, name: str) -> int:
        method = self._trait_method(trait_key, name)
        made = 0
        if method is not None and "abstract" not in method.definition.decorators:
            self.builder.edge(caller, method.key, "calls", "member", site)
            made += 1
        made += self._cha(caller, site, trait_key, name, method)
        if method is None:
            # a supertrait of a dependency may give it
            info = self.defs[trait_key]
            for base in info.definition.bases:
                key = self._type_key(self._def_ctx(info), base)
                if key is not None and key not in self.defs:
                    ext = self.builder.external(keys.join(key, name), LANGUAGE)
                    self.builder.edge(caller, ext, "calls", "member", site)
                    made += 1
                    break
        return made

    def _cha(self, caller: str, site: Site, trait_key: str, name: str, declared: DefInfo | None) -> int:
        """``cha`` edges to the method ``name`` of each impl of the trait (and of its subtraits)."""
        targets: list[str] = []
        for trait in self._trait_closure(trait_key):
            for info in self.trait_impl_methods.get(trait, {}).get(name, ()):
                if declared is None or info.key != declared.key:
                    targets.append(info.key)
        targets = list(dict.fromkeys(targets))
        if len(targets) > MAX_CHA:
            # more impls than MAX_CHA: none gets an edge, and the site keeps the method name
            self._unresolved(caller, site, "trait-receiver", name, f"{len(targets)} implementations")
            return 1
        for target in targets:
            self.builder.edge(caller, target, "calls", "cha", site)
        return len(targets)

    def _trait_closure(self, trait_key: str) -> list[str]:
        """The trait and every first-party trait that has it as a supertrait."""
        order = [trait_key]
        index = 0
        subtraits = self._subtraits
        while index < len(order) and len(order) < 256:
            for sub in subtraits.get(order[index], ()):
                if sub not in order:
                    order.append(sub)
            index += 1
        return order

    @cached_property
    def _subtraits(self) -> dict[str, list[str]]:
        """Trait key -> the traits that name it as a supertrait."""
        table: dict[str, list[str]] = {}
        for info in self.defs.values():
            if info.definition.kind == "trait":
                for base in info.definition.bases:
                    key = self._type_key(self._def_ctx(info), base)
                    if key is not None:
                        table.setdefault(key, []).append(info.key)
        return table

    def _path_call(self, ctx: _Ctx, caller: str, site: Site, call: Call) -> None:
        callee = call.callee
        if "::" not in callee:
            local = self._local(ctx, callee, call.line)
            closures = self._bound_closures(ctx, callee, call.line)
            if closures is not None:  # closures bound to the name (a closure, a box of one, a result)
                for key in closures:
                    self.builder.edge(caller, key, "calls", "assignment", site)
                if not closures:
                    self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
                return
            if local is not None or self._binds(ctx, callee):
                bound = self._bound_function(ctx, callee, call.line)
                if bound is not None:
                    self._call_value(caller, site, bound, "assignment", call)
                    return
                if local is not None and local.wrap == "param":
                    self._passed_edges(caller, site)
                covered = local is not None
                self._unresolved(caller, site, "computed-name", call.name, call.text, covered=covered)
                return
        value = self._resolve_path(ctx, callee, "value")
        if value is None:
            if "::" not in callee and self._is_param(ctx, callee):
                self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
                return
            self._unresolved(caller, site, "no-definition", call.name, call.text)
            return
        kind = (
            "member" if value.kind == "def" and self.defs[value.key].definition.kind == "method" else "direct"
        )
        self._call_value(caller, site, value, kind, call)

    def _binds(self, ctx: _Ctx, name: str) -> bool:
        """Whether a ``let`` of the scope (or of a function around its closure) binds the name."""
        scope = ctx.scope
        while True:
            if (scope, name) in ctx.file.assigns:
                return True
            if "$" not in scope:
                return False
            scope = scope.rpartition("$")[0]

    def _bound_closures(self, ctx: _Ctx, name: str, line: int) -> list[str] | None:
        """The closures the last ``let`` of ``name`` before ``line`` binds it to: a closure, a box
        of one, or the result of a function whose body ends in one (``let h = make();``); None
        when that binding is of something else."""
        scope = ctx.scope
        while (scope, name) not in ctx.file.assigns and "$" in scope:
            scope = scope.rpartition("$")[0]
        assigns = [a for a in ctx.file.assigns.get((scope, name), ()) if a.line <= line]
        if not assigns:
            return None
        last = max(a.line for a in assigns)
        found: list[str] = []
        for a in assigns:
            if a.line != last:
                continue
            if a.value.startswith("closure:"):
                closure = ctx.file.defs.get(a.value[8:])
                if closure is not None:
                    found.append(closure.key)
            elif a.value.startswith("name:") and a.value.endswith("()"):
                found += self._returned(self._ctx(ctx.file, scope), a.value[5:-2])
        return found or None

    def _returned(self, ctx: _Ctx, path: str) -> list[str]:
        """The closures a first-party function returns (its body ends in one)."""
        if not re.fullmatch(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*", path):
            return []
        value = self._resolve_path(ctx, path, "value")
        if value is None or value.kind != "def":
            return []
        info = self.defs[value.key]
        rfile = self.files[info.path]
        found = []
        for a in rfile.assigns.get((info.qualname, "return"), ()):
            closure = rfile.defs.get(a.value.removeprefix("closure:"))
            if closure is not None:
                found.append(closure.key)
        return found

    def _passed_edges(self, caller: str, site: Site) -> None:
        """A call of a parameter: an edge (kind ``reference``) to each function or closure referred
        to on the line of a call of the caller (the index gives no argument positions)."""
        for key in self._passed.get(caller, ()):
            if key not in self.builder.nodes:
                self.builder.external(key, LANGUAGE)
            self.builder.edge(caller, key, "calls", "reference", site)

    @property
    def _passed(self) -> dict[str, list[str]]:
        """The functions and closures passed to each first-party function: those referred to on
        the line of a call of it."""
        cached: dict[str, list[str]] | None = getattr(self, "_passed_cache", None)
        if cached is not None:
            return cached
        passed: dict[str, dict[str, None]] = {}
        for rfile in self.files.values():
            by_line: dict[tuple[str, int], list[Reference]] = {}
            for ref in rfile.index.references:
                by_line.setdefault((ref.scope, ref.line), []).append(ref)
            if not by_line:
                continue
            for call in rfile.index.calls:
                refs = by_line.get((call.scope, call.line))
                if not refs or call.receiver is not None or call.callee.endswith("!") or not call.name:
                    continue
                ctx = self._ctx(rfile, call.scope)
                callee = self._resolve_path(ctx, call.callee, "value")
                if callee is None or callee.kind != "def":
                    continue
                functions = [key for ref in refs if (key := self._function_referred(rfile, ref)) is not None]
                slot = passed.setdefault(callee.key, {})
                for key in functions:
                    slot.setdefault(key, None)
        found = {key: list(keys_) for key, keys_ in passed.items()}
        self._passed_cache = found
        return found

    def _function_referred(self, rfile: _File, ref: Reference) -> str | None:
        """The key of the function or closure a reference names, if it names one."""
        if ref.name.startswith("closure:"):
            closure = rfile.defs.get(ref.name[8:])
            return closure.key if closure is not None else None
        ctx = self._ctx(rfile, ref.scope)
        if "::" not in ref.name and ((ref.scope, ref.name) in rfile.assigns or self._is_param(ctx, ref.name)):
            return None
        value = self._resolve_path(ctx, ref.name, "value")
        if value is None:
            return None
        if value.kind == "def" and self.defs[value.key].definition.kind in ("function", "method"):
            return value.key
        if value.kind == "ext" and "::" in ref.name:
            return value.key
        return None

    def _is_param(self, ctx: _Ctx, name: str) -> bool:
        info = ctx.file.defs.get(ctx.scope)
        return info is not None and any(p.name == name for p in info.definition.params)

    def _bound_function(self, ctx: _Ctx, name: str, line: int) -> Value | None:
        """``let f = helper;``: the function a local binding names."""
        assigns = ctx.file.assigns.get((ctx.scope, name))
        if not assigns:
            return None
        best = max(
            (a for a in assigns if a.line <= line and a.value.startswith("name:")),
            key=lambda a: a.line,
            default=None,
        )
        if best is None:
            return None
        text = best.value.removeprefix("name:")
        if not re.fullmatch(r"[A-Za-z_][\w]*(::[A-Za-z_]\w*)*", text):
            return None
        value = self._resolve_path(ctx, text, "value")
        if (
            value is not None
            and value.kind == "def"
            and self.defs[value.key].definition.kind in ("function", "method")
        ):
            return value
        if value is not None and value.kind == "ext":
            return value
        return None

    def _call_value(self, caller: str, site: Site, value: Value, kind: str, call: Call) -> None:
        if value.kind == "def":
            info = self.defs[value.key]
            d = info.definition
            if d.kind in ("struct", "union"):
                self.builder.edge(caller, value.key, "references", "reference", site)
                return
            if d.kind in ("enum", "module", "type"):
                return
            owner = self.files[info.path].defs.get(info.qualname.rpartition(".")[0])
            if owner is not None and owner.definition.kind == "trait" and d.kind == "method":
                # Trait::method(x): the default method and each impl's
                if "abstract" not in d.decorators:
                    self.builder.edge(caller, value.key, "calls", "member", site)
                made = self._cha(caller, site, owner.key, d.name, info)
                if made == 0 and "abstract" in d.decorators:
                    self._unresolved(caller, site, "trait-receiver", call.name, call.text)
                return
            self.builder.edge(caller, value.key, "calls", kind, site)
            return
        if value.kind == "variant":
            return  # an enum variant is built, no code runs
        if value.kind == "derived":
            self.builder.edge(
                caller, self.builder.external(value.key.partition("\n")[2], LANGUAGE), "calls", kind, site
            )
            return
        if value.kind == "ext":
            self.builder.edge(caller, self.builder.external(value.key, LANGUAGE), "calls", kind, site)
            return
        self._unresolved(caller, site, "no-definition", call.name, call.text)

    def _macro_call(self, ctx: _Ctx, caller: str, site: Site, call: Call) -> None:
        path = call.callee[:-1]
        name = call.name
        if "::" in path:
            head = path.split("::")[0]
            if head in ("crate", "self", "super") or head == ctx.module.crate.name:
                found = self._macro_def(ctx.module.crate, name, ctx.file.path)
                if found is not None:
                    self.builder.edge(caller, found.key, "calls", "direct", site)
                    return
            value = self._resolve_path(ctx, path, "value")
            target = self._target(value) if value is not None and value.kind in ("def", "ext") else None
            if target is not None:
                self.builder.edge(caller, target, "calls", "direct", site)
                return
            self._unresolved(caller, site, "no-definition", name, call.text)
            return
        found = self._macro_def(ctx.module.crate, name, ctx.file.path)
        if found is not None:
            self.builder.edge(caller, found.key, "calls", "direct", site)
            return
        if name in STD_MACROS:
            self.builder.edge(
                caller, self.builder.external(f"std//{name}", LANGUAGE), "calls", "direct", site
            )
            return
        value = self._first(ctx, name, "value")
        if value is not None and value.kind in ("def", "ext"):
            target = self._target(value)
            if target is not None:
                self.builder.edge(caller, target, "calls", "direct", site)
                return
        crates = self._macro_use_crates(ctx.module.crate)
        if len(crates) == 1:
            key = self.builder.external(f"{crates[0]}//{name}", LANGUAGE)
            self.builder.edge(caller, key, "calls", "direct", site)
            return
        self._unresolved(caller, site, "no-definition", name, call.text)

    def _macro_def(self, crate: _Crate, name: str, near: str) -> DefInfo | None:
        table = self._macros
        candidates = table.get(name, [])
        if not candidates:
            return None
        same_file = [i for i in candidates if i.path == near]
        if same_file:
            return same_file[0]
        same_crate = [i for i in candidates if self._crate_of(i.path) is crate]
        if same_crate:
            return same_crate[0]
        exported = [i for i in candidates if i.definition.exported]
        return exported[0] if exported else None

    @cached_property
    def _macros(self) -> dict[str, list[DefInfo]]:
        """The macros defined in the linked files, by name."""
        table: dict[str, list[DefInfo]] = {}
        for info in self.defs.values():
            if info.definition.kind == "macro":
                table.setdefault(info.definition.name, []).append(info)
        return table

    def _crate_of(self, path: str) -> _Crate | None:
        module = self.files[path].modules.get("")
        return module.crate if module is not None else None

    def _macro_use_crates(self, crate: _Crate) -> list[str]:
        cached = self._macro_use.get(id(crate))
        if cached is None:
            cached = self._macro_use[id(crate)] = self._macro_use_crates_uncached(crate)
        return cached

    def _macro_use_crates_uncached(self, crate: _Crate) -> list[str]:
        found = []
        for rfile in self.files.values():
            module = rfile.modules.get("")
            if module is None or module.crate is not crate:
                continue
            for imp in rfile.index.imports:
                if imp.kind == "macro_use" and imp.name:
                    found.append(imp.name)
        return sorted(set(found))

    def _unknown(self, caller: str, site: Site, call: Call, reason: str) -> None:
        self._unresolved(caller, site, reason, call.name, call.text)
        self._guesses.edges(self.builder, caller, site, call.name)

    def _reference(self, rfile: _File, ref: Reference) -> None:
        caller = self._caller(rfile, ref.scope)
        if ref.name.startswith("closure:"):  # the function that makes a closure refers to it
            closure = rfile.defs.get(ref.name[8:])
            if closure is not None:
                site = Site(rfile.path, ref.line, ref.column)
                self.builder.edge(caller, closure.key, "references", "reference", site)
            return
        ctx = self._ctx(rfile, ref.scope)
        if "::" not in ref.name and ((ref.scope, ref.name) in rfile.assigns or self._is_param(ctx, ref.name)):
            return  # a local value
        value = self._resolve_path(ctx, ref.name, "value")
        if value is None or value.kind not in ("def", "ext"):
            return
        if value.kind == "ext":
            if "::" not in ref.name:
                return  # a prelude name used as a value (None, a variant, a type)
            target = self.builder.external(value.key, LANGUAGE)
        else:
            kind = self.defs[value.key].definition.kind
            if kind not in ("function", "method", "struct", "union", "enum"):
                return
            target = value.key
        if target != caller:
            self.builder.edge(
                caller, target, "references", "reference", Site(rfile.path, ref.line, ref.column)
            )

    def _unresolved(
        self, caller: str, site: Site, reason: str, name: str, text: str, covered: bool = False
    ) -> None:
        self.builder.unresolved_site(Unresolved(caller, site, reason, name, text, covered=covered))


class _RustUnits:
    """What the cargo units of a link tell a project about the crates it uses: the return types of
    their public functions and methods. Each unit is read by a ``RustLinker`` of its own files (built
    when first asked, never linked); its public paths (``public_paths``) turn a key the project
    writes (``smallvec//SmallVec//new``, a renamed crate's ``helper//make`` as ``kit//make``) into
    the unit's definition, and the definition's return type back into a public key."""

    def __init__(self, context: LinkContext, linker: RustLinker) -> None:
        self.context = context
        self.linker = linker
        own = linker.unit
        cargo = [m for m in context.units or () if m.unit.ecosystem == "cargo"]
        self.active = bool(cargo) or own is not None
        self.by_crate: dict[str, Any] = {}  # crate name as code writes it -> UnitIndex
        for made in cargo:
            if own is not None and made.unit.name == own.name:
                continue
            for crate in made.unit.provides:
                self.by_crate.setdefault(crate, made)
        self._readers: dict[str, tuple[RustLinker, dict[str, str], dict[str, str]] | None] = {}

    def reader(self, crate: str) -> tuple[RustLinker, dict[str, str], dict[str, str]] | None:
        """A unit's reader, its public keys by definition and its definitions by public key."""
        if crate in self._readers:
            return self._readers[crate]
        made = self.by_crate.get(crate)
        found = None
        if made is not None:
            manifests = replace(self.context.manifests, controls=made.controls)
            context = LinkContext(manifests, self.context.max_hops, (), root=made.unit.root)
            reader = RustLinker(made.indexes, GraphBuilder(), context, unit=made.unit)
            public = reader.public_paths()
            by_key: dict[str, str] = {}
            for definition, key in sorted(public.items()):
                by_key.setdefault(key, definition)
            found = (reader, public, by_key)
        self._readers[crate] = found
        return found

    def implementations(self, trait_key: str, name: str) -> tuple[list[str], bool]:
        """The external keys of the method ``name`` of each impl of a unit's trait in its own crate
        (``kit//Tool//run`` for ``kit//Run``), none past ``MAX_CHA``; and whether the call is
        unknown: a unit's trait whose method has no body, with no impl given or too many."""
        written, sep, rest = trait_key.partition(keys.SEP)
        real = self.linker._renamed.get(written, written)
        found = self.reader(real)
        if found is None:
            return [], False
        reader, public, by_key = found
        definition = by_key.get(keys.join(real, rest) if sep else real)
        if definition is None or reader.defs[definition].definition.kind != "trait":
            return [], False
        targets = [
            public[info.key]
            for trait in reader._trait_closure(definition)
            for info in reader.trait_impl_methods.get(trait, {}).get(name, ())
            if info.key in public
        ]
        targets = list(dict.fromkeys(targets))
        method = reader._trait_method(definition, name)
        bodiless = method is None or "abstract" in method.definition.decorators
        if len(targets) > MAX_CHA:
            return [], bodiless
        return targets, bodiless and not targets

    def result(self, key: str) -> _Ty | None:
        """The return type of the unit function or method a key names, with public keys; ``()``
        when its unit gives the key but no type another crate can name, None when no unit gives it
        (the caller's rules apply)."""
        written, sep, rest = key.partition(keys.SEP)
        real = self.linker._renamed.get(written, written)
        found = self.reader(real)
        if found is None:
            return None
        reader, public, by_key = found
        definition = by_key.get(keys.join(real, rest) if sep else real)
        if definition is None:
            return None
        info = reader.defs[definition]
        kind = info.definition.kind
        if kind in ("struct", "enum", "union"):
            return _Ty((Value("ext", public[definition]),))
        if kind not in ("function", "method"):
            return None
        ty = reader._returns(info)
        if ty is None:
            return _Ty(())
        types = []
        for value in ty.types:
            if value.kind == "ext":
                types.append(value)
            elif value.key in public:
                types.append(Value("ext", public[value.key]))
        return _Ty(tuple(types), ty.wrap) if types else _Ty(())


def _pick(infos: list[DefInfo], want: str) -> Value | None:
    """One of the definitions sharing a name: a type or module for a path's inner segment, a
    function or constructor for a value."""
    preferred = _TYPE_KINDS if want == "type" else _VALUE_KINDS
    for info in infos:
        if info.definition.kind in preferred:
            return Value("def", info.key)
    return Value("def", infos[0].key)


def _crate_name(name: str) -> str:
    return name.replace("-", "_")


def _dependency_tables(data: dict[str, Any]) -> list[dict[str, Any]]:
    tables = []
    for name in (
        "dependencies",
        "dev-dependencies",
        "build-dependencies",
        "dev_dependencies",
        "build_dependencies",
    ):
        table = data.get(name)
        if isinstance(table, dict):
            tables.append(table)
    for target in (data.get("target") or {}).values():
        if isinstance(target, dict):
            for name in ("dependencies", "dev-dependencies", "build-dependencies"):
                table = target.get(name)
                if isinstance(table, dict):
                    tables.append(table)
    workspace = data.get("workspace") or {}
    if isinstance(workspace, dict) and isinstance(workspace.get("dependencies"), dict):
        tables.append(workspace["dependencies"])
    return tables


def unit_surface(root: str | None, package: str, indexes: Iterable[FileIndex]) -> Surface:
    """The shortest public path of each public item of the crate whose Cargo.toml is in ``root``
    (``smallvec//SmallVec``, ``kit//serve`` for an item of a private module given on by ``pub use``)."""
    indexes = tuple(indexes)
    controls = read_controls(root, tuple(i.path for i in indexes), (LANGUAGE,))
    context = LinkContext(Manifests(controls=controls), DEFAULT_HOPS, (), root=root)
    return Surface(RustLinker(indexes, GraphBuilder(), context).public_paths())


def make_linker(indexes: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext) -> RustLinker:
    return RustLinker(indexes, builder, context)
