"""Safe file system access: every file projectgraph reads, and every file it writes in its index folder.

A project is untrusted input (a clone of anyone's repository), so three rules hold for every read
and write, here, once:

- **a read is of a regular file, with a bound.** The file is opened non-blocking and checked with
  ``fstat`` on the open descriptor: a FIFO, a socket or a device named ``requirements.txt`` is
  refused (``NotRegularFileError``) instead of blocking ``open()`` for ever, and no more than
  ``limit`` bytes are read (``TooLargeError`` past it);
- **a read inside a project stays inside it.** ``read_bytes(path, root=...)`` refuses a file whose
  real path (a symlink's target) is outside ``root`` (``OutsideRootError``): a control file that is a
  link to ``~/.ssh/config`` is not read;
- **the index folder (``.projectgraph``) is written without following links.** Its files are opened
  with ``O_NOFOLLOW``, created with ``O_EXCL``, and the folder itself may not be a link out of the
  project (``IndexFolderError``): a committed ``.projectgraph/writer.lock -> ../../x`` does not
  truncate ``x``.

Every error is an ``OSError``, so a caller that already handles an unreadable file handles these too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

INDEX_FOLDER = ".projectgraph"
DEFAULT_LIMIT = 16 * 1024 * 1024
"""The bound of a control file's read (a manifest, a lock file, a .gitignore): far above any real one."""

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class SafeFsError(OSError):
    """A refusal of this module: the path, then why (``str`` is one line a user can act on)."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}" if self.filename else str(self.strerror)


class NotRegularFileError(SafeFsError):
    """The path names a FIFO, socket, device or folder, which a read could block on for ever."""


class TooLargeError(SafeFsError):
    """The file holds more bytes than the read's bound."""


class OutsideRootError(SafeFsError):
    """The path (a symlink) leads out of the project root."""


class IndexFolderError(SafeFsError):
    """The index folder, or a file in it, is a link (or not what it must be): refused, not followed."""


def _error(kind: type[OSError], code: int, message: str, path: str | os.PathLike[str]) -> OSError:
    return kind(code, message, os.fspath(path))


def _real_path(fd: int, path: str | os.PathLike[str]) -> str:
    """The real path of an open descriptor (``/proc`` on Linux, else the path's ``realpath``)."""
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/self/fd/{fd}")
    return os.path.realpath(path)


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path``'s real path is ``root``'s real path or below it."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def project_file(root: str | os.PathLike[str], rel: str) -> str | None:
    """The full path of ``rel`` under ``root`` when it is a plain relative path (no ``..``, not
    absolute) whose real path stays inside the root, else None: a path from the store is data, and a
    planted store must not get ``/etc/shadow`` looked at."""
    if not rel or "\0" in rel or rel.startswith("/") or os.path.isabs(rel):
        return None
    if any(part in ("", ".", "..") for part in rel.split("/")):
        return None
    full = os.path.join(root, rel)
    return full if inside(full, root) else None


def read_bytes(
    path: str | os.PathLike[str],
    *,
    limit: int = DEFAULT_LIMIT,
    root: str | os.PathLike[str] | None = None,
    follow: bool = True,
) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them; never blocks on a FIFO.

    ``root``: the file's real path must be inside it. ``follow=False``: a symlink is refused."""
    flags = _READ_FLAGS | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow:
            raise _error(IndexFolderError, errno.ELOOP, "is a symbolic link (not followed)", path) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _error(NotRegularFileError, errno.EINVAL, "not a regular file", path)
        if st.st_size > limit:
            raise _error(TooLargeError, errno.EFBIG, f"larger than the limit of {limit} bytes", path)
        if root is not None:
            real = _real_path(fd, path)
            real_root = os.path.realpath(root)
            if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
                raise _error(OutsideRootError, errno.EACCES, "a link out of the project (not read)", path)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise _error(TooLargeError, errno.EFBIG, f"grew past the limit of {limit} bytes while read", path)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_or_none(
    path: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT, root: str | os.PathLike[str] | None = None
) -> bytes | None:
    """``read_bytes``, or None when the file cannot be read safely (absent, unreadable, not a
    regular file, too large, a link out of ``root``)."""
    try:
        return read_bytes(path, limit=limit, root=root)
    except OSError:
        return None


def read_head(path: str | os.PathLike[str], size: int) -> bytes:
    """The first ``size`` bytes of a regular file (a shorter file whole); never blocks on a FIFO."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _error(NotRegularFileError, errno.EINVAL, "not a regular file", path)
        return os.read(fd, size)
    finally:
        os.close(fd)


def read_text(
    path: str | os.PathLike[str],
    *,
    limit: int = DEFAULT_LIMIT,
    root: str | os.PathLike[str] | None = None,
    follow: bool = True,
    errors: str = "strict",
) -> str:
    """``read_bytes`` decoded as UTF-8 (``errors`` as ``bytes.decode``)."""
    return read_bytes(path, limit=limit, root=root, follow=follow).decode("utf-8", errors)


def is_regular(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``path`` is a regular file (following links), inside ``root`` when given."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
    except OSError:
        return False
    return root is None or inside(path, root)


# ---- the index folder -------------------------------------------------------------------------


def index_folder(root: str | os.PathLike[str], create: bool = True) -> Path:
    """``ROOT/.projectgraph``, made when ``create``; refused when it is a link out of the root or
    not a folder."""
    folder = Path(root) / INDEX_FOLDER
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return folder
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o755)
        st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode):
        if not inside(folder, root) or not os.path.isdir(folder):
            raise _error(
                IndexFolderError,
                errno.ELOOP,
                "the index folder is a symbolic link out of the project: refused (delete the link)",
                folder,
            )
    elif not stat.S_ISDIR(st.st_mode):
        raise _error(IndexFolderError, errno.ENOTDIR, "the index folder is not a folder (delete it)", folder)
    return folder


def open_in_folder(path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
    """A descriptor on a file of the index folder, opened without following a link, non-blocking,
    and checked to be a regular file (a FIFO or a link is an ``IndexFolderError``)."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _error(
                IndexFolderError, errno.ELOOP, "is a symbolic link: refused (delete it)", path
            ) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _error(IndexFolderError, errno.EINVAL, "is not a regular file: refused (delete it)", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_in_folder(path: str | os.PathLike[str]) -> None:
    """Refuse a file of the index folder that is a link or not a regular file (absent is fine)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise _error(IndexFolderError, errno.ELOOP, "is a symbolic link: refused (delete it)", path)
    if not stat.S_ISREG(st.st_mode):
        raise _error(IndexFolderError, errno.EINVAL, "is not a regular file: refused (delete it)", path)


def write_in_folder(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace a file of the index folder: written to a fresh temporary file (``O_EXCL``, never a
    link), then renamed over the old one (a rename replaces a link, it does not write through it)."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    fd = open_in_folder(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(temporary, target)


def create_in_folder(path: str | os.PathLike[str], data: bytes) -> None:
    """Write a file of the index folder that is absent; leave one that exists (a link is refused)."""
    check_in_folder(path)
    try:
        fd = open_in_folder(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
