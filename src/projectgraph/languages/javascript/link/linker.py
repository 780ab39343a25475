"""The JavaScript / TypeScript / TSX resolver: module resolution, exports, scopes, receivers.

Module resolution, in order: relative paths (the file, then the TypeScript/JavaScript extensions,
``./x.js`` written for ``./x.ts``, then a folder's package.json or ``index``); the nearest
tsconfig/jsconfig ``paths`` and ``baseUrl`` (with relative ``extends``, read from the project folder
when the manifests did not give the extended file); workspace packages by their package.json
``name`` (``exports``, ``module``, ``main``, ``index``; a ``dist``/``lib``/``build`` target that is not
in the tree is looked for under ``src`` with a source extension). The package.json and tsconfig
files of the folders that hold JS/TS files are read here when the manifests do not give them.
Anything else is external: its key is the specifier with ``/`` read as ``//`` (``lodash//template``,
``@scope//pkg//f``); a ``node:`` prefix is dropped (``node:fs`` and ``fs`` are one module). An
external module no package.json declares and no runtime provides may be an alias the resolver
does not follow, so a call through it also leaves an unresolved site scoped by its name.
Declaration files (``.d.ts``) stand for no code: an import that only finds one is external.

Exports follow the extractor's conventions (see ``languages/javascript/extract.py``): ESM names,
``default``, re-exports (``export {a as b} from``, ``export *``, ``export * as ns``), and CommonJS
``module.exports`` / ``exports.x``; a default import of a module with no default export is its
exports object (``module.exports``, or the module's names). ``require("m")(x)``,
``require("m").f(x)`` and ``(await import("m")).f(x)`` call into the module they load.

Values. A name resolves to a definition, a module, an external key, an object literal whose
members are definitions (``const api = {run() {}}``: ``api.run``, and ``this`` in its methods),
an instance (``inst``: ``this`` or a declared type, which a subclass may stand for, so a method
call also reaches each override by cha; ``new``: made by ``new C()``, exactly a ``C``) or a
parameter. Constructor functions (functions with ``F.prototype.m`` or ``this.m = function``
methods) make instances too, and ES5 prototype chains (``Object.create(Base.prototype)``,
``setPrototypeOf``, ``util.inherits``) are their ``extends``. ``f.call(x)`` and ``f.apply(x)``
call ``f``; ``f.bind(x)`` is a reference to ``f`` and passes it on; ``new this()`` in a static
method makes the classes the method is called through. Interface method signatures and abstract
methods are no call target: the implementations are (cha), and an interface receiver stays an
unresolved site, since TypeScript types are structural.

Arguments. A parameter is bound to the functions passed to it (by position when the call's text
shows it, else to every parameter), through parameters passed on; a call of a parameter reaches
them (kind ``reference``) and stays a covered unresolved site. A first-party function passed to a
builtin that calls it (array methods, promise callbacks, timers, event registration) is called
where it is passed.

A member call whose receiver stays unknown gets ``field`` edges (low) to each first-party method or
object property of the name, ACG's field-based rule, except for names of the builtin prototypes
(``push``, ``then``, ...), never into a minified file from another file, and never from non-test
code into a test file; the site stays an unresolved record so reach stays honest.

Resolution is memoized (name lookups per scope, return values, ``this`` fields) once parameters
are bound; a result cut by the depth cap or by a cycle (``this.x = this.x.wrap()``) is not kept.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from typing import Any

from projectgraph import keys
from projectgraph.fileindex import DEFAULT_TEST_PATHS, Assignment, Call, FileIndex, Import, Reference
from projectgraph.graph import Dynamic, Site, Unresolved
from projectgraph.languages.javascript import frameworks
from projectgraph.link.core import (
    DefInfo,
    GraphBuilder,
    LinkContext,
    Value,
    enclosing_key,
    module_node,
    node_for,
    subclasses_closure,
    value_target,
)
from projectgraph.manifests import EntryPoint, Manifests, PackageJson, normalize, read_manifests

LANGUAGES = ("javascript", "typescript", "tsx", "vue", "svelte")
SOURCE_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
_BUILD_DIRS = ("dist/", "lib/", "build/", "out/", "esm/", "cjs/")
MAX_FIELD_CANDIDATES = 10
# instance values: "inst" (this, a declared type: a subclass may stand for it), "new" (made by
# `new C()`: exactly a C, so no override of a subclass runs for it)
_INSTANCES = ("inst", "new")
NODE_BUILTINS = frozenset(
    """assert async_hooks buffer child_process cluster console constants crypto dgram
    diagnostics_channel dns domain events fs http http2 https inspector module net os path
    perf_hooks process punycode querystring readline repl stream string_decoder sys test timers
    tls trace_events tty url util v8 vm wasi worker_threads zlib""".split()
)
_DEPENDENCY_TABLES = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_RUNTIME_SCHEMES = ("node:", "npm:", "jsr:", "bun:", "@std/")
# a call of what a literal require/import gives: `require("m")(x)`, `require("m").f(x)`,
# `(await import("m")).f(x)`; group 4 tells a call of the module ("(") from a member (".")
_LOADED_CALL = re.compile(
    r"""^\(?\s*(?:await\s+)?(require|import)\(\s*(['"`])([^'"`$]+)\2\s*\)\s*\)?\s*([(.])"""
)
_INHERITS = frozenset({"setPrototypeOf", "inherits", "_inherits", "__extends"})
# array methods whose callback's first parameter receives each element of the receiver
_ELEMENT_METHODS = frozenset(
    "forEach map filter some every find findIndex findLast findLastIndex flatMap".split()
)
# Methods of builtins (arrays, promises, strings, event emitters) and global functions that call
# a function passed to them: a first-party function passed to one is called where it is passed
# (now or later: the site is the only caller the program writes).
CALLING_METHODS = frozenset(
    """map filter forEach reduce reduceRight find findIndex findLast findLastIndex some every
    flatMap sort toSorted then catch finally replace replaceAll on once addListener prependListener
    prependOnceListener addEventListener""".split()
)
CALLING_GLOBALS = frozenset(
    """setTimeout setInterval setImmediate queueMicrotask requestAnimationFrame requestIdleCallback
    process//nextTick Array//from Promise timers//setTimeout timers//setInterval
    timers//setImmediate JSON//parse JSON//stringify""".split()
)
GLOBALS = frozenset(
    """console JSON Math Object Array String Number Boolean Symbol BigInt Promise Reflect Proxy Date
    RegExp Error TypeError RangeError SyntaxError Map Set WeakMap WeakSet Intl globalThis window
    document navigator location history localStorage sessionStorage fetch setTimeout clearTimeout
    setInterval clearInterval setImmediate queueMicrotask structuredClone process Buffer require
    module exports __dirname __filename parseInt parseFloat isNaN isFinite encodeURIComponent
    decodeURIComponent encodeURI decodeURI URL URLSearchParams TextEncoder TextDecoder
    AbortController Headers Request Response FormData Blob File crypto performance atob btoa
    alert confirm prompt eval Function Uint8Array Int32Array Float64Array ArrayBuffer DataView
    WebSocket Worker Event EventTarget CustomEvent HTMLElement Element Node Deno Bun""".split()
)
# Methods of the builtin prototypes: an unknown receiver calling one is far more likely an array,
# string, promise or map than a first-party object, so no field edge is made for them.
BUILTIN_METHODS = frozenset(
    """push pop shift unshift slice splice concat join reverse sort indexOf lastIndexOf includes
    find findIndex findLast filter map forEach reduce reduceRight some every flat flatMap fill keys
    values entries at then catch finally toString toLocaleString valueOf hasOwnProperty apply call
    bind trim trimStart trimEnd split replaceAll matchAll startsWith endsWith padStart padEnd repeat
    toUpperCase toLowerCase charAt charCodeAt codePointAt substring substr normalize localeCompare
    toFixed toISOString getTime getFullYear stringify isArray allSettled addEventListener
    removeEventListener dispatchEvent preventDefault stopPropagation""".split()
)


# the names of a CommonJS module's own exports object, when no local binding shadows them
_OWN_EXPORTS = {"exports": [], "module": ["exports"]}
_OWN_EXPORT_NAMES = frozenset({"module.exports", "default", "*"})


def external_module_key(spec: str) -> str:
    spec = spec.removeprefix("node:")
    return keys.external(spec, "javascript")


@dataclass
class _File:
    index: FileIndex
    defs: dict[str, DefInfo] = field(default_factory=dict)
    assigns: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)
    imports: dict[tuple[str, str], list[Import]] = field(default_factory=dict)
    exports: dict[str, list[Any]] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)  # modules of `export * from`
    # ``a.b = ...`` by target (``this.`` ones aside): members set on objects after their literal
    member_assigns: dict[str, list[Assignment]] = field(default_factory=dict)
    # ``this.name = ...`` by name: (scope, assignments: declared types first, then by line)
    this_assigns: dict[str, list[tuple[str, list[Assignment]]]] = field(default_factory=dict)
    # object literals whose members are definitions (``const api = {run() {}}`` -> "api"), by
    # qualname, with the first line of their members; the object itself has no definition
    objects: dict[str, int] = field(default_factory=dict)
    # `function f(fn = fallback)`: the default values of parameters, bound like arguments
    defaults: list[Assignment] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.index.path

    @property
    def minified(self) -> bool:
        return "minified" in self.index.flags


def _strip_json_comments(text: str) -> str:
    out = []
    i = 0
    in_string = False
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = len(text) if j < 0 else j + 2
            continue
        else:
            out.append(ch)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


@dataclass(frozen=True)
class _TsConfig:
    folder: str  # the folder of the tsconfig, relative to the root
    base_url: str | None  # relative to the root
    paths: tuple[tuple[str, tuple[str, ...]], ...]


class JavaScriptLinker:
    languages = LANGUAGES

    def __init__(
        self,
        indexes: Iterable[FileIndex],
        builder: GraphBuilder,
        manifests: Manifests,
        max_hops: int,
        test_paths: Sequence[str] = DEFAULT_TEST_PATHS,
        root: str | None = None,
    ) -> None:
        self.builder = builder
        self.max_hops = max_hops
        self.manifests = manifests
        self.test_paths = tuple(test_paths)
        self.files: dict[str, _File] = {}
        self.defs: dict[str, DefInfo] = {}
        self.objects: dict[str, tuple[str, str]] = {}  # key -> (path, qualname) of _File.objects
        self.declarations: set[str] = set()
        for index in sorted(indexes, key=lambda i: i.path):
            if index.language not in LANGUAGES:
                continue
            if index.path.endswith(_DECLARATIONS) or "declarations" in index.flags:
                self.declarations.add(index.path)
                continue
            jsfile = _File(index)
            self.files[index.path] = jsfile
            for d in index.definitions:
                info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, index.language)
                jsfile.defs.setdefault(d.qualname, info)
                self.defs.setdefault(info.key, info)
            for d in index.definitions:
                for fact in d.returns:
                    if fact.startswith("object:"):
                        self.objects.setdefault(
                            keys.first_party(index.path, fact[7:]), (index.path, fact[7:])
                        )
                if d.kind not in ("method", "getter", "setter"):
                    continue
                owner = d.qualname.rpartition(".")[0]
                while owner and owner not in jsfile.defs:
                    line = jsfile.objects.get(owner)
                    jsfile.objects[owner] = d.line if line is None else min(line, d.line)
                    self.objects[keys.first_party(index.path, owner)] = (index.path, owner)
                    owner = owner.rpartition(".")[0]
            for a in index.assignments:
                if a.value.startswith("default:"):
                    jsfile.defaults.append(a)
                    continue
                if a.value.startswith("object:"):
                    qualname = a.value[7:]
                    self.objects.setdefault(keys.first_party(index.path, qualname), (index.path, qualname))
                jsfile.assigns.setdefault((a.scope, a.target), []).append(a)
            for (scope, target), assigns in sorted(jsfile.assigns.items()):
                if "." in target and not target.startswith("this."):
                    jsfile.member_assigns.setdefault(target, []).extend(assigns)
                    head = target.partition(".")[0]
                    if scope and head != scope.rpartition(".")[2] and not target.startswith(scope + "."):
                        # `handlers.save = f` in `main`: a member of the object `main.handlers`
                        jsfile.member_assigns.setdefault(f"{scope}.{target}", []).extend(assigns)
                if target.startswith("this.") and target.count(".") == 1:
                    ordered = sorted(assigns, key=lambda a: (0 if a.value.startswith("type:") else 1, a.line))
                    jsfile.this_assigns.setdefault(target[5:], []).append((scope, ordered))
            for imp in index.imports:
                if imp.bound is not None:
                    jsfile.imports.setdefault((imp.scope, imp.bound), []).append(imp)
            for export in index.exports:
                if export.name == "*" and export.star and export.module is not None:
                    jsfile.stars.append(export.module)
                else:
                    jsfile.exports.setdefault(export.name, []).append(export)
        self.root = root
        self.all_packages, self.dependencies, configs = self._nested_manifests()
        self.packages = {p.name: p for p in self.all_packages if p.name}
        self.tsconfigs = self._read_tsconfigs(configs)
        self._depth = 0
        self._building_prototypes = False
        self._module_cache: dict[tuple[str, str], str | None] = {}

    # ---- module resolution ----------------------------------------------------------------
    def _nested_manifests(self) -> tuple[tuple[PackageJson, ...], frozenset[str], dict[str, str]]:
        """The manifests' package.json files and tsconfig/jsconfig texts, with those in the folders
        of the JS/TS files (and above them) that the manifests did not give, read from the
        project folder: a workspace package's own package.json, an app's tsconfig.json."""
        packages = list(self.manifests.packages)
        dependencies = set(self.manifests.dependencies)
        configs = dict(self.manifests.files)
        if self.root is None:
            return tuple(packages), frozenset(dependencies), configs
        known = {p.path for p in packages}
        folders: set[str] = set()
        for path in [*self.files, *self.declarations]:
            folder = posixpath.dirname(path)
            while folder and folder not in folders:
                folders.add(folder)
                folder = posixpath.dirname(folder)
        controls = self.manifests.controls  # read before the link
        for folder in sorted(folders):
            if "node_modules" in folder.split("/"):
                continue
            for name in ("package.json", "tsconfig.json", "jsconfig.json"):
                rel = f"{folder}/{name}"
                if rel in known or rel in configs or not controls.exists(rel):
                    continue
                try:
                    text = controls.read_text(rel)
                except (OSError, UnicodeDecodeError):
                    continue
                if name != "package.json":
                    configs[rel] = text
                    continue
                try:
                    data = json.loads(text)
                except ValueError:
                    continue
                if isinstance(data, dict):
                    packages.append(_package_json(rel, data))
                    for table in _DEPENDENCY_TABLES:
                        if isinstance(data.get(table), dict):
                            dependencies |= {normalize(n) for n in data[table]}
        return tuple(packages), frozenset(dependencies), configs

    def _read_tsconfigs(self, raw: dict[str, str]) -> list[_TsConfig]:
        loaded: dict[str, dict[str, Any]] = {}
        for path, text in raw.items():
            data = _parse_config(text)
            if data is not None:
                loaded[path] = data
        configs = []
        for path in sorted(loaded):
            self._load_extended(path, loaded)
            options: dict[str, Any] = {}
            owner: dict[str, str] = {}
            chain: list[str] = []
            current: str | None = path
            while current and current in loaded and current not in chain and len(chain) < 10:
                chain.append(current)
                extends = loaded[current].get("extends")
                current = None
                if isinstance(extends, str) and extends.startswith("."):
                    target = posixpath.normpath(posixpath.join(posixpath.dirname(chain[-1]), extends))
                    current = target if target.endswith(".json") else target + ".json"
            for config in reversed(chain):  # the extended first, the extending over it
                compiler = loaded[config].get("compilerOptions") or {}
                if isinstance(compiler, dict):
                    for key in ("baseUrl", "paths"):
                        if key in compiler:
                            options[key] = compiler[key]
                            owner[key] = posixpath.dirname(config)
            base_url = None
            if isinstance(options.get("baseUrl"), str):
                base_url = posixpath.normpath(posixpath.join(owner["baseUrl"], options["baseUrl"]))
            paths: list[tuple[str, tuple[str, ...]]] = []
            if isinstance(options.get("paths"), dict):
                root_of_paths = base_url if base_url is not None else owner["paths"]
                for pattern, targets in options["paths"].items():
                    if isinstance(targets, list):
                        resolved = tuple(
                            posixpath.normpath(posixpath.join(root_of_paths, t)) if t != "*" else t
                            for t in targets
                            if isinstance(t, str)
                        )
                        paths.append((pattern, resolved))
            configs.append(_TsConfig(posixpath.dirname(path), base_url, tuple(paths)))
        configs.sort(key=lambda c: (-len(c.folder), c.folder))
        return configs

    def _load_extended(self, path: str, loaded: dict[str, dict[str, Any]]) -> None:
        """Read the configs a config extends that the manifests did not give (a config in a
        folder of its own, ``config/tsconfig.base.json``), from the project folder."""
        current = path
        for _ in range(10):
            extends = loaded[current].get("extends")
            if not isinstance(extends, str) or not extends.startswith(".") or self.root is None:
                return
            target = posixpath.normpath(posixpath.join(posixpath.dirname(current), extends))
            target = target if target.endswith(".json") else target + ".json"
            if target.startswith("..") or target in loaded:
                return
            try:
                text = self.manifests.controls.read_text(target)
            except (OSError, UnicodeDecodeError):
                return
            data = _parse_config(text)
            if data is None:
                return
            loaded[target] = data
            current = target

    def _tsconfig_for(self, path: str) -> _TsConfig | None:
        for config in self.tsconfigs:
            if not config.folder or path.startswith(config.folder + "/"):
                return config
        return None

    def _file_candidates(self, base: str) -> str | None:
        """The project file a path names: itself, with an extension, or a folder's entry."""
        base = posixpath.normpath(base)
        if base.startswith("../") or base == "..":
            return None
        if base in self.files:
            return base
        stem = base
        for ext in (".js", ".jsx", ".mjs", ".cjs"):
            if base.endswith(ext):  # TypeScript sources are imported with .js extensions
                stem = base[: -len(ext)]
                break
        for ext in SOURCE_EXTENSIONS:
            if stem + ext in self.files:
                return stem + ext
        package = self._package_at(base)
        if package is not None:
            found = self._package_entry(package, ".")
            if found:
                return found
        for ext in SOURCE_EXTENSIONS:
            if f"{base}/index{ext}" in self.files:
                return f"{base}/index{ext}"
        return None

    def _package_at(self, folder: str) -> PackageJson | None:
        wanted = f"{folder}/package.json" if folder and folder != "." else "package.json"
        for package in self.all_packages:
            if package.path == wanted:
                return package
        return None

    def _package_entry(self, package: PackageJson, subpath: str) -> str | None:
        folder = posixpath.dirname(package.path)
        targets: list[str] = []
        exports = package.exports
        if exports is not None:
            targets.extend(_exports_targets(exports, subpath))
        if subpath == ".":
            targets += [t for t in (package.module, package.main) if t]
            targets.append("index")
        else:
            targets.append(subpath)
        for target in targets:
            path = (
                posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)
            )
            found = self._file_candidates_plain(path)
            if found:
                return found
            rel = posixpath.normpath(target).lstrip("./")
            for build in _BUILD_DIRS:
                if rel.startswith(build):
                    src = (
                        posixpath.join(folder, "src", rel[len(build) :])
                        if folder
                        else posixpath.join("src", rel[len(build) :])
                    )
                    found = self._file_candidates_plain(src)
                    if found:
                        return found
        return None

    def _file_candidates_plain(self, base: str) -> str | None:
        base = posixpath.normpath(base)
        if base in self.files:
            return base
        stem = base
        for ext in (".js", ".jsx", ".mjs", ".cjs", ".d.ts"):
            if base.endswith(ext):
                stem = base[: -len(ext)]
                break
        for ext in SOURCE_EXTENSIONS:
            if stem + ext in self.files:
                return stem + ext
        for ext in SOURCE_EXTENSIONS:
            if f"{base}/index{ext}" in self.files:
                return f"{base}/index{ext}"
        return None

    def resolve_module(self, from_path: str, spec: str) -> str | None:
        """The project file ``spec`` names from ``from_path``, or None for an external module."""
        cache_key = (posixpath.dirname(from_path), spec)
        if cache_key in self._module_cache:
            return self._module_cache[cache_key]
        found = self._resolve_module(from_path, spec)
        self._module_cache[cache_key] = found
        return found

    def _resolve_module(self, from_path: str, spec: str) -> str | None:
        if not spec:
            return None
        if spec.startswith((".", "/")):
            base = (
                spec.lstrip("/")
                if spec.startswith("/")
                else posixpath.join(posixpath.dirname(from_path), spec)
            )
            return self._file_candidates(base)
        config = self._tsconfig_for(from_path)
        if config is not None:
            for pattern, targets in config.paths:
                star = _match_pattern(pattern, spec)
                if star is None:
                    continue
                for target in targets:
                    found = self._file_candidates(target.replace("*", star, 1))
                    if found:
                        return found
            if config.base_url is not None:
                found = self._file_candidates(posixpath.join(config.base_url, spec))
                if found:
                    return found
        name, subpath = _split_package(spec)
        package = self.packages.get(name)
        if package is not None:
            return self._package_entry(package, subpath)
        return None

    def _module_value(self, from_path: str, spec: str) -> Value | None:
        path = self.resolve_module(from_path, spec)
        if path is not None:
            return Value("module", path)
        if spec.startswith((".", "/")):
            return None  # a relative import of a file not in the project: unknown, not external
        return Value("ext", self._external_module(spec))

    def _external_module(self, spec: str) -> str:
        """The key of a module that is not in the project; one no manifest declares (and no
        built-in) is noted, since it may be an alias the resolver does not follow."""
        key = external_module_key(spec)
        if not self._declared(spec):
            self._undeclared.add(key)
        return key

    def _declared(self, spec: str) -> bool:
        if spec.startswith(_RUNTIME_SCHEMES):
            return True
        name, _subpath = _split_package(spec)
        return name in NODE_BUILTINS or normalize(name) in self.dependencies

    @cached_property
    def _undeclared(self) -> set[str]:
        return set()

    def _from_undeclared(self, key: str) -> bool:
        """Whether an external key names something of a module no manifest declares."""
        parts = key.split("//")
        return any("//".join(parts[:i]) in self._undeclared for i in range(1, len(parts) + 1))

    # ---- the whole run --------------------------------------------------------------------
    def link(self) -> None:
        self._add_nodes()
        for jsfile in self.files.values():
            self._bind_file(jsfile)
        self._end_binding()
        for jsfile in self.files.values():
            self._link_file(jsfile)

    def _add_nodes(self) -> None:
        for path, jsfile in self.files.items():
            self.builder.node(module_node(path, jsfile.index.language))
            for info in jsfile.defs.values():
                self.builder.node(node_for(info))
        for path in sorted(self.declarations):
            self.builder.node(module_node(path, "typescript"))

    def _bind_file(self, jsfile: _File) -> None:
        """The binding pass's share of one file: the functions its calls pass (and its defaults)."""
        for call, refs in self._arguments_of(jsfile):
            self._bind_arguments(jsfile, call, refs)
        for default in jsfile.defaults:
            self._bind_default(jsfile, default)

    def _end_binding(self) -> None:
        self._binding_done = True  # parameters bound: what was resolved before may change
        self._returns_memo.clear()
        self._field_memo.clear()
        self._lookup_memo.clear()

    def _link_file(self, jsfile: _File) -> None:
        index = jsfile.index
        path = index.path
        for imp in index.imports:
            caller = self._caller(jsfile, imp.scope)
            site = Site(path, imp.line, 0)
            if imp.kind == "type":
                continue
            target = self.resolve_module(path, imp.module)
            if target is not None:
                if target != path:
                    self.builder.edge(caller, target, "imports", "import", site)
            elif not imp.module.startswith((".", "/")) and imp.module:
                key = self.builder.external(external_module_key(imp.module), index.language)
                self.builder.edge(caller, key, "imports", "import", site)
        type_lines = {(i.line, i.module) for i in index.imports if i.kind == "type" and i.bound is None}
        for export in index.exports:
            if export.module and (export.line, export.module) not in type_lines:
                target = self.resolve_module(path, export.module)
                if target is not None and target != path:
                    self.builder.edge(path, target, "imports", "import", Site(path, export.line, 0))
        for info in jsfile.defs.values():
            if info.is_class or info.key in self._prototype_bases:
                self._class_edges(jsfile, info)
        for call in index.calls:
            self._call(jsfile, call)
        for ref in index.references:
            caller = self._caller(jsfile, ref.scope)
            value = self._resolve_dotted(jsfile, ref.scope, ref.name, ref.line)
            target = self._value_target(value, index.language)
            if target is not None and target != caller:
                self.builder.edge(caller, target, "references", "reference", Site(path, ref.line, ref.column))
                if target in self._getters and "." in ref.name:
                    # a getter runs on the property read (`t.celsius`)
                    self.builder.edge(caller, target, "calls", "member", Site(path, ref.line, ref.column))
        for flag in index.dynamic:
            caller = self._caller(jsfile, flag.scope)
            site = Site(path, flag.line, flag.column)
            prefix = self._dynamic_prefix(path, flag.prefix) if flag.prefix else ""
            self.builder.dynamic.append(Dynamic(caller, site, flag.kind, prefix))
            if flag.kind in ("require", "import"):
                self.builder.unresolved_site(
                    Unresolved(caller, site, "dynamic-import", "", flag.kind, prefix=prefix)
                )
        frameworks.link_file(self, jsfile)  # the calls Express, NestJS, ... make (issue 21)

    def _dynamic_prefix(self, path: str, prefix: str) -> str:
        """The keys a computed ``require``/``import()`` with a static start concerns: the external
        module of a bare start (``lodash/`` + x -> ``lodash``), else "" (anything). A relative
        start loads project modules, whose code reaches far beyond their folder, and a bare one
        may name a workspace package or a tsconfig path."""
        if prefix.startswith((".", "/")):
            return ""
        config = self._tsconfig_for(path)
        if config is not None and (config.base_url is not None or config.paths):
            return ""
        for name in self.packages:
            if name.startswith(prefix) or prefix.startswith(name + "/") or prefix == name:
                return ""
        return external_module_key(prefix.rstrip("/"))

    def _caller(self, jsfile: _File, scope: str) -> str:
        return enclosing_key(jsfile.defs, jsfile.path, scope)

    def _value_target(self, value: Value | None, language: str) -> str | None:
        return value_target(self.builder, value, language)

    # ---- exports --------------------------------------------------------------------------
    def export_of(self, path: str, name: str) -> Value | None:
        """The value module ``path`` exports under ``name``, through re-exports."""
        jsfile = self.files.get(path)
        if jsfile is None:
            return None
        self._depth += 1
        try:
            if self._depth > self.max_hops * 3:
                self._capped = True
                return None
            for export in jsfile.exports.get(name, ()):
                value = self._export_value(jsfile, export)
                if value is not None:
                    return value
            if name == "default":
                # a CommonJS module's default is its exports object: module.exports, or the
                # module itself when only exports.x / an object literal of names fill it
                whole = self._module_exports(jsfile)
                return whole if whole is not None else Value("module", path)
            for export in jsfile.exports.get("module.exports", ()):
                whole = self._export_value(jsfile, export)
                if whole is not None:
                    member = self._attribute(whole, name)
                    if member is not None:
                        return member
            for spec in jsfile.stars:
                target = self.resolve_module(path, spec)
                if target is not None:
                    value = self.export_of(target, name)
                    if value is not None:
                        return value
                elif not spec.startswith("."):
                    return Value("ext", keys.join(self._external_module(spec), name))
            return None
        finally:
            self._depth -= 1

    def _module_exports(self, jsfile: _File) -> Value | None:
        for export in jsfile.exports.get("module.exports", ()):
            value = self._export_value(jsfile, export)
            if value is not None:
                return value
        return None

    def _export_value(self, jsfile: _File, export: Any) -> Value | None:
        if export.module is not None:
            if export.star:  # export * as ns from / module.exports = require(m)
                return self._module_value(jsfile.path, export.module)
            target = self.resolve_module(jsfile.path, export.module)
            if target is None:
                if export.module.startswith("."):
                    return None
                base = self._external_module(export.module)
                return Value("ext", keys.join(base, export.local) if export.local else base)
            return self.export_of(target, export.local or export.name)
        if export.local is None:
            return None
        return self._resolve_dotted(jsfile, "", export.local, 1 << 30)

    # ---- classes --------------------------------------------------------------------------
    def _class_edges(self, jsfile: _File, info: DefInfo) -> None:
        site = Site(jsfile.path, info.definition.line, info.definition.column)
        for relation, value in self._bases(info.key):
            target = self._value_target(value, jsfile.index.language)
            if target is not None:
                self.builder.edge(info.key, target, relation, relation, site)

    def _bases(self, cls: str) -> list[tuple[str, Value]]:
        """(relation, base) of a class or interface, computed once; empty while being resolved."""
        cached = self._bases_cache.get(cls)
        if cached is not None:
            return cached
        self._bases_cache[cls] = []
        info = self.defs.get(cls)
        found: list[tuple[str, Value]] = []
        if info is not None and info.definition.kind == "function":
            found = [("extends", v) for v in self._prototype_bases.get(cls, ()) if v.key != cls]
        if info is not None and (info.is_class or info.definition.kind == "interface"):
            jsfile = self.files[info.path]
            scope = self._function_scope(jsfile, info.qualname.rpartition(".")[0])
            for base in info.definition.bases:
                relation = "extends"
                if base.startswith("implements:"):
                    relation, base = "implements", base.removeprefix("implements:")
                value = self._resolve_dotted(jsfile, scope, base, info.definition.line)
                if value is not None and value.kind in ("def", "ext") and value.key != cls:
                    found.append((relation, value))
        self._bases_cache[cls] = found
        return found

    @cached_property
    def _bases_cache(self) -> dict[str, list[tuple[str, Value]]]:
        return {}

    @cached_property
    def _constructor_functions(self) -> frozenset[str]:
        """Functions with methods (``F.prototype.m = function``, ``this.m = function`` in ``F``):
        constructor functions, whose ``new F()`` is an instance of ``F``."""
        found = set()
        for info in self.defs.values():
            if info.definition.kind in ("method", "getter", "setter") and "." in info.qualname:
                owner = self.files[info.path].defs.get(info.qualname.rpartition(".")[0])
                if owner is not None and owner.definition.kind == "function":
                    found.add(owner.key)
        return frozenset(found)

    def _constructs(self, key: str) -> bool:
        """Whether ``new`` of this definition makes an instance of it (a class or constructor function)."""
        info = self.defs[key]
        if info.is_class or key in self._constructor_functions:
            return True
        # while the prototype table is being built, a resolution may ask again: not a base yet
        return not self._building_prototypes and key in self._prototype_bases

    @cached_property
    def _prototype_bases(self) -> dict[str, list[Value]]:
        """The bases of constructor functions, from the ES5 ways to chain prototypes:
        ``Sub.prototype = Object.create(Base.prototype)``, ``Sub.prototype = new Base()``,
        ``Object.setPrototypeOf(Sub.prototype, Base.prototype)`` and ``util.inherits(Sub, Base)``
        (and the compilers' ``_inherits`` / ``__extends``)."""
        table: dict[str, list[Value]] = {}
        self._building_prototypes = True

        def add(jsfile: _File, scope: str, line: int, sub: str, base: str) -> None:
            child = self._resolve_dotted(jsfile, scope, sub.removesuffix(".prototype"), line)
            parent = self._resolve_dotted(jsfile, scope, base.removesuffix(".prototype"), line)
            if child is None or child.kind != "def" or self.defs[child.key].definition.kind != "function":
                return
            if parent is not None and parent.kind in ("def", "ext"):
                bases = table.setdefault(child.key, [])
                if parent not in bases:
                    bases.append(parent)

        for jsfile in self.files.values():
            refs: dict[tuple[str, int], list[tuple[int, str]]] = {}
            for ref in jsfile.index.references:
                refs.setdefault((ref.scope, ref.line), []).append((ref.column, ref.name))
            for (scope, target), assigns in jsfile.assigns.items():
                if not target.endswith(".prototype") or target.count(".") != 1:
                    continue
                for assign in assigns:
                    kind, _, text = assign.value.partition(":")
                    if kind != "call":
                        continue
                    if text == "Object.create":
                        for _column, name in sorted(refs.get((scope, assign.line), ())):
                            if name.endswith(".prototype") and name != target:
                                add(jsfile, scope, assign.line, target, name)
                                break
                    else:  # Sub.prototype = new Base()
                        base = self._resolve_dotted(jsfile, scope, text, assign.line)
                        if base is not None and base.kind == "def" and self._constructs(base.key):
                            add(jsfile, scope, assign.line, target, text)
            for call in jsfile.index.calls:
                if call.name not in _INHERITS or call.receiver == "<expr>":
                    continue
                args = sorted(
                    (column, name)
                    for column, name in refs.get((call.scope, call.line), ())
                    if column > call.column
                )
                if len(args) >= 2:
                    add(jsfile, call.scope, call.line, args[0][1], args[1][1])
        self._building_prototypes = False
        return table

    @cached_property
    def _getters(self) -> frozenset[str]:
        """The keys of getters (a getter and its setter share a key)."""
        return frozenset(
            keys.first_party(index.path, d.qualname)
            for jsfile in self.files.values()
            for index in (jsfile.index,)
            for d in index.definitions
            if d.kind == "getter"
        )

    @cached_property
    def _subclasses(self) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {}
        for cls in sorted(self.defs):
            for _relation, base in self._bases(cls):
                if base.kind == "def":
                    table.setdefault(base.key, []).append(cls)
        return table

    def _chain(self, cls: str) -> list[str]:
        """The class and its bases, nearest first (JavaScript has single inheritance of classes)."""
        order = [cls]
        current = cls
        for _ in range(self.max_hops * 4):
            bases = [v for rel, v in self._bases(current) if rel == "extends" and v.kind == "def"]
            if not bases or bases[0].key in order:
                break
            current = bases[0].key
            order.append(current)
        return order

    def _external_base(self, cls: str) -> str | None:
        for name in self._chain(cls):
            for rel, value in self._bases(name):
                if rel == "extends" and value.kind == "ext":
                    return value.key
        return None

    def _member(self, cls: str, name: str, start: int = 0) -> DefInfo | None:
        for owner in self._chain(cls)[start:]:
            info = self.defs.get(owner)
            if info is None:
                continue
            jsfile = self.files[info.path]
            member = jsfile.defs.get(f"{info.qualname}.{name}")
            if member is not None:
                return member
            # `F.prototype.on = F.prototype.addListener`, `F.prototype.count = count`
            assigned = jsfile.member_assigns.get(f"{info.qualname}.prototype.{name}", [])
            if len(assigned) == 1 and (owner, name) not in self._member_busy:
                self._member_busy.add((owner, name))
                try:
                    value = self._assigned_value(jsfile, assigned[0].scope, assigned[0])
                finally:
                    self._member_busy.discard((owner, name))
                if value is not None and value.kind == "def":
                    return self.defs[value.key]
            for mixin in self._mixins().get(owner, ()):
                path, qualname = self.objects[mixin.key]
                member = self.files[path].defs.get(f"{qualname}.{name}")
                if member is not None:
                    return member
        return None

    @cached_property
    def _member_busy(self) -> set[tuple[str, str]]:
        return set()

    _mixins_table: dict[str, list[Value]] | None = None
    _mixing = False

    def _mixins(self) -> dict[str, list[Value]]:
        """``Object.assign(C.prototype, Mixin)``: the objects whose members a class's instances
        get (class key -> object values), read from the call's argument references; computed
        once, empty while it is being computed (a resolution it makes asks for a member)."""
        if self._mixins_table is not None:
            return self._mixins_table
        if self._mixing:
            self._capped = True
            return {}
        self._mixing = True
        try:
            self._mixins_table = self._find_mixins()
        finally:
            self._mixing = False
        return self._mixins_table

    def _find_mixins(self) -> dict[str, list[Value]]:
        table: dict[str, list[Value]] = {}
        for jsfile in self.files.values():
            for call, refs in self._arguments_of(jsfile):
                if call.callee != "Object.assign" or len(refs) < 2:
                    continue
                ordered = sorted(refs, key=lambda r: r[0].column)
                target_ref = ordered[0][0]
                if not target_ref.name.endswith(".prototype"):
                    continue
                target = self._resolve_dotted(
                    jsfile, target_ref.scope, target_ref.name.removesuffix(".prototype"), target_ref.line
                )
                if target is None or target.kind != "def":
                    continue
                for ref, _position in ordered[1:]:
                    source = self._resolve_dotted(jsfile, ref.scope, ref.name, ref.line)
                    if source is not None and source.kind == "obj":
                        table.setdefault(target.key, []).append(source)
        return table

    def _constructor_of(self, cls: str) -> DefInfo | None:
        """What ``super()`` runs for a base: its constructor, or the base itself when a function."""
        info = self.defs[cls]
        return info if info.definition.kind == "function" else self._constructor(cls)

    def _constructor(self, cls: str) -> DefInfo | None:
        """What ``new cls()`` runs: the nearest declared constructor, or a constructor function
        the class chain reaches first."""
        for owner in self._chain(cls):
            info = self.defs.get(owner)
            if info is None:
                continue
            if info.definition.kind == "function":
                return info if owner != cls else None
            member = self.files[info.path].defs.get(f"{info.qualname}.constructor")
            if member is not None:
                return member
        return None

    def _field_value(self, cls: str, name: str) -> Value | None:
        """The value bound to ``this.name`` in the class (field declarations, the constructor);
        None while it is being resolved (``this.x = this.x.wrap()`` reaches back to itself)."""
        memo_key = (cls, name)
        if memo_key in self._field_memo:
            return self._field_memo[memo_key]
        if memo_key in self._field_busy:
            self._capped = True  # an answer cut by the cycle: not kept by what asked
            return None
        self._field_busy.add(memo_key)
        capped, self._capped = self._capped, False
        try:
            found = self._find_field_value(cls, name)
            if not self._capped:
                self._field_memo[memo_key] = found
        finally:
            self._field_busy.discard(memo_key)
            self._capped = self._capped or capped
        return found

    def _find_field_value(self, cls: str, name: str) -> Value | None:
        for owner in self._chain(cls):
            info = self.defs.get(owner)
            if info is None:
                continue
            jsfile = self.files[info.path]
            for scope, assigns in jsfile.this_assigns.get(name, ()):
                if not (scope == info.qualname or scope.startswith(info.qualname + ".")):
                    continue
                for assign in assigns:
                    value = self._assigned_value(jsfile, scope, assign)
                    if value is not None:
                        return value
        return None

    @cached_property
    def _field_memo(self) -> dict[tuple[str, str], Value | None]:
        return {}

    @cached_property
    def _field_busy(self) -> set[tuple[str, str]]:
        return set()

    # ---- names ----------------------------------------------------------------------------
    def _function_scope(self, jsfile: _File, scope: str) -> str:
        current = scope
        while current:
            info = jsfile.defs.get(current)
            if (
                info is not None
                and not info.is_class
                and info.definition.kind not in ("interface", "namespace")
            ):
                return current
            current = current.rpartition(".")[0]
        return ""

    def _scopes(self, jsfile: _File, scope: str) -> list[str]:
        chain = []
        current = scope
        while current:
            info = jsfile.defs.get(current)
            if info is None or not info.is_class:
                chain.append(current)
            current = current.rpartition(".")[0]
        chain.append("")
        return chain

    def _lookup(self, jsfile: _File, scope: str, name: str, line: int) -> tuple[Value | None, str]:
        self._depth += 1
        try:
            if self._depth > self.max_hops * 4:
                self._capped = True
                return None, "limit"
            for position, current in enumerate(self._scopes(jsfile, scope)):
                found = self._lookup_in(jsfile, current, name, line if position == 0 else None)
                if found[1] != "none":
                    return found
            if name in GLOBALS:
                return Value("ext", name), "global"
            return None, "none"
        finally:
            self._depth -= 1

    def _lookup_in(self, jsfile: _File, scope: str, name: str, line: int | None) -> tuple[Value | None, str]:
        """What ``name`` is bound to in one scope (at ``line``, or anywhere in it), memoized."""
        memo_key = (jsfile.path, scope, name, line)
        cached = self._lookup_memo.get(memo_key)
        if cached is not None:
            return cached
        capped, self._capped = self._capped, False
        try:
            found = self._find_in_scope(jsfile, scope, name, line)
            if not self._capped:
                self._lookup_memo[memo_key] = found
        finally:
            self._capped = self._capped or capped
        return found

    @cached_property
    def _lookup_memo(self) -> dict[tuple[str, str, str, int | None], tuple[Value | None, str]]:
        return {}

    def _find_in_scope(
        self, jsfile: _File, scope: str, name: str, line: int | None
    ) -> tuple[Value | None, str]:
        candidates: list[tuple[int, int, str, Any]] = []
        qualname = f"{scope}.{name}" if scope else name
        info = jsfile.defs.get(qualname)
        if info is not None:
            candidates.append((info.definition.line, 2, "def", info))
        for imp in jsfile.imports.get((scope, name), ()):
            candidates.append((imp.line, 1, "import", imp))
        for assign in jsfile.assigns.get((scope, name), ()):
            candidates.append((assign.line, 0, "assign", assign))
        if not candidates and scope:
            param = self._param(jsfile, scope, name)
            if param is not None:
                return param
        if not candidates:
            if qualname in jsfile.objects:  # an object literal with methods, bound by nothing else
                return Value("obj", keys.first_party(jsfile.path, qualname)), "def"
            return None, "none"
        before = [c for c in candidates if line is None or c[0] <= line]
        # a function declaration is hoisted: it binds before its line too
        chosen = max(before or candidates, key=lambda c: (c[0], c[1]))
        how, item = chosen[2], chosen[3]
        if how == "def":
            return Value("def", item.key), "def"
        if how == "import":
            return self._import_value(jsfile, item), "import"
        value = self._assigned_value(jsfile, scope, item)
        return value, "assign" if value is not None else "unknown-local"

    def _param(self, jsfile: _File, scope: str, name: str) -> tuple[Value | None, str] | None:
        info = jsfile.defs.get(scope)
        if info is None:
            return None
        for param in info.definition.params:
            if param.name == name:
                if param.type:
                    return self._type_value(
                        jsfile,
                        self._function_scope(jsfile, scope.rpartition(".")[0]),
                        param.type,
                        info.definition.line,
                    ), "param"
                key = keys.join(info.key, name)
                if self._binding_done and key in self._bindings:
                    return Value("param", key), "param"
                return None, "param"
        return None

    def _type_value(self, jsfile: _File, scope: str, type_name: str, line: int) -> Value | None:
        value = self._resolve_dotted(jsfile, scope, type_name, line)
        if value is None:
            return None
        if value.kind == "def":
            info = self.defs[value.key]
            if info.is_class or info.definition.kind in ("interface", "function"):
                return Value("inst", value.key)
            return None
        if value.kind == "ext":
            return Value("inst_ext", value.key)
        return None

    def _assigned_value(self, jsfile: _File, scope: str, assign: Assignment) -> Value | None:
        kind, _, text = assign.value.partition(":")
        if kind == "type":
            return self._type_value(jsfile, scope, text, assign.line)
        if kind == "call":
            return self._call_result(jsfile, scope, text, assign.line)
        if kind == "name" and text != assign.target:
            return self._resolve_dotted(jsfile, scope, text, assign.line)
        if kind == "object":
            return Value("obj", keys.first_party(jsfile.path, text))
        if kind == "each":
            _mode, _, base = text.partition(":")
            return self._set(self._elements(jsfile, scope, base, assign.line))
        return None

    # ---- value sets: containers' elements -------------------------------------------------
    @cached_property
    def _sets(self) -> list[tuple[Value, ...]]:
        """Value sets by id (``Value("set", id)``): the elements a loop or a callback receives."""
        return []

    def _set(self, values: list[Value]) -> Value | None:
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        self._sets.append(tuple(values))
        return Value("set", str(len(self._sets) - 1))

    def _members_of(self, value: Value) -> list[Value]:
        """The values stored in an object or array (its literal's members, later stores); a
        container reached again while its members are read (``for (x of xs) xs.push(x)``) adds
        nothing more, and the answer is not memoized."""
        if value in self._members_busy:
            self._capped = True
            return []
        self._members_busy.add(value)
        try:
            return self._find_members(value)
        finally:
            self._members_busy.discard(value)

    @cached_property
    def _members_busy(self) -> set[Value]:
        return set()

    def _find_members(self, value: Value) -> list[Value]:
        if value.kind == "set":
            return [m for v in self._sets[int(value.key)] for m in self._members_of(v)]
        if value.kind == "param":
            found: list[Value] = []
            for bound in self._bound_values(value.key):
                found += self._members_of(bound) if bound.kind in ("obj", "set") else [bound]
            return found
        if value.kind != "obj":
            return []
        path, qualname = self.objects[value.key]
        jsfile = self.files[path]
        found = []
        prefix = qualname + "."
        for name, info in sorted(jsfile.defs.items()):
            if name.startswith(prefix) and "." not in name[len(prefix) :]:
                found.append(Value("def", info.key))
        for target in sorted(self._member_targets(jsfile, qualname)):
            for assign in jsfile.member_assigns[target]:
                member = self._assigned_value(jsfile, assign.scope, assign)
                if member is not None and member not in found:
                    found.append(member)
        for pushed in self._pushed().get(value.key, ()):
            if pushed not in found:
                found.append(pushed)
        return found

    def _member_targets(self, jsfile: _File, qualname: str) -> list[str]:
        table = self._member_index.get(jsfile.path)
        if table is None:
            table = self._member_index[jsfile.path] = {}
            for target in jsfile.member_assigns:
                table.setdefault(target.rpartition(".")[0], []).append(target)
        return table.get(qualname, [])

    @cached_property
    def _member_index(self) -> dict[str, dict[str, list[str]]]:
        return {}

    _pushed_table: dict[str, list[Value]] | None = None
    _pushing = False

    def _pushed(self) -> dict[str, list[Value]]:
        """What ``xs.push(f)`` stores in an array (its key -> the values pushed), computed once;
        while it is being computed (a pushed value read from a container), nothing yet."""
        if self._pushed_table is not None:
            return self._pushed_table
        if self._pushing:
            self._capped = True
            return {}
        self._pushing = True
        try:
            self._pushed_table = self._find_pushed()
        finally:
            self._pushing = False
        return self._pushed_table

    def _find_pushed(self) -> dict[str, list[Value]]:
        table: dict[str, list[Value]] = {}
        for jsfile in self.files.values():
            for call, refs in self._arguments_of(jsfile):
                if call.name not in ("push", "unshift", "add", "set") or call.receiver in (None, "<expr>"):
                    continue
                container = self._resolve_dotted(jsfile, call.scope, call.receiver or "", call.line)
                if container is None or container.kind != "obj":
                    continue
                for ref, _position in refs:
                    value = self._argument_value(jsfile, ref)
                    if value is not None and value.kind in ("def", "param", "ext"):
                        stored = table.setdefault(container.key, [])
                        if value not in stored:
                            stored.append(value)
        return table

    def _elements(self, jsfile: _File, scope: str, base: str, line: int) -> list[Value]:
        """The elements iterating ``base`` gives: an array's or object's members, what a rest
        parameter received, the values a generator yields."""
        if base.endswith("()"):
            head = self._resolve_dotted(jsfile, scope, base[:-2], line)
            if head is not None and head.kind == "def":
                info = self.defs[head.key]
                yields = [f[6:] for f in info.definition.returns if f.startswith("yield:")]
                if yields:
                    found = []
                    for fact in yields:
                        value = self._fact_value(info, fact)
                        if value is not None and value not in found:
                            found.append(value)
                    return found
        container = self._resolve_dotted(jsfile, scope, base, line)
        if container is None:
            return []
        return self._members_of(container)

    def _import_value(self, jsfile: _File, imp: Import) -> Value | None:
        module = self._module_value(jsfile.path, imp.module)
        if module is None:
            return None
        if imp.name is None:
            if module.kind == "module" and imp.kind in ("require", "dynamic"):
                whole = self._module_exports(self.files[module.key])
                return whole if whole is not None else module
            return module
        if module.kind == "ext":
            if imp.name == "default":
                return module
            return Value("ext", keys.join(module.key, imp.name))
        return self.export_of(module.key, imp.name)

    def _resolve_dotted(self, jsfile: _File, scope: str, text: str, line: int) -> Value | None:
        parts = text.split(".")
        head = parts[0]
        call = head.endswith("()")
        head = head.removesuffix("()")
        if head == "this":
            value = self._this(jsfile, scope)
        else:
            value, how = self._lookup(jsfile, scope, head, line)
            if how == "global" and not call and _OWN_EXPORTS.get(head) == parts[1 : 1 + (head == "module")]:
                # CommonJS `exports.x` / `module.exports.x`: the module's own export x
                value = Value("module", jsfile.path)
                parts = parts[1:] if head == "module" else parts
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

    def _this(self, jsfile: _File, scope: str) -> Value | None:
        current = scope
        while current:
            info = jsfile.defs.get(current)
            if info is not None and (info.is_class or info.definition.kind == "interface"):
                return Value("inst", info.key)
            owner = current.rpartition(".")[0]
            if info is not None and owner and owner in jsfile.defs:
                owner_info = jsfile.defs[owner]
                if owner_info.is_class:
                    return Value("inst", owner_info.key)
                # a prototype method or `this.x = function` in a constructor function
                if owner_info.definition.kind == "function" and info.definition.kind == "method":
                    return Value("inst", owner_info.key)
            if info is not None and owner in jsfile.objects and info.definition.kind != "function":
                return Value("obj", keys.first_party(jsfile.path, owner))  # a method of an object
            current = owner
        return None

    def _attribute(self, value: Value, name: str) -> Value | None:
        if value.kind == "module":
            return self.export_of(value.key, name)
        if value.kind == "obj":
            path, qualname = self.objects[value.key]
            jsfile = self.files[path]
            assigned = jsfile.member_assigns.get(f"{qualname}.{name}", [])
            member = jsfile.defs.get(f"{qualname}.{name}")
            if member is not None:
                # a member the program sets again (api.run = other) may be either
                return Value("def", member.key) if not assigned else None
            if f"{qualname}.{name}" in jsfile.objects:
                return Value("obj", keys.first_party(path, f"{qualname}.{name}"))
            if len(assigned) == 1:  # a member added later: api.extra = helper
                return self._assigned_value(jsfile, assigned[0].scope, assigned[0])
            return None
        if value.kind in ("ext", "inst_ext"):
            return Value("ext", keys.join(value.key, name))
        if value.kind == "param":
            # `opts.encoder` of a parameter bound to object literals: their members of the name
            held: list[Value] = []
            for bound in self._bound_values(value.key):
                if bound.kind == "obj":
                    property_value = self._attribute(bound, name)
                    if property_value is not None and property_value not in held:
                        held.append(property_value)
            return self._set(held)
        if value.kind == "def":
            info = self.defs[value.key]
            jsfile = self.files[info.path]
            member = jsfile.defs.get(f"{info.qualname}.{name}")
            if member is not None:
                return Value("def", member.key)
            if name == "prototype" and (info.is_class or info.definition.kind == "function"):
                return Value("new", value.key)  # its methods are the prototype's members
            assigned = jsfile.member_assigns.get(f"{info.qualname}.{name}", [])
            if len(assigned) == 1 and (value.key, name) not in self._member_busy:
                # `F.helper = g`, `Emitter.Emitter = Emitter`: a property set on a function;
                # `F.x = F.x.wrap()` reaches back to itself: cut, and not memoized
                self._member_busy.add((value.key, name))
                try:
                    return self._assigned_value(jsfile, assigned[0].scope, assigned[0])
                finally:
                    self._member_busy.discard((value.key, name))
            if len(assigned) == 1:
                self._capped = True
            if (
                name in jsfile.exports
                and name not in _OWN_EXPORT_NAMES
                and self._module_exports(jsfile) == value
            ):
                # `exports = module.exports = f; exports.x = g`: f's x is the module's export x
                return self.export_of(info.path, name)
            if info.is_class:
                found = self._member(value.key, name)
                if found is not None:
                    return Value("def", found.key)
                base = self._external_base(value.key)
                if base is not None:
                    return Value("ext", keys.join(base, name))
            return None
        if value.kind in _INSTANCES:
            field_value = self._field_value(value.key, name)
            if field_value is not None:
                return field_value
            found = self._member(value.key, name)
            if found is not None:
                return Value("def", found.key)
            base = self._external_base(value.key)
            if base is not None:
                return Value("ext", keys.join(base, name))
        return None

    def _call_result(self, jsfile: _File, scope: str, callee: str, line: int) -> Value | None:
        """What a call of ``callee`` gives; ``f.bind(x)`` gives ``f`` (bound, it runs ``f``)."""
        if callee.endswith(".bind"):
            bound = self._resolve_dotted(jsfile, scope, callee.removesuffix(".bind"), line)
            if bound is not None and (bound.kind == "param" or self._is_function(bound)):
                return bound
            return None
        return self._result_of(self._resolve_dotted(jsfile, scope, callee, line))

    def _is_function(self, value: Value) -> bool:
        return value.kind == "def" and self.defs[value.key].is_callable

    def _result_of(self, value: Value | None) -> Value | None:
        if value is None:
            return None
        if value.kind == "inst" and self.defs[value.key].is_class:
            return value  # `new this()` in a static method: an instance of the class or a subclass
        if value.kind == "def":
            info = self.defs[value.key]
            if info.is_class:
                return Value("new", value.key)  # made by `new C()`: exactly a C
            returned = self._returns(info)
            if returned is None and not info.definition.returns and self._constructs(value.key):
                return Value("new", value.key)  # `new F()` of a constructor function
            return returned
        if value.kind == "ext":
            last = keys.last_segment(value.key)
            if last[:1].isupper():
                return Value("inst_ext", value.key)
        return None

    def _returns(self, info: DefInfo) -> Value | None:
        """What a call of the function gives (its first return fact that resolves), memoized;
        None while it is being resolved (a recursive function)."""
        if info.key in self._returns_memo:
            return self._returns_memo[info.key]
        if info.key in self._returns_busy:
            self._capped = True
            return None
        self._returns_busy.add(info.key)
        capped, self._capped = self._capped, False
        try:
            found = self._find_returns(info)
            if not self._capped:  # a result cut by the depth cap is not the answer: not kept
                self._returns_memo[info.key] = found
        finally:
            self._returns_busy.discard(info.key)
            self._capped = self._capped or capped
        return found

    @cached_property
    def _returns_memo(self) -> dict[str, Value | None]:
        return {}

    @cached_property
    def _returns_busy(self) -> set[str]:
        return set()

    _capped = False  # whether a depth cap or a cycle cut the resolution under way

    def _find_returns(self, info: DefInfo) -> Value | None:
        self._depth += 1
        try:
            if self._depth > self.max_hops * 4:
                self._capped = True
                return None
            for fact in info.definition.returns:
                if fact.startswith("yield:"):
                    continue  # what the generator's iterator gives, not what a call returns
                value = self._fact_value(info, fact)
                if value is not None:
                    return value
            return None
        finally:
            self._depth -= 1

    def _fact_value(self, info: DefInfo, fact: str) -> Value | None:
        """The value of a return or yield fact of a function."""
        jsfile = self.files[info.path]
        scope = info.qualname
        kind, sep, text = fact.partition(":")
        if not sep:
            outer = self._function_scope(jsfile, scope.rpartition(".")[0])
            return self._type_value(jsfile, outer, fact, info.definition.line)
        if kind == "call":
            return self._call_result(jsfile, scope, text, info.definition.end_line)
        if kind == "object":
            return Value("obj", keys.first_party(jsfile.path, text))
        return self._resolve_dotted(jsfile, scope, text, info.definition.end_line)

    # ---- calls ----------------------------------------------------------------------------
    def _call(self, jsfile: _File, call: Call) -> None:
        caller = self._caller(jsfile, call.scope)
        site = Site(jsfile.path, call.line, call.column)
        language = jsfile.index.language
        if call.new and call.text.startswith("new this("):
            self._construct_this(jsfile, caller, site, call)
            return
        loaded = _LOADED_CALL.match(call.text) if call.text.startswith(("require(", "(", "import(")) else None
        if loaded is not None and call.callee == "<expr>" and loaded.group(4) == "(":
            value = self._loaded_value(jsfile, loaded.group(1), loaded.group(3))  # require("m")(x)
            if value is not None:
                self._call_value(caller, site, value, "direct", call, language)
                return
        if call.callee == "<expr>" or not call.name:
            self._unresolved(caller, site, "computed-name", "", call.text)
            table = self._computed_tables.get((jsfile.path, call.line, call.column))
            if table:
                # `routes[name]()`: any function of a known table may run; the site stays open
                value = self._resolve_dotted(jsfile, call.scope, table, call.line)
                for stored in self._members_of(value) if value is not None else ():
                    if stored.kind == "def" and self.defs[stored.key].is_callable:
                        self.builder.edge(caller, stored.key, "calls", "field", site)
            return
        if call.receiver is None and call.callee.endswith("()"):
            # `make()()`: the callee is what the inner call gives
            value = self._resolve_dotted(jsfile, call.scope, call.callee, call.line)
            if value is None:
                self._unresolved(caller, site, "computed-name", "", call.text)
            else:
                self._call_value(caller, site, value, "assignment", call, language)
            return
        if call.name == "@@iterator":
            self._iterate(jsfile, caller, site, call)
            return
        if call.super_call:
            cls = self._this(jsfile, call.scope)
            if cls is None or cls.kind != "inst":
                self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
                return
            bases = [v for rel, v in self._bases(cls.key) if rel == "extends"]
            if not bases:
                return
            base = bases[0]
            wanted = "constructor" if call.receiver is None else call.name
            if base.kind == "def":
                if call.receiver is None:
                    member = self._constructor_of(base.key)
                else:
                    member = self._member(base.key, wanted)
                if member is not None:
                    self.builder.edge(caller, member.key, "calls", "member", site)
            else:
                key = self.builder.external(keys.join(base.key, wanted), language)
                self.builder.edge(caller, key, "calls", "member", site)
            return
        if call.receiver is None:
            value, how = self._lookup(jsfile, call.scope, call.name, call.line)
            if value is None:
                if how == "param":
                    self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
                elif how in ("unknown-local", "limit"):
                    self._unresolved(
                        caller, site, "limit" if how == "limit" else "computed-name", call.name, call.text
                    )
                else:
                    self._unresolved(caller, site, "no-definition", call.name, call.text)
                return
            kind = "assignment" if how == "assign" else "direct"
            self._call_value(caller, site, value, kind, call, language)
            return
        if loaded is not None and loaded.group(4) == "." and call.receiver is not None:
            # require("m").f(x), (await import("m")).f(x): the module's exports, then the path
            receiver = self._loaded_value(jsfile, loaded.group(1), loaded.group(3))
            rest = call.receiver.split(".")[1:] if call.receiver.startswith("require()") else []
            for part in rest:
                receiver = self._attribute(receiver, part) if receiver is not None else None
        else:
            receiver = (
                None
                if call.receiver == "<expr>"
                else self._resolve_dotted(jsfile, call.scope, call.receiver, call.line)
            )
        if receiver is None:
            self._field_call(jsfile, caller, site, call)
            return
        if receiver.kind in _INSTANCES:
            self._method_call(jsfile, caller, site, receiver.key, call, exact=receiver.kind == "new")
            return
        target = self._attribute(receiver, call.name)
        if (
            target is None
            and call.name == "bind"
            and (receiver.kind == "param" or self._is_function(receiver))
        ):
            # f.bind(x) makes a function that runs f wherever it goes: f is used as a value
            for bound in self._bound_values(receiver.key) if receiver.kind == "param" else [receiver]:
                target_key = self._value_target(bound, language)
                if target_key is not None:
                    self.builder.edge(caller, target_key, "references", "reference", site)
            return
        if (
            target is None
            and call.name in ("call", "apply")
            and (receiver.kind == "param" or (receiver.kind == "def" and self.defs[receiver.key].is_callable))
        ):
            self._call_value(caller, site, receiver, "direct", call, language)  # f.call(this, x)
            return
        if target is None:
            self._field_call(jsfile, caller, site, call)
            return
        kind = "member" if receiver.kind in ("def", "obj") else "direct"
        self._call_value(caller, site, target, kind, call, language)

    @cached_property
    def _computed_tables(self) -> dict[tuple[str, int, int], str]:
        """The object a computed member call reads (``routes[name]()``: ``routes``), by site."""
        return {
            (jsfile.path, flag.line, flag.column): flag.name
            for jsfile in self.files.values()
            for flag in jsfile.index.dynamic
            if flag.kind == "getattr" and flag.name
        }

    def _iterate(self, jsfile: _File, caller: str, site: Site, call: Call) -> None:
        """``for (x of xs)`` calls ``xs[Symbol.iterator]()``: a first-party iterator method of an
        instance; arrays, strings, maps and generators are the runtime's own (no site)."""
        candidates = self._members_by_name.get("@@iterator", ())
        if not candidates:
            return
        receiver = self._resolve_dotted(jsfile, call.scope, call.receiver or "", call.line)
        if receiver is not None and receiver.kind in _INSTANCES:
            if self._member(receiver.key, "@@iterator") is not None:
                self._method_call(jsfile, caller, site, receiver.key, call, exact=receiver.kind == "new")
            return
        if receiver is not None and receiver.kind in ("obj", "set", "def"):
            found = self._attribute(receiver, "@@iterator") if receiver.kind != "set" else None
            if found is not None:
                self._call_value(caller, site, found, "member", call, jsfile.index.language)
            return
        self._field_call(jsfile, caller, site, call)

    def _loaded_value(self, jsfile: _File, how: str, spec: str) -> Value | None:
        """What ``require("m")`` (its exports) or ``import("m")`` (its namespace) gives."""
        module = self._module_value(jsfile.path, spec)
        if module is not None and module.kind == "module" and how == "require":
            whole = self._module_exports(self.files[module.key])
            return whole if whole is not None else module
        return module

    def _construct_this(self, jsfile: _File, caller: str, site: Site, call: Call) -> None:
        """``new this()`` in a static method: the classes it is called through (``Sub.make()``
        makes a ``Sub``), or, when a call site does not show its class, the class and each
        subclass."""
        cls = self._this(jsfile, call.scope)
        if cls is None or cls.kind != "inst" or not self.defs[cls.key].is_class:
            self._unresolved(caller, site, "computed-name", "", call.text)
            return
        through = self._static_receivers.get(caller)
        if through:
            made = [(key, "member") for key in through]
        else:
            made = [(cls.key, "member")] + [(s, "cha") for s in subclasses_closure(self._subclasses, cls.key)]
        for key, kind in made:
            self.builder.edge(caller, key, "calls", kind, site)
            ctor = self._constructor(key)
            if ctor is not None:
                self.builder.edge(caller, ctor.key, "calls", kind, site)

    @cached_property
    def _static_receivers(self) -> dict[str, list[str]]:
        """The classes each static method is called through (``Sub.make()``: ``Sub``), for the
        static methods whose every call site names a class; the others are left out."""
        statics: dict[str, list[DefInfo]] = {}
        for info in self.defs.values():
            if info.definition.kind == "method" and info.definition.signature.startswith("static"):
                statics.setdefault(info.definition.name, []).append(info)
        found: dict[str, list[str]] = {}
        unknown: set[str] = set()
        for jsfile in self.files.values():
            for call in jsfile.index.calls:
                if call.name not in statics or call.receiver in (None, "<expr>"):
                    continue
                receiver = self._resolve_dotted(jsfile, call.scope, call.receiver or "", call.line)
                member = None
                if receiver is not None and receiver.kind == "def" and self.defs[receiver.key].is_class:
                    member = self._member(receiver.key, call.name)
                if member is None or member.key not in {m.key for m in statics[call.name]}:
                    unknown.update(m.key for m in statics[call.name])  # through an instance, this, ...
                    continue
                classes = found.setdefault(member.key, [])
                if receiver is not None and receiver.key not in classes:
                    classes.append(receiver.key)
        return {key: classes for key, classes in found.items() if key not in unknown}

    def _call_value(
        self, caller: str, site: Site, value: Value, kind: str, call: Call, language: str
    ) -> None:
        if value.kind == "def":
            info = self.defs[value.key]
            self.builder.edge(caller, value.key, "calls", kind, site)
            if info.is_class:
                ctor = self._constructor(value.key)
                if ctor is not None:
                    self.builder.edge(caller, ctor.key, "calls", kind, site)
            return
        if value.kind == "ext":
            self.builder.edge(caller, self.builder.external(value.key, language), "calls", kind, site)
            if self._from_undeclared(value.key):
                # an import no manifest declares may be a path alias the resolver does not
                # follow: the project's definitions of the name may be what runs
                name = call.name or keys.last_segment(value.key)
                self._unresolved(caller, site, "no-definition", name, call.text)
            return
        if value.kind == "param":
            for bound in self._bound_values(value.key):
                self._call_value(caller, site, bound, "reference", call, language)
            # the records may not show every argument (one on a later line of its call)
            self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
            return
        if value.kind == "set":
            # an element of a container: one edge per value stored in it; what the index does not
            # show (a store through a computed key, an argument on a later line) may be there too
            for member in self._sets[int(value.key)]:
                if member.kind in ("def", "ext", "param"):
                    self._call_value(
                        caller, site, member, "member" if member.kind == "def" else kind, call, language
                    )
            self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
            return
        if value.kind == "module":
            whole = self._module_exports(self.files[value.key]) or self.export_of(value.key, "default")
            if whole is not None and whole.kind != "module":
                self._call_value(caller, site, whole, kind, call, language)
                return
        self._unresolved(caller, site, "unknown-receiver", call.name, call.text)

    def _method_call(
        self, jsfile: _File, caller: str, site: Site, cls: str, call: Call, exact: bool = False
    ) -> None:
        """A method call on an instance of ``cls``; an override of a subclass may run instead,
        unless the instance is ``exact`` (made by ``new cls()``)."""
        language = jsfile.index.language
        field_value = self._field_value(cls, call.name)
        if field_value is not None and field_value.kind in ("def", "ext"):
            self._call_value(caller, site, field_value, "assignment", call, language)
            return
        member = self._member(cls, call.name)
        info = self.defs[cls]
        interface = info.definition.kind == "interface"
        bodiless = member is not None and _bodiless(self.files[member.path], member)
        if member is not None and not bodiless:
            self.builder.edge(caller, member.key, "calls", "member", site)
        elif interface or bodiless:
            pass  # a signature runs nothing: the implementations below are the candidates
        else:
            base = self._external_base(cls)
            if base is not None:
                key = self.builder.external(keys.join(base, call.name), language)
                self.builder.edge(caller, key, "calls", "member", site)
            else:
                self._field_call(jsfile, caller, site, call)
                return
        overrides = 0
        for sub in [] if exact else subclasses_closure(self._subclasses, cls):
            sub_info = self.defs[sub]
            override = self.files[sub_info.path].defs.get(f"{sub_info.qualname}.{call.name}")
            if (
                override is not None
                and (member is None or override.key != member.key)
                and not _bodiless(self.files[override.path], override)
            ):
                self.builder.edge(caller, override.key, "calls", "cha", site)
                overrides += 1
        # TypeScript types are structural: a value of an interface type need not come from a
        # class that names the interface, so the implementations found are never all of them
        if interface or (bodiless and overrides == 0):
            self._unresolved(caller, site, "interface-receiver", call.name, call.text)

    def _field_call(self, jsfile: _File, caller: str, site: Site, call: Call) -> None:
        self._unresolved(caller, site, "unknown-receiver", call.name, call.text)
        if call.name in BUILTIN_METHODS:
            return
        candidates = [
            info
            for info in self._members_by_name.get(call.name, ())
            if info.path == jsfile.path
            or (
                not self.files[info.path].minified
                and (self._is_test(jsfile.path) or not self._is_test(info.path))
            )
        ]
        if 0 < len(candidates) <= MAX_FIELD_CANDIDATES:
            for info in candidates:
                self.builder.edge(caller, info.key, "calls", "field", site)

    def _is_test(self, path: str) -> bool:
        found = self._test_files.get(path)
        if found is None:
            found = self._test_files[path] = any(fnmatchcase(path, p) for p in self.test_paths)
        return found

    @cached_property
    def _test_files(self) -> dict[str, bool]:
        return {}

    @cached_property
    def _members_by_name(self) -> dict[str, list[DefInfo]]:
        table: dict[str, list[DefInfo]] = {}
        for info in self.defs.values():
            if "." in info.qualname and info.definition.kind in ("method", "function", "getter", "setter"):
                owner = self.files[info.path].defs.get(info.qualname.rpartition(".")[0])
                if (
                    owner is not None
                    and owner.definition.kind in ("function", "method")
                    and info.definition.kind == "function"
                ):
                    continue  # a function nested in a function is reached only from inside it
                table.setdefault(info.definition.name, []).append(info)
        return table

    def _unresolved(
        self, caller: str, site: Site, reason: str, name: str, text: str, covered: bool = False
    ) -> None:
        if reason == "unknown-receiver" and name.isdigit():
            # `fns[0](x)`: an element of an array the index does not follow, which no definition
            # is named after: it may be any function, not only one called "0"
            reason, name = "computed-name", ""
        self.builder.unresolved_site(Unresolved(caller, site, reason, name, text, covered=covered))

    # ---- arguments ------------------------------------------------------------------------
    @cached_property
    def _bindings(self) -> dict[str, list[Value]]:
        """What each parameter of a first-party function receives (param key -> values)."""
        return {}

    _binding_done = False

    def _arguments_of(self, jsfile: _File) -> list[tuple[Call, list[tuple[Reference, int | None]]]]:
        """``_find_arguments``, once per file (the binding pass, pushes and mixins read it)."""
        found = self._arguments_memo.get(jsfile.path)
        if found is None:
            found = self._arguments_memo[jsfile.path] = self._find_arguments(jsfile)
        return found

    @cached_property
    def _arguments_memo(self) -> dict[str, list[tuple[Call, list[tuple[Reference, int | None]]]]]:
        return {}

    def _find_arguments(self, jsfile: _File) -> list[tuple[Call, list[tuple[Reference, int | None]]]]:
        """The references passed as arguments, with their position when the call's text shows it.

        The index gives each value used as an argument (a reference) but not the call it is an
        argument of: a reference belongs to the innermost call that starts before it on its line
        and whose text reaches it. A reference on a later line of a multi-line call is not bound.
        """
        calls: dict[tuple[str, int], list[Call]] = {}
        for call in jsfile.index.calls:
            if call.callee != "<expr>" and not call.text.startswith(("@", "<")):
                calls.setdefault((call.scope, call.line), []).append(call)
        found: dict[Call, list[tuple[Reference, int | None]]] = {}
        # a bound function passed on (setTimeout(this.tick.bind(this))) is passed like a name:
        # the reference's text is the whole `f.bind(...)` call
        bound = [
            Reference(call.line, call.column, call.scope, call.text)
            for call in jsfile.index.calls
            if call.name == "bind" and call.receiver not in (None, "<expr>") and not call.text.endswith("…")
        ]
        for ref in [*jsfile.index.references, *bound]:
            best = None
            for call in calls.get((ref.scope, ref.line), ()):
                reaches = ref.column < call.column + len(call.text)
                inner = best is None or (call.column, -len(call.text)) > (best.column, -len(best.text))
                if call.column < ref.column and reaches and inner:
                    best = call
            if best is not None:
                if ref.name.startswith("@arg"):  # an object literal argument: its position is in its name
                    position: int | None = int(ref.name[4:].partition("_")[0])
                else:
                    position = _argument_position(best.text, ref.column - best.column, ref.name)
                if position != -1:
                    found.setdefault(best, []).append((ref, position))
        # the arguments on later lines of a call written over several lines (`@pass` facts)
        at_site = {(c.scope, c.line, c.column): c for group in calls.values() for c in group}
        for assign in jsfile.index.assignments:
            if not assign.target.startswith("@pass"):
                continue
            position_text, _, column_text = assign.target[5:].partition("@")
            passed_to = at_site.get((assign.scope, assign.line, int(column_text)))
            if passed_to is not None:
                position = int(position_text)
                ref = Reference(assign.line, int(column_text) + 1 + position, assign.scope, assign.value[5:])
                found.setdefault(passed_to, []).append((ref, position))
        return sorted(found.items(), key=lambda item: (item[0].line, item[0].column, item[0].text))

    def _argument_value(self, jsfile: _File, ref: Reference) -> Value | None:
        """The value a reference passes; a parameter passed on is that parameter, bound or not."""
        if ref.name.endswith(")"):  # f.bind(...)
            return self._call_result(jsfile, ref.scope, ref.name.partition("(")[0], ref.line)
        if "." not in ref.name:
            value, how = self._lookup(jsfile, ref.scope, ref.name, ref.line)
            if how == "param" and (value is None or value.kind == "param"):
                for scope in self._scopes(jsfile, ref.scope):
                    info = jsfile.defs.get(scope)
                    if info is not None and any(p.name == ref.name for p in info.definition.params):
                        return Value("param", keys.join(info.key, ref.name))
            return value
        return self._resolve_dotted(jsfile, ref.scope, ref.name, ref.line)

    def _bind_arguments(self, jsfile: _File, call: Call, refs: list[tuple[Reference, int | None]]) -> None:
        passed: list[tuple[Value, int | None]] = []
        for ref, position in refs:
            value = self._argument_value(jsfile, ref)
            if value is not None and value.kind == "set":
                # an element of a table passed on: each function it may be
                for element in self._sets[int(value.key)]:
                    if element.kind in ("def", "ext") and (element, position) not in passed:
                        passed.append((element, position))
                continue
            if value is None or value.kind not in ("def", "ext", "param", "obj"):
                continue
            info = self.defs.get(value.key) if value.kind == "def" else None
            if info is not None and not (info.is_callable or info.is_class):
                continue
            if (value, position) not in passed:
                passed.append((value, position))
        if not passed:
            return
        functions: list[DefInfo] = []
        calling = False  # a builtin or external that calls the functions passed to it, here
        if call.super_call:
            cls = self._this(jsfile, call.scope)
            bases = [v for rel, v in self._bases(cls.key) if rel == "extends"] if cls is not None else []
            if call.receiver is None and bases and bases[0].kind == "def":
                ctor = self._constructor_of(bases[0].key)
                functions += [ctor] if ctor is not None else []
        elif call.receiver is None:
            value, _how = self._lookup(jsfile, call.scope, call.name, call.line)
            functions += self._callables(value)
            calling = value is not None and value.kind == "ext" and _calls_arguments(value.key, call.name)
        else:
            receiver = (
                None
                if call.receiver == "<expr>"
                else self._resolve_dotted(jsfile, call.scope, call.receiver, call.line)
            )
            if receiver is None:
                calling = call.name in CALLING_METHODS
            elif receiver.kind in _INSTANCES:
                member = self._field_value(receiver.key, call.name)
                if member is None:
                    found = self._member(receiver.key, call.name)
                    member = Value("def", found.key) if found is not None else None
                functions += self._callables(member)
                if receiver.kind == "inst":
                    for sub in subclasses_closure(self._subclasses, receiver.key):
                        info = self.defs[sub]
                        override = self.files[info.path].defs.get(f"{info.qualname}.{call.name}")
                        functions += [override] if override is not None else []
                if member is None and self._external_base(receiver.key) is not None:
                    calling = call.name in CALLING_METHODS
            else:
                target = self._attribute(receiver, call.name)
                functions += self._callables(target)
                calling = (target is None or target.kind == "ext") and _calls_arguments(
                    target.key if target is not None else "", call.name
                )
        if calling:
            caller = self._caller(jsfile, call.scope)
            site = Site(jsfile.path, call.line, call.column)
            for value, _position in passed:
                if value.kind == "def":
                    self._call_value(caller, site, value, "reference", call, jsfile.index.language)
            if call.name in _ELEMENT_METHODS and call.receiver not in (None, "<expr>"):
                # `tasks.forEach(runTask)`: runTask's first parameter gets each element of tasks
                elements = self._elements(jsfile, call.scope, call.receiver or "", call.line)
                for value, position in passed:
                    info = self.defs.get(value.key) if value.kind == "def" else None
                    if info is None or position != 0 or not info.definition.params:
                        continue
                    first = info.definition.params[0]
                    if not first.type and not first.variadic:
                        kinds = ("def", "ext", "param")
                        self._bind(keys.join(info.key, first.name), [e for e in elements if e.kind in kinds])
        for function in functions:
            params = function.definition.params
            for value, position in passed:
                chosen = list(range(len(params)) if position is None else [position])
                rest = next((i for i, p in enumerate(params) if p.variadic), None)
                if rest is not None and position is not None and position > rest:
                    chosen = [rest]  # `function run(...fns)`: the rest array holds the later arguments
                for index in chosen:
                    if (
                        index < len(params)
                        and not params[index].type
                        and (not params[index].variadic or position is not None)
                    ):
                        key = keys.join(function.key, params[index].name)
                        self._bind(key, [] if value == Value("param", key) else [value])

    def _bind_default(self, jsfile: _File, default: Assignment) -> None:
        """A parameter's default value is what it holds when no argument is passed."""
        info = jsfile.defs.get(default.scope)
        if info is None:
            return
        outer = self._function_scope(jsfile, default.scope.rpartition(".")[0])
        value = self._resolve_dotted(jsfile, outer, default.value[8:], default.line)
        if value is not None and value.kind in ("def", "ext"):
            self._bind(keys.join(info.key, default.target), [value])

    def _bind(self, key: str, values: Sequence[Value]) -> None:
        """Bind a parameter to values (kept once each, in the order first given). The parameter
        is bound (``_param`` gives it) even with no value: a call passed it something."""
        bound = self._bindings.setdefault(key, [])
        for value in values:
            if value not in bound:
                bound.append(value)

    def _callables(self, value: Value | None) -> list[DefInfo]:
        """The first-party function a call of ``value`` runs (a class: its constructor)."""
        if value is None or value.kind != "def":
            return []
        info = self.defs[value.key]
        if info.is_class:
            ctor = self._constructor(value.key)
            return [ctor] if ctor is not None else []
        return [info] if info.is_callable else []

    def _bound_values(self, key: str) -> list[Value]:
        """What a parameter receives, through parameters passed on to other parameters."""
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

    # ---- what roots need ------------------------------------------------------------------
    def resolve_entry_point(self, entry: EntryPoint) -> str | None:
        if entry.group not in ("bin", "main", "exports", "module", "browser", "scripts"):
            return None
        if not entry.manifest.endswith("package.json"):
            return None
        folder = posixpath.dirname(entry.manifest)
        target = posixpath.normpath(posixpath.join(folder, entry.target))
        found = self._file_candidates_plain(target)
        if found is None:
            rel = posixpath.normpath(entry.target).lstrip("./")
            for build in _BUILD_DIRS:
                if rel.startswith(build):
                    found = self._file_candidates_plain(posixpath.join(folder, "src", rel[len(build) :]))
                    if found:
                        break
        return found

    def handler_refs(self, index: FileIndex, methods: Sequence[str]) -> list[str]:
        """First-party functions passed to calls such as ``app.get('/', handler)``."""
        jsfile = self.files.get(index.path)
        if jsfile is None:
            return []
        lines = {(c.line, c.scope) for c in index.calls if c.receiver and c.name in methods}
        found = []
        for ref in index.references:
            if (ref.line, ref.scope) in lines:
                value = self._resolve_dotted(jsfile, ref.scope, ref.name, ref.line)
                if value is not None and value.kind == "def":
                    found.append(value.key)
        return sorted(set(found))


def _package_json(rel: str, data: dict[str, Any]) -> PackageJson:
    """The fields of a package.json that module resolution reads."""

    def text(key: str) -> str:
        value = data.get(key)
        return value if isinstance(value, str) else ""

    raw_bin = data.get("bin")
    bins = {str(k): v for k, v in raw_bin.items() if isinstance(v, str)} if isinstance(raw_bin, dict) else {}
    return PackageJson(
        path=rel,
        name=text("name"),
        main=text("main"),
        module=text("module"),
        exports=data.get("exports"),
        bin=bins,
        types=text("types") or text("typings"),
    )


def _bodiless(jsfile: _File, member: DefInfo) -> bool:
    """A method signature of an interface or an abstract method: no code runs for it."""
    if member.definition.kind not in ("method", "getter", "setter"):
        return False
    owner = jsfile.defs.get(member.qualname.rpartition(".")[0])
    if owner is not None and owner.definition.kind == "interface":
        return True
    return "abstract" in member.definition.signature.partition("(")[0].split()


def _parse_config(text: str) -> dict[str, Any] | None:
    """A tsconfig/jsconfig as JSON with comments and trailing commas, or None."""
    try:
        data = json.loads(_strip_json_comments(text))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _calls_arguments(key: str, name: str) -> bool:
    """Whether an external (``key``, called as ``name``) calls the functions passed to it."""
    if key in CALLING_GLOBALS:
        return True
    # a method of an external instance or module, or of a receiver nothing is known of
    return name in CALLING_METHODS and ("//" in key or not key)


def _argument_position(text: str, offset: int, name: str) -> int | None:
    """The position of the argument at ``offset`` of a call's text; None when the text does not
    show it (a multi-line call, a long text), -1 when the reference is inside an argument (an
    element of an array or object, an operand) rather than the argument itself."""
    if text.endswith("…") and offset >= len(text) - 1:
        return None
    if text[offset : offset + len(name)] != name:
        return None  # whitespace collapsed before it: a multi-line call
    depth = 0
    opened = -1  # the depth-0 paren that opens the arguments
    position = 0
    quote = ""
    i = 0
    while i < offset:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{":
            if depth == 0 and ch == "(":
                opened, position = i, 0
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 1:
            position += 1
        i += 1
    if opened < 0 or depth != 1:
        return -1
    before = text[opened + 1 : offset].rpartition(",")[2].strip()
    after = text[offset + len(name) :].lstrip()
    if before not in ("", "...") and not before.endswith(("?", ":")):
        return -1  # an operand: `a + f`, `!f`
    if after[:1] not in (",", ")", ":") and not after.startswith(("||", "??")):
        return -1
    return position


def _match_pattern(pattern: str, spec: str) -> str | None:
    """The text ``*`` stands for when ``spec`` matches a tsconfig paths pattern, else None."""
    if "*" not in pattern:
        return "" if pattern == spec else None
    head, _, tail = pattern.partition("*")
    if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
        return spec[len(head) : len(spec) - len(tail)]
    return None


def _split_package(spec: str) -> tuple[str, str]:
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) >= 2:
        name, rest = "/".join(parts[:2]), parts[2:]
    else:
        name, rest = parts[0], parts[1:]
    return name, "./" + "/".join(rest) if rest else "."


_CONDITIONS = ("import", "module", "default", "require", "node", "browser", "development", "production")


def _exports_targets(exports: Any, subpath: str) -> list[str]:
    """The files an ``exports`` map gives for a subpath, conditions in a fixed preference order."""
    if isinstance(exports, str):
        return [exports] if subpath == "." else []
    if isinstance(exports, list):
        return [t for item in exports for t in _exports_targets(item, subpath)]
    if not isinstance(exports, dict):
        return []
    if not any(k.startswith(".") for k in exports):
        return _condition_targets(exports)
    if subpath in exports:
        return _condition_targets(exports[subpath])
    for pattern, value in exports.items():
        star = _match_pattern(pattern, subpath) if "*" in pattern else None
        if star is not None:
            return [t.replace("*", star) for t in _condition_targets(value)]
    return []


def _condition_targets(value: Any) -> list[str]:
    if isinstance(value, str):
        return [] if value.endswith(_DECLARATIONS) else [value]
    if isinstance(value, list):
        return [t for item in value for t in _condition_targets(item)]
    if isinstance(value, dict):
        ordered = [k for k in _CONDITIONS if k in value] + sorted(k for k in value if k not in _CONDITIONS)
        return [t for k in ordered if k != "types" for t in _condition_targets(value[k])]
    return []


def make_linker(
    indexes: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext
) -> JavaScriptLinker:
    root, manifests = context.root, context.manifests
    unit = context.unit
    if root is None and unit is not None and unit.ecosystem == "npm":
        # an npm unit linked as a project of its own: its package.json (its name, so the package
        # can import itself; its dependencies, so their keys are declared; main and exports)
        root = unit.root
        manifests = read_manifests(root, tuple(i.path for i in indexes if i.language in LANGUAGES))
    return JavaScriptLinker(indexes, builder, manifests, context.max_hops, context.test_paths, root)
