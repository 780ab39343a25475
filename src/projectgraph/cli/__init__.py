"""The ``projectgraph`` command: one module per subcommand, each a thin shell over the library.

Exit codes (documented in the README): 0 success / found; 1 not-found (reach), nothing found
(symbol, path); 2 usage error; 3 uncertain (reach); 4 the run finished but some file failed or the
run was cancelled.
"""

from __future__ import annotations

import click

from projectgraph.cli import (
    audit,
    changes,
    cycles,
    distributed,
    docs,
    embed,
    explore,
    export,
    graph,
    hierarchy,
    impact,
    index,
    overlay,
    path,
    reach,
    search,
    serve,
    status,
    summary,
    symbol,
    sync,
    ui,
    watch,
)
from projectgraph.cli import build as build_module
from projectgraph.cli import callers as callers_module
from projectgraph.cli import compare as compare_module
from projectgraph.cli import daemon as daemon_module
from projectgraph.cli import providers as providers_module
from projectgraph.cli.common import Main

EXIT_OK = 0
EXIT_NOT_FOUND = 1
EXIT_USAGE = 2
EXIT_UNCERTAIN = 3
EXIT_PARTIAL = 4


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="projectgraph")
def main() -> None:
    """The call graph of a whole project, with honest reach answers."""


for _module in (index, graph, reach, symbol, impact, path, hierarchy, cycles, search, status, summary):
    main.add_command(_module.command)
main.add_command(callers_module.callers)
main.add_command(callers_module.callees)
main.add_command(serve.command)
main.add_command(sync.command)
main.add_command(watch.command)
main.add_command(docs.command)
for _shell in (build_module, providers_module, compare_module):  # external providers (issue 17)
    main.add_command(_shell.command)
main.add_command(changes.command)
main.add_command(export.command)
main.add_command(explore.command)
main.add_command(ui.command)
main.add_command(overlay.command)
main.add_command(audit.command)
main.add_command(embed.command)
main.add_command(daemon_module.command)
main.add_command(distributed.command)
