"""The one place that wires the stages together: discover -> index (the project, then the units of
dependency code it imports) -> link (the project, each unit, merged with package edges) (-> roots)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph.config import ProjectConfig, load_config
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, IndexResult, Progress, run_index
from projectgraph.link import LinkOptions, build
from projectgraph.link.units import with_units


@dataclass(frozen=True)
class ProjectRun:
    """An index run and the graph linked from it (``build_graph``, ``Project.refresh``)."""

    index: IndexResult
    graph: Graph


def build_graph(
    root: str | os.PathLike[str],
    options: IndexOptions | None = None,
    store: Any | None = None,
    progress: Progress | None = None,
    sys_path: tuple[str, ...] = (),
) -> ProjectRun:
    """Index the project under ``root`` and link it into its graph."""
    base = Path(root)
    config = load_config(base)
    if options is None:
        options = IndexOptions(config=config)
    indexed = run_index(base, options, store, progress)
    return ProjectRun(indexed, link_indexed(base, config, indexed, sys_path, store))


def link_options(
    root: str | os.PathLike[str], config: ProjectConfig, indexed: IndexResult, sys_path: tuple[str, ...] = ()
) -> LinkOptions:
    """The options an index run of the project under ``root`` is linked with (a full run's, a
    sync's, the incremental link's alike)."""
    return LinkOptions(
        root=str(Path(root)),
        sys_path=(*config.sys_path, *sys_path),
        files=indexed.statuses,
        test_paths=(*LinkOptions().test_paths, *config.test_paths),
        units=indexed.units or None,  # what a linker reads of its dependencies (Go result types)
    )


def link_indexed(
    root: str | os.PathLike[str],
    config: ProjectConfig,
    indexed: IndexResult,
    sys_path: tuple[str, ...] = (),
    store: Any | None = None,
) -> Graph:
    """Link an index run of the project under ``root`` (a full run's or a sync's) into its graph;
    ``store`` keeps the units' linked parts between processes."""
    graph = build(indexed.indexes, link_options(root, config, indexed, sys_path))
    return with_units(graph, indexed.units, store=store)
