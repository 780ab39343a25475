"""Stores keep file indexes between runs: ``MemoryStore`` and the SQLite ``SqliteStore``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from projectgraph.fileindex import FileIndex, Key
from projectgraph.store.memory import MemoryStore
from projectgraph.store.sqlite import SqliteStore, open_project_store


class IndexStore(Protocol):
    def get_many(self, keys: Iterable[Key]) -> dict[Key, FileIndex]: ...
    def put_many(self, items: Iterable[tuple[Key, FileIndex]]) -> None: ...
    def get_artifact(self, key: Key, plugin: str, version: str) -> Any | None: ...
    def put_artifact(self, key: Key, plugin: str, version: str, artifact: Any) -> None: ...
    def prune(self, since: float) -> int: ...
    def close(self) -> None: ...


__all__ = ["IndexStore", "MemoryStore", "SqliteStore", "open_project_store"]
