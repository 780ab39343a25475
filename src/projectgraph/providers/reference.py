"""The provider ``reference``: projectgraph's own graph, in the rows of protocol v1.

It is not a process: its graph is the project's stored graph (synced first when files changed),
read as protocol rows so that ``compare`` and ``conform`` treat it like any provider. A module is a
``file`` node; classes, functions and methods keep their kind (a constructor is a method; interfaces,
structs, traits, enums and type aliases are ``type``); a definition's qualified name is its path,
``::`` and its names joined by ``.``. ``contains`` edges are read off the key nesting (a module
contains its top-level definitions, a class its methods). Dependency-unit nodes are left out and
an edge into one names its external key; ``references`` edges are not a protocol relation. An edge's
confidence is its kind's: high 1.0, medium 0.7, low 0.4.
"""

from __future__ import annotations

from pathlib import Path

from projectgraph.graph import Graph, Node
from projectgraph.providers.validation import EDGE_KINDS, ProviderEdge, ProviderGraph, ProviderNode

CONFIDENCE = {"high": 1.0, "medium": 0.7, "low": 0.4}  # an edge kind's confidence as a number

_KINDS = {
    "module": "file",
    "class": "class",
    "function": "function",
    "method": "method",
    "constructor": "method",
    "interface": "type",
    "struct": "type",
    "trait": "type",
    "enum": "type",
    "type": "type",
    "type_alias": "type",
}


def _qualified(node: Node) -> str:
    if node.kind == "module":
        return node.path
    parts = node.key.split("//")
    return f"{parts[0]}::{'.'.join(parts[1:])}"


def _first_party(node: Node) -> bool:
    return not node.unit and node.kind != "external" and bool(node.path)


def from_graph(graph: Graph) -> ProviderGraph:
    """The graph's first-party nodes and protocol edges as a provider's rows."""
    by_key = {n.key: n for n in graph.nodes}
    nodes: list[ProviderNode] = []
    names: dict[str, str] = {}
    for node in graph.nodes:
        kind = _KINDS.get(node.kind)
        if kind is None or not _first_party(node):
            continue
        qualified = _qualified(node)
        names[node.key] = qualified
        name = node.path if kind == "file" else node.key.rsplit("//", 1)[-1]
        end = node.end_line or None
        nodes.append(
            ProviderNode(
                kind, name, qualified, node.path, node.line or None, end, "", node.language, node.key
            )
        )

    def name_of(key: str) -> str:
        if key in names:
            return names[key]
        node = by_key.get(key)
        external = node.external if node is not None and node.external else key
        return external.replace("//", ".")

    best: dict[tuple[str, str, str], float] = {}
    for edge in graph.edges:
        if edge.relation not in EDGE_KINDS:
            continue
        if edge.caller not in names and edge.callee not in names:
            continue  # inside a dependency unit
        row = (edge.relation, name_of(edge.caller), name_of(edge.callee))
        best[row] = max(best.get(row, 0.0), CONFIDENCE[edge.confidence])
    for key, qualified in names.items():
        parent = key.rsplit("//", 1)[0] if "//" in key else ""
        if parent in names:
            best[("contains", names[parent], qualified)] = 1.0
    edges = {ProviderEdge(*row, confidence) for row, confidence in best.items()}
    files = sum(1 for n in nodes if n.kind == "file")
    nodes.sort(key=lambda n: (n.path, n.qualified_name, n.kind, n.line_start or 0, n.line_end or 0))
    return ProviderGraph(tuple(nodes), tuple(sorted(edges)), (), files, files)


def reference_graph(root: Path) -> ProviderGraph:
    """The project's stored graph (indexed or synced first when needed) as provider rows."""
    from projectgraph.project import Project

    with Project(root) as project:
        return from_graph(project.graph())
