"""Query benchmark: the stored graph of a real corpus (Django 5.1 by default) and the latency of
its queries, measured in-process over many queries (never run as a timed test).

    python bench/query_bench.py [--corpus PATH] [--queries 200] [--languages python] [--json OUT]

It copies the corpus to a scratch folder, indexes and links it (its Python files by default)
into ``.projectgraph/graph.db``, timing index, link and the graph write apart. Then, on a fresh
connection, it times ``symbol`` (a bare name), ``callers`` and ``impact --depth 3`` of random
first-party symbols, ``path`` between pairs joined by a path and between random pairs (mostly
not joined), and keyword ``search`` for names and for two-word phrases. It prints the database
size per 1,000 files, the median / p90 / max of each query (target: every median under 50 ms)
and how often the definition of an exact name ranks first.

The corpus: ``--corpus``, else ``bench/.corpus/Django-5.1`` (what ``bench/index_bench.py``
fetches), else ``/tmp/corpus/Django-5.1``, else the Django 5.1 source from PyPI with pip.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.query import QueryEngine
from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import open_project_store

HERE = Path(__file__).resolve().parent
CORPUS = "Django-5.1"
TARGET_MS = 50.0


def corpus_path(given: str | None) -> Path:
    if given:
        return Path(given).resolve()
    for candidate in (HERE / ".corpus" / CORPUS, Path("/tmp/corpus") / CORPUS):
        if candidate.is_dir():
            return candidate
    return fetch_django(HERE / ".corpus")


def fetch_django(into: Path) -> Path:
    """The Django 5.1 source distribution from PyPI (pip, no install), unpacked under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                scratch,
                "Django==5.1",
            ],
            check=True,
        )
        archive = next(Path(scratch).glob("*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")
    unpacked = next(p for p in into.iterdir() if p.is_dir() and p.name.lower().startswith("django-5.1"))
    if unpacked.name != CORPUS:
        unpacked.rename(into / CORPUS)
    return into / CORPUS


def timed(runs: list[Callable[[], Any]]) -> list[float]:
    """Each call's wall time in milliseconds."""
    times = []
    for call in runs:
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(len(ordered) * 0.9) - 1], 2),
        "max_ms": round(ordered[-1], 2),
    }


def database_size(path: Path) -> dict[str, int]:
    """Bytes of the whole file and of the graph part (tables and indexes other than the file index
    cache), after a checkpoint folds the WAL in."""
    connection = sql._connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        sizes = {"file": path.stat().st_size}
        try:
            rows = connection.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
        except Exception:  # SQLite built without dbstat
            return sizes
        cache = {"file_index", "file_index_read_at", "plugin_artifact", "sqlite_autoindex_file_index_1"}
        cache |= {"sqlite_autoindex_plugin_artifact_1"}
        sizes["file_index_cache"] = sum(size for name, size in rows if name in cache)
        sizes["graph"] = sum(size for name, size in rows if name not in cache)
        return sizes
    finally:
        connection.close()


def workload(engine: QueryEngine, count: int, rng: random.Random) -> dict[str, list[Callable[[], Any]]]:
    """The queries to time: random first-party symbols (by key), names and phrases from them."""
    connection = engine.connection
    rows = connection.execute(
        "SELECT id, key, name FROM nodes "
        "WHERE kind IN ('function', 'method', 'class', 'constructor') ORDER BY id"
    ).fetchall()
    picked = rng.sample(rows, min(count, len(rows)))
    calls: dict[int, list[int]] = {}
    for caller, callee in connection.execute("SELECT caller, callee FROM edges WHERE relation='calls'"):
        calls.setdefault(caller, []).append(callee)
    keys = dict(connection.execute("SELECT id, key FROM nodes"))
    joined = []  # (from, to) with a path: a random walk along calls from a node that calls something
    starts = [r for r in rows if r[0] in calls]
    while len(joined) < count // 2 and starts:
        node = rng.choice(starts)[0]
        walk = node
        for _ in range(rng.randint(1, 5)):
            nxt = calls.get(walk)
            if not nxt:
                break
            walk = rng.choice(nxt)
        if walk != node:
            joined.append((keys[node], keys[walk]))
    random_pairs = [(rng.choice(rows)[1], rng.choice(rows)[1]) for _ in range(count - len(joined))]
    words = [sql.search_words(r[2]).split() for r in picked]
    phrases = [" ".join(w[-2:]) for w in words if len(w) >= 3] or [r[2] for r in picked]
    return {
        "symbol (bare name)": [lambda n=r[2]: engine.symbol(n) for r in picked],
        "callers": [lambda k=r[1]: engine.callers(k) for r in picked],
        "impact depth 3": [lambda k=r[1]: engine.impact(k, depth=3) for r in picked],
        "path (joined pairs)": [lambda a=a, b=b: engine.path(a, b) for a, b in joined],
        "path (random pairs)": [lambda a=a, b=b: engine.path(a, b) for a, b in random_pairs],
        "search (a name)": [lambda n=r[2]: engine.search(n, "keyword") for r in picked],
        "search (two words)": [lambda p=p: engine.search(p, "keyword") for p in phrases[:count]],
    }


def exact_first(engine: QueryEngine, names: list[str]) -> float:
    """How often the first hit of a name's search is a definition of exactly that name."""
    hits = [engine.search(n, "keyword", limit=5)["results"] for n in names]
    return sum(1 for n, h in zip(names, hits, strict=True) if h and h[0]["name"] == n) / max(len(names), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="a project folder (default: Django 5.1)")
    parser.add_argument("--queries", type=int, default=200, help="queries of each kind")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--languages", default="python", help="comma-separated, or 'all' (default: python)")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    source = corpus_path(args.corpus)
    scratch = Path(tempfile.mkdtemp(prefix="query-bench-"))
    root = scratch / source.name
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".projectgraph", ".git"))
    try:
        figures = measure(root, args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print_figures(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


def measure(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    store = open_project_store(root)
    started = time.perf_counter()
    languages = () if args.languages == "all" else tuple(args.languages.split(","))
    run = build_graph(root, IndexOptions(languages=languages, workers=args.workers), store)
    built = time.perf_counter()
    sql.write_graph(store.connection, run.graph, {}, {"root": str(root)})
    written = time.perf_counter()
    store.close()
    index_seconds = float(run.index.summary()["seconds"])
    files = len(run.index.statuses)
    sizes = database_size(root / ".projectgraph" / "graph.db")
    figures: dict[str, Any] = {
        "corpus": root.name,
        "files": files,
        "nodes": run.graph.stats.get("nodes"),
        "edges": run.graph.stats.get("edges"),
        "seconds": {
            "index": round(index_seconds, 2),
            "link": round(built - started - index_seconds, 2),
            "write_graph": round(written - built, 2),
        },
        "database_bytes": sizes,
        "database_mb_per_1000_files": {
            name: round(size / 1e6 / files * 1000, 2) for name, size in sizes.items() if files
        },
    }
    # a fresh connection, as a query command would open it
    reader = sql._connect(root / ".projectgraph" / "graph.db")
    engine = QueryEngine(reader)
    rng = random.Random(args.seed)
    work = workload(engine, args.queries, rng)
    for runs in work.values():  # warm the page cache and the statement cache
        timed(runs[:5])
    figures["latency"] = {name: summary(timed(runs)) for name, runs in work.items() if runs}
    names = [
        r[0] for r in reader.execute("SELECT name FROM nodes WHERE kind IN ('function','method','class')")
    ]
    figures["exact_name_first"] = round(
        exact_first(engine, rng.sample(names, min(args.queries, len(names)))), 3
    )
    reader.close()
    return figures


def print_figures(f: dict[str, Any]) -> None:
    s = f["seconds"]
    print(f"{f['corpus']}: {f['files']} files, {f['nodes']} nodes, {f['edges']} edges")
    print(f"index {s['index']} s, link {s['link']} s, graph write {s['write_graph']} s")
    per = f["database_mb_per_1000_files"]
    print("database MB per 1,000 files: " + ", ".join(f"{k} {v}" for k, v in per.items()))
    print(f"{'query':<22} {'n':>4} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
    for name, row in f["latency"].items():
        flag = "" if row["median_ms"] < TARGET_MS else "  over target"
        print(f"{name:<22} {row['n']:>4} {row['median_ms']:>10} {row['p90_ms']:>8} {row['max_ms']:>8}{flag}")
    print(f"exact name ranked first: {f['exact_name_first']:.1%}")


if __name__ == "__main__":
    main()
