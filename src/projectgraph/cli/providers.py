"""``projectgraph providers doctor`` and ``projectgraph providers conform NAME``."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import emit_json, fail
from projectgraph.providers.conformance import conform, summary
from projectgraph.providers.discovery import ProviderConfigError
from projectgraph.providers.doctor import doctor


def _root(project: Path | None) -> Path:
    root = (project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    return root


@click.group("providers")
def command() -> None:
    """External providers (protocol v1): list them, run the conformance fixtures."""


@command.command("doctor")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def doctor_command(project: Path | None, as_json: bool) -> None:
    """Every provider: command, manifest state, capabilities or why it is unavailable, conformance."""
    try:
        rows = doctor(_root(project))
    except ProviderConfigError as error:
        fail(str(error))
        return
    if as_json:
        emit_json({"providers": rows})
        return
    for row in rows:
        state = row["state"] + (f" ({row['reason']})" if row.get("reason") else "")
        click.echo(f"{row['name']}: {state}")
        if row.get("command"):
            click.echo(f"  command: {' '.join(row['command'])} [{row['source']}]")
        click.echo(f"  manifest: {row['manifest']}")
        if row.get("capabilities"):
            caps = row["capabilities"]
            languages, edges = ", ".join(caps["languages"]) or "-", ", ".join(caps["edge_kinds"]) or "-"
            click.echo(f"  languages: {languages}; edges: {edges}")
        click.echo(f"  conformance: {row['conformance']}")


@command.command("conform")
@click.argument("name")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def conform_command(name: str, project: Path | None, as_json: bool) -> None:
    """Run provider NAME over one fixture per language; write .projectgraph/conform-NAME.json."""
    try:
        result = conform(_root(project), name)
    except ProviderConfigError as error:
        fail(str(error))
        return
    if as_json:
        emit_json(result)
    else:
        for row in result["fixtures"]:
            verdict = "pass" if row["passed"] else "FAIL"
            scores = f"nodes {row['node_recall']:.3f}, edges {row['edge_recall']:.3f}"
            line = f"{row['language']}: {verdict} ({scores})"
            click.echo(line + (f" {row['error']}" if row.get("error") else ""))
        click.echo(summary(result))
    if not result["passed"]:
        raise SystemExit(1)
