"""A query command answered by the project's daemon, before the library is imported.

``run`` sends a query command (``ROUTED``) with its arguments and the working directory to the
daemon of its project (``--project``, else the working directory), starting the daemon when none
runs (it indexes a project that has none, as a query in direct mode does), and prints what the
daemon printed, exit code included: the same command runs there, on an index its watcher keeps
current, so the output is the one direct mode gives once the project is synced. Anything else
(another command, ``--help``, direct mode, a daemon that cannot serve) returns None: the caller runs
the command in process. ``--no-daemon`` anywhere on the line is direct mode (it is removed from
``argv``, and ``PROJECTGRAPH_NO_DAEMON`` set). Standard library only (``projectgraph_launch``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from projectgraph.daemon.paths import NO_DAEMON, direct_mode

ROUTED = frozenset(
    (
        "callers",
        "callees",
        "symbol",
        "search",
        "impact",
        "path",
        "hierarchy",
        "cycles",
        "reach",
        "changes",
        "explore",
    )
)
LOCAL = frozenset(("-h", "--help", "--version"))


def _project(args: list[str]) -> tuple[Path, list[str]] | None:
    """The project root ``args`` name (``--project``, else the working directory), and ``args``
    without it; None when the value is missing (the command line then reports it)."""
    rest: list[str] = []
    named: str | None = None
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            rest += args[index:]
            break
        if arg == "--project":
            if index + 1 >= len(args):
                return None
            named, skip = args[index + 1], True
        elif arg.startswith("--project="):
            named = arg.partition("=")[2]
        else:
            rest.append(arg)
    try:
        root = Path(named or os.getcwd()).expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    return root, rest


def run(argv: list[str]) -> int | None:
    """The exit code of the command of ``argv`` (``sys.argv``) as the daemon ran it, or None."""
    if "--no-daemon" in argv:
        argv[:] = [a for a in argv if a != "--no-daemon"]
        os.environ[NO_DAEMON] = "1"
        return None
    args = argv[1:]
    if direct_mode() or not args or args[0] not in ROUTED or LOCAL.intersection(args):
        return None
    found = _project(args[1:])
    if found is None or not found[0].is_dir():
        return None
    root, rest = found
    from projectgraph.daemon.client import Client, DaemonUnavailable

    try:
        answer = Client(root, create=True).request(
            {"op": "cli", "argv": [args[0], *rest, "--project", str(root)], "cwd": os.getcwd()}
        )
    except DaemonUnavailable:
        return None
    if not answer.get("ok"):
        return None
    sys.stdout.write(str(answer.get("stdout", "")))
    sys.stderr.write(str(answer.get("stderr", "")))
    code = answer.get("code")
    return code if isinstance(code, int) else 1
