"""Pass 4: governed scope, the one reader of ``anchors.<kind>.scope``.

``contains`` tests one path with no walk; ``unmatched`` finds each pattern that matches no entry;
``reach`` lists what each pattern admits. The last two go through the anchor kind's resolver, so a
scope and an anchor use one matcher. An anchor kind with no scope has an empty scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from projectgraph.docgraph.anchors import SourceTree
from projectgraph.docgraph.globs import glob_match
from projectgraph.docgraph.taxonomy import AnchorDecl


@dataclass(frozen=True)
class ScopeReport:
    anchor_kind: str
    patterns: tuple[str, ...]
    admitted: tuple[tuple[str, int], ...]  # (pattern, count of census paths it admits)
    unmatched: tuple[str, ...]


class Scope:
    def __init__(self, decl: AnchorDecl, tree: SourceTree) -> None:
        self.decl = decl
        self.tree = tree

    def contains(self, path: str) -> bool:
        return any(
            glob_match(path, p) or path == p or path.startswith(p.rstrip("/") + "/") for p in self.decl.scope
        )

    def reach(self) -> dict[str, list[str]]:
        return {pattern: self.tree.admits(pattern) for pattern in self.decl.scope}

    def unmatched(self) -> list[str]:
        return [pattern for pattern, found in self.reach().items() if not found]

    def report(self) -> ScopeReport:
        reach = self.reach()
        return ScopeReport(
            self.decl.name,
            self.decl.scope,
            tuple((p, len(found)) for p, found in reach.items()),
            tuple(p for p, found in reach.items() if not found),
        )
