"""``projectgraph cycles``: strongly connected components of the call and import graphs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query


def _render(answer: dict[str, Any]) -> list[str]:
    lines = []
    for name in ("calls", "imports"):
        part = answer[name]
        shown = f", the {len(part['cycles'])} largest shown" if len(part["cycles"]) < part["count"] else ""
        lines.append(f"{name}: {part['count']} cycles{shown}")
        for cycle in part["cycles"]:
            lines.append(f"  ({len(cycle)}) " + ", ".join(cycle))
    return lines


@click.command("cycles")
@click.option("--limit", type=int, default=50, show_default=True, help="At most this many cycles per graph.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(limit: int, project: Path | None, as_json: bool) -> None:
    """Cycles of calls and of imports, largest first."""
    run_query(project, lambda e: e.cycles(limit), as_json, _render)
