"""CPU of the daemon's sync of one edit, in process: what save-to-answer spends beside the waits.

    python bench/sync_edit_cpu.py PROJECT [--edits 6] [--file django/utils/text.py]
                                  [--callee compress_string] [--parts]

PROJECT is an indexed copy (``projectgraph index``; it is edited: use a copy). As the daemon's
watcher does: one catch-up sync that keeps the tracked link (``incremental=True``), then for each
edit a function calling ``--callee`` appended to ``--file`` and a sync told that this path changed,
then the query engine brought to the new generation (the stamps, the uncertain callers' tables).
Per edit: the sync's CPU and wall seconds, how it linked, and the engine's CPU; the medians leave
out the first edit. ``--parts`` adds the CPU of the main functions of the path (wrapped: their
own overhead is small beside them).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

PARTS: dict[str, float] = defaultdict(float)


def wrap(owner: Any, name: str, label: str) -> None:
    function = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            PARTS[label] += time.process_time() - started

    setattr(owner, name, timed)


def wrap_parts() -> None:
    incremental = importlib.import_module("projectgraph.languages.python.link.incremental")
    relink = importlib.import_module("projectgraph.sync.relink")
    reconcile = importlib.import_module("projectgraph.sync.reconcile")
    sql = importlib.import_module("projectgraph.store.sqlite")
    for name in ("_invalidate", "_swap", "graph_of", "_rebuild_defs"):
        wrap(incremental.LinkState, name, f"LinkState.{name}")
    wrap(incremental.TracedPythonLinker, "_release", "linker._release")
    wrap(relink, "link", "relink.link")
    for name in ("stored_files", "write_graph", "_write_files", "_groups_of", "file_stamps"):
        wrap(sql, name, f"store.{name}")
    wrap(reconcile, "index_files", "reconcile.index_files")
    # (reconcile imports _file_entries from the link package in the call, after the stamp shortcut)
    wrap(importlib.import_module("projectgraph.link"), "_file_entries", "link._file_entries")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("project", type=Path)
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--file", default="django/utils/text.py")
    parser.add_argument("--callee", default="compress_string")
    parser.add_argument("--parts", action="store_true")
    args = parser.parse_args()
    if args.parts:
        wrap_parts()
    from projectgraph.indexer import IndexOptions
    from projectgraph.mcp.projects import Projects
    from projectgraph.store.lock import WriterLock
    from projectgraph.store.sqlite import open_project_store
    from projectgraph.sync.reconcile import reconcile

    root = args.project.resolve()
    store = open_project_store(root)
    options = IndexOptions()
    started = time.perf_counter()
    with WriterLock(root / ".projectgraph"):
        reconcile(root, store, options, incremental=True)
    print(f"catch-up: {time.perf_counter() - started:.1f} s, load {os.getloadavg()[0]:.1f}", flush=True)
    projects = Projects(root)
    served = projects.open(None)
    served.stamps()
    served.engine.unknowns()
    rows: list[tuple[float, float, float]] = []
    for number in range(args.edits):
        PARTS.clear()
        with (root / args.file).open("a", encoding="utf-8") as handle:
            handle.write(
                f"\n\ndef sync_edit_{os.getpid()}_{number}(value):\n    return {args.callee}(b'x')\n"
            )
        cpu, wall = time.process_time(), time.perf_counter()
        with WriterLock(root / ".projectgraph"):
            result = reconcile(root, store, options, incremental=True, changed_paths=(args.file,))
        sync_cpu, sync_wall = time.process_time() - cpu, time.perf_counter() - wall
        cpu = time.process_time()
        served = projects.open(None)
        served.stamps()
        served.engine.unknowns()
        engine_cpu = time.process_time() - cpu
        rows.append((sync_cpu, sync_wall, engine_cpu))
        print(
            f"edit {number}: sync {sync_cpu * 1000:.0f} ms CPU, {sync_wall * 1000:.0f} ms wall "
            f"({result.link} link, {result.relinked_units} units); engine {engine_cpu * 1000:.0f} ms CPU"
        )
        if PARTS:
            shown = sorted(PARTS.items(), key=lambda item: -item[1])
            print("   ", ", ".join(f"{name} {seconds * 1000:.0f}" for name, seconds in shown))
    kept = rows[1:] or rows
    print(
        f"median of edits 2-{len(rows)}: sync {statistics.median(r[0] for r in kept) * 1000:.0f} ms CPU, "
        f"{statistics.median(r[1] for r in kept) * 1000:.0f} ms wall; engine "
        f"{statistics.median(r[2] for r in kept) * 1000:.0f} ms CPU; load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
