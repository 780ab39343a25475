"""``projectgraph graph [PATH] --json``: the whole graph in its one JSON form."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.project import load_graph


@click.command("graph")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON graph (the contract in DESIGN.md).")
def command(path: Path | None, project: Path | None, as_json: bool) -> None:
    """Build the graph of the project at PATH and print it (JSON with --json, else a summary)."""
    graph = load_graph(path or project)
    if as_json:
        click.echo(graph.dumps(), nl=False)
        return
    stats = graph.stats
    click.echo(
        f"{stats['files']} files, {stats['nodes']} nodes, {stats['edges']} edges, "
        f"{stats['unresolved']} unresolved sites, {stats['roots']} roots"
        + (" (root fallback: no entry point found)" if stats["root_fallback"] else "")
    )
