"""``projectgraph docs``: the doc graph (check, graph, governing)."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph import docgraph
from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.project import load_engine, project_option
from projectgraph.docgraph.taxonomy import TaxonomyError
from projectgraph.query import QueryError

_OWNERS = {
    "target-document": "the target document (its author can repair it)",
    "link": "the link (the document that wrote it)",
    "taxonomy": "the taxonomy file",
}


def _graph(project: Path | None) -> docgraph.DocGraph:
    root = (project or Path.cwd()).resolve()
    try:
        return docgraph.build(root)
    except TaxonomyError as error:
        fail(str(error))
        raise AssertionError("unreachable") from error


@click.group("docs")
def command() -> None:
    """The doc graph: design documents bound to the code they govern."""


@command.command("check")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def check(project: Path | None, as_json: bool) -> None:
    """Defects of the doc graph, grouped by who can repair them; exit 1 when there is one."""
    graph = _graph(project)
    findings = docgraph.check(graph)
    if as_json:
        emit_json(
            {
                "documents": len(graph.nodes),
                "edges": len(graph.edges),
                "links": len(graph.links),
                "findings": [
                    {"owner": f.owner, "path": f.path, "kind": f.kind, "detail": f.detail} for f in findings
                ],
            }
        )
    else:
        click.echo(f"{len(graph.nodes)} documents, {len(graph.edges)} edges, {len(graph.links)} links")
        for owner, title in _OWNERS.items():
            mine = [f for f in findings if f.owner == owner]
            if mine:
                click.echo(f"{len(mine)} to repair in {title}:")
                for f in mine:
                    click.echo(f"  {f.path}: {f.kind}: {f.detail}")
        if not findings:
            click.echo("no defects")
    raise SystemExit(1 if findings else 0)


@command.command("graph")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the recorded graph as JSON (the default).")
def graph(project: Path | None, as_json: bool) -> None:
    """The recorded doc graph: nodes, edges, links, defects, scopes."""
    emit_json(_graph(project).to_json())


@command.command("governing")
@click.argument("symbol")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def governing(symbol: str, project: Path | None, as_json: bool) -> None:
    """The documents that govern a symbol (or a file path): those anchored to its file."""
    root = (project or Path.cwd()).resolve()
    path = symbol if (root / symbol).is_file() else ""
    if not path:
        engine = load_engine(project)
        try:
            row = engine.resolve(symbol)
        except QueryError as error:
            fail(str(error))
            raise AssertionError("unreachable") from error
        path = row[5] or ""  # the node row's path column (query._node)
        if not path:
            fail(f"{symbol} is not in a file of the project")
    graph = _graph(project)
    results = [
        {
            "id": node.id,
            "kind": node.kind,
            "path": node.path,
            "relation": edge.relation,
            "anchor": edge.target.value,
        }
        for node, edge in graph.governing(path)
    ]
    if as_json:
        emit_json({"symbol": symbol, "path": path, "results": results})
        return
    if not results:
        click.echo(f"no document governs {path}")
    for item in results:
        click.echo(f"{item['id']} ({item['kind']}, {item['path']}) {item['relation']} {item['anchor']}")
