"""Units benchmark: a small app with its whole virtual environment, whole processes, medians (never a
timed test).

    python bench/units_bench.py [--runs 3] [--packages flask] [--deps auto] [--folder PATH]

It writes a one-file Flask app into ``--folder`` (default: a folder under the system's temporary
folder), makes its ``.venv`` (``python -m venv --without-pip``) and installs ``--packages`` into it
from PyPI with this Python's pip, once. Then it runs ``projectgraph index --deps DEPS`` as its own
process: **cold** with no ``.projectgraph`` (every file parsed, every unit linked), **warm** again
with the store of the run before (every file and every unit's linked part from the store). Wall time
is the process's, start to exit; CPU the user and system time of the process and the workers it
waited for, and peak RSS the largest resident set among them (``wait4``); the load average at each
run's start is printed: on a shared machine the CPU times say what the work costs whatever the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

APP = """from flask import Flask, jsonify, render_template_string, request

app = Flask(__name__)


@app.route("/")
def index():
    return render_template_string("<p>Hello {{ name }}</p>", name=request.args.get("name", "world"))


@app.route("/items/<int:item>")
def item(item):
    return jsonify(id=item)


if __name__ == "__main__":
    app.run()
"""
CLI = Path(sys.executable).with_name("projectgraph")


def prepare(folder: Path, packages: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "app.py").write_text(APP, encoding="utf-8")
    venv = folder / ".venv"
    if not (venv / "pyvenv.cfg").is_file():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(venv / "bin" / "python"),
                "install",
                "-q",
                *packages,
            ],
            check=True,
        )


def run(folder: Path, deps: str) -> tuple[float, int, float]:
    """One ``projectgraph index`` process: (wall seconds, peak RSS in KB, CPU seconds)."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(CLI), "index", str(folder), "--deps", deps], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdout is not None
    out = process.stdout.read().decode()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"projectgraph index failed ({status}): {out}")
    cpu = usage.ru_utime + usage.ru_stime
    last = [line for line in out.splitlines() if line.startswith("dependencies:")]
    print(
        f"  {seconds:6.2f} s wall {cpu:6.2f} s CPU {usage.ru_maxrss / 1024:6.0f} MB (load {load:.1f}) "
        + (last[0] if last else "")
    )
    return seconds, usage.ru_maxrss, cpu


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--packages", default="flask", help="comma-separated requirements to install")
    parser.add_argument("--deps", default="auto", help="the --deps value of the runs")
    parser.add_argument(
        "--folder", type=Path, default=Path(tempfile.gettempdir()) / "projectgraph-units-bench"
    )
    args = parser.parse_args()
    prepare(args.folder, [p for p in args.packages.split(",") if p])
    figures: dict[str, list[tuple[float, int, float]]] = {"cold": [], "warm": []}
    for _ in range(args.runs):
        print("cold")
        shutil.rmtree(args.folder / ".projectgraph", ignore_errors=True)
        figures["cold"].append(run(args.folder, args.deps))
        print("warm")
        figures["warm"].append(run(args.folder, args.deps))
    for name, runs in figures.items():
        seconds = statistics.median(r[0] for r in runs)
        peak = statistics.median(r[1] for r in runs) / 1024
        cpu = statistics.median(r[2] for r in runs)
        print(
            f"{name}: median {seconds:.2f} s wall, {cpu:.2f} s CPU, {peak:.0f} MB peak RSS "
            f"over {len(runs)} runs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
