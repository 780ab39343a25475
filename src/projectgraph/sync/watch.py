"""The watcher: keep the stored graph synced as files change.

``Watcher.run`` syncs once at start (a catch-up), then waits for file events (``watchfiles``),
debounced: a batch ends after ``debounce_ms`` without a new event (or at ten times that, 1.6 s at
least, under a steady stream), and one batch, however many events, is one sync. A batch past
``BURST`` paths (a checkout, a formatter over the tree) or an error of the event backend is a sign
that events may have been dropped: it runs one full reconcile (every file read and hashed, no stamp
trusted), reported as ``recovering`` until it commits. When no event comes for ``check_every``
seconds, a stamp-only sync checks the tree anyway, so a change the backend never reported is found.

Events are filtered before they count: nothing under ``.projectgraph/``, ``.git/`` or another folder
discovery always skips, nor under the configuration's ``ignore`` globs; a path counts when its
language is indexed, or it is a control file or a ``.gitignore``. A path that discovery would still
leave out (a .gitignore rule) only costs a sync that finds nothing to do.

One watcher per project: ``.projectgraph/watch.lock`` is held (a kernel lock, released however the
process ends) for the watcher's life, and ``.projectgraph/watch.json`` says what it does, for
``projectgraph status``. Each sync takes the writer lock as any writer does; when another writer
holds it, the watcher tries again after the next debounce.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec

from projectgraph import safefs
from projectgraph.config import load_config
from projectgraph.discover import ALWAYS_SKIPPED_DIRS, extension_map, language_of
from projectgraph.indexer import IndexOptions
from projectgraph.languages import all_languages
from projectgraph.store.lock import WriterBusyError, WriterLock, lock_held, take_pid_lock
from projectgraph.store.sqlite import open_project_store
from projectgraph.sync.controls import is_control_name
from projectgraph.sync.reconcile import SyncResult, reconcile

BURST = 500
"""A batch of more paths than this runs one full reconcile instead of a sync."""

BUSY_RETRIES = 40
BUSY_WAIT = 0.5  # seconds between two tries while another process holds the writer lock
"""Past BUSY_RETRIES tries the watcher reports itself behind; the next event or check tries again."""

WAKE_MS = 250  # the longest the loop waits for the backend before it looks at the clock

STATE_FILE = "watch.json"
LOCK_FILE = "watch.lock"


class WatcherBusyError(RuntimeError):
    """Another watcher runs on this project."""


@dataclass(frozen=True)
class WatchEvent:
    """What the watcher reports after each sync (or failed attempt)."""

    reason: str  # start | change | burst | backend-error | check
    paths: int  # relevant paths in the batch
    result: SyncResult | None
    error: str = ""


class WatchLock:
    """The kernel lock one watcher holds on a project for its whole life."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> WatchLock:
        safefs.index_folder(self.path.parent.parent)
        project = self.path.parent.parent
        self._fd = take_pid_lock(
            self.path, lambda who: WatcherBusyError(f"another projectgraph watcher{who} watches {project}")
        )
        return self

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def watcher_running(folder: Path) -> bool:
    """Whether a watcher holds the project's watch lock now."""
    path = folder / LOCK_FILE
    return path.exists() and lock_held(path)


def read_state(folder: Path) -> dict[str, Any] | None:
    """The running watcher's state (``watch.json``), or None when no watcher runs."""
    if not watcher_running(folder):
        return None
    try:
        data = json.loads(safefs.read_text(folder / STATE_FILE, follow=False))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class PathFilter:
    """Which changed paths can change the graph (see the module docstring)."""

    def __init__(self, root: Path, options: IndexOptions) -> None:
        self.root = root
        config = load_config(root)
        known = all_languages()
        names = [
            n for n in (options.languages or tuple(known)) if not config.languages or n in config.languages
        ]
        self.mapping = extension_map(
            (known[n] for n in names if n in known), config.extensions, config.source
        )
        self.ignore = pathspec.GitIgnoreSpec.from_lines(config.ignore) if config.ignore else None

    def relative(self, path: str) -> str | None:
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if rel == "." else rel

    def __call__(self, path: str) -> bool:
        rel = self.relative(path)
        if rel is None:
            return False
        parts = rel.split("/")
        if any(part in ALWAYS_SKIPPED_DIRS for part in parts):
            return False
        if is_control_name(rel) or parts[-1] == ".gitignore":
            return True
        if self.ignore is not None and self.ignore.match_file(rel):
            return False
        return language_of(rel, self.mapping) is not None or self.is_folder(rel)

    def is_folder(self, rel: str) -> bool:
        """A folder now, or a name with no extension that is gone (it may have been a folder, moved
        out whole: the backend names the folder, not the files in it)."""
        full = self.root / rel
        return full.is_dir() or ("." not in rel.rsplit("/", 1)[-1] and not full.exists())


class Watcher:
    def __init__(
        self,
        root: str | os.PathLike[str],
        options: IndexOptions | None = None,
        debounce_ms: int = 100,
        check_every: float = 30.0,
        burst: int = BURST,
        report: Callable[[WatchEvent], None] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.folder = self.root / ".projectgraph"
        self.options = options or IndexOptions()
        self.debounce_ms = debounce_ms
        self.check_every = check_every
        self.burst = burst
        self.report = report or (lambda event: None)
        self.stop_event = threading.Event()
        self._state: dict[str, Any] = {}
        self._synced_at = time.monotonic()
        self._filter = PathFilter(self.root, self.options)

    def stop(self) -> None:
        self.stop_event.set()

    # ---- state for `projectgraph status` -----------------------------------------------------
    def _set_state(self, **changes: Any) -> None:
        self._state.update(changes)
        target = self.folder / STATE_FILE
        safefs.write_in_folder(target, json.dumps(self._state, sort_keys=True).encode("utf-8"))

    # ---- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        """Watch until ``stop`` is called or Ctrl-C (KeyboardInterrupt, re-raised after cleanup)."""
        import watchfiles

        lock = WatchLock(self.folder).acquire()
        store = open_project_store(self.root)
        try:
            self._set_state(
                pid=os.getpid(), started=time.time(), state="starting", pending=0, syncs=0, last_sync=None
            )
            started = False
            while not self.stop_event.is_set():
                try:
                    # The backend wakes the loop every WAKE_MS: the first wake comes once every
                    # folder is watched, and only then the start-up sync runs, so no change made
                    # while the watches were set up is missed.
                    for changes in watchfiles.watch(
                        self.root,
                        watch_filter=lambda _change, path: self._filter(path),
                        debounce=max(self.debounce_ms * 10, 1600),
                        step=max(self.debounce_ms, 1),
                        stop_event=self.stop_event,
                        rust_timeout=WAKE_MS,
                        yield_on_timeout=True,
                        raise_interrupt=True,
                    ):
                        if not started:
                            started = True
                            self._sync(store, "start", 0, full=False)
                        elif changes:
                            self._batch(store, [path for _, path in changes])
                        elif time.monotonic() - self._synced_at >= self.check_every:
                            self._sync(store, "check", 0, full=False)  # no event for check_every
                        if self.stop_event.is_set():
                            break
                except (RuntimeError, OSError) as error:  # the backend failed: events may be lost
                    if self.stop_event.is_set():
                        break
                    self.report(WatchEvent("backend-error", 0, None, f"{type(error).__name__}: {error}"))
                    self.stop_event.wait(1.0)
                    self._sync(store, "backend-error", 0, full=True)
        finally:
            with contextlib.suppress(OSError):
                (self.folder / STATE_FILE).unlink()
            store.close()
            lock.release()

    def _batch(self, store: Any, paths: Iterable[str]) -> None:
        relevant = sorted(set(paths))
        # syncing from here: a query that asks now waits for this batch (daemon.server)
        self._set_state(state="syncing", pending=len(relevant))
        if len(relevant) > self.burst:
            self._sync(store, "burst", len(relevant), full=True)
            return
        rels = [r for r in (self._filter.relative(p) for p in relevant) if r is not None]
        if any(is_control_name(r) for r in rels):
            self._filter = PathFilter(self.root, self.options)  # the configuration may have changed
        # the paths changed are all that changed: the sync may skip walking the tree (when each is
        # a file it knows); a path outside the root as resolved gives no such promise
        known = tuple(rels) if len(rels) == len(relevant) else None
        self._sync(store, "change", len(relevant), full=False, changed=known)

    def creates_index(self) -> bool:
        """Whether a sync may make the index folder when it is missing (a watcher: yes)."""
        return True

    def _sync(
        self, store: Any, reason: str, paths: int, full: bool, changed: tuple[str, ...] | None = None
    ) -> None:
        self._set_state(state="recovering" if full else "syncing")
        result: SyncResult | None = None
        error = ""
        for _attempt in range(BUSY_RETRIES):
            try:
                with WriterLock(self.folder, create=self.creates_index()):
                    result = reconcile(
                        self.root, store, self.options, full=full, incremental=True, changed_paths=changed
                    )
            except WriterBusyError as busy:  # another writer (an index, a sync): wait for it a while
                error = str(busy)
                if self.stop_event.wait(BUSY_WAIT):
                    break
                continue
            except (ValueError, OSError) as failure:  # a configuration error, an unreadable tree
                error = f"{type(failure).__name__}: {failure}"
            break
        if result is not None:
            self._set_state(
                state="idle",
                pending=0,
                syncs=self._state.get("syncs", 0) + 1,
                last_sync=time.time(),
                last_seconds=round(result.seconds.get("total", 0.0), 4),
                last_reason=reason,
                error="",
            )
        else:
            self._set_state(state="behind", error=error)
        self._synced_at = time.monotonic()
        self.report(WatchEvent(reason, paths, result, error))
