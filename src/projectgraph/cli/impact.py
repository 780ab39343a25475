"""``projectgraph impact SYMBOL --depth N``: what depends on SYMBOL (calls, extends, implements)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, where


def _render(answer: dict[str, Any]) -> list[str]:
    lines = [f"{answer['root']}: {len(answer['impacted']) - 1} impacted, {answer['edgeCount']} edges"]
    for item in answer["impacted"][1:]:
        weak = " [low confidence]" if item["low_confidence"] else ""
        lines.append(f"  {item['depth']}  {item['key']}  {where(item)}{weak}")
    return lines


@click.command("impact")
@click.argument("symbol")
@click.option("--depth", type=int, default=2, show_default=True, help="Hops to follow, 1 to 6.")
@click.option("--high-confidence", is_flag=True, help="Leave out low-confidence edges (name, field, ...).")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(symbol: str, depth: int, high_confidence: bool, project: Path | None, as_json: bool) -> None:
    """The reverse dependency radius of SYMBOL."""
    run_query(project, lambda e: e.impact(symbol, depth, not high_confidence), as_json, _render)
