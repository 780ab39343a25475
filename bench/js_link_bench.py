"""The cost of the JavaScript/TypeScript link: the link stage alone over a corpus's JS/TS files,
this checkout against a base checkout, medians of several runs in fresh processes.

    .venv/bin/python bench/js_link_bench.py --base DIR [--runs 5] CORPUS [CORPUS ...]

``--base`` is the ``src`` folder of the checkout to compare with (made with ``git archive <rev>
src | tar x -C DIR``, so DIR/src). Each corpus is a folder, as Django's sdist (its ``.js`` files,
``django/contrib/admin/static``) or an npm package with TypeScript sources (``npm pack rxjs``,
unpacked: its ``src`` has 250 ``.ts`` files). Every run is one process per (checkout, corpus): it
indexes the corpus (one worker, no store), keeps the JS/TS indexes, then links them ``--runs``
times and prints the median link time; the process is run twice per checkout, alternating, and
the lower median is kept (the machine is shared). The ratio is head / base: the link rules of this
checkout against those of the base on the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"

PROBE = r"""
import json, statistics, sys, time
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.link import LinkOptions, build

root, runs = sys.argv[1], int(sys.argv[2])
indexed = run_index(root, IndexOptions(workers=1))
indexes = tuple(i for i in indexed.indexes if i.language in ("javascript", "typescript", "tsx"))
times = []
edges = 0
for _ in range(runs):
    start = time.perf_counter()
    graph = build(indexes, LinkOptions(root=root))
    times.append(time.perf_counter() - start)
    edges = sum(1 for e in graph.edges if e.relation == "calls")
print(json.dumps({"files": len(indexes), "median": statistics.median(times), "calls": edges}))
"""


def probe(src: Path, corpus: Path, runs: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(corpus), str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--base", type=Path, required=True, help="the src folder of the base checkout")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print(
        f"{'corpus':40} {'files':>5} {'base s':>8} {'head s':>8} {'ratio':>6} "
        f"{'base calls':>10} {'head calls':>10}"
    )
    for corpus in args.corpora:
        base = head = None
        for _turn in range(2):
            b = probe(args.base, corpus, args.runs)
            h = probe(HERE, corpus, args.runs)
            base = b if base is None or b["median"] < base["median"] else base
            head = h if head is None or h["median"] < head["median"] else head
        assert base is not None and head is not None
        print(
            f"{str(corpus)[-40:]:40} {int(head['files']):5} {base['median']:8.3f} {head['median']:8.3f} "
            f"{head['median'] / base['median']:6.2f} {int(base['calls']):10} {int(head['calls']):10}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
