"""What the subcommands share: the project option, JSON output, the progress bar."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False))


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when it is a terminal; None (no output) otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def fail(message: str, code: int = 2) -> None:
    click.echo(f"projectgraph: {message}", err=True)
    raise SystemExit(code)
