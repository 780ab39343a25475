"""``projectgraph reach TARGET... [--source S]... [--sources-only] [--overlay FILE]... [--json]
[--format text|json|sarif] [--summaries [--summary-store URL]]``.

Exit codes: 0 every target found; 1 a target not found (and none uncertain); 3 a target uncertain
or without a known key; 2 a usage error (bad key, unknown source).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph import sarif, summary
from projectgraph.cli.common import emit_json, fail, report_format_options
from projectgraph.cli.overlay import merged, overlay_option, read_overlays
from projectgraph.cli.project import load_graph, load_project, project_option
from projectgraph.cli.sources import check_sources, entry_points, sources_options
from projectgraph.graph import Graph
from projectgraph.keys import KeyError_
from projectgraph.reach import Query, ReachError, Target, reach
from projectgraph.store.sqlite import read_graph


def shared_join(root: Path, graph: Graph, location: str, local: list[summary.Summary]) -> Graph:
    """The graph joined to its local summaries and to the shared store's for the units it lacks."""
    from projectgraph.distributed import StoreError, join, open_store, summaries_for

    try:
        with open_store(location) as store:
            shared = summaries_for(root, graph, store, local)
    except StoreError as error:
        fail(str(error))
        raise
    return join(graph, local, shared)


@click.command("reach")
@click.argument("targets", nargs=-1, required=True)
@sources_options
@click.option("--max-depth", type=int, default=0, help="Stop the search at this depth (0: no cap).")
@click.option(
    "--summaries",
    "with_summaries",
    is_flag=True,
    help="Join calls into units the graph does not hold (--deps none) to their stored summaries.",
)
@click.option(
    "--summary-store",
    "summary_store",
    default=None,
    help="With --summaries: read the summaries of units the project has none of from this shared "
    "store too (postgresql://... or a SQLite file; `projectgraph distributed run` fills it).",
)
@project_option
@overlay_option
@report_format_options("the results", "a result per found or uncertain target, for code scanning")
def command(
    targets: tuple[str, ...],
    sources: tuple[str, ...],
    sources_only: bool,
    max_depth: int,
    with_summaries: bool,
    summary_store: str | None,
    project: Path | None,
    overlays: tuple[Path, ...],
    as_json: bool,
    output: str,
) -> None:
    """Does code that runs reach each TARGET (an external key such as yaml//load)?"""
    try:
        wanted = tuple(Target.by_key(t) for t in targets)
    except KeyError_ as error:
        fail(str(error))
        return
    points = entry_points(project, sources, sources_only)
    decoded = read_overlays(overlays)
    if summary_store is not None and not with_summaries:
        fail("--summary-store is read with --summaries")
    if with_summaries:
        opened = load_project(project)
        graph = read_graph(opened.store.connection)
        found = summary.stored_for(opened.store.connection, opened.root, graph)
        if summary_store is not None:
            graph = shared_join(opened.root, graph, summary_store, found)
        else:
            graph = summary.join(graph, found)
    else:
        graph = load_graph(project)
    report = None
    if decoded:
        graph, report = merged(graph, decoded)
    check_sources(graph, points)
    query = Query(targets=wanted, sources=points.keys, mode=points.mode, max_depth=max_depth)
    try:
        results = reach(graph, query)
    except ReachError as error:
        fail(str(error))
        return
    if output == "sarif":
        emit_json(sarif.log(sarif.reach_findings(results), sarif.REACH_RULES, graph))
    elif as_json or output == "json":
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
