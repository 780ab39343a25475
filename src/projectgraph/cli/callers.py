"""``projectgraph callers SYMBOL`` and ``projectgraph callees SYMBOL``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, site_text


def _render(answer: dict[str, Any]) -> list[str]:
    lines = [f"{answer['symbol']}: {answer['total']}"]
    for r in answer["results"]:
        at = f" at {site_text(r['site'])}" if r["site"] else ""
        weak = "" if r["confidence"] == "high" else f", {r['confidence']} confidence"
        lines.append(f"  {r['key']}  ({r['relation']}, {r['kind']}{weak}{at})")
    if answer["truncated"]:
        lines.append(f"  ... {answer['total'] - len(answer['results'])} more (raise --limit)")
    return lines


def _command(name: str, direction: str) -> click.Command:
    @click.command(name)
    @click.argument("symbol")
    @click.option("--limit", type=int, default=50, show_default=True, help="At most this many results.")
    @project_option
    @click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
    def command(symbol: str, limit: int, project: Path | None, as_json: bool) -> None:
        run_query(
            project,
            lambda e: e.callers(symbol, limit) if direction == "in" else e.callees(symbol, limit),
            as_json,
            _render,
        )

    command.help = (
        "The symbols with an edge into SYMBOL." if direction == "in" else "The symbols SYMBOL has an edge to."
    )
    return command


callers = _command("callers", "in")
callees = _command("callees", "out")
