"""Where a project's daemon lives: its files in the index folder, its socket, the registry of all.

Files of the index folder (``ROOT/.projectgraph``): ``daemon.json`` (the rendezvous: pid, version,
socket, start time; written once the socket listens), ``daemon.sock`` (the socket, unless its path
is too long for ``sun_path``: then a socket named by a hash of the folder under the runtime dir),
``daemon.log`` (its log) and ``writer.pid`` (``daemon.writer``). The runtime dir is
``$XDG_RUNTIME_DIR/projectgraph`` when that is a private folder, else ``/tmp/projectgraph-UID``
(made 0700, refused when another user owns it); ``daemons/`` in it lists the running daemons for
``projectgraph daemon list``. Standard library only (see the package docstring).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from projectgraph_launch import INDEX_FOLDER as INDEX_FOLDER
from projectgraph_launch import NO_DAEMON as NO_DAEMON
from projectgraph_launch import PROTOCOL as PROTOCOL
from projectgraph_launch import RENDEZVOUS as RENDEZVOUS
from projectgraph_launch import VERSION_OVERRIDE as VERSION_OVERRIDE
from projectgraph_launch import direct_mode as direct_mode

SOCKET = "daemon.sock"
LOG = "daemon.log"
WRITER_PID = "writer.pid"

MAX_SOCKET_PATH = 100
"""Bytes of a socket path kept in the index folder (sun_path holds 108 with its NUL on Linux)."""

IDLE = "PROJECTGRAPH_DAEMON_IDLE"
DEFAULT_IDLE = 600.0


def idle_seconds() -> float:
    """The idle period of a daemon started now (``PROJECTGRAPH_DAEMON_IDLE``, else 10 minutes)."""
    text = os.environ.get(IDLE, "").strip()
    try:
        value = float(text) if text else DEFAULT_IDLE
    except ValueError:
        return DEFAULT_IDLE
    return value if value > 0 else DEFAULT_IDLE


def index_folder(root: Path) -> Path:
    return root / INDEX_FOLDER


def database(root: Path) -> Path:
    return root / INDEX_FOLDER / "graph.db"


def is_indexed(root: Path) -> bool:
    return database(root).is_file()


def installed_version() -> str:
    """This install's version (``PROJECTGRAPH_DAEMON_VERSION`` instead when set)."""
    override = os.environ.get(VERSION_OVERRIDE, "").strip()
    if override:
        return override
    # the dist-info folder's name says it, found as importlib.metadata would, without its imports
    # (a query through the daemon pays for every import of its interpreter)
    for entry in sys.path:
        with contextlib.suppress(OSError):
            for name in os.listdir(entry or "."):
                if name.startswith("projectgraph-") and name.endswith(".dist-info"):
                    return name[len("projectgraph-") : -len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("projectgraph")
    except PackageNotFoundError:
        return "0"


def version_tuple(text: str) -> tuple[int, ...] | None:
    """``X.Y.Z`` as numbers; None for any other form (a dev or local version: never compared)."""
    if not re.fullmatch(r"\d+(\.\d+)*", text):
        return None
    return tuple(int(part) for part in text.split("."))


def is_older(theirs: str, mine: str) -> bool:
    """Whether a daemon of version ``theirs`` is of an older plain release than ``mine``."""
    a, b = version_tuple(theirs), version_tuple(mine)
    return a is not None and b is not None and a < b


def runtime_dirs() -> list[Path]:
    uid = os.getuid()
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    candidates = []
    if base and os.path.isabs(base):
        candidates.append(Path(base) / "projectgraph")
    candidates.append(Path("/tmp") / f"projectgraph-{uid}")
    return candidates


def runtime_dir(fits: int = 0) -> Path:
    """The private folder for long-path sockets and the registry (made on first use); with
    ``fits``, the first whose path leaves room for that many more bytes in a socket path."""
    uid = os.getuid()
    candidates = runtime_dirs()
    for folder in candidates:
        if fits and len(os.fsencode(str(folder))) + 1 + fits > MAX_SOCKET_PATH:
            continue
        with contextlib.suppress(OSError):
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, 0o700)
            st = os.lstat(folder)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o077:
                return folder
    raise OSError(
        f"no private runtime folder for projectgraph daemons (tried {', '.join(map(str, candidates))})"
    )


def folder_key(folder: Path) -> str:
    return hashlib.sha256(os.fsencode(str(folder))).hexdigest()[:24]


def socket_path(folder: Path) -> Path:
    """The socket of the daemon of ``folder``: in it, or under the runtime dir for a long path."""
    inside = folder / SOCKET
    if len(os.fsencode(str(inside))) <= MAX_SOCKET_PATH:
        return inside
    name = f"{folder_key(folder)}.sock"
    return runtime_dir(fits=len(name)) / name


def registry() -> Path:
    folder = runtime_dir() / "daemons"
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    return folder


def read_json(path: Path) -> dict[str, Any] | None:
    """A small JSON object file, or None when it is absent, unreadable, a link or not an object."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, 1 << 16)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
