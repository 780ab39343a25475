"""Deep nesting benchmark (issue 24, finding 4): each deeply nested input of the issue, indexed as a
one-file project by the whole ``projectgraph index`` process; the median of several runs (never a
timed test).

    python bench/deep_nesting.py [--runs 3] [--json OUT]

Before the depth budget (``indexer.MAX_DEPTH``) tree-sitter's query captures cost about the nodes
times the depth: JavaScript arrays 10,000 deep took 3.4 s, 40,000 38 s, 100,000 236 s; Python
100,000 nested lists over 120 s; 20,000 nested calls 7-8 s in Python, Go and TypeScript. Each input
must now finish within ``LIMIT`` seconds of the floor (the same command on a one-line file, so the
interpreter's start and imports are not counted), or be truncated within it: the status and the
reason are printed, and so are the wall and CPU times (the CPU time is the fairer one on a loaded
machine). The exit code is 1 when an input is over the limit in CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CLI = Path(sys.executable).with_name("projectgraph")
LIMIT = 2.0

INPUTS: dict[str, tuple[str, str]] = {
    "floor (one line)": ("app.py", "x = 1\n"),
    "js arrays 10k": ("app.js", "const x = " + "[" * 10_000 + "]" * 10_000 + ";\n"),
    "js arrays 40k": ("app.js", "const x = " + "[" * 40_000 + "]" * 40_000 + ";\n"),
    "js arrays 100k": ("app.js", "const x = " + "[" * 100_000 + "]" * 100_000 + ";\n"),
    "python lists 100k": ("app.py", "x = " + "[" * 100_000 + "]" * 100_000 + "\n"),
    "python calls 20k": ("app.py", "x = " + "f(" * 20_000 + ")" * 20_000 + "\n"),
    "go calls 20k": ("main.go", "package main\nfunc main() {\nx := " + "f(" * 20_000 + ")" * 20_000 + "}"),
    "typescript calls 20k": ("app.ts", "const x = " + "f(" * 20_000 + ")" * 20_000 + ";\n"),
    "python 200 nests of 200 calls": ("app.py", ("x = " + "f(" * 200 + ")" * 200 + "\n") * 200),
}


def run_once(root: Path) -> tuple[float, float, dict[str, Any]]:
    """(wall seconds, CPU seconds of the child, the index summary) of one ``projectgraph index``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [str(CLI), "index", str(root), "--deps", "none", "--workers", "1", "--json"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(root.parent)},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 4):
        raise SystemExit(f"projectgraph index failed ({done.returncode}): {done.stderr}")
    return wall, cpu, json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", dest="out", help="write the figures as JSON here")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="deep-nesting-") as temporary:
        for number, (name, (file_name, text)) in enumerate(INPUTS.items()):
            root = Path(temporary) / f"p{number}"
            root.mkdir()
            (root / file_name).write_text(text, encoding="utf-8")
            walls, cpus = [], []
            summary: dict[str, Any] = {}
            for _ in range(args.runs):
                (root / ".projectgraph" / "graph.db").unlink(missing_ok=True)  # a cold run each time
                wall, cpu, summary = run_once(root)
                walls.append(wall)
                cpus.append(cpu)
            problems = summary.get("problems") or [{}]
            rows.append(
                {
                    "input": name,
                    "bytes": len(text.encode("utf-8")),
                    "wall": statistics.median(walls),
                    "cpu": statistics.median(cpus),
                    "status": next(iter(summary["statuses"])),
                    "reason": problems[0].get("reason", ""),
                }
            )
    floor = rows[0]
    over = 0
    load = os.getloadavg()[0]
    print(f"load average {load:.1f}; medians of {args.runs} cold runs; limit {LIMIT} s over the floor")
    print(f"{'input':32} {'bytes':>8} {'wall':>7} {'cpu':>7} {'cpu-floor':>9}  status")
    for row in rows:
        row["cpu_over_floor"] = row["cpu"] - floor["cpu"]
        row["wall_over_floor"] = row["wall"] - floor["wall"]
        mark = "" if row["cpu_over_floor"] <= LIMIT else "  OVER THE LIMIT"
        over += bool(mark)
        print(
            f"{row['input']:32} {row['bytes']:>8} {row['wall']:>6.2f}s {row['cpu']:>6.2f}s "
            f"{row['cpu_over_floor']:>8.2f}s  {row['status']}{mark}"
            + (f" ({row['reason']})" if row["reason"] else "")
        )
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
