"""A project on disk and its store: index, link and persist; open the stored graph for queries.

``Project.refresh`` runs discover -> index -> link under the writer lock and writes the graph in
one transaction, so a reader sees the old graph or the new one, and a process killed in the middle
leaves the old one intact. ``Project.sync`` does the same with the stamp shortcut and skips the link
when nothing changed (``projectgraph.sync``). ``Project.graph`` serves the stored graph when no file
and no control file changed since it was built (same paths, sizes and modification times), else
syncs first.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from projectgraph.config import load_config
from projectgraph.daemon.writer import WriterPid
from projectgraph.discover import discover
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, Progress
from projectgraph.languages import all_languages
from projectgraph.store import sqlite as sql
from projectgraph.store.lock import WriterBusyError, WriterLock
from projectgraph.store.sqlite import DamagedStoreError, SqliteStore, open_project_store
from projectgraph.sync.controls import control_files
from projectgraph.sync.reconcile import SyncResult, reconcile

if TYPE_CHECKING:  # (imported where used: a sync needs none, and they were a tenth of its start)
    from projectgraph.pipeline import ProjectRun
    from projectgraph.query import QueryEngine, semantic

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileChanges:
    """Project paths (sorted) that differ between the working copy and the stored graph."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    controls: tuple[str, ...] = ()  # control files (manifests, configs) that came, went or changed
    unclaimed: tuple[tuple[str, int], ...] = ()  # listed files no language claims, by extension

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.controls)

    @property
    def pending(self) -> int:
        return len(self.added) + len(self.removed) + len(self.changed) + len(self.controls)


class Project:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        if not os.path.isdir(self.root):
            raise FileNotFoundError(f"not a folder: {self.root}")
        self.folder = self.root / ".projectgraph"
        self._store: SqliteStore | None = None

    @property
    def store(self) -> SqliteStore:
        if self._store is None:
            self._store = open_project_store(self.root)
        return self._store

    def _rebuilt_store(self, why: str) -> SqliteStore:
        """A new, empty store in place of a damaged one (the caller holds the writer lock): the
        store keeps only what the sources give again, so nothing is lost but time."""
        if why:
            _log.warning("projectgraph: %s; rebuilding the index from the sources", why)
        self.close()
        sql.remove_database(self.folder / "graph.db")
        return self.store

    def _checked_store(self, rebuild: bool, check: bool) -> None:
        """Open the store for a writer, rebuilt when asked, or when it is damaged (``check``: every
        page checked, as a full index does)."""
        if rebuild:
            self._rebuilt_store("")
            return
        try:
            store = self.store
        except DamagedStoreError as error:
            self._rebuilt_store(str(error).partition(": run `")[0])
            return
        if check:
            problem = sql.damage(store.connection)
            if problem is not None:
                self._rebuilt_store(f"the index {store.path} is damaged ({problem})")

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing --------------------------------------------------------------------------
    @contextlib.contextmanager
    def _writer(self) -> Iterator[None]:
        """The writer authority: ``writer.pid`` (no daemon or watcher is this project's writer, or
        this process is: ``daemon.writer``), then the short-lived writer lock of each mutation."""
        with WriterPid(self.folder, "writer"), WriterLock(self.folder):
            yield

    def refresh(
        self, options: IndexOptions | None = None, progress: Progress | None = None, *, rebuild: bool = False
    ) -> ProjectRun:
        """Index (every file read) and link the project, and store the graph (one writer at a time).

        A damaged store (``sql.damage``, checked first) is rebuilt from the sources, as ``rebuild``
        asks for in any case."""
        with self._writer():
            self._checked_store(rebuild, check=True)
            done = self._reconciled(options, progress, full=True, always_link=True)
            self._keep_vectors()
        assert done.graph is not None
        from projectgraph.pipeline import ProjectRun  # (the linkers' modules: only a sync that links)

        return ProjectRun(done.index, done.graph)

    def index(
        self, options: IndexOptions | None = None, progress: Progress | None = None, *, rebuild: bool = False
    ) -> SyncResult:
        """``refresh``, but the link and the write are skipped when every file, control file and
        rule version is the one the stored graph was built from (then ``relinked`` is False and
        ``stored_stats`` gives the stored graph's counts)."""
        with self._writer():
            self._checked_store(rebuild, check=True)
            done = self._reconciled(options, progress, full=True, partial=True)
            if done.relinked:  # something was written
                self._keep_vectors()
            return done

    def stored_stats(self) -> dict[str, object]:
        """The stats of the stored graph (its last run's)."""
        run = sql.last_run(self.store.connection)
        return dict(run["stats"]) if run is not None else {}

    def sync(
        self,
        options: IndexOptions | None = None,
        progress: Progress | None = None,
        *,
        full: bool = False,
        incremental: bool | None = None,
        changed_paths: tuple[str, ...] | None = None,
    ) -> SyncResult:
        """Bring the stored graph up to date with the working tree (one writer at a time).

        ``incremental``: when to keep a tracked link and relink from it (``sync.relink``); by
        default from this project's second sync that links. ``changed_paths``: the project paths
        the caller knows are all that changed since this process's last sync (``reconcile``)."""
        with self._writer():
            self._checked_store(False, check=full)
            done = self._reconciled(
                options, progress, full=full, incremental=incremental, changed_paths=changed_paths
            )
            if done.relinked:  # something was written (graph is None after a stored link)
                self._keep_vectors()
            return done

    def _reconciled(
        self,
        options: IndexOptions | None,
        progress: Progress | None,
        *,
        full: bool,
        always_link: bool = False,
        partial: bool = False,
        incremental: bool | None = None,
        changed_paths: tuple[str, ...] | None = None,
    ) -> SyncResult:
        """``reconcile`` (the caller holds the writer lock); when the store turns out damaged, it is
        rebuilt from the sources by a full reconcile with the same ``always_link`` and ``partial``."""
        try:
            return reconcile(
                self.root,
                self.store,
                options,
                progress,
                full=full,
                always_link=always_link,
                partial=partial,
                incremental=incremental,
                changed_paths=changed_paths,
            )
        except sqlite3.DatabaseError as error:
            if not sql.is_damage(error):
                raise
            self._rebuilt_store(f"the index is damaged ({error})")
            return reconcile(
                self.root, self.store, options, progress, full=True, always_link=always_link, partial=partial
            )

    def embed(self, progress: Callable[[int, int], None] | None = None) -> semantic.EmbedStats:
        """Give every first-party symbol of the stored graph its vector (semantic search), embedding
        only the symbols whose text changed; afterwards each index and sync keeps them current."""
        with self._writer():
            from projectgraph.query import semantic

            return semantic.refresh(self.store.connection, self.root, progress)

    def _keep_vectors(self) -> None:
        """After a write: re-embed what changed, when the project has vectors and the model is here."""
        connection = self.store.connection
        from projectgraph.query import semantic

        if semantic.model_available() and semantic.has_vectors(connection):
            semantic.refresh(connection, self.root)

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
        found = discover(self.root, specs, config)
        paths = {f.path for f in found.files}
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
            controls=self._control_changes(paths),
            unclaimed=found.unclaimed,
        )

    def _control_changes(self, paths: set[str]) -> tuple[str, ...]:
        """Control files that came, went, or whose bytes changed (read only when the stamp moved)."""
        stored = sql.control_stamps(self.store.connection)
        changed = []
        for control in control_files(self.root, paths, digests=False):
            was = stored.pop(control.path, None)
            moved = was is not None and (was[1], was[2]) != (control.size, control.mtime_ns)
            if was is None or (moved and was[0] != control.read_digest(self.root)):
                changed.append(control.path)
        return tuple(sorted([*changed, *stored]))

    def ensure_current(self, progress: Progress | None = None) -> None:
        """Sync a stale graph; while another process writes, read the graph it replaces.

        A damaged store found on the way is rebuilt from the sources when no other process writes
        (else ``DamagedStoreError`` says what to run)."""
        try:
            stale = self.is_stale()
        except (DamagedStoreError, sqlite3.DatabaseError) as error:
            if not isinstance(error, DamagedStoreError) and not sql.is_damage(error):
                raise
            self._rebuild_damaged(error, progress)
            return
        if not stale:
            return
        try:
            self.sync(progress=progress)
        except WriterBusyError:
            if not sql.has_graph(self.store.connection):
                raise
            run = sql.last_run(self.store.connection)
            _log.warning(
                "projectgraph: another process is writing the index: this answer is from the stored "
                "graph of generation %s, older than the files",
                run["id"] if run is not None else "?",
            )

    def _rebuild_damaged(self, error: Exception, progress: Progress | None) -> None:
        damaged = (
            error
            if isinstance(error, DamagedStoreError)
            else DamagedStoreError(self.folder / "graph.db", str(error))
        )
        try:
            lock = WriterLock(self.folder).acquire()
        except WriterBusyError:
            raise damaged from None
        try:
            _log.warning(
                "projectgraph: %s; rebuilding it from the sources", str(damaged).partition(": run `")[0]
            )
            self._rebuilt_store("")
            reconcile(self.root, self.store, None, progress, full=True, always_link=True)
        finally:
            lock.release()

    def graph(self, progress: Progress | None = None) -> Graph:
        """The stored graph, refreshed first when the files changed."""
        self.ensure_current(progress)
        return sql.read_graph(self.store.connection)

    def engine(self, progress: Progress | None = None) -> QueryEngine:
        self.ensure_current(progress)
        from projectgraph.query import QueryEngine

        return QueryEngine(self.store.connection)
