"""The link step of a sync: in full, or from the tracked link a process kept (``link.incremental``).

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
from pathlib import Path
from typing import Any

from projectgraph.config import ProjectConfig
from projectgraph.graph import FileEntry, Graph
from projectgraph.indexer import IndexResult
from projectgraph.link import LinkOptions
from projectgraph.link.incremental import LinkState, build_tracked
from projectgraph.pipeline import link_indexed

Shape = tuple[Any, ...]
_log = logging.getLogger(__name__)
_KEPT: weakref.WeakKeyDictionary[Any, tuple[Shape, LinkState]] = weakref.WeakKeyDictionary()
_LINKED: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # links per store


def _options(base: Path, config: ProjectConfig, indexed: IndexResult) -> LinkOptions:
    """The options ``pipeline.link_indexed`` links with."""
    return LinkOptions(
        root=str(base),
        sys_path=tuple(config.sys_path),
        files=indexed.statuses,
        test_paths=(*LinkOptions().test_paths, *config.test_paths),
    )


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
) -> tuple[Graph, str, tuple[Shape, LinkState] | None, int]:
    """The graph of an index run; how it was linked ("full", "tracked", "incremental"); the state
    to keep once it is stored (see ``keep``); how many units an incremental link ran again."""
    kept = _KEPT.pop(store, None)
    count = _LINKED[store] = _LINKED.get(store, 0) + 1
    track = incremental is True or (incremental is None and count >= 2)
    if not track or getattr(indexed, "units", None):  # units of dependency code: not covered
        return link_indexed(base, config, indexed, store=store), "full", None, 0
    options = _options(base, config, indexed)
    shape = _shape(options)
    if kept is not None and kept[0] == shape and not controls_changed:
        graph = kept[1].relink(indexed.indexes, entries)
        if graph is not None:
            _log.debug("incremental link: %d units", kept[1].relinked_units)
            return graph, "incremental", kept, kept[1].relinked_units
        _log.debug("incremental link gave up: %s", kept[1].gave_up)
    try:
        graph, state = build_tracked(indexed.indexes, options)
    except Exception:  # no state for this graph (a truncated one): link it plainly
        _log.debug("no tracked link", exc_info=True)
        return link_indexed(base, config, indexed, store=store), "full", None, 0
    return graph, "tracked", (shape, state), 0


def prime(base: Path, config: ProjectConfig, indexed: IndexResult, store: Any) -> None:
    """Make the state of a graph that is already stored (a watcher's sync that found nothing)."""
    if store in _KEPT or getattr(indexed, "units", None):
        return
    options = _options(base, config, indexed)
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
