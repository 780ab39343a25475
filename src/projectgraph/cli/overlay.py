"""``projectgraph overlay check FILE``, ``projectgraph overlay sites``, and the ``--overlay FILE``
option of reach, callers, callees, impact and path.

An overlay file that does not decode is a usage error (exit 2) before any query runs, and nothing
of it is used. An edge that ``merge`` drops is a diagnostic: ``overlay check`` lists them and exits 1;
a query prints them on stderr (and under ``overlay`` in ``--json``) and answers with the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from projectgraph import overlay
from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.project import load_graph, load_project, project_option
from projectgraph.graph import Graph
from projectgraph.query import QueryEngine
from projectgraph.store import sqlite as sql

F = TypeVar("F", bound=Callable[..., Any])


def overlay_option(function: F) -> F:
    """The repeatable ``--overlay FILE`` option (a tuple of paths)."""
    decorated: F = click.option(
        "--overlay",
        "overlays",
        multiple=True,
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help="Merge the llm edges of an overlay file (repeatable); see `projectgraph overlay check`.",
    )(function)
    return decorated


def read_overlays(files: Sequence[Path]) -> list[overlay.Overlay]:
    """Every file decoded, or exit 2 naming the first that does not decode."""
    decoded = []
    for path in files:
        try:
            decoded.append(overlay.read_file(path))
        except overlay.OverlayError as error:
            fail(str(error))
    return decoded


def merged(graph: Graph, overlays: Sequence[overlay.Overlay]) -> tuple[Graph, overlay.Report]:
    """The graph with the overlays merged; each dropped edge told on stderr."""
    result, report = overlay.merge(graph, overlays)
    for diagnostic in report.diagnostics:
        click.echo(
            f"projectgraph: overlay {diagnostic.source}: {diagnostic.kind}: {diagnostic.message}", err=True
        )
    return result, report


def overlaid_engine(project: Path | None, files: Sequence[Path]) -> tuple[QueryEngine, overlay.Report]:
    """A query engine over an in-memory copy of the stored graph with the overlays' edges added."""
    overlays = read_overlays(files)
    opened = load_project(project)
    graph = sql.read_graph(opened.store.connection)
    result, report = merged(graph, overlays)
    copy = sql.copy_with_edges(opened.store.connection, overlay.added_edges(graph, result))
    return QueryEngine(copy), report


@click.group("overlay")
def group() -> None:
    """Overlay files: llm edges for the unresolved sites of the graph (no projectgraph code calls a model)."""


@group.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check(file: Path, project: Path | None, as_json: bool) -> None:
    """Decode FILE and merge it into the project's graph: exit 0 when every edge merges, 1 when an
    edge names no node or no unresolved site (the diagnostics), 2 when the file does not decode."""
    decoded = read_overlays([file])
    graph = load_graph(project)
    _result, report = overlay.merge(graph, decoded)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(f"{file}: {len(decoded[0].edges)} edges, {len(report.merged)} merged")
        for diagnostic in report.diagnostics:
            click.echo(f"  {diagnostic.kind}: {diagnostic.message}")
    if report.diagnostics:
        raise SystemExit(1)


@group.command("sites")
@click.option("--all", "include_units", is_flag=True, help="Include the sites of dependency code.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the sites as JSON (the form a model job reads).")
def sites(include_units: bool, project: Path | None, as_json: bool) -> None:
    """The unresolved sites a model job can resolve: caller, site, call text, the enclosing code's
    span and the candidate callees by name."""
    listed = overlay.sites(load_graph(project), include_units)
    if as_json:
        emit_json({"version": overlay.VERSION, "sites": listed})
        return
    for item in listed:
        site = item["site"]
        more = item["candidates_total"] - len(item["candidates"])
        candidates = ", ".join(item["candidates"]) + (f" (+{more})" if more else "")
        click.echo(f"{site['path']}:{site['line']}:{site['column']}  {item['caller']}  {item['reason']}")
        click.echo(f"  {item['text']}" + (f"  -> {candidates}" if candidates else ""))


command = group
