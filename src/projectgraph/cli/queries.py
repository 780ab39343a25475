"""Running a query command: the engine, usage errors as exit code 2, JSON or compact text."""

from __future__ import annotations

from collections.abc import Callable
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
) -> dict[str, Any]:
    engine = load_engine(project)
    try:
        answer = ask(engine)
    except (QueryError, ValueError) as error:
        fail(str(error))
        raise AssertionError("unreachable") from error
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
