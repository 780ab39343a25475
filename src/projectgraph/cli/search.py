"""``projectgraph search QUERY``: keyword (BM25), semantic or hybrid search over symbols."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, where
from projectgraph.query.search import MODES


def _render(answer: dict[str, Any]) -> list[str]:
    if answer.get("semantic", "").startswith("unavailable"):
        click.echo(f"projectgraph: semantic search {answer['semantic']}", err=True)
    lines = [f"{r['kind']:<11} {r['key']}  {where(r)}  {r['signature']}".rstrip() for r in answer["results"]]
    return lines or [f"nothing matches {answer['query']!r}"]


@click.command("search")
@click.argument("query")
@click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True)
@click.option("--limit", type=int, default=20, show_default=True, help="At most this many results.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(query: str, mode: str, limit: int, project: Path | None, as_json: bool) -> None:
    """Search symbols by words of their names, signatures and doc comments."""
    run_query(project, lambda e: e.search(query, mode, limit), as_json, _render)
