"""What the subcommands share: the project option, JSON output, the progress bar."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator, MutableMapping
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


class Main(click.Group):
    """The command group: a store that SQLite finds damaged mid-query is one line, never a traceback.

    Its commands are imported when one is asked for (``lazy``: name -> ``module:attribute``), so a
    command pays for its own imports only, not for every other command's (``--version`` and
    ``sync`` imported all of them); ``commands`` (the help of every command) imports them all."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        self._commands: dict[str, click.Command] = {}
        self.lazy: dict[str, str] = dict(lazy or {})
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        for name in sorted(self.lazy):
            self._load(name)
        return self._commands

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._commands = dict(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._commands[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load(cmd_name)
        return self._commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self._commands, *self.lazy})

    def _load(self, name: str) -> None:
        where = self.lazy.pop(name, None)
        if where is not None:
            module, _, attribute = where.partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)

    def invoke(self, ctx: click.Context) -> Any:
        import sqlite3

        try:
            return super().invoke(ctx)
        except sqlite3.OperationalError as error:  # busy, locked, read-only: not damage
            fail(f"the index (.projectgraph/graph.db) could not be read ({error}); try again")
        except sqlite3.DatabaseError as error:
            fail(
                f"the index (.projectgraph/graph.db) is damaged ({error}): run `projectgraph index "
                "--rebuild` to rebuild it from the sources"
            )


def fail(message: str, code: int = 2) -> None:
    click.echo(f"projectgraph: {message}", err=True)
    raise SystemExit(code)


DEPS_HELP = (
    "Dependency code to index and link too (repeatable): auto (the default: the packages the project "
    "imports from its .venv/venv/$VIRTUAL_ENV, node_modules, Go vendor/ or module cache, Cargo vendor/ "
    "or registry), stdlib (adds the standard library), DIR=UNIT (a folder as one unit, as "
    "vendor/yaml=pypi:PyYAML@6.0.2), DIR=ECOSYSTEM (a folder of units, as site-packages=pypi or "
    "node_modules=npm), or none."
)


def deps_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """The repeatable ``--deps`` option (a tuple of values; empty: as before, else auto)."""
    return click.option("--deps", "deps", multiple=True, metavar="VALUE", help=DEPS_HELP)(function)


def report_format_options(what: str, sarif: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--json`` and ``--format text|json|sarif`` (as ``as_json`` and ``output``): ``what`` is what
    the JSON holds, ``sarif`` what a SARIF result is."""

    def options(function: Callable[..., Any]) -> Callable[..., Any]:
        function = click.option(
            "--format",
            "output",
            type=click.Choice(["text", "json", "sarif"]),
            default="text",
            help=f"text, json, or sarif (SARIF 2.1.0: {sarif}).",
        )(function)
        return click.option("--json", "as_json", is_flag=True, help=f"Print {what} as JSON (--format json).")(
            function
        )

    return options


def parse_deps_values(values: tuple[str, ...], base: Any) -> Any:
    """The ``DepsConfig`` of ``--deps`` values (None when none was given); a bad value fails (exit 2)."""
    from projectgraph.units import DepsError, parse_deps

    if not values:
        return None
    try:
        return parse_deps(values, base)
    except DepsError as error:
        fail(str(error))
        raise AssertionError from error  # fail() exits
