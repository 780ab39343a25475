"""The daemon of one project: the watcher, the one writer, and the queries, in one long process.

``Daemon.run`` takes ``writer.pid`` (``daemon.writer``; a second daemon of the folder ends at once),
listens on the project's socket (``daemon.paths``), writes the rendezvous, then runs the watcher
(``sync.watch.Watcher``, unchanged but for a guard: a sync never re-creates an index folder that is
gone) in a thread. The watcher's first sync is the catch-up: queries wait for it, so the first
answer is from the working copy as it is; later syncs follow file events, debounced, a burst past
500 paths or a backend error escalating to one full reconcile (``recovering``). The tracked link
the watcher keeps is this process's, so an edit relinks incrementally.

Queries are answered from the open store, one at a time (the store's connection is shared): MCP tool
calls through ``mcp.server.respond`` (the same function a direct server calls), CLI commands by
running the ``projectgraph`` command group in process with its output captured, the project opened
once (``daemon.serving``). Before a query, a sync in progress (from the moment the watcher has the
batch of events) is waited for, up to ``SETTLE`` (or the request's ``settle``), so an answer asked
for right after a save is of the save. Every MCP answer carries ``freshness`` (the generation it
was read at, the paths pending, ``recovering``), and one from before a sync the daemon knows of says
so in a note (a CLI answer, on stderr). ``index_status`` adds ``daemon`` (pid, uptime, clients,
last sync, queue). The watcher's sync also brings the query engine's tables up to the new run
(``query.uncertain``: followed by the files that changed, not read again), before the next query.

The main thread watches the exits: no lease and no request for the idle period, the index folder or
its database removed or replaced, the install changed (interpreter, version, package files), a
``drain`` or ``stop`` request, SIGTERM or SIGINT, the watcher thread ended.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import signal
import socket
import sqlite3
import sys
import threading
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import Any

from projectgraph import safefs
from projectgraph.daemon import serving
from projectgraph.daemon.paths import (
    LOG,
    PROTOCOL,
    RENDEZVOUS,
    database,
    folder_key,
    installed_version,
    is_indexed,
    read_json,
    registry,
    socket_path,
)
from projectgraph.daemon.protocol import ProtocolError, Reader, send
from projectgraph.daemon.writer import WriterHeldError, WriterPid
from projectgraph.sync.watch import Watcher, WatchEvent
from projectgraph_launch import launcher_file

log = logging.getLogger("projectgraph.daemon")

DEBOUNCE_MS = 20
"""Milliseconds without a new event that end a batch: a save is one write or a few, close together
(an editor's write and rename are well within it); each millisecond here is one of save-to-answer."""
SETTLE = 10.0
"""Seconds a query waits for a sync in progress to commit before it answers from the last one
(saying so: ``freshness`` and a note)."""
READY_WAIT = 600.0
"""Seconds a query waits for the catch-up sync (a first index of a large project)."""
CHECK_EVERY = 0.25  # seconds between two looks at the exits
INSTALL_EVERY = 2.0  # seconds between two looks at the install
DRAIN_WAIT = 30.0  # seconds a drain waits for the query in progress
LOG_LIMIT = 4 * 1024 * 1024  # bytes of daemon.log kept before it is rotated to daemon.log.1


def install_fingerprint() -> tuple[Any, ...]:
    """What identifies this install: the interpreter, the package's version and its main files."""
    import projectgraph

    parts: list[Any] = [installed_version()]
    for path in (sys.executable, projectgraph.__file__, __file__):
        try:
            st = os.stat(os.path.realpath(path or ""))
            parts.append((path, st.st_ino, st.st_mtime_ns, st.st_size))
        except OSError:
            parts.append((path, None))
    return tuple(parts)


def _warm() -> None:
    """Import what the first query needs while the catch-up runs, so it does not wait for them."""
    with contextlib.suppress(Exception):
        import projectgraph.cli
        import projectgraph.mcp.server  # noqa: F401


class DaemonWatcher(Watcher):
    """The watcher, told when its index is gone (no sync then: it would re-create the folder), and
    telling the daemon each state change."""

    def __init__(self, root: Path, daemon: Daemon, debounce_ms: int) -> None:
        super().__init__(root, debounce_ms=debounce_ms, report=daemon.on_sync)
        self.daemon = daemon
        self.cpu_at = 0.0

    @property
    def state(self) -> dict[str, Any]:
        return dict(self._state)

    def _sync(
        self, store: Any, reason: str, paths: int, full: bool, changed: tuple[str, ...] | None = None
    ) -> None:
        if self.daemon.index_gone():
            self.stop()
            return
        self.cpu_at = time.thread_time()  # this thread's CPU when the sync began (the log says its share)
        super()._sync(store, reason, paths, full, changed)

    def creates_index(self) -> bool:
        # only a daemon started to create the index, before it has one: otherwise a sync that began
        # just before the folder was removed would make it again (the check above is not atomic)
        return self.daemon.create and self.daemon.database_id is None

    def _set_state(self, **changes: Any) -> None:
        if self.daemon.index_gone():
            self._state.update(changes)
        else:
            super()._set_state(**changes)
        self.daemon.state_changed()


class Daemon:
    def __init__(self, root: Path, idle: float, create: bool = False, debounce_ms: int = DEBOUNCE_MS) -> None:
        self.root = root.resolve()
        self.folder = self.root / safefs.INDEX_FOLDER
        self.idle = idle
        self.create = create
        self.debounce_ms = debounce_ms
        self.version = installed_version()
        self.started = time.time()
        self.socket = socket_path(self.folder)
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.exit_reason = ""
        self.clients = 0
        self.in_flight = 0
        self.requests = 0
        self.last_active = time.monotonic()
        self.last_sync: dict[str, Any] | None = None
        self.changed = threading.Condition()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self.database_id: tuple[int, int] | None = None
        self._watcher: DaemonWatcher | None = None
        self._projects: Any = None

    # ---- lifetime ---------------------------------------------------------------------------
    def run(self) -> int:
        """Serve until an exit; 0 after a clean exit or when another daemon has the project."""
        if not self.create and not is_indexed(self.root):
            print(f"projectgraph daemon: {self.root} is not indexed: not started", file=sys.stderr)
            return 3
        safefs.index_folder(self.root)
        self._logging()
        try:
            lock = WriterPid(self.folder, "daemon").acquire()
        except WriterHeldError as error:
            log.info("not started: %s", error)
            return 0 if error.holder.get("role") == "daemon" else 2
        try:
            return self._serve()
        except Exception:
            log.exception("failed")
            raise
        finally:
            # logged before the lock goes: whoever sees writer.pid free finds the line written
            log.info("exited: %s", self.exit_reason or "error")
            lock.release()

    def _logging(self) -> None:
        path = self.folder / LOG
        with contextlib.suppress(OSError):
            if path.stat().st_size > LOG_LIMIT:
                os.replace(path, path.with_name(LOG + ".1"))
        safefs.check_in_folder(path)
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.handlers = [handler]
        root.setLevel(logging.INFO)
        logging.getLogger("watchfiles").setLevel(logging.WARNING)  # a line per event otherwise

    def _serve(self) -> int:
        from projectgraph.mcp.projects import Projects

        fingerprint = install_fingerprint()
        os.chdir(self.root)  # not the starting client's folder, which may go
        listener = self._listen()
        self._projects = Projects(self.root)
        serving.keep(self.root, self._projects)
        self._watcher = DaemonWatcher(self.root, self, self.debounce_ms)
        watching = threading.Thread(target=self._watch, name="projectgraph-watcher", daemon=True)
        accepting = threading.Thread(
            target=self._accept, args=(listener,), name="projectgraph-accept", daemon=True
        )
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self._on_signal)
        self._record_id()
        watching.start()
        accepting.start()
        threading.Thread(target=_warm, name="projectgraph-warm", daemon=True).start()
        self._write_rendezvous()
        log.info(
            "started: pid %d, version %s, root %s, socket %s, idle %.0f s",
            os.getpid(),
            self.version,
            self.root,
            self.socket,
            self.idle,
        )
        next_install = time.monotonic() + INSTALL_EVERY
        try:
            while not self.stopping.wait(CHECK_EVERY):
                if self.index_gone():
                    self.stop("the index was removed or replaced")
                elif not watching.is_alive():
                    self.stop("the watcher stopped")
                elif self._idle_for() >= self.idle:
                    self.stop(f"idle for {self.idle:g} s after its last client")
                elif time.monotonic() >= next_install:
                    next_install = time.monotonic() + INSTALL_EVERY
                    if install_fingerprint() != fingerprint:
                        self.stop("its install changed (interpreter, version or package files)")
        finally:
            self._shutdown(listener, watching)
        return 0

    def _listen(self) -> socket.socket:
        path = os.fspath(self.socket)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a dead daemon's: this process holds writer.pid, no other listens
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(old)
        listener.listen(64)
        return listener

    def _write_rendezvous(self) -> None:
        record = {
            "pid": os.getpid(),
            "version": self.version,
            "protocol": PROTOCOL,
            "socket": os.fspath(self.socket),
            "root": os.fspath(self.root),
            "started": self.started,
            "executable": sys.executable,
            "launcher": launcher_file(),
            "idle": self.idle,
            "log": os.fspath(self.folder / LOG),
        }
        data = json.dumps(record, sort_keys=True).encode("utf-8")
        safefs.write_in_folder(self.folder / RENDEZVOUS, data)
        with contextlib.suppress(OSError):
            entry = registry() / f"{folder_key(self.folder)}.json"
            temporary = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, entry)

    def _shutdown(self, listener: socket.socket, watching: threading.Thread) -> None:
        log.info("stopping: %s", self.exit_reason)
        with contextlib.suppress(OSError):
            listener.close()
        mine = os.getpid()
        for path in (self.folder / RENDEZVOUS, registry() / f"{folder_key(self.folder)}.json"):
            with contextlib.suppress(OSError):
                if (read_json(path) or {}).get("pid") == mine:
                    path.unlink()
        with contextlib.suppress(OSError):
            os.unlink(self.socket)
        deadline = time.monotonic() + DRAIN_WAIT
        while self.in_flight and time.monotonic() < deadline:  # the query in progress ends first
            time.sleep(0.02)
        if self._watcher is not None:
            self._watcher.stop()
        watching.join(60)
        with self._lock:
            for connection in list(self._connections):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        serving.forget(self.root)
        if self._projects is not None:
            with self._projects.lock:
                self._projects.close()

    def stop(self, reason: str) -> None:
        if not self.stopping.is_set():
            self.exit_reason = reason
            self.stopping.set()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.stop(f"signal {signal.Signals(signum).name}")

    def _idle_for(self) -> float:
        with self._lock:
            if self.clients or self.in_flight:
                return 0.0
            return time.monotonic() - self.last_active

    def _record_id(self) -> None:
        with contextlib.suppress(OSError):
            st = os.stat(database(self.root))
            self.database_id = (st.st_dev, st.st_ino)

    def index_gone(self) -> bool:
        """Whether the index folder, or the database once there, was removed or replaced."""
        try:
            st = os.stat(database(self.root))
        except OSError:
            return self.database_id is not None or not os.path.isdir(self.folder)
        return self.database_id is not None and (st.st_dev, st.st_ino) != self.database_id

    # ---- the watcher ------------------------------------------------------------------------
    def _watch(self) -> None:
        assert self._watcher is not None
        try:
            self._watcher.run()
        except Exception:
            log.exception("the watcher failed")
        finally:
            self.ready.set()

    def on_sync(self, event: WatchEvent) -> None:
        """The watcher's report after each sync (its first one, the catch-up, makes the daemon ready)."""
        result = event.result
        cpu = time.thread_time() - self._watcher.cpu_at if self._watcher is not None else 0.0
        record: dict[str, Any] = {"at": time.time(), "reason": event.reason, "error": event.error}
        if result is not None:
            record |= {
                "seconds": round(result.seconds.get("total", 0.0), 4),
                "files": result.files_changed,
                "relinked": result.relinked,
                "link": result.link,
            }
        self.last_sync = record
        if self.database_id is None:
            self._record_id()  # the catch-up made the index (a daemon started to create it)
        if event.error:
            log.warning("sync (%s) failed: %s", event.reason, event.error)
        elif result is not None and (result.relinked or event.reason != "check"):
            log.info(
                "sync (%s): %d path(s), %d file(s) changed, %s link, %.3f s (%.3f s CPU)",
                event.reason,
                event.paths,
                result.files_changed,
                result.link or "no",
                result.seconds.get("total", 0.0),
                cpu,
            )
        self.ready.set()
        self.state_changed()
        if result is not None and result.relinked and self._projects is not None:
            self._warm_answers()

    def _warm_answers(self) -> None:
        """Bring what the first answer after a sync needs up to the new run (the uncertain callers'
        tables, followed; the stamps), now, so the query that follows a save does not wait for it."""
        from projectgraph.mcp.projects import ProjectError

        started, cpu = time.perf_counter(), time.thread_time()
        with self._projects.lock:
            try:
                served = self._projects.open(None)
                served.stamps()
                served.engine.unknowns()
            except (ProjectError, OSError, sqlite3.Error):
                log.debug("no warm-up after this sync", exc_info=True)
                return
        log.info(
            "answers of the new generation ready in %.3f s (%.3f s CPU)",
            time.perf_counter() - started,
            time.thread_time() - cpu,
        )

    def state_changed(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def watch_state(self) -> dict[str, Any]:
        return self._watcher.state if self._watcher is not None else {}

    def _settle(self, settle: float) -> None:
        """Wait (``settle`` seconds at most) for a sync in progress, so an answer right after a save
        is of the save."""
        if not self.ready.wait(READY_WAIT):
            return
        deadline = time.monotonic() + settle
        with self.changed:
            while self.watch_state().get("state") in ("syncing", "recovering", "starting"):
                left = deadline - time.monotonic()
                if left <= 0 or self.stopping.is_set():
                    return
                self.changed.wait(min(left, 0.1))

    def freshness(self, generation: int | None) -> dict[str, Any]:
        state = self.watch_state()
        return {
            "generation": generation,
            "pending": int(state.get("pending") or 0),
            "recovering": state.get("state") == "recovering",
            "state": state.get("state", "starting"),
            "daemon": os.getpid(),
        }

    def status(self) -> dict[str, Any]:
        state = self.watch_state()
        with self._lock:
            clients, requests = self.clients, self.requests
        return {
            "root": os.fspath(self.root),
            "pid": os.getpid(),
            "version": self.version,
            "protocol": PROTOCOL,
            "started": self.started,
            "uptime": round(time.time() - self.started, 3),
            "clients": clients,
            "requests": requests,
            "ready": self.ready.is_set(),
            "state": state.get("state", "starting"),
            "recovering": state.get("state") == "recovering",
            "queue": int(state.get("pending") or 0),
            "syncs": int(state.get("syncs") or 0),
            "lastSync": self.last_sync,
            "idle": self.idle,
            "idleFor": round(self._idle_for(), 3),
            "draining": self.stopping.is_set(),
            "socket": os.fspath(self.socket),
            "log": os.fspath(self.folder / LOG),
        }

    # ---- connections ------------------------------------------------------------------------
    def _accept(self, listener: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                if self.stopping.is_set():
                    return
                time.sleep(0.05)
                continue
            with self._lock:
                self._connections.add(connection)
            threading.Thread(target=self._serve_connection, args=(connection,), daemon=True).start()

    def _serve_connection(self, connection: socket.socket) -> None:
        reader = Reader(connection)
        leased = False
        try:
            while True:
                message = reader.read()
                if message is None:
                    return
                with self._lock:
                    self.last_active = time.monotonic()
                    self.requests += 1
                    if message.get("op") == "hello" and message.get("lease") and not leased:
                        leased = True
                        self.clients += 1
                send(connection, self._answer(message))
        except (OSError, ProtocolError):
            return
        finally:
            with self._lock:
                if leased:
                    self.clients -= 1
                self.last_active = time.monotonic()
                self._connections.discard(connection)
            with contextlib.suppress(OSError):
                connection.close()

    def _answer(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "hello":
            return {"ok": True} | self.status()
        if op == "status":
            return {"ok": True} | self.status()
        if op == "ready":
            self.ready.wait(float(message.get("timeout") or READY_WAIT))
            return {"ok": True} | self.status()
        if op in ("drain", "stop"):
            self.stop(f"asked to {op} by {message.get('by') or 'a client'}")
            return {"ok": True, "pid": os.getpid()}
        if op not in ("tool", "cli"):
            return {"ok": False, "error": f"unknown request {op!r}"}
        if self.stopping.is_set():
            return {"ok": False, "error": "the daemon is stopping", "retry": True}
        if op == "tool" and message.get("wait") is False and not self.ready.is_set():
            return {"ok": False, "error": "the daemon is at its first sync", "catching_up": True}
        with self._lock:
            self.in_flight += 1
        try:
            settle = message.get("settle")
            self._settle(float(settle) if isinstance(settle, (int, float)) and settle >= 0 else SETTLE)
            return self._tool(message) if op == "tool" else self._cli(message)
        except Exception as error:
            log.exception("%s request failed", op)
            return {"ok": False, "error": f"internal error ({type(error).__name__}: {error})"}
        finally:
            with self._lock:
                self.in_flight -= 1
                self.last_active = time.monotonic()

    # ---- queries ----------------------------------------------------------------------------
    def _tool(self, message: dict[str, Any]) -> dict[str, Any]:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        from projectgraph.mcp.server import respond

        name = str(message.get("name"))
        arguments = message.get("arguments")
        try:
            result = respond(self._projects, name, arguments if isinstance(arguments, dict) else None)
        except MCPError as error:
            return {"ok": False, "error": str(error), "protocol_error": True}
        structured = result.structured_content
        if not result.is_error and isinstance(structured, dict):
            structured["freshness"] = fresh = self.freshness(structured.get("generation"))
            note = _stale_note(fresh)
            if note:
                structured["notes"] = [*structured.get("notes", []), note]
            if name == "index_status":
                structured["daemon"] = self.status()
            text = json.dumps(structured, ensure_ascii=False)
            result.content = [types.TextContent(type="text", text=text)]
        return {"ok": True, "result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}

    def _cli(self, message: dict[str, Any]) -> dict[str, Any]:
        argv = [str(a) for a in message.get("argv") or []]
        cwd = str(message.get("cwd") or self.root)
        out, err = io.StringIO(), io.StringIO()
        handler = logging.StreamHandler(err)
        handler.setFormatter(logging.Formatter("projectgraph: %(message)s"))
        handler.setLevel(logging.WARNING)
        code: int = 0
        assert self._projects is not None
        with serving.CLI_LOCK, self._projects.lock:
            from projectgraph.cli import main

            logging.getLogger().addHandler(handler)
            here = os.getcwd()
            try:
                with contextlib.suppress(OSError):
                    os.chdir(cwd)
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    try:
                        main.main(args=argv, prog_name="projectgraph", standalone_mode=True)
                    except SystemExit as done:
                        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
                    except Exception:
                        traceback.print_exc(file=err)
                        code = 1
            finally:
                os.chdir(here)
                logging.getLogger().removeHandler(handler)
            generation = None
            with contextlib.suppress(Exception):
                run = self._projects.open(None).last_run()
                generation = run["id"] if run else None
        fresh = self.freshness(generation)
        note = _stale_note(fresh)
        if note:
            note = f"projectgraph: {note}\n"
        return {"ok": True, "code": code, "stdout": out.getvalue(), "stderr": err.getvalue() + note} | {
            "freshness": fresh
        }


def _stale_note(fresh: dict[str, Any]) -> str:
    """What an answer says when its graph is not of the working copy the daemon knows of (a sync
    pending or running, a full reconcile, a sync that could not run): empty when it is."""
    if not (fresh["recovering"] or fresh["pending"] or fresh["state"] in ("syncing", "behind")):
        return ""
    waiting = f"{fresh['pending']} changed path(s) pending, " if fresh["pending"] else ""
    return (
        f"the daemon is {fresh['state']} ({waiting}this answer is from generation "
        f"{fresh['generation']}, before them: a symbol or caller they add or remove is not in it)"
    )
