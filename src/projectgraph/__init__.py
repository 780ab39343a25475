"""projectgraph: the call graph of a whole project, and honest answers on what its code reaches.

The stages, each a call whose output is a plain record: ``run_index`` (discover + index) ->
``build`` (link, marking the roots) -> ``reach``. ``build_graph`` wires them for a folder;
``Project`` adds the SQLite store and the query engine. ``IndexOptions(deps=...)`` names the units
of dependency code to index and link too (``parse_deps``, ``discover_units``; ``AUTO_DEPS`` by
default, ``NO_DEPS`` for none).

The names are imported when first used (PEP 562 ``__getattr__``), so a command or a submodule
import does not pay for the whole library (``projectgraph --version`` imported all of it).
"""

import importlib
import typing  # (modules only at the top level: every other public name is in __all__)

# (eager: the submodule ``projectgraph.reach`` has the name of its function, and an import of the
# submodule binds the package's attribute to the module unless the function is bound after it)
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

if typing.TYPE_CHECKING:
    from projectgraph.fileindex import FileIndex
    from projectgraph.graph import Edge, Graph, Node
    from projectgraph.indexer import IndexOptions, IndexResult, run_index
    from projectgraph.link import LinkOptions, build
    from projectgraph.pipeline import build_graph
    from projectgraph.project import Project
    from projectgraph.query import QueryEngine
    from projectgraph.units import AUTO_DEPS, NO_DEPS, DepsConfig, DepsError, Unit, discover_units, parse_deps

_WHERE: dict[str, str] = {  # each public name -> the module that defines it
    **dict.fromkeys(("FileIndex",), "fileindex"),
    **dict.fromkeys(("Edge", "Graph", "Node"), "graph"),
    **dict.fromkeys(("IndexOptions", "IndexResult", "run_index"), "indexer"),
    **dict.fromkeys(("LinkOptions", "build"), "link"),
    **dict.fromkeys(("build_graph",), "pipeline"),
    **dict.fromkeys(("Project",), "project"),
    **dict.fromkeys(("QueryEngine",), "query"),
    **dict.fromkeys(
        ("AUTO_DEPS", "NO_DEPS", "DepsConfig", "DepsError", "Unit", "discover_units", "parse_deps"), "units"
    ),
}


def __getattr__(name: str) -> typing.Any:
    """A public name, imported from its module on first use (then kept as a plain attribute)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'projectgraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"projectgraph.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
