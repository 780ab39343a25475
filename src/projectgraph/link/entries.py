"""The key a manifest entry point names, for the full and the incremental link alike.

Each linker's ``resolve_entry_point`` is asked first. A nested Python manifest's entry point
(``services/api/pyproject.toml``: ``api.cli:main``) names a module under that manifest's own import
roots (``Manifests.entry_roots``: its ``src`` folder, its declared package folders, its folder), so
its module is looked for there and asked again by the dotted name the file has from the project
root; a file whose folders are no identifiers gives its definition by its qualified name. Any other
target is a file path relative to the manifest's folder.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from projectgraph import keys
from projectgraph.fileindex import FileIndex
from projectgraph.manifests import EntryPoint, Manifests

_PYTHON_SUFFIXES = (".py", "/__init__.py", ".pyi", "/__init__.pyi")


def resolve_entry(
    entry: EntryPoint, linkers: Sequence[Any], indexes: Mapping[str, FileIndex], manifests: Manifests
) -> str | None:
    """The key of the definition or file ``entry`` names, or None."""
    roots = manifests.entry_roots.get(entry.manifest)
    if roots and ":" in entry.target:
        key = _nested_python(entry, roots, linkers, indexes)
        if key is not None:
            return key
    key = _ask(entry, linkers)
    if key is not None:
        return key
    base = posixpath.dirname(entry.manifest)
    path = posixpath.normpath(posixpath.join(base, entry.target))
    return path if path in indexes else None


def _ask(entry: EntryPoint, linkers: Sequence[Any]) -> str | None:
    for linker in linkers:
        resolver = getattr(linker, "resolve_entry_point", None)
        key: str | None = resolver(entry) if resolver is not None else None
        if key is not None:
            return key
    return None


def _nested_python(
    entry: EntryPoint, roots: Sequence[str], linkers: Sequence[Any], indexes: Mapping[str, FileIndex]
) -> str | None:
    module, _, qualname = entry.target.partition(":")
    module, qualname = module.strip(), qualname.strip().split("[")[0].strip()
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    for root in roots:
        stem = posixpath.join(root, *parts)
        path = next((stem + s for s in _PYTHON_SUFFIXES if stem + s in indexes), None)
        if path is None:
            continue
        folders = path.rsplit(".", 1)[0].split("/")
        if folders[-1] == "__init__":
            folders = folders[:-1]
        if all(f.isidentifier() for f in folders):
            target = f"{'.'.join(folders)}:{qualname}" if qualname else ".".join(folders)
            asked = EntryPoint(entry.manifest, entry.group, entry.name, target)
            key = _ask(asked, linkers)
            if key is not None:
                return key
        if not qualname:
            return path
        if any(d.qualname == qualname for d in indexes[path].definitions):
            return keys.first_party(path, qualname)
        return None
    return None
