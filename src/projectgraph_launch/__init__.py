"""The ``projectgraph`` command's entry point: a query goes to the project's daemon first.

Importing ``projectgraph`` runs its ``__init__``, which imports the whole library (about a second
of a query's 0.4 s on a quiet machine goes to imports). A query that the project's daemon answers
needs none of it, so this entry imports the package without running its ``__init__`` (the package
object is made from its spec and only executed when the full command line is needed), asks
``projectgraph.daemon.fastcli`` to have the daemon answer, and falls back to the full command group
(``projectgraph.cli.main``) for everything else. This package holds nothing else.
"""

from __future__ import annotations

import importlib.util
import sys


def main() -> None:
    spec = importlib.util.find_spec("projectgraph")
    if spec is None or spec.loader is None or "projectgraph" in sys.modules:
        from projectgraph.cli import main as full

        full()
        return
    package = importlib.util.module_from_spec(spec)
    sys.modules["projectgraph"] = package  # its __init__ has not run: its submodules import alone
    try:
        from projectgraph.daemon import fastcli

        code = fastcli.run(sys.argv)
    except BaseException:
        del sys.modules["projectgraph"]
        raise
    if code is not None:
        sys.stdout.flush()
        sys.exit(code)
    spec.loader.exec_module(package)  # the package as an import would have made it, then the CLI
    from projectgraph.cli import main as full

    full()
