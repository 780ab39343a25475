"""``projectgraph reach TARGET... [--source S]... [--sources-only] [--json]``.

Exit codes: 0 every target found; 1 a target not found (and none uncertain); 3 a target uncertain
or without a known key; 2 a usage error (bad key, unknown source).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph import summary
from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.overlay import merged, overlay_option, read_overlays
from projectgraph.cli.project import load_graph, load_project, project_option
from projectgraph.keys import KeyError_
from projectgraph.reach import SOURCES_AND_ROOTS, SOURCES_ONLY, Query, ReachError, Source, Target, reach
from projectgraph.store.sqlite import read_graph


@click.command("reach")
@click.argument("targets", nargs=-1, required=True)
@click.option("--source", "sources", multiple=True, help="An entry point: path:Qualified.name or a key.")
@click.option("--sources-only", is_flag=True, help="Search from the sources alone, not the roots.")
@click.option("--max-depth", type=int, default=0, help="Stop the search at this depth (0: no cap).")
@click.option(
    "--summaries",
    "with_summaries",
    is_flag=True,
    help="Join calls into units the graph does not hold (--deps none) to their stored summaries.",
)
@project_option
@overlay_option
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def command(
    targets: tuple[str, ...],
    sources: tuple[str, ...],
    sources_only: bool,
    max_depth: int,
    with_summaries: bool,
    project: Path | None,
    overlays: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Does code that runs reach each TARGET (an external key such as yaml//load)?"""
    try:
        wanted = tuple(Target.by_key(t) for t in targets)
    except KeyError_ as error:
        fail(str(error))
        return
    if sources_only and not sources:
        fail("--sources-only needs at least one --source")
    decoded = read_overlays(overlays)
    if with_summaries:
        opened = load_project(project)
        graph = read_graph(opened.store.connection)
        graph = summary.join(graph, summary.stored_for(opened.store.connection, opened.root, graph))
    else:
        graph = load_graph(project)
    report = None
    if decoded:
        graph, report = merged(graph, decoded)
    query = Query(
        targets=wanted,
        sources=tuple(Source.parse(s) for s in sources),
        mode=SOURCES_ONLY if sources_only else SOURCES_AND_ROOTS,
        max_depth=max_depth,
    )
    try:
        results = reach(graph, query)
    except ReachError as error:
        fail(str(error))
        return
    if as_json:
        answer: dict[str, Any] = {"results": [r.to_json() for r in results]}
        if report is not None:
            answer["overlay"] = report.to_json()
        emit_json(answer)
    else:
        for result in results:
            click.echo(str(result))
    statuses = {r.status for r in results}
    if statuses & {"uncertain", "no-such-target"}:
        raise SystemExit(3)
    if "not-found" in statuses:
        raise SystemExit(1)
