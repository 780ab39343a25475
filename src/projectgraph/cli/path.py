"""``projectgraph path FROM TO``: the shortest call path between two symbols."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.overlay import overlay_option
from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, site_text


def _render(answer: dict[str, Any]) -> list[str]:
    if not answer["found"]:
        return [f"no path from {answer['from']} to {answer['to']}"]
    hops = len(answer["path"]) - 1
    lines = [f"{answer['from']} -> {answer['to']}: {hops} hop{'' if hops == 1 else 's'}"]
    for hop in answer["path"]:
        at = f" at {site_text(hop['site'])}" if hop["site"] else ""
        via = f", {hop['via']}" if hop.get("via") else ""
        lines.append(f"  {hop['key']}  ({hop['kind']}{via}{at})")
    return lines


@click.command("path")
@click.argument("source")
@click.argument("target")
@project_option
@overlay_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(
    source: str, target: str, project: Path | None, overlays: tuple[Path, ...], as_json: bool
) -> None:
    """The shortest path of calls, references and imports from SOURCE to TARGET."""
    answer = run_query(project, lambda e: e.path(source, target), as_json, _render, overlays)
    if not answer["found"]:
        raise SystemExit(1)
