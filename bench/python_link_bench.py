"""The Python link's cost on a real corpus: the link stage alone, in fresh processes, medians.

    .venv/bin/python bench/python_link_bench.py [--runs 5] [--corpus PATH]

The corpus is Django 5.1 (``bench/.corpus/`` as ``bench/query_bench.py`` fetches it, or
``--corpus``), copied once to a scratch folder outside this repository. A first process indexes
it into the scratch project's store; then each run is a fresh process that reads every index from
the store (``run_index``, all cached) and times ``link_indexed`` alone (Python files only, no
dependency units): wall and CPU seconds of the link, the process's peak resident memory, and the
graph's edge and unresolved-site counts. Run it with two checkouts' interpreters on one corpus to
compare their link rules (the same script, the same machine, one after the other); the load
average at the start of each run is printed, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

RUN = r"""
import json, resource, sys, time
from pathlib import Path
from projectgraph.config import load_config
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.pipeline import link_indexed
from projectgraph.store.sqlite import open_project_store

root = sys.argv[1]
store = open_project_store(root)
indexed = run_index(root, IndexOptions(languages=("python",), workers=1), store)
wall, cpu = time.perf_counter(), time.process_time()
graph = link_indexed(root, load_config(Path(root)), indexed)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "edges": len(graph.edges),
                  "unresolved": len(graph.unresolved)}))
"""


def corpus(given: str | None) -> Path:
    if given:
        return Path(given)
    sys.path.insert(0, str(HERE))
    from query_bench import fetch_django

    return fetch_django(HERE / ".corpus")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus")
    args = parser.parse_args(argv)
    source = corpus(args.corpus)
    scratch = Path(tempfile.mkdtemp(prefix="pg-link-bench-"))
    try:
        root = scratch / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".projectgraph"))
        subprocess.run([sys.executable, "-c", RUN, str(root)], check=True, capture_output=True)  # index
        runs = []
        for index in range(args.runs):
            load = os.getloadavg()[0]
            done = subprocess.run(
                [sys.executable, "-c", RUN, str(root)], check=True, capture_output=True, text=True
            )
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            runs.append(figures)
            print(
                f"run {index + 1}: link {figures['wall']:.2f} s wall, {figures['cpu']:.2f} s CPU, "
                f"peak {figures['peak_mb']:.0f} MB, {figures['edges']} edges, "
                f"{figures['unresolved']} unresolved (load {load:.1f})"
            )
        median = {key: statistics.median(run[key] for run in runs) for key in ("wall", "cpu", "peak_mb")}
        print(
            f"median of {len(runs)}: link {median['wall']:.2f} s wall, {median['cpu']:.2f} s CPU, "
            f"peak {median['peak_mb']:.0f} MB ({source.name}, {sys.executable})"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
