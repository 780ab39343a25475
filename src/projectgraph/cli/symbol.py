"""``projectgraph symbol NAME``: every symbol whose name or qualified name is NAME."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, where


def _render(answer: dict[str, Any]) -> list[str]:
    if not answer["results"]:
        return [f"no symbol named {answer['query']!r}"]
    return [f"{r['kind']:<11} {r['key']}  {where(r)}  {r['signature']}".rstrip() for r in answer["results"]]


@click.command("symbol")
@click.argument("name")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(name: str, project: Path | None, as_json: bool) -> None:
    """Find symbols by exact name, qualified name or key."""
    answer = run_query(project, lambda e: e.symbol(name), as_json, _render)
    if not answer["results"]:
        raise SystemExit(1)
