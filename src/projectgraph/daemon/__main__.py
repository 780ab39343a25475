"""``python -m projectgraph.daemon ROOT [--idle SECONDS] [--create]``: run a project's daemon.

Clients start it this way (``daemon.client``), detached; it can also run in the foreground. Exit
codes: 0 after a clean exit or when another daemon has the project, 2 when a direct-mode writer
has it, 3 when the project is not indexed and ``--create`` was not given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from projectgraph.daemon.paths import idle_seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m projectgraph.daemon", description=__doc__)
    parser.add_argument("root", type=Path, help="The project's root folder.")
    parser.add_argument("--idle", type=float, default=None, help="Seconds idle after the last client.")
    parser.add_argument("--create", action="store_true", help="Index the project when it has no index.")
    parser.add_argument("--debounce", type=int, default=None, help="Milliseconds that end a batch of events.")
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        print(f"projectgraph daemon: not a folder: {args.root}", file=sys.stderr)
        return 2
    from projectgraph.daemon.server import DEBOUNCE_MS, Daemon

    idle = args.idle if args.idle is not None and args.idle > 0 else idle_seconds()
    debounce = args.debounce if args.debounce is not None and args.debounce >= 0 else DEBOUNCE_MS
    return Daemon(args.root, idle, create=args.create, debounce_ms=debounce).run()


if __name__ == "__main__":
    sys.exit(main())
