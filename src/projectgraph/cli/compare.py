"""``projectgraph compare --providers reference,NAME [PATH]``: the agreement table of two engines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.common import emit_json, fail
from projectgraph.providers.compare import CompareFailed, compare
from projectgraph.providers.validation import EDGE_KINDS
from projectgraph.store.sqlite import SchemaError


@click.command("compare")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--providers", "providers", required=True, help="Two providers, as reference,crg.")
@click.option(
    "--diff", "diff", type=click.Choice(EDGE_KINDS), help="List the edges of one relation in one only."
)
@click.option(
    "--limit", type=click.IntRange(min=0), default=50, show_default=True, help="Edges listed per side."
)
@click.option(
    "--allow-unverified", is_flag=True, help="Run a provider with no manifest or conformance result."
)
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
def command(
    path: Path | None, providers: str, diff: str | None, limit: int, allow_unverified: bool, as_json: bool
) -> None:
    """Build PATH with two providers and print Jaccard per edge relation and nodes per kind."""
    root = (path or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    names = tuple(n.strip() for n in providers.split(",") if n.strip())
    if len(names) != 2 or names[0] == names[1]:
        fail(f"--providers takes two different names, as reference,crg (got {providers!r})")
    from projectgraph.project import Project

    try:
        with Project(root) as project:
            table = compare(
                root,
                (names[0], names[1]),
                project.store.connection,
                allow_unverified=allow_unverified,
                diff=diff,
                limit=limit,
            )
    except CompareFailed as error:
        fail(str(error), code=4)
        return
    except SchemaError as error:
        fail(str(error))
        return
    if as_json:
        emit_json(table)
    else:
        _print(table)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print(table: dict[str, Any]) -> None:
    left, right = table["providers"]
    files = table["files"]
    click.echo(
        f"files: {left} {files[left]}, {right} {files[right]}, compared {files['common']}; "
        f"names aligned by file and line: {table['aligned']}"
    )
    click.echo(
        f"{'relation':<11} {left:>10} {right:>10} {'both':>8} {'jaccard':>8} {'confident':>9}"
        f"   external ({left}/{right})"
    )
    for row in table["edges"]:
        external = row["external"]
        click.echo(
            f"{row['relation']:<11} {row[left]:>10} {row[right]:>10} {row['both']:>8} "
            f"{_cell(row['jaccard']):>8} {_cell(row['jaccard_confident']):>9}"
            f"   {external[left]}/{external[right]}"
        )
    click.echo(f"{'nodes':<11} {left:>10} {right:>10} {'both':>8} {'jaccard':>8}")
    for row in table["nodes"]:
        click.echo(
            f"{row['kind']:<11} {row[left]:>10} {row[right]:>10} {row['both']:>8} {_cell(row['jaccard']):>8}"
        )
    diff = table.get("diff")
    if diff:
        for side in (left, right):
            listed = diff[f"only_{side}"]
            click.echo(f"{diff['relation']} only in {side}: {listed['count']} (first {diff['limit']})")
            for edge in listed["edges"]:
                click.echo(f"  {edge['source']} -> {edge['target']}")
