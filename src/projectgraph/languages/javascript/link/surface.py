"""The export surface of an npm package: each external key another package writes for it, and what
the package's own linker resolves that key to.

A dependent writes a package's code as external keys (see ``linker.py``): the module is the
specifier with ``/`` read as ``//`` and the names follow, so ``import {template} from "lodash"``,
``require("lodash").template`` and ``require("lodash/template")`` all give ``lodash//template``, a
default import or a ``require`` of the whole module gives the module's key (``express``), and a
method of an instance made with ``new`` gives ``pkg//Class//method``. Here the other side is read:
linked as a project of its own (its folder the root), the package's entry modules are

- with an ``exports`` map, each subpath it gives (``"."`` is the package name, ``"./sub"`` is
  ``name//sub``; a ``*`` pattern gives one subpath per file its target matches), the conditions in
  the linker's order;
- without one, ``main`` and ``module`` (else ``index``) for the package name (Node's ``require``
  loads the one, a bundler's ``import`` the other), and every file for its path, as written with and
  without its extension (``lodash//template.js``, ``lodash//template``), a folder's ``index`` for
  the folder too, since Node resolves any of them.

For each entry module ``M`` the surface holds ``M`` itself (the module top level, which an import
runs, and what its default / ``module.exports`` stands for), ``M//name`` for each name it exports
(ESM exports, ``exports.x =``, the members of a ``module.exports`` object or function, ``export *``
re-exports, through the linker's ``export_of``), ``M//default``, and one level of members under a
class, a function or an object (``M//Class//method``, inherited methods of its bases included).
A name that stands for another package's key (``exports.json = bodyParser.json``) maps to that
external key, so a path chains on into the other package.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from typing import Any

from projectgraph import keys
from projectgraph.fileindex import FileIndex
from projectgraph.languages.javascript.link.linker import (
    JavaScriptLinker,
    _condition_targets,
    _exports_targets,
)
from projectgraph.link.core import GraphBuilder, Surface, Value
from projectgraph.manifests import read_manifests

# the npm unit rules (this surface, and the JavaScript linker reading a unit's package.json): a
# stored unit link of another version misses
SURFACE_VERSION = 3
_SKIPPED_NAMES = frozenset({"*", "module.exports", "default"})
_MAX_STAR_DEPTH = 10
DEFAULT_HOPS = 10


def unit_surface(root: str | None, package: str, indexes: Iterable[FileIndex]) -> Surface:
    """The surface of the npm package ``package`` whose files (relative to ``root``, its folder,
    where its package.json is read) have these indexes."""
    ordered = sorted(indexes, key=lambda i: i.path)
    manifests = read_manifests(root, tuple(i.path for i in ordered))
    linker = JavaScriptLinker(ordered, GraphBuilder(), manifests, DEFAULT_HOPS, (), root)
    table = surface(linker, package)
    targets: dict[str, tuple[str, ...]] = {}
    forwards: dict[str, tuple[str, ...]] = {}
    for key, values in table.items():
        local = tuple(v.key for v in values if v.kind in ("def", "module"))
        other = tuple(v.key for v in values if v.kind == "ext" and v.key != key)
        if local:
            targets[key] = local
        if other:
            forwards[key] = other
    return Surface(external_keys(table), targets, forwards)


def surface(linker: JavaScriptLinker, package: str) -> dict[str, tuple[Value, ...]]:
    """External key -> the values of the unit it stands for, for the package ``package`` at the
    linker's root; values are ``def`` (a definition key), ``module`` (a file) or ``ext`` (another
    package's key). Keys and values are in a fixed order."""
    found: dict[str, dict[Value, None]] = {}

    def add(key: str, value: Value | None) -> None:
        if value is not None and value.kind in ("def", "module", "ext"):  # not an object literal
            found.setdefault(key, {})[value] = None

    for module_key, path in _entries(linker, package):
        jsfile = linker.files.get(path)
        if jsfile is None:
            continue
        add(module_key, Value("module", path))
        for whole in _wholes(linker, path, 0, set()):
            add(module_key, whole)
            add(keys.join(module_key, "default"), whole)
            for name, member in _members(linker, whole):
                add(keys.join(module_key, name), member)
        for name in sorted(_names(linker, path, 0, set())):
            value = linker.export_of(path, name)
            if value is None:
                continue
            name_key = keys.join(module_key, name)
            add(name_key, value)
            for member_name, member in _members(linker, value):
                add(keys.join(name_key, member_name), member)
    return {key: tuple(found[key]) for key in sorted(found)}


def external_keys(table: dict[str, tuple[Value, ...]]) -> dict[str, str]:
    """The external key of each definition and module of a surface: the shortest key that stands
    for it (then the first in order), so the package's main entry wins over a file path."""
    best: dict[str, str] = {}
    for key, values in table.items():
        for value in values:
            if value.kind not in ("def", "module"):
                continue
            kept = best.get(value.key)
            if kept is None or (_rank(key), key) < (_rank(kept), kept):
                best[value.key] = key
    return {local: best[local] for local in sorted(best)}


def _rank(key: str) -> tuple[int, int]:
    return (key.count(keys.SEP), len(key))


def _entries(linker: JavaScriptLinker, package: str) -> list[tuple[str, str]]:
    """(module key, file) of each entry module of the package, main first."""
    manifest = linker.packages.get(package)
    entries: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(subpath: str, path: str | None) -> None:
        if path is None:
            return
        spec = package if subpath in (".", "") else f"{package}/{subpath.removeprefix('./')}"
        item = (keys.external(spec, "javascript"), path)
        if item not in seen:
            seen.add(item)
            entries.append(item)

    exports = manifest.exports if manifest is not None else None
    if manifest is not None:
        add(".", linker._package_entry(manifest, "."))
        if exports is None:  # Node's require loads main, a bundler's import module: both
            for target in (manifest.main, manifest.module):
                if target:
                    add(".", linker._file_candidates_plain(posixpath.normpath(target)))
    elif "index.js" in linker.files:
        add(".", "index.js")
    if exports is not None:
        # every condition's file: an import and a require of one subpath may load two files
        subpaths = (
            sorted(exports)
            if isinstance(exports, dict) and any(k.startswith(".") for k in exports)
            else ["."]
        )
        for subpath in subpaths:
            if subpath != "." and (not subpath.startswith("./") or subpath.endswith(".json")):
                continue
            if "*" in subpath:
                for star, path in _pattern_files(linker, exports[subpath]):
                    add(subpath.replace("*", star, 1), path)
                continue
            for target in _exports_targets(exports, subpath):
                add(subpath, linker._file_candidates_plain(posixpath.normpath(target)))
        return entries  # an exports map: no other subpath can be imported
    for path in sorted(linker.files):
        stem = _strip_extension(path)
        add(path, path)
        add(stem, path)
        if posixpath.basename(stem) == "index" and posixpath.dirname(stem):
            add(posixpath.dirname(stem), path)
    return entries


def _strip_extension(path: str) -> str:
    base, dot, ext = path.rpartition(".")
    return base if dot and "/" not in ext else path


def _pattern_files(linker: JavaScriptLinker, value: Any) -> Iterator[tuple[str, str]]:
    """(what ``*`` stands for, file) for each file an ``exports`` pattern target matches."""
    for target in _condition_targets(value):
        pattern = posixpath.normpath(target).removeprefix("./")
        head, star, tail = pattern.partition("*")
        if not star:
            continue
        for path in sorted(linker.files):
            if path.startswith(head) and path.endswith(tail) and len(path) > len(head) + len(tail):
                yield path[len(head) : len(path) - len(tail)], path


def _wholes(linker: JavaScriptLinker, path: str, depth: int, seen: set[str]) -> list[Value]:
    """What the module as a whole stands for (a default import, a ``require``): each value
    ``module.exports`` is set to (``if (browser) module.exports = require('./browser') else ...``
    gives both), through modules that set it to another module, else its ESM default export."""
    jsfile = linker.files.get(path)
    if jsfile is None or path in seen or depth > _MAX_STAR_DEPTH:
        return []
    seen.add(path)
    found: list[Value] = []
    for export in jsfile.exports.get("module.exports", ()):
        value = linker._export_value(jsfile, export)
        if value is None:
            continue
        if value.kind == "module" and value.key != path:
            found.append(value)
            found.extend(_wholes(linker, value.key, depth + 1, seen))
        elif value.kind != "module":
            found.append(value)
    if not found and "default" in jsfile.exports:
        value = linker.export_of(path, "default")
        if value is not None and value != Value("module", path):
            found.append(value)
    return list(dict.fromkeys(found))


def _names(linker: JavaScriptLinker, path: str, depth: int, seen: set[str]) -> set[str]:
    """The names a module exports, ``export *`` re-exports and the members of its whole export."""
    jsfile = linker.files.get(path)
    if jsfile is None or path in seen or depth > _MAX_STAR_DEPTH:
        return set()
    seen.add(path)
    names = {name for name in jsfile.exports if name not in _SKIPPED_NAMES}
    for spec in jsfile.stars:
        target = linker.resolve_module(path, spec)
        if target is not None:
            names |= _names(linker, target, depth + 1, seen) - {"default"}
    for whole in _wholes(linker, path, 0, set()):
        if whole.kind == "module":
            names |= _names(linker, whole.key, depth + 1, seen)
        else:
            names |= {name for name, _member in _members(linker, whole)}
    return names


def _members(linker: JavaScriptLinker, value: Value) -> list[tuple[str, Value]]:
    """(name, value) of the members of a class (its bases' too), a function, an instance
    (``module.exports = new Mime()``: the methods of its class) or an object literal."""
    if value.kind in ("def", "new", "inst"):
        info = linker.defs.get(value.key)
        if info is None:
            return []
        instance = value.kind != "def"
        owners = linker._chain(value.key) if info.is_class or instance else [value.key]
        found: dict[str, Value] = {}
        for owner in owners:
            owner_info = linker.defs.get(owner)
            if owner_info is None:
                continue
            prefix = owner_info.qualname + "."
            for qualname, member in linker.files[owner_info.path].defs.items():
                name = qualname[len(prefix) :]
                if qualname.startswith(prefix) and "." not in name and name not in found:
                    found[name] = Value("def", member.key)
        return sorted(found.items())
    if value.kind == "obj":
        path, qualname = linker.objects[value.key]
        jsfile = linker.files[path]
        prefix = qualname + "."
        members = {
            q[len(prefix) :]
            for q in [*jsfile.defs, *jsfile.objects]
            if q.startswith(prefix) and "." not in q[len(prefix) :]
        }
        out = []
        for name in sorted(members):
            found_value = linker._attribute(value, name)
            if found_value is not None:
                out.append((name, found_value))
        return out
    return []
