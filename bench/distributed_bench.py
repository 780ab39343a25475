"""Distributed summaries: the same job list on Ray, on Beam and on a plain pool, whole processes.

    python bench/distributed_bench.py [--engines ray,beam,local] [--workers 2] [--runs 3]
        [--cli beam=/path/to/venv-beam/bin/projectgraph] [JOBFILE...]

The job list defaults to the wide fixture's (tests/fixtures/distributed/wide: 20 PyPI and 14 npm
versions). A throwaway PostgreSQL cluster (tests/pg_cluster.py) holds one fresh database per run;
each run is ``projectgraph distributed run JOBFILE... --engine E --workers N --store URL --json`` as
its own process (an engine's extra may live in an environment of its own: ``--cli``). A first
pass on the plain pool warms pip's and npm's caches so every measured run downloads alike.

Printed per engine: the wall time of each run (median), the CPU seconds of the process and its
children (``wait4``), and from the outcomes: the cost of one unit (the job's own wall time, fetch
and build) median and p95 by ecosystem, the fetch's share, and the store's bytes per unit. The
load average at each run's start is printed: the machine is shared.
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
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pg_cluster import start, stop  # noqa: E402

WIDE = ROOT / "tests" / "fixtures" / "distributed" / "wide"
CLI = Path(sys.executable).with_name("projectgraph")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def database(server: str) -> str:
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base, _, query = server.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}?{query}"


def one_run(cli: Path, engine: str, workers: int, jobfiles: list[str], store: str) -> dict[str, object]:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    command = [str(cli), "distributed", "run", *jobfiles, "--engine", engine, "--workers", str(workers)]
    process = subprocess.Popen(
        [*command, "--store", store, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 4):
        raise SystemExit(f"{engine}: exit {os.waitstatus_to_exitcode(status)}")
    answer = json.loads(out)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "load": load, "answer": answer}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "jobfiles", nargs="*", default=[str(WIDE / "requirements.txt"), str(WIDE / "package-lock.json")]
    )
    parser.add_argument("--engines", default="ray,beam,local")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--no-warm", action="store_true", help="Skip the pass that warms pip's and npm's caches."
    )
    parser.add_argument(
        "--cli", action="append", default=[], help="ENGINE=PATH of the projectgraph to run it with"
    )
    args = parser.parse_args()
    clis = {engine: Path(path) for engine, _, path in (item.partition("=") for item in args.cli)}
    folder = Path(tempfile.mkdtemp(prefix="pgbench."))
    server = start(folder)
    try:
        if not args.no_warm:
            with tempfile.TemporaryDirectory() as warm:
                one_run(CLI, "local", args.workers, args.jobfiles, str(Path(warm) / "warm.db"))
        for engine in args.engines.split(","):
            cli = clis.get(engine, CLI)
            runs = [
                one_run(cli, engine, args.workers, args.jobfiles, database(server)) for _ in range(args.runs)
            ]
            walls = [float(r["wall"]) for r in runs]  # type: ignore[arg-type]
            cpus = [float(r["cpu"]) for r in runs]  # type: ignore[arg-type]
            loads = [round(float(r["load"]), 1) for r in runs]  # type: ignore[arg-type]
            outcomes = [o for r in runs for o in r["answer"]["outcomes"]]  # type: ignore[index]
            built = [o for o in outcomes if o["status"] == "built"]
            failed = sorted({o["job"] for o in outcomes if o["status"] == "failed"})
            jobs = len(runs[0]["answer"]["outcomes"])  # type: ignore[index]
            print(
                f"== {engine}: {jobs} jobs, {args.workers} workers, {args.runs} runs, load at start {loads}"
            )
            rounded = [round(w, 1) for w in walls]
            print(f"   wall per run: median {statistics.median(walls):.1f} s (runs {rounded})")
            print(f"   CPU per run (process and children): median {statistics.median(cpus):.1f} s")
            print(f"   per unit, whole process: {statistics.median(walls) / jobs:.2f} s wall")
            for ecosystem in ("pypi", "npm"):
                mine = [o for o in built if o["job"].startswith(f"{ecosystem}:")]
                if not mine:
                    continue
                seconds = [float(o["seconds"]) for o in mine]
                fetch = sum(float(o["fetch_seconds"]) for o in mine) / max(sum(seconds), 1e-9)
                size = [int(o["bytes"]) for o in mine]
                print(
                    f"   {ecosystem}: unit cost median {statistics.median(seconds):.2f} s, "
                    f"p95 {p95(seconds):.2f} s, "
                    f"fetch {fetch:.0%} of it; store bytes per unit median {statistics.median(size)}, "
                    f"mean {statistics.mean(size):.0f}, max {max(size)}; files median "
                    f"{statistics.median(int(o['files']) for o in mine)}"
                )
            if failed:
                print(f"   failed: {failed}")
    finally:
        stop(folder)
        shutil.rmtree(folder, ignore_errors=True)  # the cluster's data folder: nothing to keep


if __name__ == "__main__":
    main()
