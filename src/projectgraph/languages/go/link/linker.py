"""The Go resolver: modules, packages by directory, imports by path, method sets, result types.

Packages. A package is the files of one directory with one package clause (``package:<name>``
flag of the index); the external test package ``foo_test`` of a folder is a package of its own.
A file that no default build reads (``build-excluded``) is part of no package that another file
sees: its own names resolve in it first, then in the package of its folder.

Imports. A module is a folder with a go.mod; its path is the ``module`` line, with or without a dot
(``module std``, ``module myapp``). An import path resolves, in order, to the folder of the
importing module that the path names (for ``module std`` every path whose first element has no
dot names the folder of that path under the module), to the module's ``vendor/`` folder, and to
another module of the project whose path is a prefix (a workspace, or a ``replace`` with a local
folder). With no go.mod at all (a GOPATH tree), a path resolves to the shortest project folder
that ends with it. Any other path is external: its key is the path with ``//`` for ``/``
(``net//http``), and a name under it is ``net//http//ListenAndServe``. An import is an ``imports``
edge from the file to the first file of the package that does work when the package loads (package
variables with calls, ``init``), which has an ``imports`` edge to each other such file; with none,
to the package's first file. An external import is an edge to the package's key.

Calls. A bare name resolves to a local binding of the function (a function literal, a function
value, a parameter; in a literal, then those of the functions around it: ``F$1`` sees ``F``'s), then
to the package's functions and types (every definition of the name, one per
platform file), then to dot imports; Go's builtins link to nothing. ``pkg.F()`` is a direct edge to
the function (first party) or to ``import//path//F``. A method call takes the type of its receiver
from the bindings the index records (declared types, results of calls by position, composite
literals, type assertions, range and index elements, receivers, fields), walks chained calls
result by result, and finds the method in the type's method set, promoted through embedded fields
(a method of an embedded external type is that type's external key). A type from an external
package gives the external key of its method (``golang.org//x//net//html//Tokenizer//Next``). A
parameter or variable of a function's type parameter has the methods of its constraint (an
interface call); a type parameter of a generic type's methods stays unknown.

Interfaces are structural: a type implements an interface when its method set covers the
interface's (an ``implements`` edge). A call on an interface value is a member edge to the
interface's method, and then, as VTA reads callees off, a member edge to the method of each
concrete type the records show flowing to the receiver, when they show every value that does: a
function's interface result holds what each of its ``return``s gives (a composite literal, a
concrete result of a call, a value of a concrete type, or the flow of another such result), and
``var x I = v`` holds ``v``. When the flow is not complete (a parameter, a field, an element, an
external value), a ``cha`` edge (lower confidence) goes to the method of each implementation in
the graph and the site is a covered ``interface-receiver`` record (every implementation may run);
with no implementation, the site is an unresolved ``interface-receiver``. Past ``MAX_CHA_SITE``
implementations the site keeps its member edge and the interface's method gets the ``cha`` edges,
once for all its sites (``error``'s ``Error`` has hundreds in the standard library: per site, they
would be most of the graph). ``error`` (its method key is ``error//Error``) and a few interfaces of
the standard library are known by their method sets (``io.Reader``, ``fmt.Stringer``, ...), so a
first-party implementation passed as one gets its ``cha`` edge.

What stays unknown is an unresolved site. A receiver whose type the records do not give (an
external function's result with no dependency code, a local type) is
``unknown-receiver`` with the method name, as is a call result whose function has two definitions
with two result types; unless the receiver starts at a package, the call also gets ``name`` edges
(low) to the first-party methods of that name when there are at most ``MAX_METHOD_NAME_CANDIDATES``. A
name no record binds is ``no-definition``. A call of a function value whose functions the
records name is an edge to each (kind ``assignment``): a variable bound to a function, a method
value or a literal (``F$1``), a call of a function each of whose ``return``s names functions
(``makeHook()()``, ``h := Do(b); h()``). Otherwise it is ``computed-name``: covered when the value
is a parameter, a field or a variable of a function type, or a function a first-party function
returned (every function value the program takes is a reference edge where it takes it, a function
literal included: the function that makes it refers to its node, and a call of it where it is
written, ``func() {...}()``, is a direct edge), limited to the targets under a package when an
external call returned it (``cancel`` of ``context.WithCancel``), and concerning every target when
the records do not say what it holds. A call of a parameter also gets an edge (kind ``reference``)
to each function referenced on the line of a call of its function, and to each function that
another call on that line returns (``Finish(Do(b))``): the index gives no argument positions, so
that is what it can tell was passed.

Units of dependency code (``projectgraph.languages.go.units``). A unit linked as a project of its own
(``context.unit``) takes its module path from its go.mod, else from the unit (a vendored module has
no go.mod), and gives each definition of a package another module can import its external key:
the package's import path and the qualified name (``golang.org//x//net//html//render1``,
``net//http//Client//Get``; the packages of ``module std``'s own ``vendor/``, which no program
imports, have none). A project linked beside units (``context.units``) reads its dependencies'
definitions: the result of ``html.NewTokenizer(r)`` is ``golang.org/x/net/html.Tokenizer``, so
``z.Next()`` is the key ``golang.org//x//net//html//Tokenizer//Next`` (which a ``package`` edge
joins to the unit's method); a field of a unit's struct has its declared type, a package variable
its type, a promoted method the key of the type that declares it, and a unit's interface its
method set. A call on an interface value gets ``cha`` edges to the implementations in the project
and, at their external keys, in the units (``resp.Body.Close()`` reaches the ``Close`` of each type
of the standard library that is an ``io.ReadCloser``). A unit's own link reads no other unit for
that: a value of another unit's type came from code that made it, which refers to the type's
methods. A method called on the result of a function of a package that no unit gives is
``no-dependency-source`` when the link has Go units at all (with none, ``unknown-receiver``, as
before units).

Values leave the code the graph sees: a first-party type that a composite literal, a conversion,
``new`` or a ``var`` makes refers to each of its exported methods, which code holding the value
through an interface (external code included) can call. ``init`` functions run when their package
loads: the file's top level calls them, and an import reaches them. A ``//go:linkname`` above a
function joins it to the function it names in another package, from the side declared without a
body to the side with the body, which gives it its code: a push (``//go:linkname
sync_runtime_Semacquire sync.runtime_Semacquire`` above the runtime's function, as the runtime
gives ``sync.runtime_Semacquire`` its code) is an edge into the function with the directive, a pull
(the directive above a declaration with no body) an edge out of it. Where both sides have a body
or neither has, the two are joined both ways.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

from projectgraph import keys
from projectgraph.fileindex import Assignment, Call, FileIndex
from projectgraph.graph import NO_SITE, Site, Unresolved
from projectgraph.languages.go import NO_BODY
from projectgraph.link.core import DefInfo, GraphBuilder, LinkContext, Surface, module_node, node_for
from projectgraph.manifests import Controls, Manifests, read_controls

LANGUAGE = "go"
# Go's name match takes more candidates than ``gates.MAX_NAME_CANDIDATES``: a method name is shared
# by every type of an interface's method set
MAX_METHOD_NAME_CANDIDATES = 10
MAX_CHA_SITE = 16  # implementations a call site gets its own cha edges to; past it, through the method
MAX_DEPTH = 24
DEFAULT_HOPS = 10
_NAME = re.compile(r"[A-Za-z_]\w*", re.ASCII)
_MODULE_LINE = re.compile(r"^\s*module\s+(\"[^\"]+\"|\S+)", re.MULTILINE)
_REPLACE_LINE = re.compile(r"^\s*(?:replace\s+)?(\S+)(?:\s+\S+)?\s+=>\s+(\.\.?/\S*|\.\.?)\s*$", re.MULTILINE)

BUILTIN_FUNCTIONS = frozenset(
    """append cap clear close complex copy delete imag len make max min new panic print println real
    recover""".split()
)
BUILTIN_TYPES = frozenset(
    """bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint
    uint8 uint16 uint32 uint64 uintptr any comparable""".split()
)
# Interfaces whose method sets the linker knows without their source: a call on one reaches the
# first-party types that implement it, as a call on a first-party interface does.
KNOWN_INTERFACES: dict[str, frozenset[str]] = {
    "error": frozenset({"Error"}),
    "fmt//Stringer": frozenset({"String"}),
    "fmt//GoStringer": frozenset({"GoString"}),
    "fmt//Formatter": frozenset({"Format"}),
    "io//Reader": frozenset({"Read"}),
    "io//Writer": frozenset({"Write"}),
    "io//Closer": frozenset({"Close"}),
    "io//Seeker": frozenset({"Seek"}),
    "io//ReadWriter": frozenset({"Read", "Write"}),
    "io//ReadCloser": frozenset({"Read", "Close"}),
    "io//WriteCloser": frozenset({"Write", "Close"}),
    "io//ReadWriteCloser": frozenset({"Read", "Write", "Close"}),
    "io//ReadSeeker": frozenset({"Read", "Seek"}),
    "io//ReaderAt": frozenset({"ReadAt"}),
    "io//WriterAt": frozenset({"WriteAt"}),
    "io//ReaderFrom": frozenset({"ReadFrom"}),
    "io//WriterTo": frozenset({"WriteTo"}),
    "io//ByteReader": frozenset({"ReadByte"}),
    "io//ByteWriter": frozenset({"WriteByte"}),
    "io//RuneReader": frozenset({"ReadRune"}),
    "io//StringWriter": frozenset({"WriteString"}),
    "sort//Interface": frozenset({"Len", "Less", "Swap"}),
    "container//heap//Interface": frozenset({"Len", "Less", "Swap", "Push", "Pop"}),
    "net//http//Handler": frozenset({"ServeHTTP"}),
    "net//http//RoundTripper": frozenset({"RoundTrip"}),
    "encoding//json//Marshaler": frozenset({"MarshalJSON"}),
    "encoding//json//Unmarshaler": frozenset({"UnmarshalJSON"}),
    "encoding//TextMarshaler": frozenset({"MarshalText"}),
    "encoding//TextUnmarshaler": frozenset({"UnmarshalText"}),
    "encoding//BinaryMarshaler": frozenset({"MarshalBinary"}),
    "encoding//BinaryUnmarshaler": frozenset({"UnmarshalBinary"}),
    "flag//Value": frozenset({"String", "Set"}),
    "context//Context": frozenset({"Deadline", "Done", "Err", "Value"}),
}


# ---- records of the project ------------------------------------------------------------------


@dataclass
class _Module:
    path: str  # the module path of go.mod
    root: str  # its folder, relative to the project root ("" for the root)


@dataclass
class _File:
    index: FileIndex
    package: str
    folder: str
    excluded: bool
    module: _Module | None = None
    imports: dict[str, str] = field(default_factory=dict)  # bound name -> import path
    dot_imports: list[str] = field(default_factory=list)
    defs: dict[str, DefInfo] = field(default_factory=dict)
    bindings: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return self.index.path


@dataclass
class _Package:
    folder: str
    name: str
    files: list[_File] = field(default_factory=list)
    scope: dict[str, list[DefInfo]] = field(default_factory=dict)  # top-level names
    methods: dict[tuple[str, str], list[DefInfo]] = field(default_factory=dict)  # (type, method)

    @property
    def ident(self) -> str:
        return f"{self.folder}:{self.name}"


class _Type(NamedTuple):
    """A type: first party (``package`` the package ident), external (``package`` the import path),
    builtin (``package`` empty), or a container (``kind`` slice/map/chan with ``elem``)."""

    kind: str  # fp | ext | builtin | slice | map | chan
    package: str = ""
    name: str = ""
    elem: _Type | None = None

    @property
    def ext_key(self) -> str:
        return keys.external(self.package, LANGUAGE, self.name)


class _Value(NamedTuple):
    """What an expression stands for: a package, a type, a value of a type, functions, a closure."""

    kind: str  # package | ext_package | type | value | funcs | ext_func | closure | param | covered | unknown
    package: str = ""  # the package ident / import path
    type: _Type | None = None
    funcs: tuple[DefInfo, ...] = ()
    key: str = ""  # ext_func: the external key
    why: str = ""  # unknown: the reason an unresolved site gives
    # a value of an interface type: the concrete types the records show flow to it, when they show
    # every value that does (a function's results: each ``return``); empty when they do not
    flow: tuple[_Type, ...] = ()


_UNKNOWN = _Value("unknown", why="unknown-receiver")


class GoLinker:
    languages = (LANGUAGE,)

    def __init__(
        self,
        indexes: Iterable[FileIndex],
        builder: GraphBuilder,
        context: LinkContext,
        unit: Any = None,
        module: str = "",
    ) -> None:
        self.builder = builder
        self.context = context
        self.files: dict[str, _File] = {}
        for index in sorted(indexes, key=lambda i: i.path):
            if index.language != LANGUAGE:
                continue
            package = next((f[8:] for f in index.flags if f.startswith("package:")), "")
            self.files[index.path] = _File(
                index, package, posixpath.dirname(index.path), "build-excluded" in index.flags
            )
        self.unit = unit if unit is not None else _unit_of_context(context)
        self.modules = _read_modules(context.manifests.controls, {f.folder for f in self.files.values()})
        module = module or (self.unit.package if self.unit is not None else "")
        if module and not any(m.root == "" for m in self.modules):
            # a vendored module has no go.mod of its own: its unit names its path
            self.modules.append(_Module(module, ""))
        self.units = _GoUnits(context)
        self.packages: dict[tuple[str, str], _Package] = {}
        for gofile in self.files.values():
            gofile.module = _module_of(gofile.folder, self.modules)
            own = self.packages.setdefault(
                (gofile.folder, gofile.package), _Package(gofile.folder, gofile.package)
            )
            own.files.append(gofile)
            self._read_file(gofile, own)
        self.overlays = {f.path: self._overlay(f) for f in self.files.values() if f.excluded}
        self.importable = self._importable_packages()
        self._resolved_imports: dict[tuple[str, str], _Package | None] = {}
        self._memo: dict[tuple[str, str, str, int], _Value] = {}
        self._assigned_memo: dict[tuple[str, Assignment], _Value] = {}
        self._types: dict[tuple[str, str], _Type | None] = {}
        self._methods_memo: dict[tuple[_Type, str], list[DefInfo | str]] = {}
        self._loads: dict[str, list[str]] = {}
        self._type_def_memo: dict[_Type, list[DefInfo]] = {}
        self._underlying_memo: dict[_Type, _Type] = {}
        self._interface_memo: dict[_Type, frozenset[str] | None] = {}
        self._implementation_memo: dict[_Type, list[_Type]] = {}
        self._dispatched: set[tuple[str, _Type]] = set()  # interface methods given their cha edges
        self._params_memo: dict[tuple[str, str], frozenset[str]] = {}
        self._depth = 0

    # ---- reading the indexes ----------------------------------------------------------------
    def _read_file(self, gofile: _File, package: _Package) -> None:
        index = gofile.index
        for imp in index.imports:
            if imp.star:
                gofile.dot_imports.append(imp.module)
            elif imp.alias != "_":
                gofile.imports[imp.alias or _guess_name(imp.module)] = imp.module
        for d in index.definitions:
            info = DefInfo(keys.first_party(index.path, d.qualname), index.path, d, LANGUAGE)
            gofile.defs.setdefault(d.qualname, info)
            if d.kind == "method":
                owner = d.qualname.rpartition(".")[0]
                if not gofile.excluded:
                    package.methods.setdefault((owner, d.name), []).append(info)
            elif not gofile.excluded and "$" not in d.qualname:  # a literal has no name of the package
                package.scope.setdefault(d.qualname, []).append(info)
        for a in index.assignments:
            gofile.bindings.setdefault((a.scope, a.target), []).append(a)
        for found in gofile.bindings.values():
            found.sort()

    def _importable_packages(self) -> dict[str, _Package]:
        """The package other files import from each folder: its non-test, build-read files."""
        names: dict[str, dict[str, int]] = {}
        for gofile in self.files.values():
            if gofile.excluded or gofile.path.endswith("_test.go") or not gofile.package:
                continue
            counts = names.setdefault(gofile.folder, {})
            counts[gofile.package] = counts.get(gofile.package, 0) + 1
        chosen: dict[str, _Package] = {}
        for folder, counts in names.items():
            best = sorted(counts.items(), key=lambda item: (item[0] == "main", -item[1], item[0]))[0][0]
            chosen[folder] = self.packages[(folder, best)]
        return chosen

    def _overlay(self, gofile: _File) -> _Package:
        """What a file that no default build reads sees: its own names, then its folder's package."""
        real = self.packages[(gofile.folder, gofile.package)]
        overlay = _Package(gofile.folder, f"{gofile.package}#{gofile.path}", [gofile])
        overlay.scope = {name: list(infos) for name, infos in real.scope.items()}
        overlay.methods = {slot: list(infos) for slot, infos in real.methods.items()}
        for qualname, info in gofile.defs.items():
            if info.definition.kind == "method":
                owner = qualname.rpartition(".")[0]
                overlay.methods[(owner, info.definition.name)] = [info]
            elif "$" not in qualname:
                overlay.scope[qualname] = [info]
        return overlay

    def _package_of(self, gofile: _File) -> _Package:
        if gofile.excluded:
            return self.overlays[gofile.path]
        return self.packages[(gofile.folder, gofile.package)]

    # ---- import paths ------------------------------------------------------------------------
    def resolve_import(self, gofile: _File, path: str) -> _Package | None:
        """The first-party package an import path names, or None when it is external."""
        slot = (gofile.module.root if gofile.module else "", path)
        if slot not in self._resolved_imports:
            self._resolved_imports[slot] = self._resolve_import(gofile.module, path)
        return self._resolved_imports[slot]

    def _resolve_import(self, module: _Module | None, path: str) -> _Package | None:
        candidates: list[str] = []
        ordered = sorted(self.modules, key=lambda m: (m is not module, -len(m.path), m.root))
        for mod in ordered:
            if mod is module:
                candidates.append(posixpath.join(mod.root, "vendor", path))
            folder = _module_folder(mod, path)
            if folder is not None:
                candidates.append(folder)
        for folder in candidates:
            found = self.importable.get(posixpath.normpath(folder) if folder else "")
            if found is not None:
                return found
        if not self.modules:  # a GOPATH tree, bare files: the shortest folder that ends with the path
            best: _Package | None = None
            for folder, package in self.importable.items():
                ends = folder == path or folder.endswith("/" + path)
                if ends and (best is None or (len(folder), folder) < (len(best.folder), best.folder)):
                    best = package
            return best
        return None

    def import_path(self, gofile: _File) -> str:
        """The import path of a file's package: its module's path and the folder under it (the
        folder alone in ``module std``, whose own ``vendor/`` packages keep their path)."""
        module = gofile.module
        if module is None:
            return gofile.folder
        relative = gofile.folder[len(module.root) + 1 :] if module.root else gofile.folder
        if relative == "vendor" or relative.startswith("vendor/"):
            return relative[7:]
        if module.path == "std":
            return relative
        return f"{module.path}/{relative}" if relative else module.path

    def external_key(self, info: DefInfo) -> str:
        """The key another package writes for a definition (``golang.org//x//net//html//render1``,
        ``net//http//Client//Get``); none for a test file's, a build-excluded file's or a
        ``main`` package's definitions, which no other package can name."""
        gofile = self.files[info.path]
        if gofile.excluded or gofile.path.endswith("_test.go") or gofile.package == "main":
            return ""
        if "$" in info.qualname:
            return ""  # a function literal: no other package can name it
        module = gofile.module
        if module is not None and module.path == "std":
            relative = gofile.folder[len(module.root) + 1 :] if module.root else gofile.folder
            if relative == "vendor" or relative.startswith("vendor/"):
                return ""  # the standard library's own copy of a module: no program imports it
        return keys.external(self.import_path(gofile), LANGUAGE, *info.qualname.split("."))

    def external_type(self, typ: _Type | None) -> _Type | None:
        """A type of this linker's packages as another project sees it (an ``ext`` type)."""
        if typ is None:
            return None
        if typ.kind == "fp":
            package = self._package_by_ident(typ.package)
            if package is None or not package.files:
                return None
            return _Type("ext", self.import_path(package.files[0]), typ.name)
        if typ.elem is not None:
            return typ._replace(elem=self.external_type(typ.elem))
        return typ

    def external_target(self, target: DefInfo | str) -> str:
        return target if isinstance(target, str) else self.external_key(target)

    def package_at(self, path: str) -> _Package | None:
        """The package of an import path among this linker's modules (for a unit's reader)."""
        for module in sorted(self.modules, key=lambda m: (-len(m.path), m.root)):
            for folder in (_module_folder(module, path), posixpath.join(module.root, "vendor", path)):
                if folder is not None:
                    found = self.importable.get(posixpath.normpath(folder) if folder else "")
                    if found is not None:
                        return found
        return None

    # ---- link --------------------------------------------------------------------------------
    def link(self) -> None:
        external = self.unit is not None
        for gofile in self.files.values():
            self.builder.node(module_node(gofile.path, LANGUAGE, 0))
            for info in gofile.defs.values():
                node = node_for(info)
                if external:  # a unit's definition stands for the key other packages write
                    key = self.external_key(info)
                    node = node._replace(external=key) if key else node
                self.builder.node(node)
        _sets = self._method_sets  # before any call: the method sets do not depend on which call asks
        for gofile in self.files.values():
            self._link_file(gofile)
        self._type_edges()
        if external:  # an import of a unit's package runs the file its load starts at
            for path, key in self.package_keys().items():
                loaded = self.builder.nodes.get(path)
                if loaded is not None:
                    self.builder.nodes[path] = loaded._replace(external=key)

    def package_keys(self) -> dict[str, str]:
        """The file an import of each importable package of a unit reaches (its first file that
        does work when the package loads, else its first file), and the package's import key
        (``golang.org//x//net//html``): an import of the key runs that file's top level."""
        found: dict[str, str] = {}
        for package in self.importable.values():
            first = package.files[0] if package.files else None
            if first is None or package.name == "main":
                continue
            module = first.module
            relative = (
                first.folder[len(module.root) + 1 :] if module is not None and module.root else first.folder
            )
            if (
                module is not None
                and module.path == "std"
                and (relative == "vendor" or relative.startswith("vendor/"))
            ):
                continue
            key = keys.external(self.import_path(first), LANGUAGE)
            for target in self._load_targets(package)[:1]:
                found[target] = key
        return found

    def _caller(self, gofile: _File, scope: str) -> str:
        if scope and scope in gofile.defs:
            return gofile.defs[scope].key
        return gofile.path

    def _link_file(self, gofile: _File) -> None:
        index = gofile.index
        path = index.path
        for imp in index.imports:
            site = Site(path, imp.line, 0)
            package = self.resolve_import(gofile, imp.module)
            if package is None:
                key = self.builder.external(keys.external(imp.module, LANGUAGE), LANGUAGE)
                self.builder.edge(path, key, "imports", "import", site)
            else:
                for target in self._load_targets(package):
                    self.builder.edge(path, target, "imports", "import", site)
        for d in index.definitions:
            if d.kind == "function" and d.qualname == "init":
                self.builder.edge(
                    path, gofile.defs["init"].key, "calls", "direct", Site(path, d.line, d.column)
                )
        for d in index.definitions:
            for directive in d.decorators:
                if directive.startswith("go:linkname "):
                    self._linkname(gofile, d.qualname, directive.split()[1:])
        for call in index.calls:
            self._call(gofile, call)
        for ref in index.references:
            self._reference(gofile, ref.scope, ref.name, ref.line, Site(path, ref.line, ref.column))
        for (scope, name), bound in gofile.bindings.items():
            if name.startswith("return"):
                continue  # a returned composite literal is an instantiation where it is written
            for assignment in bound:
                if assignment.value.startswith("type:") and not self._is_receiver(gofile, assignment):
                    self._made(
                        gofile, scope, assignment.value[5:], Site(path, assignment.line, 0), "references"
                    )

    def _linkname(self, gofile: _File, qualname: str, names: list[str]) -> None:
        """``//go:linkname local path.name`` makes two names one function: a declaration with no body
        on one side, its code on the other. A call of the side with no body runs the other: the
        edge goes from it to the side with the body (both ways when the records do not tell them
        apart). A push to a package the link does not have (``local`` has the body) makes no
        edge: the code that calls it is not in the graph."""
        info = gofile.defs.get(qualname)
        if info is None or len(names) != 2 or names[0] != qualname:
            return
        path, dot, name = names[1].rpartition(".")
        if not dot or not _NAME.fullmatch(name):
            return
        site = Site(gofile.path, info.definition.line, info.definition.column)
        pull = _no_body(info)
        package = self.resolve_import(gofile, path)
        if package is None:
            if pull:
                key = self.builder.external(keys.external(path, LANGUAGE, name), LANGUAGE)
                self.builder.edge(info.key, key, "calls", "direct", site)
            return
        for target in package.scope.get(name, []):
            if _is_function(target) and target.key != info.key:
                push = _no_body(target)
                if pull or not push:
                    self.builder.edge(info.key, target.key, "calls", "direct", site)
                if push or not pull:
                    self.builder.edge(target.key, info.key, "calls", "direct", site)

    def _load_targets(self, package: _Package) -> list[str]:
        """The file an import of a package reaches: its first file that does work when the package
        loads (package variables with calls, ``init``), which reaches each other such file of the
        package in turn (one edge per import, not one per import and file); or its first file."""
        if package.ident in self._loads:
            return self._loads[package.ident]
        busy = [
            f.path
            for f in package.files
            if not f.excluded
            and not f.path.endswith("_test.go")
            and (any(c.scope == "" for c in f.index.calls) or "init" in f.defs)
        ]
        for path in busy[1:]:
            self.builder.edge(busy[0], path, "imports", "import", NO_SITE)
        first = [f.path for f in package.files if not f.excluded and not f.path.endswith("_test.go")]
        self._loads[package.ident] = busy[:1] or first[:1]
        return self._loads[package.ident]

    def _is_receiver(self, gofile: _File, assignment: Assignment) -> bool:
        info = gofile.defs.get(assignment.scope)
        return (
            info is not None
            and info.definition.kind == "method"
            and info.definition.line == assignment.line
            and assignment.value == f"type:{info.definition.bases[0] if info.definition.bases else ''}"
        )

    # ---- calls -------------------------------------------------------------------------------
    def _call(self, gofile: _File, call: Call) -> None:
        caller = self._caller(gofile, call.scope)
        site = Site(gofile.path, call.line, call.column)
        if call.new:
            # a composite literal runs no code: the value it makes is a fact for the flow, and the
            # type an instantiation reference, never a call edge
            self._made(gofile, call.scope, call.callee, site, "references", made=True)
            return
        if call.callee.startswith("func:"):  # a function literal called where it is written
            literal = gofile.defs.get(call.callee[5:])
            if literal is not None:
                self.builder.edge(caller, literal.key, "calls", "direct", site)
            return
        if call.callee.endswith("()") and not call.name:  # `f()()`: a call of what a call returned
            self._call_result_call(gofile, caller, site, call)
            return
        if call.callee == "<expr>" or not call.name:
            self._unresolved(caller, site, "computed-name", call.name, call.text)
            return
        if call.receiver is None:
            self._bare_call(gofile, caller, site, call)
            return
        receiver = self._resolve(gofile, call.scope, call.receiver, call.line)
        self._member_call(gofile, caller, site, call, receiver)

    def _call_result_call(self, gofile: _File, caller: str, site: Site, call: Call) -> None:
        """A first-party function returns a function literal of its own body (its calls are its own
        already) or a function it refers to: the site is covered. An external one returns its
        package's code: the site concerns the targets under the package."""
        function = self._resolve(gofile, call.scope, call.callee[:-2], call.line)
        if function.kind == "funcs":
            result = self._result(function, 0)
            if result.kind == "funcs":  # each function its `return`s give
                self._call_value(caller, site, call, result, "assignment")
                return
            self._unresolved(caller, site, "computed-name", "", call.text, covered=True)
        elif function.kind == "ext_func" and function.package:
            prefix = keys.external(function.package, LANGUAGE)
            self.builder.unresolved_site(
                Unresolved(caller, site, "computed-name", "", call.text, prefix=prefix)
            )
        else:
            self._unresolved(caller, site, "computed-name", "", call.text)

    def _bare_call(self, gofile: _File, caller: str, site: Site, call: Call) -> None:
        value = self._name(gofile, call.scope, call.name, call.line)
        if value.kind == "unknown" and call.name in BUILTIN_FUNCTIONS | BUILTIN_TYPES:
            return  # Go's builtins and conversions to its basic types run no code of the graph
        kind = (
            "assignment" if (call.scope, call.name) in gofile.bindings and value.kind == "funcs" else "direct"
        )
        self._call_value(caller, site, call, value, kind)

    def _call_value(self, caller: str, site: Site, call: Call, value: _Value, kind: str) -> None:
        if value.kind == "funcs":
            for info in value.funcs:
                if info.definition.kind in ("struct", "interface", "type", "alias"):
                    self._made_type(caller, self._type_of_def(info), site, "references", made=True)
                else:
                    self.builder.edge(caller, info.key, "calls", kind, site)
        elif value.kind == "ext_func":
            self.builder.edge(caller, self.builder.external(value.key, LANGUAGE), "calls", kind, site)
        elif value.kind == "type" and value.type is not None:
            self._made_type(caller, value.type, site, "references", made=True)  # a conversion runs no code
        elif value.kind == "closure":
            return  # a function literal of the caller: its calls are the caller's already
        elif value.kind == "param":
            # the functions the records show passed to the caller, then whatever else it was given
            for key in self._passed.get(caller, ()):
                if key not in self.builder.nodes:  # an external key
                    self.builder.external(key, LANGUAGE)
                self.builder.edge(caller, key, "calls", "reference", site)
            self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
        elif value.kind == "covered":
            # a function a first-party function returned: a literal of its body or one it refers to
            self._unresolved(caller, site, "computed-name", call.name, call.text, covered=True)
        elif value.kind == "value":
            # a variable of a function type holds a function the program referred to (a reference
            # edge where it did), a literal of some body, or what a call returned: covered when the
            # records show it is of a function type, else whatever the program stored in it
            covered = value.type is not None and self._is_func_type(value.type)
            self._unresolved(caller, site, "computed-name", call.name, call.text, covered=covered)
        elif value.kind == "unknown" and value.package:
            # a function an external call returned (`ctx, cancel := context.WithCancel(...)`): code of
            # that package, which no dependency code gives
            prefix = keys.external(value.package, LANGUAGE)
            self.builder.unresolved_site(
                Unresolved(caller, site, "computed-name", call.name, call.text, prefix=prefix)
            )
        else:
            # a name no record binds (no-definition), or a local or a member whose value the
            # records do not give: any function may be its value
            reason = value.why if value.why in ("no-definition", "limit") else "computed-name"
            self._unresolved(caller, site, reason, call.name, call.text)

    def _member_call(self, gofile: _File, caller: str, site: Site, call: Call, receiver: _Value) -> None:
        name = call.name
        if receiver.kind == "package":
            package = self._package_by_ident(receiver.package)
            found = package.scope.get(name, []) if package is not None else []
            if found:
                self._call_value(caller, site, call, _Value("funcs", funcs=tuple(found)), "direct")
            else:
                self._unresolved(caller, site, "no-definition", name, call.text)
            return
        if receiver.kind == "ext_package":
            key = self.builder.external(keys.external(receiver.package, LANGUAGE, name), LANGUAGE)
            self.builder.edge(caller, key, "calls", "direct", site)
            return
        if receiver.kind in ("value", "type") and receiver.type is not None:
            typ = receiver.type
            if not self._has_member(typ, name) and _NAME.fullmatch(call.receiver or ""):
                typ = self._shadowed(gofile, call, typ)
            self._method_call(gofile, caller, site, call, typ, receiver.flow if typ == receiver.type else ())
            return
        reason = receiver.why if receiver.why in ("limit", "no-dependency-source") else "unknown-receiver"
        self._unresolved(caller, site, reason, name, call.text)
        if reason != "unknown-receiver" or call.receiver is None:
            return
        root = self._resolve(gofile, call.scope, _segments(call.receiver)[0], call.line)
        if root.kind in ("ext_package", "package"):
            return  # a result of a package's function: its type is the package's, not a name's guess
        candidates = self._methods_by_name.get(name, [])
        if 0 < len(candidates) <= MAX_METHOD_NAME_CANDIDATES:
            for info in candidates:
                if info.path.endswith("_test.go") and not gofile.path.endswith("_test.go"):
                    continue
                self.builder.edge(caller, info.key, "calls", "name", site)

    def _is_func_type(self, typ: _Type) -> bool:
        """A function type: ``func(...)`` or a defined one, as ``type HandlerFunc func(...)``."""
        if typ.kind == "builtin":
            return typ.name == "func"
        return any(
            i.definition.kind == "type" and i.definition.returns[:1] == ("func",)
            for i in self._type_defs(self._underlying(typ))
        )

    def _owner_interface(self, target: DefInfo | str) -> _Type | None:
        """The interface a method belongs to, when it is an interface's method."""
        if not isinstance(target, DefInfo) or not target.definition.bases:
            return None
        owner = self.files[target.path].defs.get(target.qualname.rpartition(".")[0])
        if owner is None or owner.definition.kind != "interface":
            return None
        return self._type_of_def(owner)

    def _has_member(self, typ: _Type, name: str) -> bool:
        if typ.kind == "ext":
            return True
        interface = self._interface_methods(typ)
        if interface is not None:
            return name in interface
        return bool(self._lookup_method(typ, name)) or self._field_type(typ, name) is not None

    def _shadowed(self, gofile: _File, call: Call, typ: _Type) -> _Type:
        """The receiver's type when its last binding has no such method: a binding of an inner block
        (``if s := ...``) or of a function literal's parameter shadowed it there, and Go compiled the
        call, so an earlier binding or the parameter holds the receiver."""
        name, scope = call.receiver or "", call.scope
        bound = [a for a in gofile.bindings.get((scope, name), ()) if a.line <= call.line]
        values = [self._assigned(gofile, a) for a in reversed(bound)]
        param = self._param(gofile, scope, name)
        if param is not None:
            values.append(param)
        for value in values:
            if value.kind == "value" and value.type is not None and self._has_member(value.type, call.name):
                return value.type
        return typ

    def _method_call(
        self, gofile: _File, caller: str, site: Site, call: Call, typ: _Type, flow: tuple[_Type, ...] = ()
    ) -> None:
        name = call.name
        if typ.kind in ("slice", "map", "chan", "builtin") and typ.name != "error":
            self._unresolved(caller, site, "no-definition", name, call.text)
            return
        interface = self._interface_methods(typ)
        if interface is not None:
            declared = self._lookup_method(typ, name)
            for target in declared:
                self._target_edge(caller, target, site, "member")
            flowed = [self._lookup_method(concrete, name) for concrete in flow]
            if flowed and all(flowed):
                # the records show every value that reaches the receiver: the methods of their
                # types run, not those of every implementation (as VTA reads them off)
                for targets in flowed:
                    for target in targets:
                        self._target_edge(caller, target, site, "member")
                return
            targets = self._dispatch_targets(typ, interface, name)
            if not targets:
                self._unresolved(caller, site, "interface-receiver", name, call.text)
                return
            if len(targets) <= MAX_CHA_SITE or not declared:
                for target in targets:
                    self._target_edge(caller, target, site, "cha")
            else:  # many implementations: the interface's method joins them once, not every site
                for method in declared:
                    self._dispatch(method, typ, targets)
            # the flow does not say which values reach the receiver: every implementation may run
            # (the cha edges, of lower confidence), and the site says so
            self._unresolved(caller, site, "interface-receiver", name, call.text, covered=True)
            return
        targets = self._lookup_method(typ, name)
        if targets:
            for target in targets:
                embedded = self._owner_interface(target)
                if embedded is not None:  # promoted from an interface field: whatever the field holds
                    self._method_call(gofile, caller, site, call, embedded)
                else:
                    self._target_edge(caller, target, site, "member")
            return
        if typ.kind == "ext":
            key = self.builder.external(keys.join(typ.ext_key, name), LANGUAGE)
            self.builder.edge(caller, key, "calls", "member", site)
            return
        field_type = self._field_type(typ, name)
        if field_type is not None:  # a func-typed field: whatever the program stored in it
            self._unresolved(caller, site, "computed-name", name, call.text, covered=True)
            return
        if self._has_unknown_embedding(typ):
            self._unresolved(caller, site, "unknown-receiver", name, call.text)
            return
        self._unresolved(caller, site, "no-definition", name, call.text)

    def _dispatch_targets(self, typ: _Type, interface: frozenset[str], name: str) -> list[DefInfo | str]:
        """The method ``name`` of each implementation of an interface type, by class hierarchy
        analysis: the project's, then each unit's at its external key."""
        found: dict[str, DefInfo | str] = {}
        for impl in self._implementations(typ, interface):
            for target in self._lookup_method(impl, name):
                found.setdefault(target.key if isinstance(target, DefInfo) else target, target)
        for key in self.units.implementations(typ, interface, name):
            found.setdefault(key, key)
        return list(found.values())

    def _dispatch(self, method: DefInfo | str, typ: _Type, targets: list[DefInfo | str]) -> None:
        """cha edges from an interface's method to the method of each implementation, once."""
        source = method.key if isinstance(method, DefInfo) else self.builder.external(method, LANGUAGE)
        if (source, typ) in self._dispatched:
            return
        self._dispatched.add((source, typ))
        for target in targets:
            if isinstance(target, DefInfo):
                site = Site(target.path, target.definition.line, target.definition.column)
                self.builder.edge(source, target.key, "calls", "cha", site)
            else:
                self.builder.edge(source, self.builder.external(target, LANGUAGE), "calls", "cha", NO_SITE)

    def _target_edge(self, caller: str, target: DefInfo | str, site: Site, kind: str) -> None:
        if isinstance(target, DefInfo):
            self.builder.edge(caller, target.key, "calls", kind, site)
        else:
            self.builder.edge(caller, self.builder.external(target, LANGUAGE), "calls", kind, site)

    def _made(
        self, gofile: _File, scope: str, written: str, site: Site, relation: str, made: bool = False
    ) -> None:
        """A value of the type ``written`` is made (``made``: a literal or a conversion) or declared
        at ``site``: an edge to the type."""
        typ = self._type(gofile, written)
        if typ is None:
            return
        self._made_type(self._caller(gofile, scope), typ, site, relation, made)

    def _made_type(self, caller: str, typ: _Type, site: Site, relation: str, made: bool = False) -> None:
        kind = "direct" if relation == "calls" else "reference"
        if typ.kind == "fp":
            for info in self._type_defs(typ):
                self.builder.edge(caller, info.key, relation, kind, site)
        elif typ.kind == "ext" and (relation == "calls" or made):
            self.builder.edge(caller, self.builder.external(typ.ext_key, LANGUAGE), relation, kind, site)

    def _reference(self, gofile: _File, scope: str, text: str, line: int, site: Site) -> None:
        value = self._resolve(gofile, scope, text, line)
        caller = self._caller(gofile, scope)
        if value.kind == "funcs":
            for info in value.funcs:
                if info.definition.kind in ("function", "method"):
                    self.builder.edge(caller, info.key, "references", "reference", site)
        elif value.kind == "ext_func":  # `apply(strings.ToUpper)`: a parameter call may run it
            # (an external name may be a variable, as os.Stdout: its node then stands for nothing run)
            key = self.builder.external(value.key, LANGUAGE)
            self.builder.edge(caller, key, "references", "reference", site)

    def _unresolved(
        self, caller: str, site: Site, reason: str, name: str, text: str, covered: bool = False
    ) -> None:
        self.builder.unresolved_site(Unresolved(caller, site, reason, name, text, covered=covered))

    @cached_property
    def _passed(self) -> dict[str, list[str]]:
        """The functions passed to each first-party function (their keys, first party or external):
        the references on the line of a call, and the functions that the other calls on the line
        return (``Finish(Do(b))`` passes what ``Do`` returns).

        The index gives no argument positions, so every function referenced on the line of a call
        counts as passed to the callee (a later line of a multi-line call is missed: the site stays
        a covered record, and the reference edge of the caller keeps reach whole)."""
        passed: dict[str, dict[str, None]] = {}
        for gofile in self.files.values():
            for target, functions in self._passed_of(gofile):
                slot = passed.setdefault(target, {})
                for key in functions:
                    slot.setdefault(key, None)
        return {key: list(found) for key, found in passed.items()}

    def _passed_of(self, gofile: _File) -> list[tuple[str, list[str]]]:
        """One file's share of ``_passed``: (callee key, the functions passed) per call, in order."""
        shares: list[tuple[str, list[str]]] = []
        by_line: dict[tuple[str, int], list[str]] = {}
        for ref in gofile.index.references:
            by_line.setdefault((ref.scope, ref.line), []).append(ref.name)
        calls_by_line: dict[tuple[str, int], list[Call]] = {}
        for call in gofile.index.calls:
            if not call.new and call.callee != "<expr>":
                calls_by_line.setdefault((call.scope, call.line), []).append(call)
        for call in gofile.index.calls:
            names = by_line.get((call.scope, call.line), [])
            others = calls_by_line.get((call.scope, call.line), [])
            if (not names and len(others) < 2) or call.new or call.callee == "<expr>":
                continue
            callee = self._resolve(gofile, call.scope, call.callee, call.line)
            if callee.kind != "funcs":
                continue
            values = [self._resolve(gofile, call.scope, name, call.line) for name in names]
            for other in others:
                if other is not call and other.callee[-2:] != "()":
                    made = self._resolve(gofile, other.scope, other.callee, other.line)
                    if made.kind == "funcs":
                        values.append(self._result(made, 0))
            functions = [i.key for v in values if v.kind == "funcs" for i in v.funcs if _is_function(i)]
            functions += [v.key for v in values if v.kind == "ext_func"]
            for target in callee.funcs:
                shares.append((target.key, functions))
        return shares

    @cached_property
    def _methods_by_name(self) -> dict[str, list[DefInfo]]:
        table: dict[str, list[DefInfo]] = {}
        for package in self.packages.values():
            for (_owner, name), infos in package.methods.items():
                table.setdefault(name, []).extend(infos)
        return table

    # ---- values ------------------------------------------------------------------------------
    def _resolve(self, gofile: _File, scope: str, text: str, line: int) -> _Value:
        """The value of a receiver chain (``a.B().C``, ``x.(T)``, ``pkg.T{}``, ``m[]``), or of a
        function literal (``func:F$1``)."""
        if text.startswith("func:"):
            literal = gofile.defs.get(text[5:])
            return _Value("funcs", funcs=(literal,)) if literal is not None else _Value("closure")
        segments = _segments(text)
        if not segments:
            return _UNKNOWN
        value = self._segment_head(gofile, scope, segments[0], line)
        for segment in segments[1:]:
            if value.kind == "unknown":
                return value
            value = self._segment(gofile, value, segment)
        return value

    def _segment_head(self, gofile: _File, scope: str, segment: str, line: int) -> _Value:
        name, suffixes = _split_segment(segment)
        if name.startswith("("):
            return _UNKNOWN
        value = self._name(gofile, scope, name, line)
        for suffix in suffixes:
            value = self._apply(gofile, value, suffix)
        return value

    def _segment(self, gofile: _File, value: _Value, segment: str) -> _Value:
        name, suffixes = _split_segment(segment)
        if name.startswith("("):  # a type assertion x.(T)
            written = name[1:-1]
            typ = self._type(gofile, written)
            result = (
                _Value("value", type=typ) if typ is not None else _Value("unknown", why="unknown-receiver")
            )
        else:
            result = self._member(value, name)
        for suffix in suffixes:
            result = self._apply(gofile, result, suffix)
        return result

    def _apply(self, gofile: _File, value: _Value, suffix: str) -> _Value:
        if value.kind == "unknown":
            return value
        if suffix == "()":
            return self._result(value, 0)
        if suffix == "{}":
            if value.kind == "type" and value.type is not None:
                return _Value("value", type=value.type)
            if value.kind == "funcs":
                typ = next((self._type_of_def(i) for i in value.funcs if _is_type_def(i)), None)
                return _Value("value", type=typ) if typ is not None else _UNKNOWN
            return _UNKNOWN
        if suffix == "[]":
            container = self._container(value.type) if value.kind == "value" and value.type else None
            if container is not None and container.elem is not None:
                return _Value("value", type=container.elem)
            return _UNKNOWN
        return _UNKNOWN

    def _name(self, gofile: _File, scope: str, name: str, line: int) -> _Value:
        """What a bare name means at a line of a scope: a local, a package name, an import. A
        function literal sees the names of the functions around it (``F$1`` those of ``F``)."""
        while "$" in scope and (scope, name) not in gofile.bindings:
            if name in self._param_names(gofile, scope):
                break
            scope = scope.rpartition("$")[0]
        if scope and (scope, name) in gofile.bindings:
            slot = (gofile.path, scope, name, line)
        elif scope and name in self._param_names(gofile, scope):
            slot = (gofile.path, scope, name, -1)
        else:  # a name of the package or the file: the same in every scope
            slot = (gofile.path, "", name, -2)
            scope = ""
        cached = self._memo.get(slot)
        if cached is not None:
            return cached
        if self._depth > MAX_DEPTH:
            return _Value("unknown", why="limit")
        self._depth += 1
        self._memo[slot] = _UNKNOWN  # a binding that reaches back to itself is unknown
        try:
            value = self._lookup_name(gofile, scope, name, line)
        finally:
            self._depth -= 1
        self._memo[slot] = value
        return value

    def _lookup_name(self, gofile: _File, scope: str, name: str, line: int) -> _Value:
        if scope:
            bound = self._binding(gofile, scope, name, line)
            if bound is not None:
                return bound
            param = self._param(gofile, scope, name)
            if param is not None:
                return param
        found = self._package_of(gofile).scope.get(name)
        if found:
            return self._definitions_value(found)
        if name in gofile.imports:
            path = gofile.imports[name]
            package = self.resolve_import(gofile, path)
            if package is None:
                return _Value("ext_package", package=path)
            return _Value("package", package=package.ident)
        for path in gofile.dot_imports:
            package = self.resolve_import(gofile, path)
            if package is not None and name in package.scope:
                return self._definitions_value(package.scope[name])
        if name in BUILTIN_TYPES:
            return _Value("type", type=_Type("builtin", "", name))
        external_dots = [p for p in gofile.dot_imports if self.resolve_import(gofile, p) is None]
        if len(external_dots) == 1 and name[:1].isupper():
            return _Value("ext_func", external_dots[0], key=keys.external(external_dots[0], LANGUAGE, name))
        if external_dots:
            return _Value("unknown", why="unknown-receiver")
        return _Value("unknown", why="no-definition")

    def _definitions_value(self, infos: Sequence[DefInfo]) -> _Value:
        """The value of a package-level name: functions, a type, or a variable's value."""
        if all(i.definition.kind in ("function", "method") for i in infos):
            return _Value("funcs", funcs=tuple(infos))
        if any(_is_type_def(i) for i in infos):
            typ = next(self._type_of_def(i) for i in infos if _is_type_def(i))
            return _Value("type", type=typ)
        # a package variable: its declared type, or what its value gives
        values = []
        for info in infos:
            gofile = self.files[info.path]
            declared = info.definition.returns[0] if info.definition.returns else ""
            if declared:
                var_type = self._type(gofile, declared)
                values.append(_Value("value", type=var_type) if var_type is not None else _UNKNOWN)
                continue
            bound = self._binding(gofile, "", info.definition.name, info.definition.line)
            values.append(bound if bound is not None else _UNKNOWN)
        return _agree(values)

    def _binding(self, gofile: _File, scope: str, name: str, line: int) -> _Value | None:
        """The value the last binding of ``name`` in ``scope`` at or before ``line`` gives."""
        bound = gofile.bindings.get((scope, name))
        if not bound:
            return None
        before = [a for a in bound if a.line <= line]  # Go declares a name before its use
        typed: _Value | None = None
        for assignment in reversed(before):
            value = self._assigned(gofile, assignment)
            if value.kind == "value" and value.type is not None and not value.flow:
                held = [a for a in before if a.line == assignment.line and a.value.startswith("holds:")]
                if held and self._interface_methods(value.type) is not None:
                    return value._replace(flow=self._held_types(gofile, held))
            if value.kind != "unknown":
                return value
            if typed is None:
                typed = value
        return typed

    def _held_types(self, gofile: _File, held: list[Assignment]) -> tuple[_Type, ...]:
        """The concrete types ``var x I = v`` puts in an interface (empty when one is not known)."""
        return self._flowed_types(self._assigned(gofile, f._replace(value=f.value[6:])) for f in held)

    def _flowed_types(self, values: Iterable[_Value]) -> tuple[_Type, ...]:
        """The concrete types of values (read in order), or empty at the first that has none: an
        interface value with no flow of its own, an external type, a container."""
        found: dict[_Type, None] = {}
        for value in values:
            if value.kind != "value" or value.type is None:
                return ()
            if value.flow:
                found.update(dict.fromkeys(value.flow))
            elif value.type.kind == "fp" and self._interface_methods(value.type) is None:
                found[value.type] = None
            else:
                return ()
        return tuple(found)

    def _param_names(self, gofile: _File, scope: str) -> frozenset[str]:
        slot = (gofile.path, scope)
        found = self._params_memo.get(slot)
        if found is None:
            info = gofile.defs.get(scope)
            found = frozenset(p.name for p in info.definition.params) if info is not None else frozenset()
            self._params_memo[slot] = found
        return found

    def _constraint(self, gofile: _File, scope: str, written: str) -> _Type | None:
        """A type parameter of a function as its constraint, when the constraint is an interface
        with methods: a value of ``T`` in ``func F[T fmt.Stringer](x T)`` has those methods."""
        for assignment in gofile.bindings.get((scope, written.lstrip("*")), ()):
            if assignment.value.startswith("constraint:"):
                typ = self._type(gofile, assignment.value[11:])
                if typ is not None and self._interface_methods(typ):
                    return typ
        return None

    def _param(self, gofile: _File, scope: str, name: str) -> _Value | None:
        info = gofile.defs.get(scope)
        if info is None:
            return None
        for param in info.definition.params:
            if param.name == name:
                if param.type == "func" or not param.type:
                    return _Value("param")
                typ = self._type(gofile, param.type) or self._constraint(gofile, scope, param.type)
                if typ is not None and self._is_func_type(typ):  # `fmt stringFormatter`
                    return _Value("param")
                return (
                    _Value("value", type=typ)
                    if typ is not None
                    else _Value("unknown", why="unknown-receiver")
                )
        return None

    def _assigned(self, gofile: _File, assignment: Assignment) -> _Value:
        slot = (gofile.path, assignment)
        value = self._assigned_memo.get(slot)
        if value is None:
            if self._depth > MAX_DEPTH:
                return _Value("unknown", why="limit")
            self._assigned_memo[slot] = _UNKNOWN  # a binding that reaches back to itself is unknown
            self._depth += 1
            try:
                value = self._read_assigned(gofile, assignment)
            finally:
                self._depth -= 1
            self._assigned_memo[slot] = value
        return value

    def _read_assigned(self, gofile: _File, assignment: Assignment) -> _Value:
        kind, _, text = assignment.value.partition(":")
        scope, line = assignment.scope, assignment.line
        if kind == "type":
            if text == "func":
                return _Value("param")
            typ = self._type(gofile, text) or self._constraint(gofile, scope, text)
            return _Value("value", type=typ) if typ is not None else _Value("unknown", why="unknown-receiver")
        if kind == "call":
            callee, _, position = text.partition("#")
            function = self._resolve(gofile, scope, callee, line)
            return self._result(function, int(position or 0))
        if kind == "name":
            return self._resolve(gofile, scope, text, line)
        if kind == "elem":
            held = self._resolve(gofile, scope, text, line)
            container = self._container(held.type) if held.kind == "value" and held.type else None
            if container is not None and container.elem is not None:
                return _Value("value", type=container.elem)
            return _UNKNOWN
        if kind == "range":
            over, _, position = text.partition("#")
            held = self._resolve(gofile, scope, over, line)
            typ = self._container(held.type) if held.kind == "value" and held.type else None
            if typ is None or typ.elem is None:
                return _UNKNOWN
            if (typ.kind == "chan" and position == "0") or (typ.kind in ("slice", "map") and position == "1"):
                return _Value("value", type=typ.elem)
            return _UNKNOWN
        if kind == "func":  # a function literal (an index before its nodes: its maker's body)
            literal = gofile.defs.get(text) if text else None
            return _Value("funcs", funcs=(literal,)) if literal is not None else _Value("closure")
        if kind == "constraint":  # a type parameter: a conversion to it runs no code
            return _Value("closure")
        return _UNKNOWN

    def _result(self, function: _Value, position: int) -> _Value:
        """The value of result ``position`` of a call of ``function``."""
        if function.kind == "type" and function.type is not None:
            return _Value("value", type=function.type) if position == 0 else _UNKNOWN  # a conversion
        if function.kind == "ext_func":  # the unit of its package gives its results, if any
            return self._ext_result(function, position)
        if function.kind != "funcs":
            return _Value("unknown", why=function.why or "unknown-receiver")
        results: list[_Value] = []
        for info in function.funcs:
            if _is_type_def(info):
                results.append(_Value("value", type=self._type_of_def(info)))
                continue
            returns = info.definition.returns
            if position >= len(returns) or not returns[position]:
                results.append(_UNKNOWN)
                continue
            typ = self._type(self.files[info.path], returns[position])
            if returns[position] == "func" or (typ is not None and self._is_func_type(typ)):
                # the functions its `return`s give; with one the records do not name, a function
                # the function made or refers to (a reference edge of its own): covered
                returned = self._returned(info, position)
                results.append(returned if returned is not None else _Value("covered"))
                continue
            if typ is not None and self._interface_methods(typ) is not None:
                results.append(_Value("value", type=typ, flow=self._returned_types(info, position)))
                continue
            results.append(_Value("value", type=typ) if typ is not None else _UNKNOWN)
        return _agree(results)

    def _returns(self, info: DefInfo, position: int) -> list[_Value] | None:
        """The value of each ``return`` of a function at a result position (None with none)."""
        gofile = self.files[info.path]
        target = f"return#{position}" if position else "return"
        facts = gofile.bindings.get((info.definition.qualname, target))
        if not facts:
            return None
        return [self._assigned(gofile, fact) for fact in facts]

    def _returned(self, info: DefInfo, position: int) -> _Value | None:
        """The functions a function returns at a position, when each ``return`` names them."""
        values = self._returns(info, position)
        if values is None or any(v.kind != "funcs" for v in values):
            return None
        found = {i.key: i for v in values for i in v.funcs if _is_function(i)}
        return _Value("funcs", funcs=tuple(found.values())) if found else None

    def _returned_types(self, info: DefInfo, position: int) -> tuple[_Type, ...]:
        """The concrete types a function returns through an interface result, when each ``return``
        gives them (a composite literal, a call of a function whose result is concrete, a value of
        a concrete type); empty when one does not."""
        values = self._returns(info, position)
        return () if values is None else self._flowed_types(values)

    def _ext_result(self, function: _Value, position: int) -> _Value:
        """Result ``position`` of an external function or method, read from the definition in the
        unit that gives its package; a package no unit gives is no-dependency-source (when the
        link has units at all), a name its unit does not define unknown-receiver."""
        found = self.units.reader(function.package)
        if found is None:
            why = "no-dependency-source" if self.units.active else "unknown-receiver"
            return _Value("unknown", function.package, why=why)
        reader, package = found
        names = function.key[len(keys.external(function.package, LANGUAGE)) + len(keys.SEP) :]
        return self.units.result(reader, package, function.package, names.split(keys.SEP), position)

    def _member(self, value: _Value, name: str) -> _Value:
        """``value.name``: a package member, a method (as a function value) or a field."""
        if value.kind == "package":
            package = self._package_by_ident(value.package)
            found = package.scope.get(name) if package is not None else None
            return self._definitions_value(found) if found else _Value("unknown", why="no-definition")
        if value.kind == "ext_package":
            if name[:1].isupper():
                held = self.units.package_member(value.package, name)  # a variable or a type of a unit
                if held is not None:
                    return held
                return _Value("ext_func", value.package, key=keys.external(value.package, LANGUAGE, name))
            return _UNKNOWN
        if value.kind in ("value", "type") and value.type is not None:
            typ = value.type
            methods = self._lookup_method(typ, name)
            defs = tuple(m for m in methods if isinstance(m, DefInfo))
            if defs and len(defs) == len(methods):
                return _Value("funcs", funcs=defs)
            if methods:
                key = str(methods[0])
                return _Value("ext_func", "/".join(key.split(keys.SEP)[:-2]), key=key)
            field_type = self._field_type(typ, name)
            if field_type is not None:
                return _Value("value", type=field_type)
            if typ.kind == "ext" and name[:1].isupper():
                return _Value("ext_func", typ.package, key=keys.join(typ.ext_key, name))
            return _UNKNOWN
        return _UNKNOWN

    def _package_by_ident(self, ident: str) -> _Package | None:
        folder, _, name = ident.rpartition(":")
        if "#" in name:
            return self.overlays.get(name.partition("#")[2])
        return self.packages.get((folder, name))

    # ---- types -------------------------------------------------------------------------------
    def _type(self, gofile: _File, written: str) -> _Type | None:
        """The type a written type names in a file (see the extractor's type grammar)."""
        slot = (gofile.path, written)
        if slot not in self._types:
            self._types[slot] = self._read_type(gofile, written)
        return self._types[slot]

    def _read_type(self, gofile: _File, written: str) -> _Type | None:
        written = written.lstrip("*")
        if not written:
            return None
        if written.startswith("[]"):
            elem = self._type(gofile, written[2:])
            return _Type("slice", elem=elem)
        if written.startswith("map["):
            depth, index = 0, 3
            for index in range(3, len(written)):
                depth += {"[": 1, "]": -1}.get(written[index], 0)
                if depth == 0:
                    break
            return _Type("map", elem=self._type(gofile, written[index + 1 :]))
        if written.startswith("chan "):
            return _Type("chan", elem=self._type(gofile, written[5:]))
        head, dot, tail = written.partition(".")
        if dot:
            if not (_NAME.fullmatch(head) and _NAME.fullmatch(tail)):
                return None
            path = gofile.imports.get(head)
            if path is None:
                return None
            package = self.resolve_import(gofile, path)
            if package is None:
                return _Type("ext", path, tail)
            return _Type("fp", package.ident, tail) if tail in package.scope else None
        if not _NAME.fullmatch(written):
            return None
        for info in self._package_of(gofile).scope.get(written, []):
            if _is_type_def(info):
                return self._type_of_def(info)
        for path in gofile.dot_imports:
            package = self.resolve_import(gofile, path)
            if package is not None and any(_is_type_def(i) for i in package.scope.get(written, [])):
                return _Type("fp", package.ident, written)
        if written in BUILTIN_TYPES or written == "func":
            return _Type("builtin", "", written)
        return None  # a type parameter, or a name no record gives

    def _type_of_def(self, info: DefInfo) -> _Type:
        gofile = self.files[info.path]
        return _Type("fp", self._package_of(gofile).ident, info.definition.name)

    def _type_defs(self, typ: _Type) -> list[DefInfo]:
        found = self._type_def_memo.get(typ)
        if found is None:
            package = self._package_by_ident(typ.package) if typ.kind == "fp" else None
            found = [i for i in package.scope.get(typ.name, []) if _is_type_def(i)] if package else []
            self._type_def_memo[typ] = found
        return found

    def _underlying(self, typ: _Type, depth: int = 0) -> _Type:
        """An alias's target (``type A = B``); a defined type keeps its own name."""
        if typ.kind != "fp" or depth > 8:
            return typ
        found = self._underlying_memo.get(typ)
        if found is not None:
            return found
        found = typ
        for info in self._type_defs(typ):
            if info.definition.kind == "alias" and info.definition.returns:
                target = self._type(self.files[info.path], info.definition.returns[0])
                if target is not None:
                    found = self._underlying(target, depth + 1)
                    break
        self._underlying_memo[typ] = found
        return found

    def _interface_methods(self, typ: _Type, depth: int = 0) -> frozenset[str] | None:
        """The method set of an interface type, or None when the type is no interface we know."""
        if typ in self._interface_memo:
            return self._interface_memo[typ]
        self._interface_memo[typ] = None  # an embedding cycle: no interface
        found = self._read_interface(typ, depth)
        self._interface_memo[typ] = found
        return found

    def _read_interface(self, typ: _Type, depth: int) -> frozenset[str] | None:
        typ = self._underlying(typ)
        if typ.kind == "builtin":
            return KNOWN_INTERFACES.get(typ.name)
        if typ.kind == "ext":
            known = KNOWN_INTERFACES.get(typ.ext_key)
            return known if known is not None else self.units.interface_methods(typ)
        if typ.kind != "fp" or depth > 8:
            return None
        methods: set[str] = set()
        is_interface = False
        for info in self._type_defs(typ):
            d = info.definition
            if d.kind == "interface":
                is_interface = True
                gofile = self.files[info.path]
                methods.update(q.rpartition(".")[2] for q in gofile.defs if q.startswith(d.name + "."))
                for base in d.bases:
                    embedded = self._type(gofile, base)
                    inner = self._interface_methods(embedded, depth + 1) if embedded is not None else None
                    if inner:
                        methods.update(inner)
            elif d.kind == "type" and d.returns:  # type I2 I1: an interface type of its own
                underlying = self._type(self.files[info.path], d.returns[0])
                inner = self._interface_methods(underlying, depth + 1) if underlying is not None else None
                if inner is not None:
                    is_interface = True
                    methods.update(inner)
        return frozenset(methods) if is_interface else None

    def _lookup_method(self, typ: _Type, name: str, depth: int = 0) -> list[DefInfo | str]:
        """The method ``name`` of a type: its own definitions, else the shallowest promoted one."""
        slot = (typ, name)
        found = self._methods_memo.get(slot)
        if found is None:
            self._methods_memo[slot] = []  # an embedding cycle finds nothing
            found = self._read_method(typ, name, depth)
            self._methods_memo[slot] = found
        return found

    def _read_method(self, typ: _Type, name: str, depth: int) -> list[DefInfo | str]:
        typ = self._underlying(typ)
        if typ.kind == "builtin":
            return [keys.join(typ.name, name)] if name in KNOWN_INTERFACES.get(typ.name, ()) else []
        if typ.kind == "ext":
            if typ.ext_key in KNOWN_INTERFACES and name in KNOWN_INTERFACES[typ.ext_key]:
                return [keys.join(typ.ext_key, name)]
            return list(self.units.method(typ, name))
        if typ.kind != "fp" or depth > 8:
            return []
        package = self._package_by_ident(typ.package)
        if package is None:
            return []
        own = package.methods.get((typ.name, name))
        if own:
            return list(own)
        found: list[DefInfo | str] = []
        guessed: list[DefInfo | str] = []  # from an embedded external type whose methods no record gives
        for info in self._type_defs(typ):
            d = info.definition
            gofile = self.files[info.path]
            if d.kind == "interface":
                method = gofile.defs.get(f"{d.name}.{name}")
                if method is not None:
                    found.append(method)
            for embedded in self._embedded(info):
                inner = self._lookup_method(embedded, name, depth + 1)
                found.extend(inner)
                unknown = embedded.kind == "ext" and embedded.ext_key not in KNOWN_INTERFACES
                if not inner and unknown and name[:1].isupper():
                    guessed.append(keys.join(embedded.ext_key, name))
        unique: dict[str, DefInfo | str] = {}
        for target in found or guessed:
            unique.setdefault(target.key if isinstance(target, DefInfo) else target, target)
        return list(unique.values())

    def _embedded(self, info: DefInfo, depth: int = 0) -> list[_Type]:
        """The embedded types of a type definition; a defined type over a struct (``type T U``) has
        the embedded fields of ``U``, whose methods it gets, though not ``U``'s own."""
        gofile = self.files[info.path]
        d = info.definition
        found = [t for t in (self._type(gofile, base) for base in d.bases) if t is not None]
        if d.kind == "type" and d.returns and depth < 8:
            underlying = self._type(gofile, d.returns[0])
            if underlying is not None and underlying.kind == "fp":
                for inner in self._type_defs(self._underlying(underlying)):
                    if inner.definition.kind in ("struct", "type"):
                        found.extend(self._embedded(inner, depth + 1))
        return found

    def _container(self, typ: _Type, depth: int = 0) -> _Type | None:
        """The slice, map or chan type of a value: itself, or what a defined type is made of."""
        if typ.kind in ("slice", "map", "chan"):
            return typ
        if typ.kind != "fp" or depth > 8:
            return None
        for info in self._type_defs(self._underlying(typ)):
            if info.definition.kind == "type" and info.definition.returns:
                underlying = self._type(self.files[info.path], info.definition.returns[0])
                if underlying is not None:
                    return self._container(underlying, depth + 1)
        return None

    def _field_type(self, typ: _Type, name: str, depth: int = 0) -> _Type | None:
        typ = self._underlying(typ)
        if typ.kind == "ext":
            return self.units.field_type(typ, name)
        if typ.kind != "fp" or depth > 8:
            return None
        for info in self._type_defs(typ):
            d = info.definition
            gofile = self.files[info.path]
            fields = d.params
            if d.kind == "type" and d.returns:  # type T U: T has the fields of U
                underlying = self._type(gofile, d.returns[0])
                if underlying is not None and underlying.kind == "fp":
                    inner = self._field_type(underlying, name, depth + 1)
                    if inner is not None:
                        return inner
            for param in fields:
                if param.name == name and param.type:
                    return self._type(gofile, param.type) or _Type("builtin", "", "?")
            for base in d.bases:
                embedded = self._type(gofile, base)
                if embedded is not None:
                    inner = self._field_type(embedded, name, depth + 1)
                    if inner is not None:
                        return inner
        return None

    def _has_unknown_embedding(self, typ: _Type) -> bool:
        for info in self._type_defs(self._underlying(typ)):
            gofile = self.files[info.path]
            if any(self._type(gofile, base) is None for base in info.definition.bases):
                return True
        return False

    # ---- method sets and implementations -----------------------------------------------------
    @cached_property
    def _concrete_types(self) -> list[_Type]:
        found: dict[_Type, None] = {}
        for package in self.packages.values():
            for name, infos in package.scope.items():
                if any(i.definition.kind in ("struct", "type") for i in infos):
                    found[_Type("fp", package.ident, name)] = None
        return list(found)

    @cached_property
    def _own_methods(self) -> dict[tuple[str, str], set[str]]:
        """(package ident, type name) -> the names of the methods declared on the type."""
        table: dict[tuple[str, str], set[str]] = {}
        for package in self.packages.values():
            for owner, method in package.methods:
                table.setdefault((package.ident, owner), set()).add(method)
        return table

    def _method_names(self, typ: _Type, depth: int = 0) -> frozenset[str]:
        """Every method name of a first-party concrete type, promoted ones included (memoized by
        type and depth: a type embedded along many paths is walked once per depth, not once per
        path; on the Go standard library 460k calls became a few thousand)."""
        memo: dict[tuple[_Type, int], frozenset[str]] = self.__dict__.setdefault("_method_names_memo", {})
        found = memo.get((typ, depth))
        if found is None:
            found = memo[typ, depth] = frozenset(self._method_names_of(typ, depth))
        return found

    def _method_names_of(self, typ: _Type, depth: int) -> set[str]:
        if typ.kind != "fp" or depth > 8:
            return set()
        names = set(self._own_methods.get((typ.package, typ.name), ()))
        for info in self._type_defs(typ):
            for embedded in self._embedded(info):
                if embedded.kind == "fp":
                    inner = self._interface_methods(embedded)
                    names |= set(inner) if inner is not None else self._method_names(embedded, depth + 1)
                elif embedded.kind in ("ext", "builtin"):
                    names |= set(self._interface_methods(embedded) or ())
        return names

    @cached_property
    def _method_sets(self) -> dict[_Type, frozenset[str]]:
        return {typ: frozenset(self._method_names(typ)) for typ in self._concrete_types}

    @cached_property
    def _types_with_method(self) -> dict[str, list[_Type]]:
        table: dict[str, list[_Type]] = {}
        for typ, names in self._method_sets.items():
            for name in names:
                table.setdefault(name, []).append(typ)
        return table

    def _implementations(self, interface: _Type, methods: frozenset[str]) -> list[_Type]:
        """The first-party concrete types whose method set covers the interface's."""
        found = self._implementation_memo.get(interface)
        if found is None:
            found = []
            if methods:
                ordered = sorted(methods, key=lambda m: (len(self._types_with_method.get(m, ())), m))
                candidates = self._types_with_method.get(ordered[0], [])
                found = [typ for typ in candidates if methods <= self._method_sets[typ]]
            self._implementation_memo[interface] = found
        return found

    def _type_edges(self) -> None:
        """extends (embedding), implements (structural), and each made type's exported methods."""
        interfaces: list[tuple[_Type, frozenset[str], DefInfo]] = []
        for package in self.packages.values():
            for name, infos in sorted(package.scope.items()):
                for info in infos:
                    if not _is_type_def(info):
                        continue
                    gofile = self.files[info.path]
                    site = Site(info.path, info.definition.line, info.definition.column)
                    for base in info.definition.bases:
                        embedded = self._type(gofile, base)
                        if embedded is not None and embedded.kind in ("fp", "ext"):
                            self._base_edge(info.key, embedded, site, "extends")
                    typ = _Type("fp", package.ident, name)
                    if info.definition.kind == "interface":
                        methods = self._interface_methods(typ)
                        if methods:
                            interfaces.append((typ, methods, info))
                    elif info.definition.kind in ("struct", "type"):
                        for (owner, method), found in package.methods.items():
                            if owner == name and method[:1].isupper():
                                for target in found:
                                    self.builder.edge(info.key, target.key, "references", "reference", site)
        for typ, methods, interface in interfaces:
            site = Site(interface.path, interface.definition.line, interface.definition.column)
            for impl in self._implementations(typ, methods):
                for info in self._type_defs(impl):
                    self.builder.edge(info.key, interface.key, "implements", "implements", site)

    def _base_edge(self, key: str, base: _Type, site: Site, relation: str) -> None:
        if base.kind == "fp":
            for info in self._type_defs(base):
                self.builder.edge(key, info.key, relation, relation, site)
        else:
            self.builder.edge(key, self.builder.external(base.ext_key, LANGUAGE), relation, relation, site)


# ---- units of dependency code ------------------------------------------------------------------


def _unit_of_context(context: LinkContext) -> Any:
    """The unit a link is of (a ``projectgraph.units.Unit`` of the go ecosystem), or None."""
    unit = context.unit
    return unit if unit is not None and unit.ecosystem == "go" else None


class _GoUnits:
    """What the Go units of a link tell a project about the packages it imports: the results of
    their functions and methods, the fields and methods of their types, their interfaces' method
    sets. Each unit is read by a ``GoLinker`` of its own files (built when first asked, never
    linked), and what it answers is turned into external types (``_Type("ext", import path, name)``).
    """

    def __init__(self, context: LinkContext) -> None:
        self.context = context
        self.by_path: dict[str, Any] = {}  # import path -> UnitIndex
        own = _unit_of_context(context)
        go_units = [m for m in context.units or () if m.unit.ecosystem == "go"]
        # with Go units at all, a package that none gives is no-dependency-source (with none, the
        # link reads as it always did: external keys, unknown results)
        self.active = bool(go_units) or own is not None
        self.linking_unit = own is not None
        for made in go_units:
            if own is not None and made.unit.name == own.name:
                continue
            for path in made.unit.provides:
                self.by_path.setdefault(path, made)
        self._readers: dict[str, GoLinker] = {}
        self._found: dict[str, tuple[GoLinker, _Package] | None] = {}

    def reader(self, path: str) -> tuple[GoLinker, _Package] | None:
        """The reader of the unit that gives an import path, and the package at the path."""
        if path in self._found:
            return self._found[path]
        made = self.by_path.get(path)
        found: tuple[GoLinker, _Package] | None = None
        if made is not None:
            reader = self._reader_of(made)
            package = reader.package_at(path)
            found = (reader, package) if package is not None else None
        self._found[path] = found
        return found

    def implementations(self, typ: _Type, methods: frozenset[str], name: str) -> list[str]:
        """The external key of the method ``name`` of each type of each unit whose method set covers
        an interface's (``typ`` only keys the memo of each unit's reader)."""
        found: list[str] = []
        if not methods or self.linking_unit:
            # in a unit's own link, a value of another unit's type reached it from code that made the
            # value, which refers to the type's exported methods already: no other unit is read
            return found
        for made in sorted({id(m): m for m in self.by_path.values()}.values(), key=lambda m: m.unit.name):
            reader = self._reader_of(made)
            for impl in reader._implementations(typ, methods):
                for target in reader._lookup_method(impl, name):
                    key = reader.external_target(target)
                    if key:
                        found.append(key)
        return found

    def _reader_of(self, made: Any) -> GoLinker:
        reader = self._readers.get(made.unit.name)
        if reader is None:
            manifests = replace(self.context.manifests, controls=made.controls)
            context = LinkContext(manifests, self.context.max_hops, (), root=made.unit.root)
            reader = GoLinker(made.indexes, GraphBuilder(), context, unit=made.unit)
            self._readers[made.unit.name] = reader
        return reader

    def result(
        self, reader: GoLinker, package: _Package, path: str, names: Sequence[str], position: int
    ) -> _Value:
        """Result ``position`` of the function ``names[0]`` or the method ``names[1]`` of the type
        ``names[0]`` of a unit's package, as an external type."""
        value: _Value | None = None
        if len(names) == 1:
            found = package.scope.get(names[0], [])
            value = reader._definitions_value(found) if found else None
            if value is not None and value.kind not in ("funcs", "type"):
                value = None
        elif len(names) == 2:
            methods = reader._lookup_method(_Type("fp", package.ident, names[0]), names[1])
            defs = tuple(m for m in methods if isinstance(m, DefInfo))
            value = _Value("funcs", funcs=defs) if defs and len(defs) == len(methods) else None
        if value is None:  # a name the unit does not define
            return _Value("unknown", why="unknown-receiver")
        return self._imported(reader, reader._result(value, position), path)

    def _imported(self, reader: GoLinker, value: _Value, path: str) -> _Value:
        if value.kind == "value" and value.type is not None:
            typ = reader.external_type(value.type)
            if typ is not None:
                return _Value("value", type=typ)
            return _Value("unknown", why="unknown-receiver")
        if value.kind == "covered":  # a function of the package's own code
            return _Value("unknown", path, why="unknown-receiver")
        return _Value("unknown", why=value.why or "unknown-receiver")

    def package_member(self, path: str, name: str) -> _Value | None:
        """A package variable of a named type (with its type) or a type of a unit's package; None for
        a function, a variable that holds one, or a name the unit does not give."""
        found = self.reader(path)
        if found is None:
            return None
        reader, package = found
        infos = package.scope.get(name)
        if not infos or all(_is_function(i) for i in infos):
            return None
        if any(_is_type_def(i) for i in infos):
            return _Value("type", type=_Type("ext", path, name))
        held = reader._definitions_value(infos)
        if held.kind != "value" or held.type is None or reader._is_func_type(held.type):
            return None  # a function value (a literal of the package's code): the key, as without units
        return self._imported(reader, held, path)

    def _type_of(self, typ: _Type) -> tuple[GoLinker, _Type] | None:
        found = self.reader(typ.package)
        if found is None:
            return None
        reader, package = found
        return reader, _Type("fp", package.ident, typ.name)

    def method(self, typ: _Type, name: str) -> list[DefInfo | str]:
        """The external key of the method ``name`` of a unit's type (promoted ones at their own
        type's key: ``bufio.ReadWriter``'s ``ReadString`` is ``bufio//Reader//ReadString``)."""
        found = self._type_of(typ)
        if found is None:
            return []
        reader, own = found
        keys_found = [reader.external_target(m) for m in reader._lookup_method(own, name)]
        return [key for key in dict.fromkeys(keys_found) if key]

    def field_type(self, typ: _Type, name: str) -> _Type | None:
        found = self._type_of(typ)
        if found is None:
            return None
        reader, own = found
        return reader.external_type(reader._field_type(own, name))

    def interface_methods(self, typ: _Type) -> frozenset[str] | None:
        found = self._type_of(typ)
        if found is None:
            return None
        reader, own = found
        return reader._interface_methods(own)


# ---- helpers ----------------------------------------------------------------------------------


def _is_function(info: DefInfo) -> bool:
    return info.definition.kind in ("function", "method")


def _no_body(info: DefInfo) -> bool:
    """A function or method declared without a body (the Go extractor's last decorator)."""
    decorators = info.definition.decorators
    return bool(decorators) and decorators[-1] == NO_BODY


def _is_type_def(info: DefInfo) -> bool:
    return info.definition.kind in ("struct", "interface", "type", "alias")


def _agree(values: Sequence[_Value]) -> _Value:
    """One value when every definition gives the same, else unknown (two platform files, two types)."""
    if not values:
        return _UNKNOWN
    first = values[0]
    if all(v == first for v in values[1:]):
        return first
    return _Value("unknown", why="unknown-receiver")


@lru_cache(maxsize=65536)
def _segments(text: str) -> tuple[str, ...]:
    """Split a receiver chain at the dots outside parentheses: ``a.(pkg.T).B()`` -> a, (pkg.T), B()."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "." and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return tuple(p for p in parts if p)


@lru_cache(maxsize=65536)
def _split_segment(segment: str) -> tuple[str, tuple[str, ...]]:
    """``F()[]`` -> (``F``, [``()``, ``[]``]); a type assertion ``(T)`` stays whole."""
    if segment.startswith("("):
        return segment, ()
    match = _NAME.match(segment)
    if match is None:
        return "(", ()
    name = match.group(0)
    rest = segment[match.end() :]
    suffixes = tuple(rest[i : i + 2] for i in range(0, len(rest), 2))
    if any(s not in ("()", "[]", "{}") for s in suffixes):
        return "(", ()
    return name, suffixes


_VERSION_SUFFIX = re.compile(r"^v\d+$")


def _guess_name(path: str) -> str:
    """The package name an import binds by default: the last element, ``yaml`` of ``gopkg.in/yaml.v3``,
    ``foo`` of ``example.com/foo/v2``, ``bar`` of ``github.com/x/go-bar``."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return path
    last = parts[-1]
    if _VERSION_SUFFIX.match(last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last)
    if last.startswith("go-"):
        last = last[3:]
    return last.replace("-", "_").replace(".", "_")


def _module_folder(module: _Module, path: str) -> str | None:
    """The folder of the module that an import path names, or None when the path is not in it."""
    if module.path == "std":
        first = path.split("/", 1)[0]
        return None if "." in first else posixpath.join(module.root, path)
    if path == module.path:
        return module.root
    if path.startswith(module.path + "/"):
        return posixpath.join(module.root, path[len(module.path) + 1 :])
    return None


def _read_modules(controls: Controls, folders: set[str]) -> list[_Module]:
    """Every go.mod at or above a folder of Go files, within the project root (or the unit's)."""
    seen: set[str] = set()
    modules: list[_Module] = []
    replaced: list[tuple[str, str]] = []
    for folder in sorted(folders):
        current = folder
        while True:
            if current in seen:
                break
            seen.add(current)
            go_mod = f"{current}/go.mod" if current else "go.mod"
            try:
                text = controls.read_text(go_mod, errors="replace") if controls.exists(go_mod) else None
            except OSError:
                text = None
            if text is not None:
                match = _MODULE_LINE.search(text)
                if match:
                    modules.append(_Module(match.group(1).strip('"'), current))
                for target, local in _REPLACE_LINE.findall(text):
                    replaced.append((target, posixpath.normpath(posixpath.join(current, local))))
            if not current:
                break
            current = posixpath.dirname(current)
    known = {m.root for m in modules}
    for target, local in replaced:
        # a replace with a local folder: the folder is the module of that path
        if not local.startswith("..") and local not in known:
            modules.append(_Module(target, "" if local == "." else local))
            known.add(local)
    return sorted(modules, key=lambda m: (m.root, m.path))


def _module_of(folder: str, modules: list[_Module]) -> _Module | None:
    """The nearest module at or above a folder."""
    best: _Module | None = None
    for module in modules:
        root = module.root
        inside = root == "" or folder == root or folder.startswith(root + "/")
        if inside and (best is None or len(root) > len(best.root)):
            best = module
    return best


def unit_surface(root: str | None, package: str, indexes: Iterable[FileIndex]) -> Surface:
    """The external keys of the definitions of the Go module ``package`` (its module path, ``std``
    for the standard library) whose files, relative to ``root``, have these indexes."""
    indexes = tuple(indexes)
    controls = read_controls(root, tuple(i.path for i in indexes), (LANGUAGE,))
    context = LinkContext(Manifests(controls=controls), DEFAULT_HOPS, (), root=root)
    reader = GoLinker(indexes, GraphBuilder(), context, module=package)
    externals: dict[str, str] = reader.package_keys()
    for gofile in reader.files.values():
        for info in gofile.defs.values():
            key = reader.external_key(info)
            if key:
                externals[info.key] = key
    return Surface(externals)


def make_linker(indexes: Sequence[FileIndex], builder: GraphBuilder, context: LinkContext) -> GoLinker:
    return GoLinker(indexes, builder, context)
