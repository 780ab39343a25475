"""The projects this process keeps current (a daemon): the CLI opens them as they are, no sync.

A command run inside the daemon (``daemon.server``, a CLI request) would otherwise open the store
again and sync it first (``Project.ensure_current``), racing the watcher that is this project's one
writer; ``cli.project`` asks here first and gets the daemon's open project, whose stored graph the
watcher keeps current, and its graph read once per stored run.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from projectgraph.graph import Graph
    from projectgraph.project import Project
    from projectgraph.query import QueryEngine

CLI_LOCK = threading.Lock()
"""Held while a CLI request runs (its working directory and standard streams are the process's)."""

_KEPT: dict[str, Any] = {}  # root -> the daemon's mcp.projects.Projects


def keep(root: Path, projects: Any) -> None:
    _KEPT[os.fspath(root)] = projects


def forget(root: Path) -> None:
    _KEPT.pop(os.fspath(root), None)


def _served(root: Path) -> Any:
    projects = _KEPT.get(os.fspath(root))
    if projects is None:
        return None
    from projectgraph.mcp.projects import ProjectError

    try:
        return projects.open(None)  # the caller holds projects.lock (daemon.server._cli)
    except ProjectError:  # not indexed (a catch-up that failed): the command indexes it itself
        return None


def kept_project(root: Path) -> Project | None:
    """The daemon's open project of ``root`` when this process keeps it current, else None."""
    served = _served(root)
    return served.project if served is not None else None


def kept_engine(root: Path) -> QueryEngine | None:
    """The query engine of a kept project: what it reads once per stored run (the uncertain
    callers' tables) is read once for every request, not once per request."""
    served = _served(root)
    return served.engine if served is not None else None


def kept_graph(root: Path) -> Graph | None:
    """The stored graph of a kept project, read once per stored run."""
    served = _served(root)
    return served.graph() if served is not None else None
