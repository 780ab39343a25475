"""Opening the project a command acts on: ``--project PATH`` or the working directory."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from projectgraph.cli.common import fail, progress_bar
from projectgraph.config import ConfigError
from projectgraph.daemon import serving
from projectgraph.graph import Graph
from projectgraph.project import Project
from projectgraph.query import QueryEngine
from projectgraph.store.lock import WriterBusyError
from projectgraph.store.sqlite import SchemaError

F = TypeVar("F", bound=Callable[..., Any])


def project_option(function: F) -> F:
    decorated: F = click.option(
        "--project",
        "project",
        type=click.Path(file_okay=False, path_type=Path),
        help="Project root (default: the working directory).",
    )(function)
    return decorated


def open_project(project: Path | None) -> Project:
    try:
        root = (project or Path.cwd()).resolve()
        folder = os.path.isdir(root)
    except (OSError, RuntimeError) as error:  # a path too long, a link loop
        fail(f"not a usable path: {str(project)[:200]!r} ({getattr(error, 'strerror', None) or error})")
        raise AssertionError("unreachable") from error
    if not folder:
        fail(f"not a folder: {str(root)[:200]}")
    kept = serving.kept_project(root)
    if kept is not None:  # inside the project's daemon: its open project, kept current by its watcher
        return kept
    try:
        return Project(root)
    except (SchemaError, OSError) as error:
        fail(str(error))
        raise AssertionError("unreachable") from error


def _current(project: Project) -> None:
    if serving.kept_project(project.root) is project:
        return
    try:
        with progress_bar("indexing") as progress:
            project.ensure_current(progress)
    except (ValueError, ConfigError, WriterBusyError, SchemaError) as error:
        fail(str(error))
    except OSError as error:  # the index folder refused (a link), or the store cannot be written
        fail(f"cannot index {project.root}: {error}")


def load_graph(project: Path | None) -> Graph:
    """The project's graph, indexed first when there is none or a file changed."""
    opened = open_project(project)
    _current(opened)
    kept = serving.kept_graph(opened.root)
    if kept is not None:
        return kept
    from projectgraph.store import sqlite as sql

    return sql.read_graph(opened.store.connection)


def load_project(project: Path | None) -> Project:
    """The project, indexed first when there is none or a file changed."""
    opened = open_project(project)
    _current(opened)
    return opened


def load_engine(project: Path | None) -> QueryEngine:
    opened = open_project(project)
    _current(opened)
    kept = serving.kept_engine(opened.root)
    return kept if kept is not None else QueryEngine(opened.store.connection)
