"""The live channel's source: the store's sync generation and the working copy's staleness.

One thread per server polls the store's sync generation (the latest run and the last sync's time:
``QueryEngine.generation``) every ``poll`` seconds, which costs one small SELECT, so a sync by a
watcher, a daemon or a ``projectgraph sync`` in another process shows within a fraction of a
second. It also compares the working copy with the stored graph (``Project.file_changes``: a walk
and a stat per file) every ``check_every`` seconds, or ten times as long as the last check took
when that is longer (a large tree is not walked back to back), and right after each new
generation. Every change of either bumps ``version`` and wakes the waiters (the event streams).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from projectgraph.project import Project
from projectgraph.query import QueryEngine
from projectgraph.store import sqlite as sql
from projectgraph.sync.watch import read_state

LISTED = 20
"""Paths of each kind (added, removed, changed) that a staleness report names."""

log = logging.getLogger("projectgraph.ui")


class LiveState:
    """The current generation and staleness, and a condition to wait for their next change."""

    def __init__(self, root: Path, poll: float = 0.25, check_every: float = 2.0) -> None:
        self.root = root
        self.poll = poll
        self.check_every = check_every
        self.version = 0
        self.generation: dict[str, int] = {"run": 0, "synced_at_ns": 0}
        self.staleness: dict[str, Any] = {"checked": False}
        self.changed = threading.Condition()
        self.on_new_run: list[Callable[[], None]] = []  # called in this thread after a new run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._project = Project(root)
        self._engine = QueryEngine(self._project.store.connection)
        self.generation = self._engine.generation()
        self.last_run = sql.last_run(self._project.store.connection)
        self.staleness = self._check()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="projectgraph-ui-live", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self.changed:
            self.changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._project.close()

    def stored_run(self) -> dict[str, Any] | None:
        """The latest stored run (``sql.last_run``) as of the last generation seen."""
        with self.changed:
            return self.last_run

    def snapshot(self) -> dict[str, Any]:
        """What the channel's events carry: the version, the generation and the staleness."""
        with self.changed:
            return {"version": self.version, "generation": self.generation, "staleness": self.staleness}

    def wait(self, version: int, timeout: float) -> dict[str, Any]:
        """The state once its version differs from ``version`` (or after ``timeout`` seconds)."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != version or self._stop.is_set(), timeout)
        return self.snapshot()

    def _publish(self, **parts: Any) -> None:
        with self.changed:
            for name, value in parts.items():
                setattr(self, name, value)
            self.version += 1
            self.changed.notify_all()

    def _check(self) -> dict[str, Any]:
        """The working copy against the stored graph (``projectgraph status``'s pending files)."""
        started = time.monotonic()
        try:
            changes = self._project.file_changes()
        except Exception as error:  # a tree being rewritten: say so, try again next time
            return {"checked": True, "stale": None, "error": f"{type(error).__name__}: {error}"}
        return {
            "checked": True,
            "stale": bool(changes),
            "pending": changes.pending,
            "added": list(changes.added[:LISTED]),
            "removed": list(changes.removed[:LISTED]),
            "changed": list(changes.changed[:LISTED]),
            "controls": list(changes.controls[:LISTED]),
            "watcher": _watcher(self._project.folder),
            "seconds": round(time.monotonic() - started, 3),
        }

    def _run(self) -> None:
        next_check = time.monotonic() + self.check_every
        while not self._stop.wait(self.poll):
            try:
                generation = self._engine.generation()
                if generation != self.generation:
                    new_run = generation["run"] != self.generation["run"]
                    last_run = sql.last_run(self._project.store.connection) if new_run else self.last_run
                    self._publish(generation=generation, last_run=last_run)
                    next_check = 0.0  # a sync just committed: look at the working copy now
                    for call in self.on_new_run if new_run else ():
                        call()
                if time.monotonic() >= next_check:
                    staleness = self._check()
                    if _differs(staleness, self.staleness):
                        self._publish(staleness=staleness)
                    cost = float(staleness.get("seconds", 0.0))
                    next_check = time.monotonic() + max(self.check_every, 10 * cost)
            except Exception:  # the channel keeps going; the page shows the last known state
                log.exception("live state check failed")


def _watcher(folder: Path) -> dict[str, Any] | None:
    state = read_state(folder)
    if state is None:
        return None
    return {k: state[k] for k in ("pid", "state", "syncs", "error") if k in state}


def _differs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two staleness reports differ beyond the time their check took."""
    return {k: v for k, v in a.items() if k != "seconds"} != {k: v for k, v in b.items() if k != "seconds"}
