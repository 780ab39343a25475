"""Anchor resolvers: one resolver owns the identity of one anchor type, and a run has one resolver
per name. A resolver reads the census, never the disk, and never opens a socket, so a check stays
offline and reproducible.

``normalize`` is lexical and is the whole identity of a source-tree anchor: it trims white space,
turns ``\\`` into ``/``, drops empty and ``.`` segments and a trailing ``/``, and lets ``..`` remove
the segment before it; it refuses an absolute path, an empty path and a path above the base. A path
library that resolved ``..`` on the disk would follow a symbolic link out of the repository, and
two strings would be one node for a reason the corpus does not state.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from projectgraph.docgraph.census import Row
from projectgraph.docgraph.globs import glob_match


class AnchorPathError(ValueError):
    """A target no lexical normalization can make a path under the base."""


def normalize(text: str) -> str:
    """The one spelling of a path under the base (see the module docstring)."""
    path = text.strip().replace("\\", "/")
    if not path:
        raise AnchorPathError("an empty path")
    if path.startswith("/") or re.match(r"^[A-Za-z]:/", path):
        raise AnchorPathError(f"an absolute path: {text.strip()}")
    parts: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                raise AnchorPathError(f"a path above the base: {text.strip()}")
            parts.pop()
            continue
        parts.append(segment)
    if not parts:
        raise AnchorPathError(f"an empty path: {text.strip()}")
    return "/".join(parts)


_WILD = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class Resolution:
    """What an anchor target resolved to: its node (the normalized pattern), the census paths it
    matched, the exclusion a literal match carries, a revision digest; or why it did not resolve."""

    node: str
    matched: tuple[str, ...] = ()
    exclusion: str = ""
    revision: str = ""
    error: str = ""  # why it did not resolve ("" when it did)


class Resolver(Protocol):
    name: str

    def claims(self, target: str, scope: Sequence[str]) -> bool: ...

    def resolve_for(self, target: str, declaring_id: str) -> Resolution: ...


class SourceTree:
    """Anchors that are paths of the source tree: a literal path (a file or a folder of census rows)
    or a pattern with wildcards under a literal prefix."""

    name = "source-tree"

    def __init__(self, rows: Iterable[Row]) -> None:
        self._rows = {row.path: row for row in rows}
        self._sorted = sorted(self._rows)

    def claims(self, target: str, scope: Sequence[str]) -> bool:
        """Whether the target is a path this anchor kind's scope admits (any path when no scope)."""
        try:
            path = normalize(target)
        except AnchorPathError:
            return not scope  # a bad path is still this resolver's to refuse, when nothing narrows it
        if not scope:
            return True
        prefix = _literal_prefix(path)
        return any(
            _glob(path, pattern) or _glob(prefix, pattern) or pattern.startswith(prefix + "/")
            for pattern in scope
        )

    def resolve_for(self, target: str, declaring_id: str) -> Resolution:
        try:
            path = normalize(target)
        except AnchorPathError as error:
            return Resolution(target.strip(), error=str(error))
        if not _WILD.search(path):
            row = self._rows.get(path)
            if row is not None:
                return Resolution(path, (path,), row.excluded, _digest([path]))
            under = self._under(path)
            if under:
                return Resolution(path, tuple(under), "", _digest(under))
            return Resolution(path, error=f"no file or folder {path}")
        prefix = _literal_prefix(path)
        if not prefix:
            return Resolution(path, error=f"a pattern that opens on a wildcard: {path}")
        matched = [p for p in self._under(prefix) if _glob(p, path) and not self._rows[p].excluded]
        if not matched:
            return Resolution(path, error=f"the pattern matches no file: {path}")
        return Resolution(path, tuple(matched), "", _digest(matched))

    def admits(self, pattern: str) -> list[str]:
        """The census paths a scope pattern admits (excluded rows left out)."""
        prefix = _literal_prefix(pattern)
        candidates = self._under(prefix) if prefix else self._sorted
        if not _WILD.search(pattern):
            candidates = [pattern] if pattern in self._rows else self._under(pattern)
            return [p for p in candidates if not self._rows[p].excluded]
        return [p for p in candidates if _glob(p, pattern) and not self._rows[p].excluded]

    def _under(self, folder: str) -> list[str]:
        start = folder + "/"
        from bisect import bisect_left

        i = bisect_left(self._sorted, start)
        found = []
        while i < len(self._sorted) and self._sorted[i].startswith(start):
            found.append(self._sorted[i])
            i += 1
        return found


def _literal_prefix(pattern: str) -> str:
    """The folders of a pattern before its first segment with a wildcard."""
    parts = []
    for segment in pattern.split("/"):
        if _WILD.search(segment):
            break
        parts.append(segment)
    return "/".join(parts)


_glob = glob_match


def _digest(paths: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(paths).encode()).hexdigest()[:16]


class Resolvers:
    """The resolvers of one run, one per name."""

    def __init__(self, resolvers: Iterable[Resolver] = ()) -> None:
        self._by_name: dict[str, Resolver] = {}
        for resolver in resolvers:
            self._add(resolver)

    @classmethod
    def over(cls, rows: Iterable[Row]) -> Resolvers:
        """A run's resolvers: the source tree alone."""
        return cls([SourceTree(rows)])

    def with_(self, resolver: Resolver) -> Resolvers:
        """These resolvers and one more; a second resolver of one name is refused."""
        more = Resolvers(self._by_name.values())
        more._add(resolver)
        return more

    def _add(self, resolver: Resolver) -> None:
        if resolver.name in self._by_name:
            raise ValueError(f"a second resolver named {resolver.name!r}")
        self._by_name[resolver.name] = resolver

    def get(self, name: str) -> Resolver | None:
        return self._by_name.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._by_name))
