"""The query engine over a stored graph: one engine for the CLI, the MCP server and the viewer.

A SYMBOL argument is a key (``app/h.py//Parser//parse``), ``path:Qualified.name``, a qualified
name, or a bare name; a bare name with several definitions is an ``AmbiguousSymbolError`` that lists
the candidates, never a guess. Every answer is a plain dict in the JSON shapes of DESIGN.md.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterable
from typing import Any

from projectgraph import keys
from projectgraph.graph import IMPACT_RELATIONS, RANK
from projectgraph.store import sqlite as sql

MAX_DEPTH = 6
CALL_RELATIONS = ("calls",)
PATH_RELATIONS = ("calls", "references", "imports")


class QueryError(ValueError):
    """A query that cannot be answered as asked (a usage error)."""


class SymbolNotFoundError(QueryError):
    pass


class AmbiguousSymbolError(QueryError):
    def __init__(self, text: str, candidates: list[dict[str, Any]]) -> None:
        self.candidates = candidates
        listed = "\n".join(f"  {c['key']} ({c['kind']}, {c['path']}:{c['line']})" for c in candidates[:20])
        more = f"\n  ... and {len(candidates) - 20} more" if len(candidates) > 20 else ""
        super().__init__(f"{text!r} names {len(candidates)} symbols; give one of these keys:\n{listed}{more}")


def _node(row: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "key": row[1],
        "kind": row[2],
        "name": row[3],
        "qualname": row[4],
        "path": row[5],
        "line": row[6],
        "end_line": row[7],
        "signature": row[8],
    }


def _site(path: str, line: int, col: int) -> dict[str, Any] | None:
    return {"path": path, "line": line, "column": col} if path else None


class QueryEngine:
    """Answers over one SQLite connection (a consistent snapshot per call)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    # ---- symbols --------------------------------------------------------------------------
    def resolve(self, text: str) -> tuple[Any, ...]:
        """The one node a SYMBOL argument names."""
        text = text.strip()
        if not text:
            raise QueryError("an empty symbol")
        rows = sql.nodes_where(self.connection, "key", text)
        if rows:
            return rows[0]
        if ":" in text and keys.SEP not in text:
            path, _, qualname = text.rpartition(":")
            rows = sql.nodes_where(self.connection, "key", keys.first_party(path, qualname))
            if rows:
                return rows[0]
            raise SymbolNotFoundError(f"no symbol {qualname!r} in {path!r}")
        rows = sql.nodes_where(self.connection, "qualname", text) or sql.nodes_where(
            self.connection, "name", text
        )
        rows = [r for r in rows if r[2] != "external"] or rows
        if not rows:
            raise SymbolNotFoundError(f"no symbol named {text!r} (try `projectgraph search {text}`)")
        if len(rows) > 1:
            raise AmbiguousSymbolError(text, [_node(r) for r in rows])
        return rows[0]

    def symbol(self, name: str) -> dict[str, Any]:
        """Every node whose name or qualified name is exactly ``name`` (or whose key it is)."""
        rows = {r[0]: r for r in sql.nodes_where(self.connection, "key", name)}
        for column in ("qualname", "name"):
            for r in sql.nodes_where(self.connection, column, name):
                rows[r[0]] = r
        results = [_node(r) | {"score": 1.0} for r in sorted(rows.values(), key=lambda r: r[1])]
        return {"query": name, "results": results}

    # ---- neighbours -----------------------------------------------------------------------
    def _neighbours(self, text: str, direction: str, limit: int) -> dict[str, Any]:
        if limit < 1:
            raise QueryError("--limit must be at least 1")
        row = self.resolve(text)
        edges = sql.edges_touching(self.connection, [row[0]], direction)
        other = 0 if direction == "in" else 1
        nodes = sql.nodes_by_ids(self.connection, (e[other] for e in edges))
        results = []
        for e in edges:
            n = nodes[e[other]]
            results.append(
                {
                    "key": n[1],
                    "name": n[3],
                    "kind": n[2],
                    "relation": e[2],
                    "edge_kind": e[3],
                    "confidence": e[4],
                    "path": n[5],
                    "line": n[6],
                    "site": _site(e[5], e[6], e[7]),
                }
            )
        results.sort(key=lambda r: (-RANK[r["confidence"]], r["key"], (r["site"] and r["site"]["line"]) or 0))
        return {
            "symbol": row[1],
            "total": len(results),
            "truncated": len(results) > limit,
            "results": results[:limit],
        }

    def callers(self, text: str, limit: int = 50) -> dict[str, Any]:
        """The nodes with an edge into the symbol."""
        return self._neighbours(text, "in", limit)

    def callees(self, text: str, limit: int = 50) -> dict[str, Any]:
        """The nodes the symbol has an edge to."""
        return self._neighbours(text, "out", limit)

    # ---- impact and paths -----------------------------------------------------------------
    def impact(self, text: str, depth: int = 2, include_low: bool = True) -> dict[str, Any]:
        """The reverse dependency radius along calls, extends and implements (not imports)."""
        if not 1 <= depth <= MAX_DEPTH:
            raise QueryError(f"--depth must be between 1 and {MAX_DEPTH} (got {depth})")
        row = self.resolve(text)
        depths: dict[int, int] = {row[0]: 0}
        weak: dict[int, bool] = {row[0]: False}
        frontier = [row[0]]
        edge_count = 0
        for level in range(1, depth + 1):
            edges = sql.edges_touching(self.connection, frontier, "in", IMPACT_RELATIONS)
            next_frontier: list[int] = []
            for e in sorted(edges):
                low = e[4] == "low"
                if low and not include_low:
                    continue
                edge_count += 1
                caller = e[0]
                if caller not in depths:
                    depths[caller] = level
                    weak[caller] = low or weak[e[1]]
                    next_frontier.append(caller)
            frontier = next_frontier
            if not frontier:
                break
        nodes = sql.nodes_by_ids(self.connection, depths)
        impacted = [
            {
                "key": nodes[i][1],
                "depth": d,
                "kind": nodes[i][2],
                "path": nodes[i][5],
                "line": nodes[i][6],
                "low_confidence": weak[i],
            }
            for i, d in depths.items()
        ]
        impacted.sort(key=lambda r: (r["depth"], r["key"]))
        return {"root": row[1], "impacted": impacted, "edgeCount": edge_count}

    def path(self, source: str, target: str, max_depth: int = 32) -> dict[str, Any]:
        """The shortest call path from one symbol to another, each hop with its edge kind."""
        start = self.resolve(source)
        goal = self.resolve(target)
        parent: dict[int, tuple[int, tuple[Any, ...]] | None] = {start[0]: None}
        queue: deque[tuple[int, int]] = deque([(start[0], 0)])
        while queue:
            node, depth = queue.popleft()
            if node == goal[0] or depth >= max_depth:
                if node == goal[0]:
                    break
                continue
            for e in sorted(sql.edges_touching(self.connection, [node], "out", PATH_RELATIONS)):
                if e[1] not in parent:
                    parent[e[1]] = (node, e)
                    queue.append((e[1], depth + 1))
        if goal[0] not in parent:
            return {"from": start[1], "to": goal[1], "found": False, "path": []}
        chain: list[tuple[int, tuple[Any, ...] | None]] = []
        current: int | None = goal[0]
        while current is not None:
            step = parent[current]
            chain.append((current, step[1] if step else None))
            current = step[0] if step else None
        chain.reverse()
        nodes = sql.nodes_by_ids(self.connection, (n for n, _ in chain))
        hops = [
            {
                "key": nodes[n][1],
                "kind": e[3] if e else "start",
                "relation": e[2] if e else "",
                "confidence": e[4] if e else "high",
                "site": _site(e[5], e[6], e[7]) if e else None,
            }
            for n, e in chain
        ]
        return {"from": start[1], "to": goal[1], "found": True, "path": hops}

    # ---- structure ------------------------------------------------------------------------
    def hierarchy(self, text: str) -> dict[str, Any]:
        """Bases (transitively, nearest first: the MRO order for Python) and subclasses."""
        row = self.resolve(text)
        bases = self._walk_bases(row[0], "out")
        subclasses = self._walk_bases(row[0], "in")
        return {"class": row[1], "bases": bases, "subclasses": subclasses}

    def _walk_bases(self, start: int, direction: str) -> list[dict[str, Any]]:
        other = 1 if direction == "out" else 0
        order: list[tuple[int, int]] = []
        seen = {start}
        frontier = [start]
        level = 0
        while frontier and level < 64:
            level += 1
            nxt: list[int] = []
            for node in frontier:
                edges = sql.edges_touching(self.connection, [node], direction, ("extends", "implements"))
                # bases in declaration order: the extends edges' site columns keep it only per line,
                # so fall back to the node key order for ties
                for e in sorted(edges, key=lambda e: (e[6], e[7], e[other])):
                    if e[other] not in seen:
                        seen.add(e[other])
                        order.append((e[other], level))
                        nxt.append(e[other])
            frontier = nxt
        nodes = sql.nodes_by_ids(self.connection, (n for n, _ in order))
        return [{"key": nodes[n][1], "kind": nodes[n][2], "depth": d, "path": nodes[n][5]} for n, d in order]

    def cycles(self, limit: int = 50) -> dict[str, Any]:
        """Strongly connected components (size > 1, or a self-loop) of the call and import graphs."""
        out: dict[str, Any] = {}
        for name, relations in (("calls", ("calls",)), ("imports", ("imports",))):
            pairs = sql.edges_by_relation(self.connection, relations)
            components = strongly_connected(pairs)
            ids = {n for c in components for n in c}
            nodes = sql.nodes_by_ids(self.connection, ids)
            listed = [sorted(nodes[n][1] for n in c) for c in components]
            listed.sort(key=lambda c: (-len(c), c))
            out[name] = {"count": len(listed), "cycles": listed[:limit]}
        return out

    # ---- search ---------------------------------------------------------------------------
    def search(self, text: str, mode: str = "hybrid", limit: int = 20) -> dict[str, Any]:
        """BM25 over names (split on case and underscores), qualified names, signatures, docs."""
        from projectgraph.query.search import search

        return search(self.connection, text, mode, limit)


def strongly_connected(pairs: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Tarjan's algorithm without recursion: every component of more than one node or a self-loop."""
    graph: dict[int, list[int]] = {}
    loops: set[int] = set()
    for a, b in pairs:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
        if a == b:
            loops.add(a)
    index_of: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in sorted(graph):
        if root in index_of:
            continue
        work: list[tuple[int, int]] = [(root, 0)]
        while work:
            node, child_index = work.pop()
            if child_index == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            children = graph[node]
            if child_index < len(children):
                work.append((node, child_index + 1))
                child = children[child_index]
                if child not in index_of:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index_of[child])
                continue
            if low[node] == index_of[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in loops:
                    components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components
