"""``projectgraph callers SYMBOL`` and ``projectgraph callees SYMBOL``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.overlay import overlay_option
from projectgraph.cli.project import project_option
from projectgraph.cli.queries import run_query, site_text

STATUS_TEXT = {
    "callers": "",
    "callers-unknown": "callers unknown: no edge calls it, but the uncertain callers above might",
    "entry-point": "no caller in the graph: an entry point, called from outside the project",
    "no-caller": "no caller: no edge, and nothing unresolved could name it",
}


def uncertain_lines(uncertain: dict[str, Any], more_hint: str) -> list[str]:
    """The uncertain callers of an answer, one a line, with their total and rule counts."""
    if not uncertain["total"]:
        return []
    counts = ", ".join(f"{rule} {n}" for rule, n in uncertain["counts"].items())
    lines = [f"  uncertain: {uncertain['total']} ({counts})"]
    for u in uncertain["results"]:
        at = f" at {site_text(u['site'])}" if u["site"] else ""
        depth = f"{u['depth']}  " if "depth" in u else ""
        of = f"  (may call {u['of']})" if "of" in u else ""
        lines.append(f"  {depth}? {u['key']}{at}  {u['rule']}: {u['reason']}{of}")
    if uncertain["truncated"]:
        lines.append(f"  ... {uncertain['total'] - len(uncertain['results'])} more uncertain ({more_hint})")
    return lines


def status_lines(answer: dict[str, Any]) -> list[str]:
    lines = [f"  entry point: {r['kind']} ({r['rule']})" for r in answer.get("roots", ())]
    text = STATUS_TEXT.get(answer.get("status", "callers"), "")
    return [*lines, f"  {text}"] if text else lines


def _render(answer: dict[str, Any]) -> list[str]:
    lines = [f"{answer['symbol']}: {answer['total']}"]
    for r in answer["results"]:
        at = f" at {site_text(r['site'])}" if r["site"] else ""
        weak = "" if r["confidence"] == "high" else f", {r['confidence']} confidence"
        via = f", {r['via']}" if r.get("via") else ""
        lines.append(f"  {r['key']}  ({r['relation']}, {r['kind']}{weak}{via}{at})")
    following = answer["nextCursor"]
    if following is not None:
        lines.append(
            f"  ... {answer['total'] - int(following)} more (raise --limit, or --cursor {following})"
        )
    if "uncertain" in answer:
        lines += uncertain_lines(answer["uncertain"], "raise --limit")
        lines += status_lines(answer)
    return lines


def _command(name: str, direction: str) -> click.Command:
    @click.command(name)
    @click.argument("symbol")
    @click.option(
        "--limit", type=int, default=50, show_default=True, help="Results per page (total always given)."
    )
    @click.option("--cursor", help="nextCursor of the previous page (the JSON's), for the next one.")
    @project_option
    @overlay_option
    @click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
    def command(
        symbol: str,
        limit: int,
        cursor: str | None,
        project: Path | None,
        overlays: tuple[Path, ...],
        as_json: bool,
    ) -> None:
        run_query(
            project,
            lambda e: (
                e.callers(symbol, limit, cursor) if direction == "in" else e.callees(symbol, limit, cursor)
            ),
            as_json,
            _render,
            overlays,
        )

    command.help = (
        "The symbols with an edge into SYMBOL, and the uncertain callers: unresolved calls of its "
        "name, places that use it as a value, dynamic features of running code."
        if direction == "in"
        else "The symbols SYMBOL has an edge to."
    )
    return command


callers = _command("callers", "in")
callees = _command("callees", "out")
