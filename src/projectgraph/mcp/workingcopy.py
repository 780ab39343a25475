"""Answers checked against the working copy: the stored graph may be older than the files.

A symbol lives in a project file the stored run recorded with its size and modification time. When
an answer is built, each such file is looked at once:

- gone from the working copy: the symbols in it are left out of result lists and counted in
  ``staleOmitted``, and a note names the files (the index is stale for them);
- present but of another size or modification time: the symbols stay, marked ``"stale": true``,
  and a note says their lines and edges may have moved;
- otherwise, or a path the run did not record as a project file (an external or dependency
  symbol): the symbol is as stored.

Structures whose parts cannot go one by one keep every part and mark it: a call path (``code_path``,
the path of a reach result) keeps its hops, a hop in a gone file marked ``"missing": true``; the
subject of a query (the symbol asked about, an impact root) stays and gets a note. The check fails
open: a file that cannot be looked at (permissions) counts as current, as a stale answer is more
use than an empty one. A stored path is data: one that is not a plain relative path inside the root
(an absolute path, ``..``, a link out) is never looked at and counts as current.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from projectgraph import safefs

CURRENT = "current"
CHANGED = "changed"
MISSING = "missing"
LISTED = 10
"""Paths a note names before it says how many more."""


class WorkingCopyCheck:
    """One answer's check: the state of each file it touches, and what was left out or marked."""

    def __init__(self, root: Path, stamps: dict[str, tuple[int, int, str]]) -> None:
        self.root = root
        self.stamps = stamps
        self._states: dict[str, str] = {}
        self.omitted = 0
        self.missing: set[str] = set()
        self.changed: set[str] = set()
        self.notes: list[str] = []

    def state(self, path: str | None) -> str:
        """``current``, ``changed`` or ``missing`` for a project file; ``current`` for anything else."""
        if not path or path not in self.stamps:
            return CURRENT
        if path not in self._states:
            size, mtime, _status = self.stamps[path]
            full = safefs.project_file(self.root, path)
            try:
                if full is None:  # not a path in the project (a planted store): never looked at
                    raise PermissionError(path)
                st = os.stat(full)
            except (FileNotFoundError, NotADirectoryError):
                state = MISSING
            except OSError:
                state = CURRENT
            else:
                state = CURRENT if (st.st_size, st.st_mtime_ns) == (size, mtime) else CHANGED
            self._states[path] = state
        state = self._states[path]
        if state == MISSING:
            self.missing.add(path)
        elif state == CHANGED:
            self.changed.add(path)
        return state

    # ---- the shapes of answers --------------------------------------------------------------
    def symbols(self, items: Iterable[dict[str, Any]], *paths: str) -> list[dict[str, Any]]:
        """Result items without those in gone files (counted), the ones in changed files marked."""
        kept = []
        for item in items:
            states = {self.state(_path(item, name)) for name in paths or ("path",)}
            if MISSING in states:
                self.omitted += 1
                continue
            kept.append(item | {"stale": CHANGED in states})
        return kept

    def mark(self, item: dict[str, Any], *paths: str | None) -> dict[str, Any]:
        """The item kept whatever its files' state, marked ``stale`` (and ``missing`` if gone)."""
        states = {self.state(p) for p in paths}
        marked = item | {"stale": bool(states & {CHANGED, MISSING})}
        if MISSING in states:
            marked["missing"] = True
        return marked

    def subject(self, key: str, path: str | None, role: str = "the symbol asked about") -> None:
        """A note when the symbol a query is about lives in a gone or changed file."""
        state = self.state(path)
        if state == MISSING:
            self.notes.append(
                f"{role}, {key}, is in {path}, which no longer exists in the working copy: "
                "the index is stale for it (run `projectgraph index`)"
            )
        elif state == CHANGED:
            self.notes.append(f"{role}, {key}, is in {path}, which changed since it was indexed")

    def finish(self, answer: dict[str, Any]) -> dict[str, Any]:
        """The answer with ``staleOmitted`` and the ``notes`` that explain it."""
        notes = []
        if self.omitted:
            notes.append(
                f"{self.omitted} result(s) left out: their files no longer exist in the working copy "
                f"({_listed(self.missing)}); the index is stale for them (run `projectgraph index`)"
            )
        elif self.missing:
            notes.append(
                f"parts of this answer are in files that no longer exist ({_listed(self.missing)}), "
                'marked "missing": the index is stale for them (run `projectgraph index`)'
            )
        if self.changed:
            notes.append(
                f'results marked "stale" are in files changed since indexing ({_listed(self.changed)}): '
                "their lines and edges may have moved (run `projectgraph index`)"
            )
        return answer | {"staleOmitted": self.omitted, "notes": [*self.notes, *notes]}


def _path(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    if isinstance(value, dict):  # a site
        inner = value.get("path")
        return inner if isinstance(inner, str) else None
    return value if isinstance(value, str) else None


def _listed(paths: set[str]) -> str:
    ordered = sorted(paths)
    more = f" and {len(ordered) - LISTED} more" if len(ordered) > LISTED else ""
    return ", ".join(ordered[:LISTED]) + more
