"""``projectgraph summary UNIT [--json]``: what each exported symbol of one package reaches.

UNIT is a unit of the project's graph (``pypi:requests@2.34.2``): its summary is read from the
project's store when one was built under the current versions (and the same units beside it), else
built from the unit's own graph and stored. Or UNIT is a folder of a package, linked as a project of
its own (its exported symbols the public definitions), summarised and printed; nothing is written
to the folder.
"""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph import keys, summary
from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.project import load_project, project_option
from projectgraph.link.units import unit_names
from projectgraph.pipeline import build_graph
from projectgraph.store import sqlite as sql


def _of_unit(unit: str, project: Path | None) -> summary.Summary:
    opened = load_project(project)
    connection = opened.store.connection
    graph = sql.read_graph(connection)
    names = unit_names(graph)
    if unit not in names:
        fail(f"no unit {unit!r} in the project's graph (units: {', '.join(names) or 'none'})")
    own = summary.unit_graph(graph, unit)
    built = summary.load(connection, unit, summary.context_of(own))
    if built is None:
        built = summary.build(own, unit=unit)
        summary.save(connection, built)
    return built


@click.command("summary")
@click.argument("unit")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print each symbol's keys and uncertainties as JSON.")
def command(unit: str, project: Path | None, as_json: bool) -> None:
    """What each exported symbol of the package UNIT (a unit or a folder) reaches, and its uncertainties."""
    if keys.split_unit(unit + keys.SEP)[0]:
        built = _of_unit(unit, project)
    elif Path(unit).is_dir():
        built = summary.build(build_graph(unit).graph, unit=Path(unit).resolve().name)
    else:
        fail(f"no unit or folder named {unit!r}")
    if as_json:
        emit_json(built.report())
        return
    stats = built.stats
    click.echo(
        f"{built.unit}: {stats['symbols']} symbols, {stats['components']} components, "
        f"{len(built.every_search)} uncertainties of every search"
    )
    for symbol in built.symbols:
        reached = built.reaches(symbol)
        uncertain = built.uncertainties_of(symbol)
        click.echo(f"{symbol}: {len(reached)} external keys, {len(uncertain)} uncertainties")
