"""The stored graph, or the part of it around a symbol, in formats other tools read: DOT
(Graphviz), Mermaid, GraphML (yEd, Gephi, networkx) and JSON, so a person can look at it in the
tools they already use.

Every node carries its kind, path and line; every edge its relation, kind (what made it),
confidence and site, as attributes. Around a symbol, the nodes are those within ``depth`` hops
along edges of any relation in either direction, and the edges those between them. Nodes are in
key order and edges in (caller, callee, relation, kind, site) order; one edge is kept per
(caller, callee, relation, kind), the one at the first site, so a viewer draws one line for what a
function does many times. The output is the same bytes for the same stored graph.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from projectgraph.store import sqlite as sql

FORMATS = ("dot", "mermaid", "graphml", "json")
NODE_FIELDS = ("kind", "path", "line")
EDGE_FIELDS = ("relation", "kind", "confidence", "path", "line")


def subgraph(
    connection: sqlite3.Connection, around: int | None, depth: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(nodes, edges) of the whole graph, or of the nodes within ``depth`` hops of ``around``."""
    if around is None:
        ids = sql.all_node_ids(connection)
        rows = sql.edges_touching(connection, ids, "out")
    else:
        chosen = {around}
        frontier = [around]
        for _ in range(depth):
            touching = sql.edges_touching(connection, frontier, "out") + sql.edges_touching(
                connection, frontier, "in"
            )
            frontier = sorted({n for e in touching for n in (e[0], e[1])} - chosen)
            chosen.update(frontier)
            if not frontier:
                break
        ids = sorted(chosen)
        rows = [e for e in sql.edges_touching(connection, ids, "out") if e[1] in chosen]
    nodes = sql.nodes_by_ids(connection, ids)
    kept: dict[tuple[int, int, str, str], tuple[Any, ...]] = {}
    for e in sorted(rows, key=lambda e: (e[0], e[1], e[2], e[3], e[5], e[6], e[7])):
        kept.setdefault((e[0], e[1], e[2], e[3]), e)
    node_list = [
        {
            "key": nodes[i][1],
            "name": nodes[i][3] or nodes[i][1],
            "kind": nodes[i][2],
            "path": nodes[i][5],
            "line": nodes[i][6],
        }
        for i in sorted(nodes)
    ]
    edge_list = [
        {
            "caller": nodes[e[0]][1],
            "callee": nodes[e[1]][1],
            "relation": e[2],
            "kind": e[3],
            "confidence": e[4],
            "path": e[5],
            "line": e[6],
        }
        for e in kept.values()
    ]
    return node_list, edge_list


def render(fmt: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    """The graph in one of ``FORMATS``."""
    if fmt == "dot":
        return _dot(nodes, edges)
    if fmt == "mermaid":
        return _mermaid(nodes, edges)
    if fmt == "graphml":
        return _graphml(nodes, edges)
    if fmt == "json":
        return json.dumps({"nodes": nodes, "edges": edges}, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")


def _dot_string(value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def _dot(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    lines = ["digraph projectgraph {", "  rankdir=LR;", "  node [shape=box, fontsize=10];"]
    for n in nodes:
        attributes = ", ".join(f"{f}={_dot_string(n[f])}" for f in ("name", *NODE_FIELDS))
        lines.append(f"  {_dot_string(n['key'])} [label={_dot_string(n['name'])}, {attributes}];")
    for e in edges:
        style = "" if e["confidence"] == "high" else ", style=dashed"
        attributes = ", ".join(f"{f}={_dot_string(e[f])}" for f in EDGE_FIELDS)
        lines.append(
            f"  {_dot_string(e['caller'])} -> {_dot_string(e['callee'])} "
            f"[label={_dot_string(e['kind'])}, {attributes}{style}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid_text(value: object) -> str:
    return str(value).replace('"', "#quot;").replace("\n", " ")


def _mermaid(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    ids = {n["key"]: f"n{index}" for index, n in enumerate(nodes)}
    lines = ["flowchart LR"]
    for n in nodes:
        lines.append(f'  {ids[n["key"]]}["{_mermaid_text(n["key"])}"]')
    for e in edges:
        arrow = "-->" if e["confidence"] == "high" else "-.->"
        label = _mermaid_text(f"{e['relation']} {e['kind']} {e['confidence']}")
        lines.append(f'  {ids[e["caller"]]} {arrow}|"{label}"| {ids[e["callee"]]}')
    return "\n".join(lines) + "\n"


def _graphml(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    ]
    for field in ("name", *NODE_FIELDS):
        kind = "int" if field == "line" else "string"
        lines.append(f'  <key id="n_{field}" for="node" attr.name="{field}" attr.type="{kind}"/>')
    for field in EDGE_FIELDS:
        kind = "int" if field == "line" else "string"
        lines.append(f'  <key id="e_{field}" for="edge" attr.name="{field}" attr.type="{kind}"/>')
    lines.append('  <graph id="projectgraph" edgedefault="directed">')
    for n in nodes:
        lines.append(f"    <node id={quoteattr(n['key'])}>")
        lines += [f'      <data key="n_{f}">{escape(str(n[f]))}</data>' for f in ("name", *NODE_FIELDS)]
        lines.append("    </node>")
    for index, e in enumerate(edges):
        lines.append(
            f'    <edge id="e{index}" source={quoteattr(e["caller"])} target={quoteattr(e["callee"])}>'
        )
        lines += [f'      <data key="e_{f}">{escape(str(e[f]))}</data>' for f in EDGE_FIELDS]
        lines.append("    </edge>")
    lines += ["  </graph>", "</graphml>"]
    return "\n".join(lines) + "\n"
