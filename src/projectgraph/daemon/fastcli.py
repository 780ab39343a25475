"""A query command answered by the project's daemon, before the library is imported.

``run`` sends a query command (``ROUTED``) with its arguments and the working directory to the
daemon of its project (``--project``, else the working directory), starting the daemon when none
runs (it indexes a project that has none, as a query in direct mode does), and prints what the
daemon printed, exit code included: the same command runs there, on an index its watcher keeps
current, so the output is the one direct mode gives once the project is synced. Anything else
(another command, ``--help``, direct mode, a daemon that cannot serve) returns None: the caller runs
the command in process. ``--no-daemon`` anywhere on the line is direct mode (it is removed from
``argv``, and ``PROJECTGRAPH_NO_DAEMON`` set). Standard library only. ``projectgraph_launch.forward``
has already tried the quick way (a daemon that runs, of this install) before this is imported.
"""

from __future__ import annotations

import os
from pathlib import Path

from projectgraph.daemon.paths import NO_DAEMON, direct_mode
from projectgraph_launch import LOCAL, ROUTED, deliver, project_of


def run(argv: list[str]) -> int | None:
    """The exit code of the command of ``argv`` (``sys.argv``) as the daemon ran it, or None."""
    if "--no-daemon" in argv:
        argv[:] = [a for a in argv if a != "--no-daemon"]
        os.environ[NO_DAEMON] = "1"
        return None
    args = argv[1:]
    if direct_mode() or not args or args[0] not in ROUTED or LOCAL.intersection(args):
        return None
    found = project_of(args[1:])
    if found is None or not os.path.isdir(found[0]):
        return None
    root, rest = found
    from projectgraph.daemon.client import Client, DaemonUnavailable

    try:
        answer = Client(Path(root), create=True).request(
            {"op": "cli", "argv": [args[0], *rest, "--project", root], "cwd": os.getcwd()}
        )
    except DaemonUnavailable:
        return None
    if not answer.get("ok"):
        return None
    return deliver(answer)
