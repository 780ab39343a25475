"""A project on disk and its store: index, link and persist; open the stored graph for queries.

``Project.refresh`` runs discover -> index -> link under the writer lock and replaces the stored
graph in one transaction, so a reader sees the old graph or the new one, and a process killed in
the middle leaves the old one intact. ``Project.current`` serves the stored graph when no file
changed since it was built (same paths, sizes and modification times), else refreshes first.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph.config import load_config
from projectgraph.discover import discover
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, IndexResult, Progress
from projectgraph.languages import all_languages
from projectgraph.pipeline import build_graph
from projectgraph.query import QueryEngine
from projectgraph.store import sqlite as sql
from projectgraph.store.lock import WriterBusyError, WriterLock
from projectgraph.store.sqlite import SqliteStore, open_project_store


@dataclass(frozen=True)
class FileChanges:
    """Project paths (sorted) that differ between the working copy and the stored graph."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass(frozen=True)
class Refresh:
    index: IndexResult
    graph: Graph


class Project:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise FileNotFoundError(f"not a folder: {self.root}")
        self.folder = self.root / ".projectgraph"
        self._store: SqliteStore | None = None

    @property
    def store(self) -> SqliteStore:
        if self._store is None:
            self._store = open_project_store(self.root)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing --------------------------------------------------------------------------
    def refresh(self, options: IndexOptions | None = None, progress: Progress | None = None) -> Refresh:
        """Index and link the project, and store the graph (one writer at a time)."""
        started = time.time()
        with WriterLock(self.folder):
            run = build_graph(self.root, options, self.store, progress)
            stamps = self._stamps(s.path for s in run.index.statuses)
            sql.write_graph(
                self.store.connection,
                run.graph,
                stamps,
                {"started": started, "root": str(self.root), "error": run.index.error},
            )
        return Refresh(run.index, run.graph)

    def _stamps(self, paths: Any) -> dict[str, tuple[int, int]]:
        stamps: dict[str, tuple[int, int]] = {}
        for path in paths:
            try:
                st = (self.root / path).stat()
            except OSError:
                continue
            stamps[path] = (st.st_size, st.st_mtime_ns)
        return stamps

    # ---- reading --------------------------------------------------------------------------
    def is_stale(self) -> bool:
        """Whether any file was added, removed or changed since the stored graph was built."""
        if not sql.has_graph(self.store.connection):
            return True
        return bool(self.file_changes())

    def file_changes(self) -> FileChanges:
        """The project files added, removed or changed (size or mtime) since the stored graph."""
        stored = sql.file_stamps(self.store.connection)
        config = load_config(self.root)
        specs = [s for n, s in all_languages().items() if not config.languages or n in config.languages]
        paths = {f.path for f in discover(self.root, specs, config).files}
        changed = []
        for path, (size, mtime, _status) in stored.items():
            if path not in paths:
                continue
            try:
                st = (self.root / path).stat()
            except OSError:
                changed.append(path)
                continue
            if st.st_size != size or st.st_mtime_ns != mtime:
                changed.append(path)
        return FileChanges(
            added=tuple(sorted(paths - set(stored))),
            removed=tuple(sorted(set(stored) - paths)),
            changed=tuple(sorted(changed)),
        )

    def ensure_current(self, progress: Progress | None = None) -> None:
        """Refresh a stale graph; while another process writes, read the graph it replaces."""
        if not self.is_stale():
            return
        try:
            self.refresh(progress=progress)
        except WriterBusyError:
            if not sql.has_graph(self.store.connection):
                raise

    def graph(self, progress: Progress | None = None) -> Graph:
        """The stored graph, refreshed first when the files changed."""
        self.ensure_current(progress)
        return sql.read_graph(self.store.connection)

    def engine(self, progress: Progress | None = None) -> QueryEngine:
        self.ensure_current(progress)
        return QueryEngine(self.store.connection)
