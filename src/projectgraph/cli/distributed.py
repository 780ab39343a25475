"""``projectgraph distributed run JOBFILE... --store URL [--engine ray|beam|local] [--workers N]
[--retries N] [--json]`` and ``projectgraph distributed status --store URL [--json]``.

``run`` summarises every package version of the job list into the shared store (what is stored
already is not rebuilt); a line of the list that names no registry version is reported, as is each
failure. Exit codes: 0 every job built or stored; 4 a job failed or a line was rejected (each
listed, the rest stored); 2 a usage error (no such file, an engine that is not installed, a store
that cannot be opened).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from projectgraph import distributed
from projectgraph.cli.common import emit_json, fail
from projectgraph.distributed.store import redacted

STORE_HELP = "The shared summary store: postgresql://... or a SQLite file."


@click.group("distributed")
def command() -> None:
    """Summaries of many package versions on Ray or Beam, in a shared store."""


@command.command("run")
@click.argument("jobfiles", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--store", "location", required=True, help=STORE_HELP)
@click.option("--engine", type=click.Choice(distributed.ENGINES), default="ray", show_default=True)
@click.option("--workers", type=int, default=2, show_default=True, help="Workers of the local cluster.")
@click.option(
    "--retries", type=int, default=2, show_default=True, help="Runs again of a job whose process dies."
)
@click.option("--json", "as_json", is_flag=True, help="Print every job's outcome as JSON.")
def run(
    jobfiles: tuple[Path, ...], location: str, engine: str, workers: int, retries: int, as_json: bool
) -> None:
    """Fetch, index and summarise every package version of the JOBFILES into the store.

    A JOBFILE: ecosystem:name@version lines, a requirements file or pip freeze, or a package-lock.json."""
    jobs: set[distributed.Job] = set()
    rejected: list[dict[str, Any]] = []
    for jobfile in jobfiles:
        try:
            listed = distributed.read_jobs(jobfile)
        except distributed.JobListError as error:
            fail(str(error))
            return
        jobs.update(listed.jobs)
        for line in listed.rejected:
            click.echo(f"{jobfile}:{line.line}: not a job: {line.text} ({line.reason})", err=True)
            rejected.append({"file": str(jobfile), **line.to_json()})
    total = len(jobs)
    done = 0

    def progress(outcome: distributed.Outcome) -> None:
        nonlocal done
        done += 1
        detail = outcome.error if outcome.status == "failed" else outcome.unit
        click.echo(f"[{done}/{total}] {outcome.job.spec}: {outcome.status} {detail}", err=True)

    try:
        outcomes = distributed.run(sorted(jobs), location, engine, workers, retries, progress)
    except (distributed.EngineError, distributed.StoreError) as error:
        fail(str(error))
        return
    counts = {status: sum(o.status == status for o in outcomes) for status in ("built", "stored", "failed")}
    if as_json:
        answer: dict[str, Any] = {
            "store": redacted(location),
            "engine": engine,
            "workers": workers,
            "counts": counts,
            "rejected": rejected,
            "outcomes": [o.to_json() for o in outcomes],
        }
        emit_json(answer)
    else:
        click.echo(
            f"{total} jobs: {counts['built']} built, {counts['stored']} already stored, "
            f"{counts['failed']} failed" + (f"; {len(rejected)} lines not jobs" if rejected else "")
        )
        for outcome in outcomes:
            if outcome.status == "failed":
                click.echo(f"failed {outcome.job.spec}: {outcome.error}")
    if counts["failed"] or rejected:
        sys.exit(4)


@command.command("status")
@click.option("--store", "location", required=True, help=STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the counts and failures as JSON.")
def status(location: str, as_json: bool) -> None:
    """What the store holds under the current rule versions, and every recorded failure."""
    try:
        with distributed.open_store(location) as store:
            found = store.status()
    except distributed.StoreError as error:
        fail(str(error))
        return
    if as_json:
        emit_json(found.to_json())
        return
    click.echo(f"{found.location}: {found.summaries} summaries, {found.bytes} bytes")
    for ecosystem, entry in found.by_ecosystem.items():
        click.echo(f"  {ecosystem}: {entry['summaries']} summaries, {entry['bytes']} bytes")
    click.echo("jobs: " + (", ".join(f"{n} {state}" for state, n in found.states.items()) or "none"))
    for failure in found.failures:
        click.echo(f"failed {failure.lookup} ({failure.attempts} attempts): {failure.error}")
    if found.other_versions:
        click.echo(f"{found.other_versions} summaries of other rule versions (not served)")
