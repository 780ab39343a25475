"""``projectgraph impact SYMBOL --depth N``: what depends on SYMBOL (calls, extends, implements),
with the uncertain callers counted per depth (and walked with ``--include-uncertain``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.callers import status_lines, uncertain_lines
from projectgraph.cli.overlay import overlay_option
from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, where
from projectgraph.query import UNCERTAIN_LIMIT, QueryError, answers

LIMIT = 100


def _page(answer: dict[str, Any], limit: int, cursor: str | None) -> dict[str, Any]:
    try:
        return answers.impact_page(answer, limit, cursor)
    except answers.CursorError as error:
        raise QueryError(str(error)) from error


def _render(answer: dict[str, Any]) -> list[str]:
    head = f"{answer['root']}: {answer['total']} impacted, {answer['edgeCount']} edges"
    if answer["uncertain"]["total"]:
        per_depth = ", ".join(f"{d['depth']}: {d['impacted']}+{d['uncertain']}?" for d in answer["byDepth"])
        head += f", {answer['uncertain']['total']} uncertain (by depth {per_depth})"
    lines = [head]
    for item in answer["impacted"][1:]:
        weak = (
            " [uncertain]" if item.get("uncertain") else " [low confidence]" if item["low_confidence"] else ""
        )
        lines.append(f"  {item['depth']}  {item['key']}  {where(item)}{weak}")
    following = answer["nextCursor"]
    if following is not None:
        lines.append(
            f"  ... {answer['total'] - int(following)} more (raise --limit, or --cursor {following})"
        )
    lines += uncertain_lines(answer["uncertain"], "raise --uncertain-limit")
    lines += status_lines(answer)
    return lines


@click.command("impact")
@click.argument("symbol")
@click.option("--depth", type=int, default=2, show_default=True, help="Hops to follow, 1 to 6.")
@click.option("--high-confidence", is_flag=True, help="Leave out low-confidence edges (name, field, ...).")
@click.option(
    "--include-uncertain", is_flag=True, help="Walk the uncertain callers too, as impacted [uncertain]."
)
@click.option(
    "--uncertain-limit",
    type=int,
    default=UNCERTAIN_LIMIT,
    show_default=True,
    help="At most this many uncertain callers listed (their total is always given).",
)
@click.option(
    "--limit",
    type=int,
    default=LIMIT,
    show_default=True,
    help="Impacted symbols per page (total always given).",
)
@click.option("--cursor", help="nextCursor of the previous page (the JSON's), for the next one.")
@project_option
@overlay_option
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def command(
    symbol: str,
    depth: int,
    high_confidence: bool,
    include_uncertain: bool,
    uncertain_limit: int,
    limit: int,
    cursor: str | None,
    project: Path | None,
    overlays: tuple[Path, ...],
    as_json: bool,
) -> None:
    """The reverse dependency radius of SYMBOL, with what might also call it."""
    run_query(
        project,
        lambda e: _page(
            e.impact(symbol, depth, not high_confidence, include_uncertain, uncertain_limit), limit, cursor
        ),
        as_json,
        _render,
        overlays,
    )
