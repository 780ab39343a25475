"""``projectgraph index [PATH]``: index a project and store it in ``.projectgraph/graph.db``."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import emit_json, fail, progress_bar
from projectgraph.config import ConfigError
from projectgraph.indexer import IndexOptions, IndexResult, run_index
from projectgraph.store import open_project_store


@click.command("index")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--languages", "languages", help="Comma-separated languages to index (default: all).")
@click.option("--workers", type=int, default=0, show_default=True, help="Worker processes (0: CPU count).")
@click.option("--max-file-bytes", type=int, default=0, help="Size limit of a file (0: 4 MiB).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def command(
    path: Path | None,
    project: Path | None,
    languages: str | None,
    workers: int,
    max_file_bytes: int,
    as_json: bool,
) -> None:
    """Index the project at PATH (default: the working directory)."""
    root = (path or project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    names = tuple(n.strip() for n in languages.split(",") if n.strip()) if languages else ()
    try:
        options = IndexOptions(languages=names, workers=workers, max_file_bytes=max_file_bytes)
        store = open_project_store(root)
        with progress_bar("indexing") as progress:
            result = run_index(root, options, store, progress)
        store.close()
    except (ValueError, ConfigError) as error:
        fail(str(error))
        return
    summary = result.summary()
    if as_json:
        emit_json(summary)
    else:
        _print(result)
    if result.failed:
        raise SystemExit(4)


def _print(result: IndexResult) -> None:
    summary = result.summary()
    statuses = ", ".join(f"{n} {s}" for s, n in summary["statuses"].items()) or "no files"
    click.echo(f"{summary['files']} files ({statuses}) in {summary['seconds']:.2f} s")
    for language, counts in summary["languages"].items():
        click.echo(f"  {language}: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    click.echo(f"{summary['definitions']} definitions, {summary['calls']} calls, {summary['imports']} imports")
    for problem in summary["problems"]:
        click.echo(f"  {problem['status']}: {problem['path']}: {problem['reason']}", err=True)
    if result.error:
        click.echo(f"projectgraph: {result.error}", err=True)
