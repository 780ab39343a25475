"""``projectgraph sync [PATH]``: bring the stored graph up to date with the working tree."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import deps_option, emit_json, fail, parse_deps_values, progress_bar
from projectgraph.config import ConfigError
from projectgraph.indexer import IndexOptions
from projectgraph.project import Project
from projectgraph.store.lock import WriterBusyError
from projectgraph.store.sqlite import SchemaError
from projectgraph.sync import SyncResult


@click.command("sync")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--full", is_flag=True, help="Read and hash every file (trust no size and time stamp).")
@deps_option
@click.option("--json", "as_json", is_flag=True, help="Print what the sync did as JSON.")
def command(
    path: Path | None, project: Path | None, full: bool, deps: tuple[str, ...], as_json: bool
) -> None:
    """Sync the stored graph of PATH (default: the working directory) with its files."""
    root = (path or project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    units = parse_deps_values(deps, Path.cwd())
    try:
        options = IndexOptions(deps=units) if units is not None else None
        with Project(root) as opened, progress_bar("syncing") as progress:
            result = opened.sync(options, progress=progress, full=full)
    except (ValueError, ConfigError, WriterBusyError, SchemaError) as error:
        fail(str(error))
        return
    except OSError as error:
        fail(f"cannot sync {root}: {error}")
        return
    except KeyboardInterrupt:
        click.echo("projectgraph: sync cancelled; the stored graph is unchanged", err=True)
        raise SystemExit(4) from None
    if as_json:
        emit_json(result.summary())
    else:
        _print(result)
    if result.index.failed:
        raise SystemExit(4)


def _print(result: SyncResult) -> None:
    parts = [f"{len(result.added)} added", f"{len(result.removed)} removed", f"{len(result.changed)} changed"]
    if result.controls:
        parts.append(f"control files changed: {', '.join(result.controls)}")
    what = "re-linked" if result.relinked else "graph unchanged"
    click.echo(
        f"{len(result.index.statuses)} files: {', '.join(parts)}; "
        f"{result.read} read, {result.parsed} parsed; {what} in {result.seconds.get('total', 0.0):.2f} s"
    )
    for status in result.index.statuses:
        if status.status in ("failed", "missing"):
            click.echo(f"  {status.status}: {status.path}: {status.reason}", err=True)
