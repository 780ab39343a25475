"""The link step of a sync: in full, or from the tracked link a process kept (``python.link.incremental``).

A tracked link costs more than a plain one (about twice: every memoized answer records what it
read) and pays back only in a process that syncs again, so the kept state is per store and per
process, and made when it is likely to serve: ``incremental=True`` (a watcher) keeps one from the
first link, and makes one even when a sync finds nothing to link (the watcher's catch-up, so that
its first edit is already incremental); ``None`` (a ``Project`` kept open: a server, a test) from
the second link of the store in this process on; ``False`` never. The state is kept only once the
graph it gives is stored; a sync that fails leaves none, and the next links in full.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectgraph.config import ProjectConfig
from projectgraph.fileindex import FileIndex
from projectgraph.graph import FileEntry, Graph
from projectgraph.indexer import IndexResult
from projectgraph.languages import all_languages

if TYPE_CHECKING:  # the linkers are imported by a sync that links, not by one that finds nothing
    from projectgraph.languages.python.link import persisted
    from projectgraph.languages.python.link.incremental import LinkState
    from projectgraph.link import LinkOptions

Shape = tuple[Any, ...]
_log = logging.getLogger(__name__)
_KEPT: weakref.WeakKeyDictionary[Any, tuple[Shape, LinkState]] = weakref.WeakKeyDictionary()
_LINKED: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # links per store


@dataclass(frozen=True)
class Linked:
    """How a sync linked. ``graph``: the whole new graph (a full or an in-memory link); ``stored``:
    the changed groups of it, from the store's state (a fresh process's incremental link).
    ``how``: full, tracked (in full, recording the reads), incremental (in memory), stored."""

    graph: Graph | None
    how: str
    kept: tuple[Shape, LinkState] | None = None  # the state to keep in memory once it is stored
    units: int = 0  # units of the Python link run again
    stored: persisted.Relinked | None = None
    save: Callable[[Any], None] | None = None  # writes the graph's link state (write transaction)
    why: str = ""  # why the state in the store could not be followed ("" when it was, or none)


def _shape(options: LinkOptions) -> Shape:
    return (options.root, options.sys_path, options.test_paths)


def link(
    base: Path,
    config: ProjectConfig,
    indexed: IndexResult,
    store: Any,
    entries: tuple[FileEntry, ...],
    incremental: bool | None,
    controls_changed: bool,
    old_index: Callable[[str, str], FileIndex | None] | None = None,
) -> Linked:
    """Link an index run: from the tracked link this process keeps, else from the state in the
    store (``old_index(path, hash)`` gives a file's stored index of that content), else in full,
    tracked when the state can be kept (in memory, or in the store: a Python project)."""
    from projectgraph.languages.go.link import persisted as persisted_go
    from projectgraph.languages.javascript.link import persisted as persisted_js
    from projectgraph.languages.python.link import persisted
    from projectgraph.languages.python.link.incremental import build_tracked
    from projectgraph.manifests import read_manifests
    from projectgraph.pipeline import link_indexed, link_options

    kept = _KEPT.pop(store, None)
    count = _LINKED[store] = _LINKED.get(store, 0) + 1
    keep = incremental is True or (incremental is None and count >= 2)
    options = link_options(base, config, indexed)
    if persisted_go.handles(indexed.indexes) and incremental is not False:  # Go: its own stored state
        from projectgraph.link.units import with_units

        why = ""
        if not controls_changed and old_index is not None:
            found_go, why = persisted_go.relink(store.connection, indexed.indexes, options, old_index)
            if found_go is not None:
                done = with_units(found_go.graph, indexed.units, store=store)
                return Linked(done, "stored", units=found_go.units, save=found_go.save)
            _log.debug("the stored Go link state was not followed: %s", why)
        whole, save_go = persisted_go.build_saved(indexed.indexes, options)
        return Linked(with_units(whole, indexed.units, store=store), "full", save=save_go, why=why)
    if getattr(indexed, "units", None) or incremental is False:  # units of dependency code: not covered
        return Linked(link_indexed(base, config, indexed, store=store), "full")
    if persisted_js.handles(indexed.indexes):  # a JavaScript/TypeScript project: its own stored state
        why = ""
        if not controls_changed and old_index is not None:
            found, why = persisted_js.relink(store.connection, indexed.indexes, options)
            if found is not None:
                return Linked(found.graph, "stored", units=found.units, save=found.save)
            _log.debug("the stored JavaScript link state was not followed: %s", why)
        whole, save_js = persisted_js.build_saved(indexed.indexes, options)
        return Linked(whole, "full", save=save_js, why=why)
    shape = _shape(options)
    if kept is not None and kept[0] == shape and not controls_changed:
        graph = kept[1].relink(indexed.indexes, entries)
        if graph is not None:
            _log.debug("incremental link: %d units", kept[1].relinked_units)
            return Linked(graph, "incremental", kept, kept[1].relinked_units)
        _log.debug("incremental link gave up: %s", kept[1].gave_up)
    why = ""
    if kept is None and not controls_changed and old_index is not None:
        manifests = read_manifests(options.root, _paths(indexed))
        stored, why = persisted.relink(
            store.connection, indexed.indexes, entries, options, manifests, old_index
        )
        if stored is not None:
            return Linked(None, "stored", units=stored.units, stored=stored)
        _log.debug("the stored link state was not followed: %s", why)
    known = all_languages()
    tracked = any(known[i.language].tracked_link for i in indexed.indexes if i.language in known)
    if not (keep or tracked):
        return Linked(link_indexed(base, config, indexed, store=store), "full", why=why)
    try:
        graph, state = build_tracked(indexed.indexes, options)
    except Exception:  # no state for this graph (a truncated one): link it plainly
        _log.debug("no tracked link", exc_info=True)
        return Linked(link_indexed(base, config, indexed, store=store), "full", why=why)
    save = None
    if persisted.savable(state) and not graph.truncations:
        save = partial(persisted.save, state=state, entries=entries, graph=graph)
    return Linked(graph, "tracked", (shape, state) if keep else None, save=save, why=why)


def _paths(indexed: IndexResult) -> tuple[str, ...]:
    """The paths ``link.build`` reads the manifests for."""
    return tuple(sorted(i.path for i in indexed.indexes)) + tuple(s.path for s in indexed.statuses)


def prime(base: Path, config: ProjectConfig, indexed: IndexResult, store: Any) -> None:
    """Make the state of a graph that is already stored (a watcher's sync that found nothing)."""
    if store in _KEPT or getattr(indexed, "units", None):
        return
    from projectgraph.languages.python.link.incremental import build_tracked
    from projectgraph.pipeline import link_options

    options = link_options(base, config, indexed)
    try:
        _graph, state = build_tracked(indexed.indexes, options)
    except Exception:  # no state: the next sync links in full
        return
    _KEPT[store] = (_shape(options), state)


def keep(store: Any, kept: tuple[Shape, LinkState] | None) -> None:
    """Keep the state of the graph just stored."""
    if kept is not None:
        _KEPT[store] = kept


def forget(store: Any) -> None:
    _KEPT.pop(store, None)
