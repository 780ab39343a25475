"""``projectgraph build [PATH] --provider NAME``: one provider's graph of the project, stored as a run."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import emit_json, fail
from projectgraph.providers.build import BuildRefused, build
from projectgraph.providers.discovery import REFERENCE
from projectgraph.store.sqlite import SchemaError


@click.command("build")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--provider", "provider", required=True, help="Provider name (reference: projectgraph's own).")
@click.option(
    "--allow-unverified", is_flag=True, help="Run a provider with no manifest or conformance result."
)
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
def command(path: Path | None, provider: str, allow_unverified: bool, as_json: bool) -> None:
    """Build the project at PATH with one provider and store its graph as a run."""
    root = (path or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    if provider == REFERENCE:
        from projectgraph.cli import index

        click.get_current_context().invoke(index.command, path=root, as_json=as_json)
        return
    from projectgraph.project import Project

    try:
        with Project(root) as project:
            outcome = build(root, provider, project.store.connection, allow_unverified=allow_unverified)
    except BuildRefused as error:
        fail(f"{error.code}: {error.message}")
        return
    except SchemaError as error:
        fail(str(error))
        return
    if as_json:
        emit_json(outcome.to_json())
    else:
        data = outcome.to_json()
        click.echo(
            f"{provider}: run {data['run']} {data['status']}: {data['nodes']} nodes, {data['edges']} edges, "
            f"{data['files_parsed']} files parsed, {data['progress_lines']} progress lines"
        )
        for limitation in data["limitations"]:
            click.echo(f"  {limitation['code']}: {limitation['detail']}".rstrip(": "))
    if outcome.status == "failed":
        raise SystemExit(4)
