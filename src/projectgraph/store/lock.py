"""The writer lock: one process mutates a project's store at a time.

The kernel lock (``fcntl.flock`` on ``.projectgraph/writer.lock``) is the authority: it is released
when the process exits, however it exits, so a killed writer never leaves a stale lock. The pid
written in the file only helps the message a second writer prints.

A forked child (the indexer's process pool) would share the locked file description and keep the
lock alive after its parent dies, so each child closes its copies of the held descriptors at fork.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from projectgraph import safefs


class WriterBusyError(RuntimeError):
    """Another process holds the writer lock."""


_HELD: set[int] = set()  # descriptors of the locks this process holds


def _close_in_child() -> None:
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_in_child)


def take_pid_lock(path: Path, busy: Callable[[str], Exception]) -> int:
    """The descriptor of ``path`` (made in its folder) locked exclusively, with this process's pid
    written in it; ``busy(who)`` is raised when another process holds it (``who``: " (pid N)"
    when its pid can be read, else "")."""
    fd = safefs.open_in_folder(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = ""
        with contextlib.suppress(OSError):
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
        os.close(fd)
        raise busy(f" (pid {holder})" if holder else "") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def lock_held(path: Path) -> bool:
    """Whether a process holds an exclusive lock on ``path`` now (a shared one cannot be had)."""
    try:
        fd = safefs.open_in_folder(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


class WriterLock:
    def __init__(self, folder: str | os.PathLike[str], create: bool = True) -> None:
        """``create``: make the folder when it is missing; when not, a missing folder is a
        ``FileNotFoundError`` (a daemon whose index was removed must not make it again)."""
        self.path = Path(folder) / "writer.lock"
        self.create = create
        self._fd: int | None = None

    def acquire(self) -> WriterLock:
        if self.path.parent.name == safefs.INDEX_FOLDER:
            safefs.index_folder(self.path.parent.parent, self.create)  # not a link out of the project
        elif self.create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        folder = self.path.parent
        fd = take_pid_lock(
            self.path,
            lambda who: WriterBusyError(
                f"another projectgraph process{who} is writing {folder}; try again when it ends"
            ),
        )
        self._fd = fd
        _HELD.add(fd)
        return self

    def release(self) -> None:
        if self._fd is not None:
            _HELD.discard(self._fd)
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
