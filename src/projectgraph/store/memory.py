"""A store in memory: the same contract as the SQLite store, for tests and one-shot runs."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from projectgraph.fileindex import FileIndex, Key


class MemoryStore:
    """Keeps indexes and plugin artifacts by key; marks each read so ``prune`` can drop the rest."""

    def __init__(self) -> None:
        self._indexes: dict[Key, tuple[FileIndex, float]] = {}
        self._artifacts: dict[tuple[Key, str, str], tuple[Any, float]] = {}

    def get_many(self, keys: Iterable[Key]) -> dict[Key, FileIndex]:
        now = time.time()
        found: dict[Key, FileIndex] = {}
        for key in keys:
            entry = self._indexes.get(key)
            if entry is not None:
                found[key] = entry[0]
                self._indexes[key] = (entry[0], now)
        return found

    def put_many(self, items: Iterable[tuple[Key, FileIndex]]) -> None:
        now = time.time()
        for key, index in items:
            self._indexes[key] = (index, now)

    def get_artifact(self, key: Key, plugin: str, version: str) -> Any | None:
        entry = self._artifacts.get((key, plugin, version))
        if entry is None:
            return None
        self._artifacts[(key, plugin, version)] = (entry[0], time.time())
        return entry[0]

    def put_artifact(self, key: Key, plugin: str, version: str, artifact: Any) -> None:
        self._artifacts[(key, plugin, version)] = (artifact, time.time())

    def prune(self, since: float) -> int:
        """Remove every index and artifact that no run read or wrote since ``since``."""
        stale = [k for k, (_, t) in self._indexes.items() if t < since]
        for k in stale:
            del self._indexes[k]
        stale_artifacts = [k for k, (_, t) in self._artifacts.items() if t < since]
        for a in stale_artifacts:
            del self._artifacts[a]
        return len(stale) + len(stale_artifacts)

    def __len__(self) -> int:
        return len(self._indexes)

    def close(self) -> None:
        pass
