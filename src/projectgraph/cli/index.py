"""``projectgraph index [PATH]``: index a project and store it in ``.projectgraph/graph.db``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph.cli.common import deps_option, emit_json, fail, parse_deps_values, progress_bar
from projectgraph.config import ConfigError
from projectgraph.indexer import IndexOptions, IndexResult
from projectgraph.project import Project
from projectgraph.store.lock import WriterBusyError
from projectgraph.store.sqlite import SchemaError
from projectgraph.units import AUTO_DEPS


@click.command("index")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--languages", "languages", help="Comma-separated languages to index (default: all).")
@click.option("--workers", type=int, default=0, show_default=True, help="Worker processes (0: CPU count).")
@click.option("--max-file-bytes", type=int, default=0, help="Size limit of a file (0: 4 MiB).")
@deps_option
@click.option(
    "--rebuild",
    is_flag=True,
    help="Delete the stored index and build it again from the sources (a damaged store is rebuilt anyway).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def command(
    path: Path | None,
    project: Path | None,
    languages: str | None,
    workers: int,
    max_file_bytes: int,
    deps: tuple[str, ...],
    rebuild: bool,
    as_json: bool,
) -> None:
    """Index the project at PATH (default: the working directory)."""
    root = (path or project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    names = tuple(n.strip() for n in languages.split(",") if n.strip()) if languages else ()
    units = parse_deps_values(deps, Path.cwd()) or AUTO_DEPS  # index: auto unless asked (sync keeps)
    try:
        options = IndexOptions(languages=names, workers=workers, max_file_bytes=max_file_bytes, deps=units)
        with Project(root) as opened, progress_bar("indexing") as progress:
            done = opened.index(options, progress, rebuild=rebuild)
            # an unchanged project keeps its stored graph (no link, no write): its counts are the run's
            stats = done.stats if done.relinked else opened.stored_stats()
    except (ValueError, ConfigError, WriterBusyError, SchemaError) as error:
        fail(str(error))
        return
    except OSError as error:  # the store folder cannot be made or written
        fail(f"cannot index {root}: {error}")
        return
    result = done.index
    summary = result.summary() | {"graph": _graph_summary(stats)}
    if as_json:
        emit_json(summary)
    else:
        _print(result, stats)
    if result.failed:
        raise SystemExit(4)


def _graph_summary(stats: dict[str, Any]) -> dict[str, object]:
    keys = ("nodes", "edges", "unresolved", "roots", "root_fallback")
    summary: dict[str, object] = {k: stats[k] for k in keys}
    summary["units"] = sorted(stats.get("units") or ())
    summary["package_edges"] = stats.get("package_edges", 0)
    return summary


def unclaimed_text(unclaimed: tuple[tuple[str, int], ...]) -> str:
    """``12 files (.md 8, no extension 3, .png 1)``: the most common extension first."""
    total = sum(n for _, n in unclaimed)
    ordered = sorted(unclaimed, key=lambda item: (-item[1], item[0]))
    parts = ", ".join(f"{ext or 'no extension'} {n}" for ext, n in ordered)
    return f"{total} file{'s' if total != 1 else ''} ({parts})"


def _print(result: IndexResult, stats: dict[str, Any]) -> None:
    summary = result.summary()
    statuses = ", ".join(f"{n} {s}" for s, n in summary["statuses"].items()) or "no files"
    click.echo(f"{summary['files']} files ({statuses}) in {summary['seconds']:.2f} s")
    for language, counts in summary["languages"].items():
        click.echo(f"  {language}: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    if result.unclaimed:
        click.echo(f"  not read (no language): {unclaimed_text(result.unclaimed)}")
    click.echo(
        f"{summary['definitions']} definitions, {summary['calls']} calls, {summary['imports']} imports"
    )
    click.echo(
        f"graph: {stats['nodes']} nodes, {stats['edges']} edges, {stats['unresolved']} unresolved sites, "
        f"{stats['roots']} roots"
        + (" (root fallback: no entry point found)" if stats["root_fallback"] else "")
    )
    units = summary["units"]
    if units:
        files = sum(u["files"] for u in units.values())
        failed = sum(
            n for u in units.values() for s, n in u["statuses"].items() if s != "indexed" and s != "cached"
        )
        click.echo(
            f"dependencies: {len(units)} units, {files} files"
            + (f" ({failed} not indexed)" if failed else "")
            + f", {stats.get('package_edges', 0)} package edges"
        )
    for problem in summary["problems"]:
        click.echo(f"  {problem['status']}: {problem['path']}: {problem['reason']}", err=True)
    if result.error:
        click.echo(f"projectgraph: {result.error}", err=True)
