"""The entry points of a reach query: ``sources`` and ``sources_only`` of the project configuration
(``[tool.projectgraph]`` in pyproject.toml, or projectgraph.toml) and the repeatable ``--source``
and the ``--sources-only`` switch, as the seed's vet paragraph says.

The configuration's sources and the flags' add up; ``--sources-only`` or ``sources_only = true``
searches from them alone. A source is ``path:Qualified.name``, ``path`` (the module top level) or a
key. Sources-only with no source, and a source that names no first-party definition or module, are
errors of the configuration (exit 2, the source and where it was written named), told before any
query runs: a typo never gives not-found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from projectgraph.cli.common import fail
from projectgraph.config import ConfigError, load_config
from projectgraph.graph import Graph
from projectgraph.reach import SOURCES_AND_ROOTS, SOURCES_ONLY, Source, unknown_sources

F = TypeVar("F", bound=Callable[..., Any])


def sources_options(function: F) -> F:
    """``--source S`` (repeatable) and ``--sources-only``."""
    function = click.option(
        "--sources-only",
        is_flag=True,
        help="Search from the sources alone (the configuration's and --source), not the roots.",
    )(function)
    decorated: F = click.option(
        "--source",
        "sources",
        multiple=True,
        help="An entry point, path:Qualified.name or a key (repeatable; adds to the configured sources).",
    )(function)
    return decorated


@dataclass(frozen=True)
class EntryPoints:
    """The sources of a query, each with where it was written, and the mode."""

    sources: tuple[tuple[Source, str], ...]
    mode: str

    @property
    def keys(self) -> tuple[Source, ...]:
        return tuple(source for source, _origin in self.sources)


def entry_points(project: Path | None, flags: tuple[str, ...], sources_only: bool) -> EntryPoints:
    """The configuration's sources and the flags' (exit 2 for sources-only with none)."""
    root = (project or Path.cwd()).resolve()
    try:
        config = load_config(root)
    except ConfigError as error:
        fail(str(error))
        raise AssertionError("unreachable") from error
    listed: dict[Source, str] = {}
    for text in config.sources:
        listed.setdefault(Source.parse(text), f"{config.source}: sources: {text!r}")
    for text in flags:
        listed.setdefault(Source.parse(text), f"--source {text!r}")
    only = sources_only or config.sources_only
    if only and not listed:
        where = "--sources-only" if sources_only else f"{config.source}: sources_only = true"
        fail(f"{where} needs at least one source (--source, or sources in the configuration)")
    return EntryPoints(tuple(listed.items()), SOURCES_ONLY if only else SOURCES_AND_ROOTS)


def check_sources(graph: Graph, points: EntryPoints) -> None:
    """Exit 2 naming every source that names no first-party definition or module of the graph."""
    bad = set(unknown_sources(graph, points.keys))
    if bad:
        named = "; ".join(f"{s.key} (from {origin})" for s, origin in points.sources if s in bad)
        fail(f"unknown source(s): {named}: a source must name a first-party definition or module")
