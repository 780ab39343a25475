"""``projectgraph export --format dot|mermaid|graphml|json [--around SYMBOL --depth N]``."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import fail
from projectgraph.cli.project import load_engine, project_option
from projectgraph.query import QueryError
from projectgraph.query.export import FORMATS


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="dot", show_default=True)
@click.option("--around", default=None, help="Only the symbols within --depth hops of this one.")
@click.option("--depth", type=int, default=2, show_default=True, help="Hops around --around, 0 to 6.")
@project_option
def command(fmt: str, around: str | None, depth: int, project: Path | None) -> None:
    """The graph (or the part around a symbol) for Graphviz, Mermaid, GraphML readers or JSON, with
    each edge's relation, kind and confidence as attributes."""
    engine = load_engine(project)
    try:
        text = engine.export(fmt, around, depth)
    except QueryError as error:
        fail(str(error))
        return
    click.echo(text, nl=False)
