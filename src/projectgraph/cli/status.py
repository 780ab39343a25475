"""``projectgraph status``: what the store holds and whether it is current."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.project import open_project, project_option
from projectgraph.config import ConfigError
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SchemaError


@click.command("status")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def command(project: Path | None, as_json: bool) -> None:
    """Show the stored graph's last run and whether files changed since."""
    opened = open_project(project)
    try:
        run = sql.last_run(opened.store.connection)
        stale = opened.is_stale() if run else True
    except (SchemaError, ConfigError) as error:
        fail(str(error))
        return
    answer = {
        "root": str(opened.root),
        "database": str(opened.store.path),
        "indexed": run is not None,
        "stale": stale,
        "last_run": run,
    }
    if as_json:
        emit_json(answer)
        return
    if run is None:
        click.echo(f"{opened.root}: not indexed yet (run `projectgraph index`)")
        return
    stats = run["stats"]
    click.echo(
        f"{opened.root}: {stats.get('files', 0)} files, {stats.get('nodes', 0)} nodes, "
        f"{stats.get('edges', 0)} edges; " + ("stale: files changed since" if answer["stale"] else "current")
    )
