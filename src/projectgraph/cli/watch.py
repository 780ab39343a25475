"""``projectgraph watch [PATH]``: keep the stored graph synced as files change, until Ctrl-C."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from types import FrameType

import click

from projectgraph.cli.common import fail
from projectgraph.config import ConfigError
from projectgraph.daemon.writer import WriterHeldError, WriterPid
from projectgraph.store.sqlite import SchemaError
from projectgraph.sync.watch import Watcher, WatcherBusyError, WatchEvent


@click.command("watch")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option(
    "--debounce",
    "debounce_ms",
    type=int,
    default=100,
    show_default=True,
    help="Milliseconds without a new event that end a batch of changes.",
)
@click.option(
    "--check-every",
    type=float,
    default=30.0,
    show_default=True,
    help="Seconds without events before a check.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line per sync on stdout.")
def command(
    path: Path | None, project: Path | None, debounce_ms: int, check_every: float, as_json: bool
) -> None:
    """Watch PATH (default: the working directory) and sync its graph as files change."""
    root = (path or project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    if debounce_ms < 0 or check_every <= 0:
        fail("--debounce cannot be negative and --check-every must be positive")

    def report(event: WatchEvent) -> None:
        result = event.result
        if as_json:
            line = {"reason": event.reason, "paths": event.paths, "error": event.error}
            if result is not None:
                line |= result.summary()
            click.echo(json.dumps(line, sort_keys=True))
            sys.stdout.flush()
        if event.error:
            click.echo(f"projectgraph watch: {event.reason}: {event.error}", err=True)
        elif result is not None and (result.relinked or event.reason != "check"):
            total = result.seconds.get("total", 0.0)
            what = "re-linked" if result.relinked else "unchanged"
            click.echo(
                f"projectgraph watch: {event.reason}: {result.files_changed} file(s) changed, "
                f"{len(result.controls)} control file(s); {what} in {total:.2f} s",
                err=True,
            )

    try:
        watcher = Watcher(root, debounce_ms=debounce_ms, check_every=check_every, report=report)
    except (ValueError, ConfigError) as error:
        fail(str(error))
        return

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        watcher.stop()

    signal.signal(signal.SIGTERM, on_term)
    try:  # this process is the project's one writer while it watches (daemon.writer)
        held = WriterPid(root / ".projectgraph", "watcher").acquire()
    except (WriterHeldError, OSError) as error:
        fail(str(error))
        return
    click.echo(f"projectgraph watch: watching {root} (Ctrl-C to stop)", err=True)
    try:
        watcher.run()
    except (WatcherBusyError, SchemaError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        pass
    finally:
        held.release()
    click.echo("projectgraph watch: stopped", err=True)
