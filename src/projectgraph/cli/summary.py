"""``projectgraph summary UNIT [--json]``: what each exported symbol of one package reaches.

UNIT is a folder of a package (linked as a project of its own, its exported symbols the public
definitions), summarised and printed; nothing is written to the folder.
"""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph import summary
from projectgraph.cli.common import emit_json, fail
from projectgraph.pipeline import build_graph


@click.command("summary")
@click.argument("unit")
@click.option("--json", "as_json", is_flag=True, help="Print each symbol's keys and uncertainties as JSON.")
def command(unit: str, as_json: bool) -> None:
    """What each exported symbol of the package UNIT (a folder) reaches, and its uncertainties."""
    folder = Path(unit)
    if not folder.is_dir():
        fail(f"no unit or folder named {unit!r}")
    built = summary.build(build_graph(folder).graph, unit=folder.resolve().name)
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
