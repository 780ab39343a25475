"""``writer.pid``: the kernel lock of the one long-lived writer of a project.

The process that keeps a project's index current holds an exclusive ``flock`` on
``.projectgraph/writer.pid`` for as long as it does so: the daemon for its whole life, a direct-mode
watcher (``projectgraph watch``) for its whole life, a direct-mode one-shot writer (``index``,
``sync``, a query's catch-up sync) for the length of its write. So there is one daemon per index
folder, and a direct-mode writer beside a daemon or a watcher fails fast (exit 2) with a message
naming the holder, instead of alternating sync mutations with it. The JSON in the file (pid, role,
start time, version) only serves that message and ``projectgraph daemon status``: the kernel lock is
the authority, released however the holder ends, so a killed daemon leaves no stale lock. Each
mutation still takes the short-lived ``writer.lock`` (``store.lock``) as before.

The lock is per process and reentrant: the daemon holds it, and the watcher and the syncs it runs in
the same process pass. A forked child (the indexer's pool) closes its copy at fork, so a child that
outlives a killed daemon does not keep the project locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from projectgraph.daemon.holders import holder, message
from projectgraph.daemon.paths import WRITER_PID, installed_version, read_json
from projectgraph.store.lock import WriterBusyError

ROLES = ("daemon", "watcher", "writer")
__all__ = ["ROLES", "WriterHeldError", "WriterPid", "held_here", "holder", "message"]

_HELD: dict[str, tuple[int, int, str]] = {}  # folder -> (fd, holds, role) of the locks this process holds


def _close_in_child() -> None:
    for fd, _holds, _role in list(_HELD.values()):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_in_child)


class WriterHeldError(WriterBusyError):
    """Another process is this project's long-lived writer (a daemon, a watcher, a writer)."""

    def __init__(self, message: str, holder: dict[str, Any]) -> None:
        super().__init__(message)
        self.holder = holder


def held_here(folder: Path) -> str | None:
    """The role under which this process holds ``folder``'s writer.pid, or None."""
    entry = _HELD.get(os.fspath(folder))
    return entry[2] if entry else None


class WriterPid:
    """The lock on ``folder/writer.pid`` under ``role`` (daemon, watcher or writer)."""

    def __init__(self, folder: str | os.PathLike[str], role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"unknown writer role {role!r}")
        self.folder = Path(folder)
        self.role = role
        self._holding = False

    def acquire(self) -> WriterPid:
        from projectgraph import safefs

        key = os.fspath(self.folder)
        if key in _HELD:  # this process holds it already (the daemon, then its watcher's syncs)
            fd, holds, role = _HELD[key]
            _HELD[key] = (fd, holds + 1, role)
            self._holding = True
            return self
        if self.folder.name == safefs.INDEX_FOLDER:
            safefs.index_folder(self.folder.parent)  # not a link out of the project
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / WRITER_PID
        fd = safefs.open_in_folder(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            info = read_json(path) or {"pid": None}
            raise WriterHeldError(message(self.folder, info), info) from None
        record = {
            "pid": os.getpid(),
            "role": self.role,
            "started": time.time(),
            "version": installed_version(),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record, sort_keys=True).encode(), 0)
        _HELD[key] = (fd, 1, self.role)
        self._holding = True
        return self

    def release(self) -> None:
        if not self._holding:
            return
        self._holding = False
        key = os.fspath(self.folder)
        fd, holds, role = _HELD[key]
        if holds > 1:
            _HELD[key] = (fd, holds - 1, role)
            return
        del _HELD[key]
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> WriterPid:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
