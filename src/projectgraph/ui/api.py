"""The viewer's JSON API: one endpoint per question, each one call of the query engine or of reach.

Every answer is the engine's dict (the CLI's ``--json`` shape), plus what the page needs to draw it
that the engine does not give: a code excerpt for a symbol, the impact radius grouped by file with
counts per depth, the location of each hop of a reach path. Nothing here walks the graph itself, and
nothing reads the whole graph but reach, which needs it: it is read once per stored run and kept.

Requests are answered by a small pool of engines, each with its own SQLite connection (a read
snapshot is per connection), so a long reach does not hold up an expand. Errors are
``ApiError(status, message)``: 400 for a bad argument, 404 for an unknown symbol or endpoint, 409
for an ambiguous name (with its candidates).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from projectgraph.graph import Graph
from projectgraph.keys import KeyError_
from projectgraph.project import Project
from projectgraph.query import MAX_DEPTH, AmbiguousSymbolError, QueryEngine, QueryError, SymbolNotFoundError
from projectgraph.query.search import MODES, semantic_available
from projectgraph.reach import SOURCES_AND_ROOTS, SOURCES_ONLY, Query, ReachError, Source, Target, reach
from projectgraph.store import sqlite as sql
from projectgraph.ui.live import LiveState

ENGINES = 1
"""Engines answering requests at once. One: each query takes milliseconds, and an engine keeps what
it reads once per stored run beside its connection (the uncertain callers' tables: 140 MB and
seconds on Django), which a second engine would read again; reach reads the graph on a connection
of its own, so a long reach does not hold up an expand."""
MAX_EXCERPT_LINES = 400
MAX_LINE_CHARS = 400
MAX_LIMIT = 1000
MAX_TARGETS = 20

Params = dict[str, list[str]]


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        return {"error": str(self), **self.extra}


def _one(params: Params, name: str, default: str | None = None) -> str:
    values = params.get(name)
    if not values or not values[-1].strip():
        if default is None:
            raise ApiError(400, f"missing parameter {name!r}")
        return default
    return values[-1].strip()


def _int(params: Params, name: str, default: int, low: int, high: int) -> int:
    text = _one(params, name, str(default))
    try:
        value = int(text)
    except ValueError:
        raise ApiError(400, f"{name} must be an integer (got {text!r})") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be between {low} and {high} (got {value})")
    return value


def _flag(params: Params, name: str) -> bool:
    return _one(params, name, "0").lower() in ("1", "true", "yes", "on")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("projectgraph")
    except PackageNotFoundError:
        return "0"


class Engines:
    """A pool of query engines over one project's store, one SQLite connection each."""

    def __init__(self, root: Path, size: int = ENGINES) -> None:
        self.root = root
        self._free: queue.LifoQueue[tuple[Project, QueryEngine]] = queue.LifoQueue()
        self._all: list[Project] = []
        self._lock = threading.Lock()
        self._size = size

    @contextmanager
    def engine(self) -> Iterator[QueryEngine]:
        try:
            project, engine = self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                grow = len(self._all) < self._size
                if grow:
                    project = Project(self.root)
                    self._all.append(project)
            if grow:
                engine = QueryEngine(project.store.connection)
            else:
                project, engine = self._free.get()
        try:
            yield engine
        finally:
            self._free.put((project, engine))

    def close(self) -> None:
        with self._lock:
            for project in self._all:
                project.close()
            self._all.clear()


@dataclass
class _GraphCache:
    """The whole stored graph for reach, read once per stored run on a connection of its own."""

    run: int = -1
    graph: Graph | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    project: Project | None = None


class Api:
    """The endpoints of one served project."""

    def __init__(self, root: Path, live: LiveState, engines: int = ENGINES) -> None:
        self.root = root
        self.live = live
        self.engines = Engines(root, engines)
        self._graph = _GraphCache()
        self.routes: dict[str, Callable[[Params], dict[str, Any]]] = {
            "status": self.status,
            "search": self.search,
            "symbol": self.symbol,
            "callers": self.callers,
            "callees": self.callees,
            "impact": self.impact,
            "reach": self.reach,
            "files": self.files,
        }

    def close(self) -> None:
        self.engines.close()
        with self._graph.lock:
            if self._graph.project is not None:
                self._graph.project.close()
                self._graph.project = None
            self._graph.graph = None

    def answer(self, name: str, params: Params) -> dict[str, Any]:
        """The answer of endpoint ``name``; an ``ApiError`` for a request it cannot answer."""
        route = self.routes.get(name)
        if route is None:
            raise ApiError(404, f"no endpoint /api/{name} (the endpoints: {', '.join(self.routes)})")
        try:
            return route(params)
        except AmbiguousSymbolError as error:
            raise ApiError(409, str(error), candidates=error.candidates) from error
        except SymbolNotFoundError as error:
            raise ApiError(404, str(error)) from error
        except (QueryError, ReachError, KeyError_) as error:
            raise ApiError(400, str(error)) from error

    # ---- endpoints ------------------------------------------------------------------------
    def status(self, params: Params) -> dict[str, Any]:
        """What the page shows in its header: the project, the graph's size, the live state."""
        run = self.live.stored_run()  # not an engine: the page's first call never waits for one
        stats = run["stats"] if run else {}
        live = self.live.snapshot()
        return {
            "root": str(self.root),
            "name": self.root.name,
            "version": _version(),
            "indexed": run is not None,
            "graph": {k: stats.get(k, 0) for k in ("files", "nodes", "edges", "unresolved", "roots")},
            "units": len(stats.get("units") or {}),
            "lastRun": {k: run[k] for k in ("id", "started", "finished", "error")} if run else None,
            "generation": live["generation"],
            "staleness": live["staleness"],
            "liveVersion": live["version"],  # orders this staleness against the live channel's events
            "semantic": semantic_available(),
            "limits": {"depth": MAX_DEPTH},
        }

    def search(self, params: Params) -> dict[str, Any]:
        mode = _one(params, "mode", "hybrid")
        if mode not in MODES:
            raise ApiError(400, f"unknown search mode {mode!r} (use {', '.join(MODES)})")
        with self.engines.engine() as engine:
            return engine.search(_one(params, "q"), mode, _int(params, "limit", 20, 1, 200))

    def symbol(self, params: Params) -> dict[str, Any]:
        """The symbol in full (``QueryEngine.describe``) and its code from the working copy."""
        with self.engines.engine() as engine:
            answer = engine.describe(_one(params, "key"))
            stamps = sql.file_stamps(engine.connection)
        symbol = answer["symbol"]
        return answer | {"code": self._excerpt(symbol, stamps)}

    def _excerpt(self, symbol: dict[str, Any], stamps: dict[str, tuple[int, int, str]]) -> dict[str, Any]:
        """The symbol's lines as the working copy has them now, marked stale when the file changed."""
        path = symbol["path"]
        if symbol["unit"]:
            return {"available": False, "note": f"dependency code of {symbol['unit']}: no source kept here"}
        if not path or symbol["kind"] == "external":
            return {"available": False, "note": "an external symbol: no source in this project"}
        if path not in stamps:
            return {"available": False, "note": f"{path} is not a project file of the stored graph"}
        file = (self.root / path).resolve()
        if not file.is_relative_to(self.root):
            return {"available": False, "note": f"{path} is outside the project"}
        try:
            stat = os.stat(file)
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            return {"available": False, "note": f"{path} cannot be read now ({error.strerror or error})"}
        size, mtime, _status = stamps[path]
        lines = text.splitlines()
        first = max(int(symbol["line"]), 1)
        last = max(int(symbol["end_line"]), first)
        shown_last = min(last, first + MAX_EXCERPT_LINES - 1, len(lines))
        stale = (stat.st_size, stat.st_mtime_ns) != (size, mtime)
        return {
            "available": True,
            "path": path,
            "first": first,
            "last": last,
            "lines": [line[:MAX_LINE_CHARS] for line in lines[first - 1 : shown_last]],
            "truncated": shown_last < last,
            "stale": stale,
            "note": f"{path} changed since the last sync: lines may have moved" if stale else "",
        }

    def _neighbours(self, params: Params, direction: str) -> dict[str, Any]:
        limit = _int(params, "limit", 25, 1, MAX_LIMIT)
        with self.engines.engine() as engine:
            ask = engine.callers if direction == "in" else engine.callees
            return ask(_one(params, "key"), limit)

    def callers(self, params: Params) -> dict[str, Any]:
        return self._neighbours(params, "in")

    def callees(self, params: Params) -> dict[str, Any]:
        return self._neighbours(params, "out")

    def impact(self, params: Params) -> dict[str, Any]:
        """``QueryEngine.impact`` and the impacted symbols grouped by file, with counts per depth."""
        depth = _int(params, "depth", 2, 1, MAX_DEPTH)
        with self.engines.engine() as engine:
            answer = engine.impact(_one(params, "key"), depth)
        groups: dict[str, dict[str, Any]] = {}
        per_depth = dict.fromkeys(range(1, depth + 1), 0)
        for item in answer["impacted"]:
            if item["depth"] == 0:
                continue
            per_depth[item["depth"]] += 1
            group = groups.setdefault(item["path"], {"path": item["path"], "count": 0, "depths": {}})
            group["count"] += 1
            group["depths"][str(item["depth"])] = group["depths"].get(str(item["depth"]), 0) + 1
        ordered = sorted(
            groups.values(), key=lambda g: (min(int(d) for d in g["depths"]), -g["count"], g["path"])
        )
        return answer | {
            "depth": depth,
            "perDepth": [{"depth": d, "count": n} for d, n in per_depth.items()],
            "files": ordered,
        }

    def warm(self) -> None:
        """Read now what the engines read once per stored run (at start, after a sync), so the
        first question after it does not wait for that read."""
        with self.engines.engine() as engine:
            unknowns = getattr(engine, "unknowns", None)
            if callable(unknowns):
                unknowns()

    def _stored_graph(self) -> Graph:
        cache = self._graph
        with cache.lock:
            if cache.project is None:
                cache.project = Project(self.root)
            connection = cache.project.store.connection
            run, _synced = sql.sync_generation(connection)
            if cache.graph is None or cache.run != run:
                cache.graph = None  # the old run's graph goes before the new one is read
                cache.graph = sql.read_graph(connection)
                cache.run = run
            return cache.graph

    def _prepare(self) -> dict[str, Any]:
        """Start reading the stored graph for reach in the background (the page asks when the reach
        view opens, so the first search does not wait for the read); say whether it is read."""
        run = self.live.snapshot()["generation"]["run"]
        ready = self._graph.graph is not None and self._graph.run == run
        if not ready and not self._graph.lock.locked():
            threading.Thread(target=self._stored_graph, name="projectgraph-ui-graph", daemon=True).start()
        return {"graph": "ready" if ready else "reading"}

    def reach(self, params: Params) -> dict[str, Any]:
        """``reach`` over the stored graph, each hop with where its node is (to link it); with
        ``prepare=1`` and no target, the read of the graph starts and the answer says if it is done."""
        texts = [t.strip() for value in params.get("target", []) for t in value.split(",") if t.strip()]
        if not texts and _flag(params, "prepare"):
            return self._prepare()
        if not texts:
            raise ApiError(400, "missing parameter 'target' (a key such as yaml//load, or subprocess//*)")
        if len(texts) > MAX_TARGETS:
            raise ApiError(400, f"at most {MAX_TARGETS} targets at once (got {len(texts)})")
        sources = [s.strip() for value in params.get("source", []) for s in value.split(",") if s.strip()]
        only = _flag(params, "sources_only")
        if only and not sources:
            raise ApiError(400, "sources_only needs at least one source")
        targets = tuple(Target.by_key(t) for t in texts)
        query = Query(
            targets=targets,
            sources=tuple(Source.parse(s) for s in sources),
            mode=SOURCES_ONLY if only else SOURCES_AND_ROOTS,
            max_depth=_int(params, "max_depth", 0, 0, 10_000),
        )
        graph = self._stored_graph()
        nodes = graph.node_by_key
        results = []
        for result in reach(graph, query):
            data = result.to_json()
            for hop in data["path"]:
                node = nodes.get(hop["key"])
                hop["node"] = (
                    {"kind": node.kind, "path": node.path, "line": node.line, "unit": node.unit}
                    if node is not None
                    else None
                )
            results.append(data)
        return {"results": results}

    def files(self, params: Params) -> dict[str, Any]:
        unit = _one(params, "unit", "") or None
        with self.engines.engine() as engine:
            return engine.files(unit)
