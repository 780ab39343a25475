"""Which project a tool call reads: the server's own (its PATH, or its working directory) unless the
call names another with ``project_path``; in both cases only a project that is already indexed.

The server never indexes or refreshes a project: it reads the stored graph as ``projectgraph index``
(or a later refresh by any other process) left it, and checks each answer against the working copy
(``workingcopy.py``). A project is the folder that holds ``.projectgraph/graph.db``; naming a folder
without one is refused and no ``.projectgraph`` folder is created in it.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from projectgraph.graph import Graph
from projectgraph.project import Project
from projectgraph.query import QueryEngine
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SchemaError

MAX_OPEN = 32
"""Projects kept open at once; the least recently used one is closed past it."""


class ProjectError(ValueError):
    """A project a call cannot read: not a folder, not indexed, or an unreadable store."""


class NotIndexedError(ProjectError):
    """A folder without a stored graph."""

    def __init__(self, root: Path) -> None:
        self.root = root
        super().__init__(
            f"{root} is not an indexed project (no stored graph in .projectgraph/graph.db): "
            f"run `projectgraph index {root}` first"
        )


def database(root: Path) -> Path:
    return root / ".projectgraph" / "graph.db"


def is_indexed(root: Path) -> bool:
    return os.path.isfile(database(root))


@dataclass
class ServedProject:
    """One open project: its store, the query engine over it, and what it caches per stored run."""

    project: Project
    engine: QueryEngine
    _run: int | None = None
    _graph: Graph | None = None
    _stamps: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    _stamps_at: tuple[int, int] = (0, 0)  # store.sqlite.sync_generation of the stamps

    @property
    def root(self) -> Path:
        return self.project.root

    def last_run(self) -> dict[str, Any] | None:
        return sql.last_run(self.project.store.connection)

    def _current_run(self) -> int:
        run = self.last_run()
        if run is None:
            raise NotIndexedError(self.root)
        if run["id"] != self._run:
            self._run, self._graph, self._stamps = run["id"], None, {}
        return int(run["id"])

    @property
    def generation(self) -> int | None:
        """The stored run (sync generation) the last answer's graph and stamps came from."""
        if self._run is None:
            run = self.last_run()
            return int(run["id"]) if run is not None else None
        return self._run

    def writer_active(self) -> bool:
        """Whether another process holds the project's writer lock now (a newer graph is coming)."""
        return sql.writer_active(self.root / ".projectgraph")

    def stamps(self) -> dict[str, tuple[int, int, str]]:
        """Each stored file's (size, mtime_ns, status), as the last sync recorded them (a sync that
        found the same content records new stamps without a new run)."""
        self._current_run()
        synced = sql.sync_generation(self.project.store.connection)
        if not self._stamps or synced != self._stamps_at:
            self._stamps = sql.file_stamps(self.project.store.connection)
            self._stamps_at = synced
        return self._stamps

    def graph(self) -> Graph:
        """The stored graph as it is (never refreshed here), read once per stored run."""
        self._current_run()
        if self._graph is None:
            self._graph = sql.read_graph(self.project.store.connection)
        return self._graph

    def close(self) -> None:
        self.project.close()


class Projects:
    """The projects a server reads, opened on first use; one call at a time reads a project."""

    def __init__(self, default_root: Path) -> None:
        self.default_root = default_root.resolve()
        self.lock = threading.Lock()
        self._open: OrderedDict[Path, ServedProject] = OrderedDict()

    def root_of(self, project_path: str | None) -> Path:
        """The folder a call names (relative paths from the server's project), checked to exist."""
        if project_path is None:
            return self.default_root
        shown = project_path if len(project_path) <= 200 else project_path[:200] + "..."
        try:
            root = (self.default_root / Path(project_path).expanduser()).resolve()
            folder = root.is_dir()
        except (OSError, ValueError, RuntimeError) as error:  # too long, a NUL, a link loop
            why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise ProjectError(f"project_path {shown!r}: not a usable path ({why})") from None
        if not folder:
            raise ProjectError(f"project_path {shown!r}: not a folder")
        return root

    def open(self, project_path: str | None) -> ServedProject:
        """The indexed project a call reads; a ``ProjectError`` when it is not indexed."""
        root = self.root_of(project_path)
        served = self._open.get(root)
        if served is not None and not is_indexed(root):
            served.close()
            del self._open[root]
            served = None
        if served is None:
            if not is_indexed(root):
                raise NotIndexedError(root)
            try:
                project = Project(root)
                engine = QueryEngine(project.store.connection)
            except (SchemaError, OSError) as error:
                raise ProjectError(f"{root}: cannot open the index ({error})") from error
            served = ServedProject(project, engine)
            self._open[root] = served
            while len(self._open) > MAX_OPEN:
                _, oldest = self._open.popitem(last=False)
                oldest.close()
        self._open.move_to_end(root)
        return served

    def close(self) -> None:
        for served in self._open.values():
            served.close()
        self._open.clear()
