"""Link: resolve imports, calls and bases across the files of a project into one ``Graph``.

``build(indexes, options)`` reads the manifests and the control files once (``read_manifests``,
``read_controls``), before the linkers, which read no file: each language's linker
(``LanguageSpec.linker``) is given the indexes and that frozen input, and they share
``core.GraphBuilder``. The graph it gives
does not depend on the order of the indexes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from projectgraph import fileindex
from projectgraph.fileindex import FileIndex, index_words, is_truncated
from projectgraph.graph import VERSION, FileEntry, Graph, Node, placing_every_file
from projectgraph.languages import all_languages
from projectgraph.link import entries as entries_mod
from projectgraph.link.core import GraphBuilder, LinkContext, Linker, module_node
from projectgraph.manifests import EntryPoint, Manifests, read_controls, read_manifests
from projectgraph.roots import Rule, find

DEFAULT_MAX_EDGES = 5_000_000
DEFAULT_MAX_EXPORT_HOPS = 10
_INCOMPLETE = ("failed", "missing", "truncated")


@dataclass(frozen=True)
class LinkOptions:
    root: str | None = None  # the project folder, for manifests; None reads no manifest
    sys_path: tuple[str, ...] = ()  # more Python import roots, relative to the root
    files: tuple[Any, ...] = ()  # FileStatus records of the index run
    test_paths: tuple[str, ...] = fileindex.DEFAULT_TEST_PATHS
    rules: tuple[Rule, ...] = ()
    max_edges: int = 0  # 0: 5,000,000
    max_export_hops: int = 0  # 0: 10
    manifests: Manifests | None = None  # already read (else read from root)
    unit: Any = None  # the unit of dependency code linked as a project of its own (units.Unit)
    units: tuple[Any, ...] | None = None  # the units (indexer.UnitIndex) a linker may read types from


def build(
    indexes: Iterable[FileIndex],
    options: LinkOptions | None = None,
    factories: Sequence[Callable[[Sequence[FileIndex], GraphBuilder, LinkContext], Linker]] | None = None,
) -> Graph:
    """Link the indexes of one project into its graph. ``factories``: the linkers' makers, when
    not ``_linker_factories()`` (``link.persisted_js`` gives its own JavaScript linker)."""
    options = options or LinkOptions()
    if options.max_edges < 0 or options.max_export_hops < 0:
        raise ValueError("max_edges and max_export_hops cannot be negative")
    max_edges = options.max_edges or DEFAULT_MAX_EDGES
    hops = options.max_export_hops or DEFAULT_MAX_EXPORT_HOPS
    ordered = sorted(indexes, key=lambda i: i.path)
    paths = tuple(i.path for i in ordered) + tuple(getattr(f, "path", "") for f in options.files)
    manifests = options.manifests or read_manifests(options.root, paths)
    if options.root is None and options.unit is not None:
        # a unit linked as a project of its own: its control files are under its root
        controls = read_controls(options.unit.root, paths, tuple(options.unit.languages))
        manifests = replace(manifests, controls=controls)
    builder = GraphBuilder()

    context = LinkContext(
        manifests,
        hops,
        tuple(options.test_paths),
        tuple(options.sys_path),
        options.root,
        unit=options.unit,
        units=options.units,
    )
    linkers = [make(ordered, builder, context) for make in factories or _linker_factories()]
    for linker in linkers:
        linker.link()
    for link_pass in _link_passes():  # across languages, after every linker (LanguageSpec.link_pass)
        link_pass(ordered, builder)
    handled = {language for linker in linkers for language in linker.languages}
    for index in ordered:
        if index.language not in handled:  # a language with no linker yet: its files are modules
            builder.node(module_node(index.path, index.language))

    # files with no complete index are module nodes too, so a query can name them
    entries = _file_entries(ordered, options.files)
    for entry in entries:
        if entry.status in ("failed", "missing"):
            builder.node(module_node(entry.path, entry.language))

    by_path = {i.path: i for i in ordered}

    def resolve_entry(entry: EntryPoint) -> str | None:
        return entries_mod.resolve_entry(entry, linkers, by_path, manifests)

    def handler_refs(index: FileIndex, methods: Sequence[str]) -> list[str]:
        for linker in linkers:
            if hasattr(linker, "handler_refs") and index.language in getattr(linker, "languages", ()):
                found: list[str] = linker.handler_refs(index, methods)
                return found
        return []

    root_set = find(ordered, manifests, resolve_entry, options.test_paths, options.rules, handler_refs)
    nodes, edges, unresolved, truncations = builder.finish(max_edges)
    stats = {
        "version": VERSION,
        "files": len(entries),
        "nodes": len(nodes),
        "edges": len(edges),
        "unresolved": len(unresolved),
        "roots": len(root_set.roots),
        "root_fallback": root_set.fallback,
        "incomplete_files": sum(1 for e in entries if e.status in _INCOMPLETE),
        "manifest_problems": list(manifests.problems),
    }
    graph = Graph(
        nodes=tuple(nodes),
        edges=tuple(edges),
        roots=root_set.roots,
        unresolved=tuple(unresolved),
        dynamic=tuple(sorted(set(builder.dynamic))),
        truncations=tuple(truncations),
        files=entries,
        stats=stats,
    )
    return placing_every_file(graph)


@cache
def _linker_factories() -> tuple[Callable[[Sequence[FileIndex], GraphBuilder, LinkContext], Linker], ...]:
    """The linker maker of every language (``LanguageSpec.linker``), once each, in the order of the
    first language (by name) that names it."""
    found: dict[str, Callable[[Sequence[FileIndex], GraphBuilder, LinkContext], Linker]] = {}
    for spec in all_languages().values():
        if spec.linker and spec.linker not in found:
            found[spec.linker] = spec.hook("linker")
    return tuple(found.values())


@cache
def _link_passes() -> tuple[Callable[[Sequence[FileIndex], GraphBuilder], None], ...]:
    """The pass of every language that has one (``LanguageSpec.link_pass``), once each, in the
    order of the first language (by name) that names it: they run after every linker."""
    found: dict[str, Callable[[Sequence[FileIndex], GraphBuilder], None]] = {}
    for spec in all_languages().values():
        if spec.link_pass and spec.link_pass not in found:
            found[spec.link_pass] = spec.hook("link_pass")
    return tuple(found.values())


def _file_entries(indexes: Sequence[FileIndex], statuses: Iterable[Any]) -> tuple[FileEntry, ...]:
    by_path: dict[str, FileEntry] = {}
    for index in indexes:
        status = "truncated" if is_truncated(index) else "indexed"
        by_path[index.path] = FileEntry(
            index.path, index.language, status, index.hash, words=index_words(index)
        )
    for status in statuses:
        kind = status.status if status.status in _INCOMPLETE else by_path.get(status.path, status).status
        if kind == "cached":
            kind = "indexed"
        indexed = by_path.get(status.path)
        words = indexed.words if indexed is not None and kind not in _INCOMPLETE else 0
        by_path[status.path] = FileEntry(
            status.path, status.language, kind, status.hash, getattr(status, "reason", ""), words=words
        )
    return tuple(by_path[p] for p in sorted(by_path))


def build_project(
    root: str | Path, indexes: Iterable[FileIndex], files: Sequence[Any] = (), **kw: Any
) -> Graph:
    """``build`` with the manifests of ``root``."""
    return build(indexes, LinkOptions(root=str(root), files=tuple(files), **kw))


__all__ = ["DEFAULT_MAX_EDGES", "LinkOptions", "Node", "build", "build_project"]
