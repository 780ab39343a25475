"""The ``projectgraph`` command: one module per subcommand, each a thin shell over the library.

Exit codes (documented in the README): 0 success / found; 1 not-found (reach), nothing found
(symbol, path); 2 usage error; 3 uncertain (reach); 4 the run finished but some file failed or the
run was cancelled.
"""

from __future__ import annotations

import click

from projectgraph.cli.common import Main

EXIT_OK = 0
EXIT_NOT_FOUND = 1
EXIT_USAGE = 2
EXIT_UNCERTAIN = 3
EXIT_PARTIAL = 4


# each command's module, imported when the command is asked for (``Main``): name -> module:attribute
COMMANDS = {
    "audit": "projectgraph.cli.audit:command",
    "build": "projectgraph.cli.build:command",
    "callees": "projectgraph.cli.callers:callees",
    "callers": "projectgraph.cli.callers:callers",
    "changes": "projectgraph.cli.changes:command",
    "compare": "projectgraph.cli.compare:command",
    "cycles": "projectgraph.cli.cycles:command",
    "daemon": "projectgraph.cli.daemon:command",
    "distributed": "projectgraph.cli.distributed:command",
    "docs": "projectgraph.cli.docs:command",
    "embed": "projectgraph.cli.embed:command",
    "explore": "projectgraph.cli.explore:command",
    "export": "projectgraph.cli.export:command",
    "graph": "projectgraph.cli.graph:command",
    "hierarchy": "projectgraph.cli.hierarchy:command",
    "impact": "projectgraph.cli.impact:command",
    "index": "projectgraph.cli.index:command",
    "overlay": "projectgraph.cli.overlay:command",
    "path": "projectgraph.cli.path:command",
    "providers": "projectgraph.cli.providers:command",
    "reach": "projectgraph.cli.reach:command",
    "search": "projectgraph.cli.search:command",
    "serve": "projectgraph.cli.serve:command",
    "status": "projectgraph.cli.status:command",
    "summary": "projectgraph.cli.summary:command",
    "symbol": "projectgraph.cli.symbol:command",
    "sync": "projectgraph.cli.sync:command",
    "ui": "projectgraph.cli.ui:command",
    "watch": "projectgraph.cli.watch:command",
}


@click.group(cls=Main, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="projectgraph")
def main() -> None:
    """The call graph of a whole project, with honest reach answers."""
