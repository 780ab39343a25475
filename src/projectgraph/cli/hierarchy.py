"""``projectgraph hierarchy CLASS``: bases in method resolution order, and subclasses by depth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query


def _render(answer: dict[str, Any]) -> list[str]:
    lines = [answer["class"], "  bases, in method resolution order:"]
    lines += [f"    {b['key']}" for b in answer["bases"]] or ["    (none)"]
    lines.append("  subclasses:")
    lines += [f"    {'  ' * (s['depth'] - 1)}{s['key']}" for s in answer["subclasses"]] or ["    (none)"]
    return lines


@click.command("hierarchy")
@click.argument("cls", metavar="CLASS")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(cls: str, project: Path | None, as_json: bool) -> None:
    """The class hierarchy around CLASS."""
    run_query(project, lambda e: e.hierarchy(cls), as_json, _render)
