"""projectgraph: the call graph of a whole project, and honest answers on what its code reaches.

The stages, each a call whose output is a plain record: ``run_index`` (discover + index) ->
``build`` (link, marking the roots) -> ``reach``. ``build_graph`` wires them for a folder;
``Project`` adds the SQLite store and the query engine.
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

__all__ = [
    "SOURCES_AND_ROOTS",
    "SOURCES_ONLY",
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
    "UnknownSourceError",
    "build",
    "build_graph",
    "path_string",
    "reach",
    "run_index",
]
