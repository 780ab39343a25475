"""A client of a project's daemon: find it, start it when none runs, ask, and hold a lease.

``Client.request`` sends one request on a fresh connection to the daemon the rendezvous names, and
answers what the daemon answered. When no daemon answers, the client looks at ``writer.pid``: a
daemon that holds it is starting (or stopping): wait; a direct-mode writer that holds it is this
project's writer: ``DaemonUnavailable`` with its message (the caller goes direct); nobody: start a
daemon (``python -m projectgraph.daemon ROOT``, detached, its output in ``daemon.log``). Waits back
off exponentially (50 ms doubling to 1 s; a start is retried after 2, 4, 8 s), up to a deadline.

A client never creates an index: unless it was made with ``create`` (a CLI query, which indexes a
project first, as in direct mode), it checks before each try that the project is indexed and raises
``IndexGone`` otherwise, so a client whose daemon died with its index does not bring either back.

A daemon of an older plain release (``X.Y.Z`` below this install's) is asked to drain, then
replaced by one of this install; a newer one keeps the project and is used when it speaks this
protocol. ``Lease`` is a connection held open (an MCP session, the viewer) so the daemon stays;
lost, it re-attaches with the same backoff, in a thread, never creating the index.

Standard library only, but for ``daemon.writer`` (see the package docstring).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from projectgraph.daemon import holders
from projectgraph.daemon.paths import (
    NO_DAEMON,
    PROTOCOL,
    RENDEZVOUS,
    idle_seconds,
    index_folder,
    installed_version,
    is_indexed,
    is_older,
    read_json,
)
from projectgraph.daemon.protocol import ProtocolError, Reader, send

START_WAIT = 60.0
"""Seconds a client waits for a daemon it started to listen (its imports and a catch-up sync)."""
CONNECT_TIMEOUT = 5.0


_STARTED: set[int] = set()  # the daemons this process started that it has not reaped yet
_STARTED_LOCK = threading.Lock()


def reap() -> None:
    """Reap the daemons this process started that have ended (a daemon is a child of the client
    that started it: until reaped, an ended one stays a zombie)."""
    with _STARTED_LOCK:
        for pid in list(_STARTED):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                _STARTED.discard(pid)


class DaemonUnavailable(RuntimeError):
    """No daemon can serve the project now (the message says why); the caller may go direct."""


class IndexGone(DaemonUnavailable):
    """The project has no index, and this client may not create one."""


def rendezvous(root: Path) -> dict[str, Any] | None:
    """The rendezvous of the daemon of ``root``, when its file is there (it may be a dead one's)."""
    info = read_json(index_folder(root) / RENDEZVOUS)
    if info is None or not isinstance(info.get("socket"), str) or not isinstance(info.get("pid"), int):
        return None
    return info


def live(root: Path) -> dict[str, Any] | None:
    """The rendezvous of the daemon of ``root`` when that daemon holds writer.pid now (the kernel
    lock says it lives: a pid can be a zombie's or reused), else None."""
    info = rendezvous(root)
    if info is None:
        return None
    held = holders.holder(index_folder(root))
    if held is None or held.get("pid") != info["pid"] or held.get("role") != "daemon":
        return None
    return info


def connect(path: str, timeout: float = CONNECT_TIMEOUT) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return sock


def exchange(path: str, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """One request on a fresh connection to the socket at ``path``, and its answer."""
    sock = connect(path)
    try:
        sock.settimeout(timeout)
        send(sock, message)
        answer = Reader(sock).read()
    finally:
        sock.close()
    if answer is None:
        raise ProtocolError("the daemon closed the connection without an answer")
    return answer


class Client:
    """The daemon of one project, as a client sees it (see the module docstring)."""

    def __init__(self, root: Path, *, create: bool = False, idle: float | None = None) -> None:
        self.root = root.resolve()
        self.folder = index_folder(self.root)
        self.create = create
        self.idle = idle if idle is not None else idle_seconds()
        self.version = installed_version()
        self._info: dict[str, Any] | None = None
        self._started_at = 0.0
        self._spawned: dict[int, int | None] = {}  # pid -> exit code once reaped, in start order
        self._lock = threading.Lock()

    # ---- finding or starting the daemon -----------------------------------------------------
    def attach(self, deadline: float) -> dict[str, Any]:
        """The rendezvous of a live daemon of this install's version or newer (started, or an
        older one drained, as needed); ``DaemonUnavailable`` past ``deadline``."""
        delay = 0.05
        next_start = 0.0
        starts = 0
        while True:
            if not self.create and not is_indexed(self.root):
                raise IndexGone(f"{self.root} is not indexed (no .projectgraph/graph.db): no daemon started")
            self._reap()
            info = live(self.root)
            if info is not None:
                theirs = str(info.get("version"))
                if is_older(theirs, self.version):
                    self._drain(info, f"an older version ({theirs}) than this client's ({self.version})")
                    continue
                if info.get("protocol") == PROTOCOL:
                    self._info = info
                    return info
                raise DaemonUnavailable(
                    f"the daemon (pid {info['pid']}) of {self.root} is of version {theirs}, which this "
                    f"install ({self.version}) cannot talk to; stop it with `projectgraph daemon stop`"
                )
            holder = holders.holder(self.folder)
            now = time.monotonic()
            if holder is not None and holder.get("role") in ("watcher", "writer"):
                raise DaemonUnavailable(holders.message(self.folder, holder))
            # (a holder without a role is one that took the lock and is writing its record)
            if holder is None and now >= next_start and not self._starting(now):
                code = self._last_exit()
                if code == 3 and not self.create:
                    raise IndexGone(f"{self.root} is not indexed: no daemon started")
                if starts >= 4:
                    raise DaemonUnavailable(
                        f"the daemon of {self.root} did not start (see {self.folder / 'daemon.log'})"
                    )
                self._start()
                starts += 1
                next_start = now + 2.0**starts
            if now >= deadline:
                raise DaemonUnavailable(
                    f"no daemon of {self.root} answered in time (see {self.folder / 'daemon.log'})"
                )
            time.sleep(min(delay, max(deadline - now, 0.0)))
            delay = min(delay * 2, 1.0)

    def _start(self) -> None:
        env = dict(os.environ)
        env.pop(NO_DAEMON, None)
        command = [
            sys.executable,
            "-m",
            "projectgraph.daemon",
            os.fspath(self.root),
            "--idle",
            f"{self.idle:g}",
        ]
        if self.create:
            command.append("--create")
        null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
        with self._lock:  # a session of its own; no Popen, which warns when dropped while it runs
            pid = os.posix_spawn(sys.executable, command, env, file_actions=null, setsid=True)
            self._started_at = time.monotonic()
            self._spawned[pid] = None
        with _STARTED_LOCK:
            _STARTED.add(pid)

    def _starting(self, now: float) -> bool:
        """Whether a daemon this client started lately still runs (it is on its way: a second
        caller of this client waits for it rather than starting another)."""
        with self._lock:
            last = next(reversed(self._spawned), None)
            return last is not None and self._spawned[last] is None and now - self._started_at < 10.0

    def _reap(self) -> None:
        """Reap the daemons this client started that ended (the last one's exit code is kept)."""
        with self._lock:
            for pid, code in list(self._spawned.items()):
                if code is None:
                    try:
                        done, status = os.waitpid(pid, os.WNOHANG)
                    except ChildProcessError:  # reaped by ``reap``: ended, its code unknown
                        self._spawned[pid] = -1
                    else:
                        if done:
                            self._spawned[pid] = os.waitstatus_to_exitcode(status)
                            with _STARTED_LOCK:
                                _STARTED.discard(pid)
            last = next(reversed(self._spawned), None)
            self._spawned = {p: c for p, c in self._spawned.items() if c is None or p == last}

    def _last_exit(self) -> int | None:
        self._reap()
        with self._lock:
            last = next(reversed(self._spawned), None)
            return None if last is None else self._spawned[last]

    def started_ended(self) -> bool:
        """Whether the last daemon this client started has ended (False when it started none)."""
        return self._last_exit() is not None

    def _drain(self, info: dict[str, Any], why: str) -> None:
        """Ask the daemon of ``info`` to drain, and wait until it let the project go."""
        with contextlib.suppress(OSError, ProtocolError):
            exchange(info["socket"], {"op": "drain", "by": f"pid {os.getpid()}: {why}"}, 10.0)
        deadline = time.monotonic() + 40.0
        while time.monotonic() < deadline:
            holder = holders.holder(self.folder)
            if holder is None or holder.get("pid") != info["pid"]:
                return
            time.sleep(0.05)

    # ---- requests ---------------------------------------------------------------------------
    def request(self, message: dict[str, Any], timeout: float = START_WAIT) -> dict[str, Any]:
        """The daemon's answer to ``message`` (the daemon started or replaced as needed, and the
        request sent again when the daemon went away before it answered: a query changes nothing)."""
        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            info = self._info or self.attach(deadline)
            try:
                answer = exchange(info["socket"], message, None)
            except (OSError, ProtocolError):
                self._info = None
                if time.monotonic() >= deadline:
                    raise DaemonUnavailable(f"the daemon of {self.root} went away") from None
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            if answer.get("retry"):  # it is stopping: the next one answers
                self._info = None
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            return answer


class Lease:
    """A held connection that keeps the daemon of ``client`` alive, re-attached when it is lost."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.pid: int | None = None
        self.attached = threading.Event()
        self._closed = threading.Event()
        self._sock: socket.socket | None = None
        self._thread = threading.Thread(target=self._hold, name="projectgraph-lease", daemon=True)
        self._thread.start()

    def _hold(self) -> None:
        delay = 0.05
        while not self._closed.is_set():
            reap()
            try:
                info = self.client.attach(time.monotonic() + START_WAIT)
                sock = connect(info["socket"])
                sock.settimeout(CONNECT_TIMEOUT)
                send(sock, {"op": "hello", "lease": True, "pid": os.getpid(), "version": self.client.version})
                reader = Reader(sock)
                hello = reader.read()
                if hello is None or not hello.get("ok"):
                    sock.close()
                    raise ProtocolError("no hello")
                self._sock = sock
                self.pid = int(hello["pid"])
                self.attached.set()
                delay = 0.05
                sock.settimeout(None)
                with contextlib.suppress(OSError, ProtocolError):
                    reader.read()  # the daemon sends nothing more: this returns when it goes
                sock.close()
            except (OSError, ProtocolError, DaemonUnavailable):
                pass
            self.client._info = None
            self.attached.clear()
            self._sock = None
            if self._closed.wait(delay):
                return
            delay = min(delay * 2, 5.0)

    def close(self) -> None:
        self._closed.set()
        sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(5)


def held(root: Path, *, create: bool, wait: float = 600.0) -> Lease | None:
    """A lease on the daemon of ``root`` once its catch-up sync is done (the daemon started, and
    the project indexed first when ``create``), or None when no daemon can serve it (the caller
    goes direct). The lease re-attaches without ``create``: a removed index is not made again."""
    try:
        answer = Client(root, create=create).request({"op": "ready", "timeout": wait}, wait)
    except DaemonUnavailable:
        return None
    if not answer.get("ok") or not answer.get("ready"):
        return None
    lease = Lease(Client(root))
    lease.attached.wait(CONNECT_TIMEOUT)
    return lease
