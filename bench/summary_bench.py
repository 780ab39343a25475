"""Summary build time per package against one reach search per exported symbol.

    python bench/summary_bench.py [FOLDER...]

Each FOLDER is an installed package (``.../site-packages/jinja2``); with none, the packages of this
environment that the tests use (yaml, mcp, pydantic) and any of requests, jinja2, urllib3 found
beside them. Each is copied to a temporary folder, linked as a project of its own, and summarised
three times (the median is reported, with the peak memory of one build); then one reach query runs
per exported symbol (sources-only, one target: the package's most called external key), as a
summary replaces. The answers of the two are compared on that target.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import yaml

from projectgraph import summary
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach


def measure(folder: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(folder, Path(tmp) / folder.name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        started = time.perf_counter()
        graph = build_graph(tmp).graph
        linked = time.perf_counter() - started
    times = []
    for _ in range(3):
        started = time.perf_counter()
        built = summary.build(graph, unit=folder.name)
        times.append(time.perf_counter() - started)
    tracemalloc.start()
    summary.build(graph, unit=folder.name)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    called = Counter(e.callee for e in graph.edges if e.relation == "calls")
    externals = {n.key for n in graph.nodes if n.kind == "external"}
    target = max(sorted(externals), key=lambda k: called[k])
    started = time.perf_counter()
    agree = 0
    for symbol in built.symbols:
        result = reach(graph, Query((Target(target),), (Source(symbol),), SOURCES_ONLY))[0]
        agree += result.status == built.status(symbol, target)
    searches = time.perf_counter() - started
    return {
        "package": folder.name,
        "files": len(graph.files),
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
        "symbols": len(built.symbols),
        "components": built.stats["components"],
        "largest": built.stats["largest_component"],
        "reach sets": built.stats["distinct_reach_sets"],
        "link s": round(linked, 2),
        "summary s": round(statistics.median(times), 3),
        "peak MB": round(peak / 1e6, 1),
        "stored KB": round(len(built.dumps()) / 1e3, 1),
        "reach per symbol s": round(searches, 2),
        "speed-up": round(searches / statistics.median(times)),
        "agree": f"{agree}/{len(built.symbols)}",
    }


def main(argv: list[str]) -> None:
    site = Path(yaml.__file__).parent.parent
    folders = [Path(a) for a in argv] or [
        p
        for p in (site / name for name in ("yaml", "requests", "jinja2", "urllib3", "mcp", "pydantic"))
        if p.is_dir()
    ]
    rows = [measure(folder) for folder in folders]
    columns = list(rows[0])
    print("| " + " | ".join(columns) + " |")
    print("|" + "|".join("---" if c == "package" else "---:" for c in columns) + "|")
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
