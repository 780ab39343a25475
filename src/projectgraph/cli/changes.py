"""``projectgraph changes [--base REF] [--staged]``: the symbols a git diff changes, each with its
impact radius, uncertain callers and the tests that reach it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, site_text


def _render(answer: dict[str, Any]) -> list[str]:
    counts = ", ".join(f"{n} {change}" for change, n in answer["counts"].items()) or "nothing"
    lines = [f"{answer['side']} against {answer['base']}: {counts}"]
    for s in answer["symbols"]:
        moved = f" (from {s['from']})" if "from" in s else ""
        lines.append(f"  {s['change']}  {s['key']}{moved}  {s['path']}:{s['line']}")
        if "signature" in s:
            lines.append(f"    signature: {s['signature']['old']}  ->  {s['signature']['new']}")
        if "stillCalled" in s:
            called = s["stillCalled"]
            lines.append(f"    still called by name: {called['total']}")
            lines += [
                f"      ? {u['key']} at {site_text(u['site'])}  {u['reason']}" for u in called["results"]
            ]
        if "impact" in s:
            impact = s["impact"]
            depths = ", ".join(f"{d['depth']}: {d['impacted']}" for d in impact["byDepth"])
            lines.append(
                f"    impact: {impact['total']} ({depths}), {impact['uncertain']['total']} uncertain; "
                f"tests: {s['tests']['total']}"
            )
            lines += [f"      {i['depth']}  {i['key']}" for i in impact["impacted"]]
            if impact["truncated"]:
                lines.append(f"      ... {impact['total'] - len(impact['impacted'])} more (raise --limit)")
            lines += [f"      test  {t['key']}" for t in s["tests"]["results"]]
        elif not s.get("inGraph", True) and "stillCalled" not in s:
            lines.append("    not in the stored graph")
    return lines


@click.command("changes")
@click.option("--base", default=None, help="Compare with this git ref (default: HEAD).")
@click.option("--staged", is_flag=True, help="The staged changes (the index), not the working tree.")
@click.option("--depth", type=int, default=2, show_default=True, help="Impact hops, 1 to 6.")
@click.option("--limit", type=int, default=20, show_default=True, help="At most this many per list.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(
    base: str | None, staged: bool, depth: int, limit: int, project: Path | None, as_json: bool
) -> None:
    """The symbols a git diff changes (added, removed, body or signature changed, moved, renamed),
    each with its impact radius and the tests whose roots reach it."""
    root = (project or Path.cwd()).resolve()
    run_query(project, lambda e: e.changes(root, base, staged, depth, limit), as_json, _render)
