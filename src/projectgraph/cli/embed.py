"""``projectgraph embed``: vectors for semantic search, kept current by every index and sync after."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import emit_json, fail, progress_bar
from projectgraph.cli.project import load_project, project_option
from projectgraph.query import semantic
from projectgraph.store.lock import WriterBusyError


@click.command("embed")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def command(project: Path | None, as_json: bool) -> None:
    """Embed every first-party symbol (only those whose text changed) for semantic and hybrid search."""
    if not semantic.model_available():
        fail(f"no embedding model is installed with projectgraph: {semantic.INSTALL_HINT}")
    opened = load_project(project)
    try:
        with progress_bar("embedding") as progress:
            stats = opened.embed(progress)
    except WriterBusyError as error:
        fail(str(error))
        raise AssertionError("unreachable") from error
    if as_json:
        emit_json({"symbols": stats.symbols, "embedded": stats.embedded, "seconds": round(stats.seconds, 3)})
    else:
        click.echo(
            f"{stats.symbols} symbols with vectors, {stats.embedded} embedded in {stats.seconds:.2f} s"
        )
