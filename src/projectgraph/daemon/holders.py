"""Who holds a project's ``writer.pid`` (``daemon.writer``), and what a refused writer is told.

Kept apart from the lock itself so that a client (``daemon.client``) reads it with the standard
library alone.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from projectgraph.daemon.paths import WRITER_PID, read_json


def holder(folder: Path) -> dict[str, Any] | None:
    """Who holds ``folder/writer.pid`` now (its JSON, ``pid`` at least), or None when nobody does."""
    path = folder / WRITER_PID
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
    finally:
        os.close(fd)
    info = read_json(path) or {}
    if not isinstance(info.get("pid"), int):
        info["pid"] = None
    return info


def message(folder: Path, info: dict[str, Any]) -> str:
    """What a writer refused because of ``info``'s holder is told (one line, naming the holder)."""
    pid = info.get("pid")
    who = f" (pid {pid})" if pid else ""
    root = folder.parent
    role = info.get("role")
    if role == "daemon":
        return (
            f"the projectgraph daemon{who} watches {root} and is its one writer: it keeps the index "
            "current (the queries, the MCP server and the viewer go through it unless --no-daemon); "
            "stop it with `projectgraph daemon stop` to write the index from here"
        )
    if role == "watcher":
        return f"another projectgraph watcher{who} watches {root} and is its one writer; stop it first"
    return f"another projectgraph process{who} is writing {folder}; try again when it ends"
