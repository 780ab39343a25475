"""The Go or Java link's cost on a real corpus, for two checkouts side by side: the link stage
alone, in fresh processes, medians, and the ratio of the second checkout's median to the first's.

    .venv/bin/python bench/deep_link_bench.py --language go --corpus /usr/share/go-1.19/src \\
        --python /work/main/.venv/bin/python --python .venv/bin/python [--runs 3]

The corpus (the Go standard library of Debian's ``golang-1.19-src``, or the JDK's java.base
sources) is copied once to a scratch folder. For each interpreter (each imports its own checkout's
``projectgraph``), a first process indexes the copy into a store of its own; then each run is a
fresh process that reads every index from the store (all cached) and times ``link_indexed`` alone
(one language, no dependency units): wall and CPU seconds, peak resident memory, edge and
unresolved-site counts. Runs of the two interpreters alternate, so a change of the machine's load
falls on both; the load average at the start of each run is printed.
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

RUN = r"""
import json, resource, sys, time
from pathlib import Path
from projectgraph.config import load_config
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.pipeline import link_indexed
from projectgraph.store.sqlite import open_project_store

root, language = sys.argv[1], sys.argv[2]
store = open_project_store(root)
indexed = run_index(root, IndexOptions(languages=(language,), workers=1), store)
wall, cpu = time.perf_counter(), time.process_time()
graph = link_indexed(root, load_config(Path(root)), indexed)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "edges": len(graph.edges),
                  "unresolved": len(graph.unresolved)}))
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", choices=("go", "java", "rust"), required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--python", action="append", required=True, help="an interpreter (twice)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    source = Path(args.corpus)
    scratch = Path(tempfile.mkdtemp(prefix="pg-deep-link-bench-"))
    try:
        roots = []
        for number, python in enumerate(args.python):
            root = scratch / f"{number}" / source.name
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".projectgraph"), symlinks=True)
            subprocess.run([python, "-c", RUN, str(root), args.language], check=True, capture_output=True)
            roots.append(root)
        runs: dict[str, list[dict[str, float]]] = {python: [] for python in args.python}
        for index in range(args.runs):
            for python, root in zip(args.python, roots, strict=True):
                load = os.getloadavg()[0]
                done = subprocess.run(
                    [python, "-c", RUN, str(root), args.language], check=True, capture_output=True, text=True
                )
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                runs[python].append(figures)
                print(
                    f"run {index + 1} {python}: link {figures['wall']:.2f} s wall, {figures['cpu']:.2f} s "
                    f"CPU, peak {figures['peak_mb']:.0f} MB, {figures['edges']} edges, "
                    f"{figures['unresolved']} unresolved (load {load:.1f})"
                )
        medians = []
        for python in args.python:
            figures = runs[python]
            median = {key: statistics.median(r[key] for r in figures) for key in ("wall", "cpu", "peak_mb")}
            medians.append(median)
            print(
                f"median of {args.runs} {python}: link {median['wall']:.2f} s wall, {median['cpu']:.2f} s "
                f"CPU, peak {median['peak_mb']:.0f} MB"
            )
        if len(medians) == 2:
            print(
                f"ratio second/first: wall {medians[1]['wall'] / medians[0]['wall']:.2f}, "
                f"CPU {medians[1]['cpu'] / medians[0]['cpu']:.2f}"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
