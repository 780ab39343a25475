"""Opening the project a command acts on: ``--project PATH`` or the working directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from projectgraph.cli.common import fail, progress_bar
from projectgraph.config import ConfigError
from projectgraph.pipeline import ProjectRun, build_graph
from projectgraph.store import open_project_store

F = TypeVar("F", bound=Callable[..., Any])


def project_option(function: F) -> F:
    decorated: F = click.option(
        "--project",
        "project",
        type=click.Path(file_okay=False, path_type=Path),
        help="Project root (default: the working directory).",
    )(function)
    return decorated


def load_project(project: Path | None) -> ProjectRun:
    """Index (served from the store when unchanged) and link the project."""
    root = (project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    try:
        store = open_project_store(root)
        try:
            with progress_bar("indexing") as progress:
                return build_graph(root, store=store, progress=progress)
        finally:
            store.close()
    except (ValueError, ConfigError) as error:
        fail(str(error))
        raise AssertionError("unreachable") from error
