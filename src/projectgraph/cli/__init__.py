"""The ``projectgraph`` command: one module per subcommand, each a thin shell over the library.

Exit codes (documented in the README): 0 success / found; 1 not-found; 2 usage error;
3 uncertain; 4 the run finished but some file failed or the run was cancelled.
"""

from __future__ import annotations

import click

from projectgraph.cli import graph as graph_command
from projectgraph.cli import index as index_command
from projectgraph.cli import reach as reach_command

EXIT_OK = 0
EXIT_NOT_FOUND = 1
EXIT_USAGE = 2
EXIT_UNCERTAIN = 3
EXIT_PARTIAL = 4


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="projectgraph")
def main() -> None:
    """The call graph of a whole project, with honest reach answers."""


for _command in (index_command, graph_command, reach_command):
    main.add_command(_command.command)
