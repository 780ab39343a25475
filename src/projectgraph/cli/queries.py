"""Running a query command: the engine, usage errors as exit code 2, JSON or compact text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.project import load_engine
from projectgraph.query import QueryEngine, QueryError


def run_query(
    project: Path | None,
    ask: Callable[[QueryEngine], dict[str, Any]],
    as_json: bool,
    render: Callable[[dict[str, Any]], list[str]],
    overlays: Sequence[Path] = (),
) -> dict[str, Any]:
    report = None
    if overlays:  # the engine over a copy of the graph with the overlays' edges (cli/overlay.py)
        from projectgraph.cli.overlay import overlaid_engine

        engine, report = overlaid_engine(project, overlays)
    else:
        engine = load_engine(project)
    try:
        answer = ask(engine)
    except (QueryError, ValueError) as error:
        fail(str(error))
        raise AssertionError("unreachable") from error
    if report is not None:
        answer = answer | {"overlay": report.to_json()}
    if as_json:
        emit_json(answer)
    else:
        for line in render(answer):
            click.echo(line)
    return answer


def where(item: dict[str, Any]) -> str:
    if item.get("path"):
        return f"{item['path']}:{item.get('line', 0)}"
    return "(external)"


def site_text(site: dict[str, Any] | None) -> str:
    return f"{site['path']}:{site['line']}" if site else ""
