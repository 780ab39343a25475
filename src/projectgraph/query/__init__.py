"""The query engine over a stored graph: one engine for the CLI, the MCP server and the viewer.

A SYMBOL argument is a key (``app/h.py//Parser//parse``), ``path:Qualified.name``, a qualified
name (``Parser.parse``), or a bare name (``parse``). A name with several definitions is an
``AmbiguousSymbolError`` that lists the candidates, never a guess; an external node counts only
when no first-party definition has the name. Every answer is a plain dict in the JSON shapes of
DESIGN.md, read in one snapshot of the store, so a write that commits meanwhile is never half seen.

Node ids follow the sorted keys (``store.sqlite.write_graph``), so ordering by id is ordering by
key: the queries sort ids and look up only the rows they return.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from projectgraph import keys
from projectgraph.graph import IMPACT_RELATIONS, RANK
from projectgraph.link.core import c3_linearize
from projectgraph.query import answers
from projectgraph.query import uncertain as unknown
from projectgraph.query.browse import node_record
from projectgraph.reach import WALKED
from projectgraph.store import sqlite as sql

MAX_DEPTH = 6
MAX_PATH_HOPS = 32
UNCERTAIN_LIMIT = 50
PATH_RELATIONS = ("calls", "imports", "references")
BASE_RELATIONS = ("extends", "implements")
NOT_CLASSES = frozenset({"module", "function", "method", "constructor", "getter", "setter"})

T = TypeVar("T")


class QueryError(ValueError):
    """A query that cannot be answered as asked (a usage error)."""


class SymbolNotFoundError(QueryError):
    pass


class AmbiguousSymbolError(QueryError):
    def __init__(self, text: str, candidates: list[dict[str, Any]]) -> None:
        self.candidates = candidates
        listed = "\n".join(f"  {c['key']} ({c['kind']}, {_where(c)})" for c in candidates[:20])
        more = f"\n  ... and {len(candidates) - 20} more" if len(candidates) > 20 else ""
        super().__init__(f"{text!r} names {len(candidates)} symbols; give one of these keys:\n{listed}{more}")


def _where(node: dict[str, Any]) -> str:
    return f"{node['path']}:{node['line']}" if node["path"] else "external"


def _site(path: str, line: int, col: int) -> dict[str, Any] | None:
    return {"path": path, "line": line, "column": col} if path else None


def _via(edge: tuple[Any, ...]) -> dict[str, Any]:
    """An overlay edge's resolver model and prompt (``{"via": ...}``); nothing for other edges."""
    return {"via": edge[8]} if edge[3] == "llm" and edge[8] else {}


def _in_snapshot(method: Callable[..., T]) -> Callable[..., T]:
    @wraps(method)
    def run(self: QueryEngine, *args: Any, **kwargs: Any) -> T:
        with sql.snapshot(self.connection):
            return method(self, *args, **kwargs)

    return run


class QueryEngine:
    """Answers over one SQLite connection, each call in one read snapshot."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self._unknowns: unknown.Unknowns | None = None

    def unknowns(self) -> unknown.Unknowns:
        """What the stored graph holds beside its edges (``query.uncertain``): read whole once, then
        followed from run to run by the files a write changed."""
        with sql.snapshot(self.connection):
            run = sql.run_id(self.connection)
            if self._unknowns is None:
                self._unknowns = unknown.Unknowns.load(self.connection, run)
            elif self._unknowns.run != run:
                self._unknowns = self._unknowns.follow(self.connection, run)
            return self._unknowns

    # ---- symbols --------------------------------------------------------------------------
    def _matches(self, text: str) -> list[tuple[Any, ...]]:
        """The nodes a SYMBOL text names, in key order (empty when none)."""
        rows = sql.nodes_where(self.connection, "key", text)
        if rows:
            return rows
        if ":" in text and keys.SEP not in text:
            path, _, qualname = text.rpartition(":")
            return sql.nodes_where(self.connection, "key", keys.first_party(path, qualname))
        column = "qualname" if "." in text else "name"
        rows = sql.nodes_where(self.connection, column, text)
        return [r for r in rows if r[2] != "external"] or rows

    @_in_snapshot
    def resolve(self, text: str) -> tuple[Any, ...]:
        """The one node a SYMBOL argument names."""
        text = text.strip()
        if not text:
            raise QueryError("an empty symbol")
        rows = self._matches(text)
        if not rows:
            if ":" in text and keys.SEP not in text:
                path, _, qualname = text.rpartition(":")
                raise SymbolNotFoundError(f"no symbol {qualname!r} in {path!r}")
            raise SymbolNotFoundError(f"no symbol named {text!r} (try `projectgraph search {text}`)")
        if len(rows) > 1:
            raise AmbiguousSymbolError(text, [node_record(r) for r in rows])
        return rows[0]

    @_in_snapshot
    def symbol(self, name: str) -> dict[str, Any]:
        """Every node whose key, ``path:Qualified.name``, qualified name or name is exactly ``name``."""
        name = name.strip()
        rows = {r[0]: r for r in sql.nodes_where(self.connection, "key", name)} if name else {}
        if name and ":" in name and keys.SEP not in name:
            rows.update((r[0], r) for r in self._matches(name))
        for column in ("qualname", "name"):
            if name:
                rows.update((r[0], r) for r in sql.nodes_where(self.connection, column, name))
        results = [node_record(rows[i]) | {"score": 1.0} for i in sorted(rows)]
        return {"query": name, "results": results}

    @_in_snapshot
    def describe(self, text: str) -> dict[str, Any]:
        """One symbol in full: its node and doc, its roots, the unresolved sites and dynamic flags in
        its code (``query.browse``)."""
        from projectgraph.query import browse

        return browse.describe(self.connection, self.resolve(text))

    @_in_snapshot
    def files(self, unit: str | None = None) -> dict[str, Any]:
        """The project's files (or one unit's) with their statuses; the units with their versions."""
        from projectgraph.query import browse

        answer = browse.files(self.connection, unit)
        if unit and not any(u["unit"] == unit for u in answer["units"]):
            raise QueryError(f"no unit {unit!r} in the stored graph")
        return answer

    def generation(self) -> dict[str, int]:
        """The store's sync generation (``query.browse.generation``): it moves when a sync commits."""
        from projectgraph.query import browse

        return browse.generation(self.connection)

    # ---- neighbours -----------------------------------------------------------------------
    def _neighbours(self, text: str, direction: str, limit: int, cursor: str | None = None) -> dict[str, Any]:
        if limit < 1:
            raise QueryError("--limit must be at least 1")
        row = self.resolve(text)
        edges = sql.edges_touching(self.connection, [row[0]], direction)
        other = 0 if direction == "in" else 1
        # strongest first, then by key (ids follow keys), then by site
        edges.sort(key=lambda e: (-RANK[e[4]], e[other], e[5], e[6], e[7], e[2]))
        try:
            shown, following = answers.page(edges, limit, cursor)
        except answers.CursorError as error:
            raise QueryError(f"--cursor: {error}") from error
        nodes = sql.nodes_by_ids(self.connection, (e[other] for e in shown))
        results = []
        for e in shown:
            n = nodes[e[other]]
            results.append(
                {
                    "key": n[1],
                    "kind": e[3],
                    "confidence": e[4],
                    "relation": e[2],
                    "site": _site(e[5], e[6], e[7]),
                    "name": n[3],
                    "node_kind": n[2],
                    "path": n[5],
                    "line": n[6],
                }
                | _via(e)
            )
        answer = {
            "symbol": row[1],
            "total": len(edges),
            "truncated": len(shown) < len(edges),
            "results": results,
            "nextCursor": following,
        }
        if direction == "in":
            known = any(e[2] != "references" for e in edges)
            answer |= self._uncertain_of(row, known, limit)
        return answer

    def _uncertain_of(self, row: tuple[Any, ...], known: bool, limit: int) -> dict[str, Any]:
        """The uncertain callers of one node, its roots and the status of its callers."""
        unknowns = self.unknowns()
        pending = unknown.uncertain_callers(self.connection, unknowns, {row[0]: row})[row[0]]
        pending += unknowns.dynamic
        roots = [{"kind": kind, "rule": rule} for kind, rule in unknowns.roots.get(row[0], ())]
        return {
            "uncertain": {
                "total": len(pending),
                "truncated": len(pending) > limit,
                "counts": unknown.counts(pending),
                "results": unknown.entries(self.connection, pending[:limit]),
            },
            "roots": roots,
            "status": _status(known, bool(pending), bool(roots)),
        }

    @_in_snapshot
    def callers(self, text: str, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        """The nodes with an edge into the symbol, each with the edge's kind, confidence and site,
        and the uncertain callers (``query.uncertain``): what might call it that no edge says. One
        page of ``limit`` from ``cursor`` (``nextCursor`` gives the next, as ``query.answers``)."""
        return self._neighbours(text, "in", limit, cursor)

    @_in_snapshot
    def callees(self, text: str, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        """The nodes the symbol has an edge to, one page of ``limit`` from ``cursor``."""
        return self._neighbours(text, "out", limit, cursor)

    # ---- impact and paths -----------------------------------------------------------------
    @_in_snapshot
    def impact(
        self,
        text: str,
        depth: int = 2,
        include_low: bool = True,
        include_uncertain: bool = False,
        limit: int = UNCERTAIN_LIMIT,
    ) -> dict[str, Any]:
        """The reverse dependency radius along calls, extends and implements (not imports).

        A node is ``low_confidence`` when every shortest way to it crosses a low-confidence edge;
        ``include_low=False`` leaves those edges out altogether. The uncertain callers of each node
        short of the last depth (``query.uncertain``) are counted one depth further; with
        ``include_uncertain`` the nodes that hold them are walked too (marked ``uncertain``). The
        dynamic features of code that runs concern every node: they are counted once, at depth 1.
        """
        if not 1 <= depth <= MAX_DEPTH:
            raise QueryError(f"--depth must be between 1 and {MAX_DEPTH} (got {depth})")
        if limit < 0:
            raise QueryError("--uncertain-limit must be at least 0")
        row = self.resolve(text)
        unknowns = self.unknowns()
        depths: dict[int, int] = {row[0]: 0}
        weak: dict[int, bool] = {row[0]: False}
        guessed: dict[int, bool] = {row[0]: False}
        frontier = [row[0]]
        edge_count = 0
        # (depth, the impacted node it may call, the uncertain caller), in walk order
        found: list[tuple[int, int, unknown.Pending]] = [(1, row[0], p) for p in unknowns.dynamic]
        rows: dict[int, tuple[Any, ...]] = {row[0]: row}
        called = False  # an edge calls the root (a low-confidence one left out counts too)
        for level in range(1, depth + 1):
            reached: dict[int, tuple[bool, bool]] = {}
            for caller, callee, _rel, _kind, confidence, *_ in sql.edges_touching(
                self.connection, frontier, "in", IMPACT_RELATIONS
            ):
                low = confidence == "low"
                called |= level == 1
                if low and not include_low:
                    continue
                edge_count += 1
                if caller not in depths:
                    was = reached.get(caller, (True, True))
                    reached[caller] = (was[0] and (low or weak[callee]), was[1] and guessed[callee])
            by_target = unknown.uncertain_callers(
                self.connection, unknowns, {n: rows[n] for n in frontier if n in rows}
            )
            for target in frontier:
                for pending in by_target.get(target, ()):
                    found.append((level, target, pending))
                    if include_uncertain and pending.caller not in depths:
                        reached.setdefault(pending.caller, (True, True))  # weak and a guess
            for caller, (is_weak, is_guessed) in reached.items():
                depths[caller] = level
                weak[caller] = is_weak
                guessed[caller] = is_guessed
            frontier = sorted(reached)
            if not frontier:
                break
            if level < depth:
                rows.update(sql.nodes_by_ids(self.connection, frontier))
        nodes = sql.nodes_by_ids(self.connection, depths)
        impacted = []
        for i, d in sorted(depths.items(), key=lambda item: (item[1], item[0])):
            item = {
                "key": nodes[i][1],
                "depth": d,
                "kind": nodes[i][2],
                "path": nodes[i][5],
                "line": nodes[i][6],
                "low_confidence": weak[i],
            }
            if include_uncertain:
                item["uncertain"] = guessed[i]
            impacted.append(item)
        found.sort(key=lambda f: (f[0], f[2].order(), f[1]))
        shown = found[:limit]
        targets = sql.nodes_by_ids(self.connection, (f[1] for f in shown))
        extra = {index: {"depth": f[0], "of": targets[f[1]][1]} for index, f in enumerate(shown)}
        per_depth = [
            {
                "depth": d,
                "impacted": sum(1 for v in depths.values() if v == d),
                "uncertain": sum(1 for f in found if f[0] == d),
            }
            for d in range(1, depth + 1)
        ]
        roots = [{"kind": kind, "rule": rule} for kind, rule in unknowns.roots.get(row[0], ())]
        return {
            "root": row[1],
            "impacted": impacted,
            "edgeCount": edge_count,
            "byDepth": per_depth,
            "uncertain": {
                "total": len(found),
                "truncated": len(found) > limit,
                "counts": unknown.counts([f[2] for f in found]),
                "results": unknown.entries(self.connection, [f[2] for f in shown], extra),
            },
            "roots": roots,
            "status": _status(called, any(f[0] == 1 for f in found), bool(roots)),
        }

    @_in_snapshot
    def tests_reaching(self, text: str, limit: int = UNCERTAIN_LIMIT) -> dict[str, Any]:
        """The test roots from which code that runs reaches the symbol: a search backwards along
        what reach walks (calls, imports, references, package edges)."""
        start = self.resolve(text)[0]
        tests = {node for node, found in self.unknowns().roots.items() if any(k == "test" for k, _ in found)}
        seen = {start}
        frontier = [start]
        while frontier:
            edges = sql.edges_touching(self.connection, frontier, "in")
            frontier = sorted({e[0] for e in edges if e[2] in WALKED or e[3] == "package"} - seen)
            seen.update(frontier)
        found = sorted(seen & tests)
        nodes = sql.nodes_by_ids(self.connection, found[:limit])
        return {
            "total": len(found),
            "truncated": len(found) > limit,
            "results": [
                {"key": nodes[n][1], "path": nodes[n][5], "line": nodes[n][6]} for n in found[:limit]
            ],
        }

    @_in_snapshot
    def calls_of_name(self, name: str, limit: int = UNCERTAIN_LIMIT) -> dict[str, Any]:
        """The unresolved calls of a name (an unknown receiver, no definition): what still calls a
        symbol of that name the graph no longer holds."""
        unknowns = self.unknowns()
        pending = list(unknowns.by_name.get(name, ()))
        pending += [p for found in unknowns.computed_by_caller.values() for p in found if p.name == name]
        pending.sort(key=unknown.Pending.order)
        return {
            "total": len(pending),
            "truncated": len(pending) > limit,
            "results": unknown.entries(self.connection, pending[:limit]),
        }

    @_in_snapshot
    def explore(self, text: str, root: Path | None = None, limit: int = 3) -> dict[str, Any]:
        """The few symbols a question is about, each with signature, doc, a code excerpt (from
        ``root``'s working copy), callers, callees and place in the hierarchy (``query.explore``)."""
        from projectgraph.query.explore import explore

        if not 1 <= limit <= 20:
            raise QueryError(f"--limit must be between 1 and 20 (got {limit})")
        return explore(self, text, root, limit)

    @_in_snapshot
    def export(self, fmt: str, around: str | None = None, depth: int = 2) -> str:
        """The graph, or the part within ``depth`` hops of a symbol, as DOT, Mermaid, GraphML or
        JSON (``query.export``)."""
        from projectgraph.query.export import FORMATS, render, subgraph

        if fmt not in FORMATS:
            raise QueryError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
        if around is not None and not 0 <= depth <= MAX_DEPTH:
            raise QueryError(f"--depth must be between 0 and {MAX_DEPTH} (got {depth})")
        start = self.resolve(around)[0] if around is not None else None
        return render(fmt, *subgraph(self.connection, start, depth))

    def changes(
        self, root: Path, base: str | None = None, staged: bool = False, depth: int = 2, limit: int = 20
    ) -> dict[str, Any]:
        """The symbols a git diff changes, each with its impact and tests (``query.changes``)."""
        from projectgraph.query.changes import changes

        if not 1 <= depth <= MAX_DEPTH:
            raise QueryError(f"--depth must be between 1 and {MAX_DEPTH} (got {depth})")
        if limit < 1:
            raise QueryError("--limit must be at least 1")
        with sql.snapshot(self.connection):
            return changes(self, root, base, staged, depth, limit)

    @_in_snapshot
    def path(self, source: str, target: str, max_hops: int = MAX_PATH_HOPS) -> dict[str, Any]:
        """The shortest path of calls, imports and references from one symbol to another.

        A breadth-first search from both ends, one whole level at a time, always growing the
        smaller frontier; where they meet first is a shortest path (the lowest key breaks ties).
        """
        start = self.resolve(source)[0]
        goal = self.resolve(target)[0]
        # node -> (the node before it, the edge between) from the start; after it, toward the goal
        ahead: dict[int, tuple[int, tuple[Any, ...]] | None] = {start: None}
        behind: dict[int, tuple[int, tuple[Any, ...]] | None] = {goal: None}
        forward, backward = [start], [goal]
        meet = start if start == goal else None
        hops = 0
        while meet is None and forward and backward and hops < max_hops:
            hops += 1
            grow_forward = len(forward) <= len(backward)
            frontier = forward if grow_forward else backward
            seen, other = (ahead, behind) if grow_forward else (behind, ahead)
            new: list[int] = []
            edges = sql.edges_touching(
                self.connection, frontier, "out" if grow_forward else "in", PATH_RELATIONS
            )
            for e in sorted(edges):
                near, far = (e[0], e[1]) if grow_forward else (e[1], e[0])
                if far not in seen:
                    seen[far] = (near, e)
                    new.append(far)
            meets = [n for n in new if n in other]
            if meets:
                meet = min(meets)
            if grow_forward:
                forward = new
            else:
                backward = new
        if meet is None:
            return {"from": self._key(start), "to": self._key(goal), "found": False, "path": []}
        chain: list[tuple[int, tuple[Any, ...] | None]] = []
        node: int | None = meet
        while node is not None:  # back from the meeting node to the start
            step = ahead[node]
            chain.append((node, step[1] if step else None))
            node = step[0] if step else None
        chain.reverse()
        node = meet
        while (step := behind[node]) is not None:  # on from the meeting node to the goal
            node = step[0]
            chain.append((node, step[1]))
        nodes = sql.nodes_by_ids(self.connection, (n for n, _ in chain))
        path = [
            {
                "key": nodes[n][1],
                "kind": e[3] if e else "start",
                "relation": e[2] if e else "",
                "confidence": e[4] if e else "high",
                "site": _site(e[5], e[6], e[7]) if e else None,
            }
            | (_via(e) if e else {})
            for n, e in chain
        ]
        return {"from": nodes[start][1], "to": nodes[goal][1], "found": True, "path": path}

    def _key(self, node: int) -> str:
        return str(sql.nodes_by_ids(self.connection, [node])[node][1])

    # ---- structure ------------------------------------------------------------------------
    @_in_snapshot
    def hierarchy(self, text: str) -> dict[str, Any]:
        """Bases (transitively, in C3 method resolution order: Python's MRO) and subclasses."""
        row = self.resolve(text)
        if row[2] in NOT_CLASSES:
            raise QueryError(f"{row[1]} is a {row[2]}, not a class")
        return {"class": row[1], "bases": self._bases(row), "subclasses": self._subclasses(row[0])}

    def _bases(self, row: tuple[Any, ...]) -> list[dict[str, Any]]:
        nodes: dict[int, tuple[Any, ...]] = {row[0]: row}
        bases_of: dict[int, list[int]] = {}
        depth: dict[int, int] = {row[0]: 0}
        frontier = [row[0]]
        while frontier and len(depth) < 10_000:
            edges = sql.edges_touching(self.connection, frontier, "out", BASE_RELATIONS)
            found = sorted({e[1] for e in edges} - set(nodes))
            nodes.update(sql.nodes_by_ids(self.connection, found))
            for cls in frontier:
                bases = sorted({e[1] for e in edges if e[0] == cls})
                bases_of[cls] = _declaration_order(nodes[cls], [nodes[b] for b in bases])
            nxt = [b for b in found if b not in depth]
            for b in nxt:
                depth[b] = depth[frontier[0]] + 1
            frontier = nxt
        by_key = {nodes[i][1]: i for i in nodes}
        by_class = {nodes[c][1]: [nodes[b][1] for b in bs] for c, bs in bases_of.items()}
        order = c3_linearize(row[1], lambda cls: by_class.get(cls, []), limit=64)
        listed = [by_key[k] for k in order[1:]]
        listed += sorted(set(depth) - set(listed) - {row[0]})  # past the C3 depth limit
        return [
            {
                "key": nodes[n][1],
                "kind": nodes[n][2],
                "depth": depth[n],
                "path": nodes[n][5],
                "line": nodes[n][6],
            }
            for n in listed
        ]

    def _subclasses(self, start: int) -> list[dict[str, Any]]:
        depth: dict[int, int] = {start: 0}
        frontier = [start]
        level = 0
        while frontier and len(depth) < 10_000:
            level += 1
            edges = sql.edges_touching(self.connection, frontier, "in", BASE_RELATIONS)
            frontier = sorted({e[0] for e in edges} - set(depth))
            depth.update((n, level) for n in frontier)
        del depth[start]
        nodes = sql.nodes_by_ids(self.connection, depth)
        return [
            {"key": nodes[n][1], "kind": nodes[n][2], "depth": d, "path": nodes[n][5], "line": nodes[n][6]}
            for n, d in sorted(depth.items(), key=lambda item: (item[1], item[0]))
        ]

    @_in_snapshot
    def cycles(self, limit: int = 50) -> dict[str, Any]:
        """Strongly connected components (more than one node, or a node calling itself) of the call
        graph and of the import graph (module-level imports), largest first."""
        if limit < 1:
            raise QueryError("--limit must be at least 1")
        out: dict[str, Any] = {}
        for name, relations in (("calls", ("calls",)), ("imports", ("imports",))):
            pairs = sql.edges_by_relation(self.connection, relations)
            components = strongly_connected(pairs)
            components.sort(key=lambda c: (-len(c), c))
            shown = components[:limit]
            nodes = sql.nodes_by_ids(self.connection, (n for c in shown for n in c))
            listed = [[nodes[n][1] for n in c] for c in shown]
            out[name] = {"count": len(components), "cycles": listed}
        return out

    # ---- search ---------------------------------------------------------------------------
    @_in_snapshot
    def search(self, text: str, mode: str = "hybrid", limit: int = 20) -> dict[str, Any]:
        """BM25 over names (split on case and underscores), qualified names, signatures, docs."""
        from projectgraph.query.search import search

        return search(self.connection, text, mode, limit)


def _status(known: bool, uncertain: bool, root: bool) -> str:
    """callers (an edge says who), callers-unknown (no edge, but something unresolved could be
    one), entry-point (called from outside the project alone), no-caller (nothing could name it)."""
    if known:
        return "callers"
    if uncertain:
        return "callers-unknown"
    return "entry-point" if root else "no-caller"


_IDENTIFIER_END = r"(?![\w$])"


def _declaration_order(cls: tuple[Any, ...], bases: list[tuple[Any, ...]]) -> list[int]:
    """The bases of a class in the order its header names them (its signature), which the
    stored edges do not keep; a base written under another name (an import alias) goes last."""
    signature, name = cls[8] or "", cls[3] or ""
    at = signature.find(name)
    header = signature[at + len(name) :] if name and at >= 0 else signature

    def position(base: tuple[Any, ...]) -> tuple[int, int]:
        found = re.search(
            r"(?<![\w$])" + re.escape(base[3] or keys.last_segment(base[1])) + _IDENTIFIER_END, header
        )
        return (found.start() if found else len(header) + 1, base[0])

    return [b[0] for b in sorted(bases, key=position)]


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
