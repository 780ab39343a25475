"""``projectgraph status``: what the store holds and whether it is current."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from projectgraph.cli.common import emit_json, fail
from projectgraph.cli.index import unclaimed_text
from projectgraph.cli.project import open_project, project_option
from projectgraph.config import ConfigError
from projectgraph.project import FileChanges
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SchemaError
from projectgraph.sync.watch import read_state


@click.command("status")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def command(project: Path | None, as_json: bool) -> None:
    """Show the stored graph's last sync, the files pending since, and a running watcher."""
    opened = open_project(project)
    try:
        run = sql.last_run(opened.store.connection)
        changes = opened.file_changes() if run else FileChanges()
    except (SchemaError, ConfigError) as error:
        fail(str(error))
        return
    now = time.time()
    synced_ns = sql.metadata_int(opened.store.connection, "synced_at_ns")
    last_sync = max(run["finished"], synced_ns / 1e9 if synced_ns else 0.0) if run else None
    watcher = read_state(opened.folder)
    staleness = _staleness(opened.root, changes, run, now)
    answer = {
        "root": str(opened.root),
        "database": str(opened.store.path),
        "indexed": run is not None,
        "stale": bool(changes) if run else True,
        "pending": {
            "files": changes.pending,
            "added": list(changes.added),
            "removed": list(changes.removed),
            "changed": list(changes.changed),
            "controls": list(changes.controls),
        },
        "no_language": dict(changes.unclaimed),  # listed files no language claims, by extension
        "last_sync": last_sync,
        "staleness_seconds": staleness,
        "watcher": watcher,
        "last_run": run,
    }
    if as_json:
        emit_json(answer)
        return
    if run is None:
        click.echo(f"{opened.root}: not indexed yet (run `projectgraph index`)")
        return
    stats = run["stats"]
    ago = _ago(now - (last_sync or run["finished"]))
    if changes:
        behind = f"{_ago(staleness)} behind" if staleness else "behind"
        state = f"stale: {changes.pending} file(s) pending, {behind}"
    else:
        state = "current"
    click.echo(
        f"{opened.root}: {stats.get('files', 0)} files, {stats.get('nodes', 0)} nodes, "
        f"{stats.get('edges', 0)} edges; last sync {ago} ago; {state}"
    )
    if changes.unclaimed:
        click.echo(f"not read (no language): {unclaimed_text(changes.unclaimed)}")
    if watcher is not None:
        click.echo(
            f"watcher: pid {watcher.get('pid')}, {watcher.get('state')}, {watcher.get('syncs', 0)} sync(s)"
            + (f", error: {watcher['error']}" if watcher.get("error") else "")
        )


def _staleness(root: Path, changes: FileChanges, run: dict[str, Any] | None, now: float) -> float:
    """Seconds since the oldest change the stored graph does not hold (0 when current)."""
    if run is None or not changes:
        return 0.0
    oldest = now
    for rel in (*changes.added, *changes.changed, *changes.controls):
        try:
            oldest = min(oldest, (root / rel).stat().st_mtime)
        except OSError:
            continue
    if changes.removed:
        oldest = min(oldest, run["finished"])
    return round(max(now - max(oldest, float(run["started"])), 0.0), 3)


def _ago(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
