"""``projectgraph explore QUERY``: the few symbols a question is about, each with its signature,
doc, a code excerpt, callers, callees and place in the hierarchy, in one answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query


def _render(answer: dict[str, Any]) -> list[str]:
    lines = [f"{answer['query']}: {len(answer['symbols'])} symbol(s)"]
    for s in answer["symbols"]:
        lines.append(f"{s['key']}  ({s['kind']}, {s['path']}:{s['line']}-{s['end_line']})")
        if s.get("in"):
            lines.append(f"  in {s['in']}")
        if "bases" in s:
            lines.append(f"  bases: {', '.join(s['bases']) or '-'}; {s['subclasses']} subclass(es)")
        if s["doc"]:
            lines.append(f"  doc: {s['doc'].splitlines()[0]}")
        lines += [f"  | {line}" for line in s["code"].splitlines()]
        for name in ("callers", "callees"):
            listed = ", ".join(r["key"] for r in s[name]["results"]) or "-"
            lines.append(f"  {name} ({s[name]['total']}): {listed}")
        if s["uncertainCallers"]:
            lines.append(f"  uncertain callers: {s['uncertainCallers']} (projectgraph callers {s['key']})")
    return lines


@click.command("explore")
@click.argument("query")
@click.option("--limit", type=int, default=3, show_default=True, help="Symbols to show, 1 to 20.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(query: str, limit: int, project: Path | None, as_json: bool) -> None:
    """The symbols QUERY is about, each with its context, in one answer."""
    root = (project or Path.cwd()).resolve()
    run_query(project, lambda e: e.explore(query, root, limit), as_json, _render)
