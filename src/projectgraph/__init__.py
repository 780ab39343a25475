"""projectgraph: the call graph of a whole project, and honest answers on what its code reaches.

The stages, each a call whose output is a plain record: ``run_index`` (discover + index) ->
``build`` (link, marking the roots) -> ``reach``. ``build_graph`` wires them for a folder;
``Project`` adds the SQLite store and the query engine. ``IndexOptions(deps=...)`` names the units
of dependency code to index and link too (``parse_deps``, ``discover_units``; ``AUTO_DEPS`` by
default, ``NO_DEPS`` for none).
"""

from projectgraph.fileindex import FileIndex
from projectgraph.graph import Edge, Graph, Node
from projectgraph.indexer import IndexOptions, IndexResult, run_index
from projectgraph.link import LinkOptions, build
from projectgraph.pipeline import build_graph
from projectgraph.project import Project
from projectgraph.query import QueryEngine
from projectgraph.reach import (
    SOURCES_AND_ROOTS,
    SOURCES_ONLY,
    Query,
    ReachError,
    ReachResult,
    Source,
    Target,
    TargetByImport,
    TargetByKey,
    UnknownSourceError,
    path_string,
    reach,
)
from projectgraph.units import AUTO_DEPS, NO_DEPS, DepsConfig, DepsError, Unit, discover_units, parse_deps

__all__ = [
    "AUTO_DEPS",
    "NO_DEPS",
    "SOURCES_AND_ROOTS",
    "SOURCES_ONLY",
    "DepsConfig",
    "DepsError",
    "Edge",
    "FileIndex",
    "Graph",
    "IndexOptions",
    "IndexResult",
    "LinkOptions",
    "Node",
    "Project",
    "Query",
    "QueryEngine",
    "ReachError",
    "ReachResult",
    "Source",
    "Target",
    "TargetByImport",
    "TargetByKey",
    "Unit",
    "UnknownSourceError",
    "build",
    "build_graph",
    "discover_units",
    "parse_deps",
    "path_string",
    "reach",
    "run_index",
]
