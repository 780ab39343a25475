"""Index benchmark: a real corpus, whole processes, the median of several runs (never a timed test).

    python bench/index_bench.py [--runs 3] [--languages python,javascript] [--stages index,command]
                                [--workers 0] [--corpus PATH] [--json OUT]

The corpus is the Django 5.1 sdist, fetched from PyPI at bench time into ``bench/.corpus/`` (git
ignores it) with ``pip download --no-deps --no-binary :all: django==5.1`` and unpacked there, unless
``--corpus`` names a folder. Each run works on a copy outside this repository (inside it, git would
hide the ignored corpus from discovery).

Each run measures, in this order:

- **floor**: tree-sitter's raw parse of the same files (those discovery finds for the languages),
  in this process on one core, the sources read beforehand: what no index can beat on one core;
- **index cold / warm**: the index stage as its own process (``run_index`` with the project's SQLite
  store, exactly what ``projectgraph index`` runs before linking), first with no ``.projectgraph``,
  then again with every file in the store. These are the figures the index targets are about:
  cold within 2x of the floor (on every core), warm within 1x of it, peak memory under 400 MB;
- **command cold / warm** (``--stages command``): the whole ``projectgraph index`` command, which
  also links the project and writes the graph.

Wall times are the process's, start to exit; CPU is the user and system time of the process and
the workers it waited for, and peak RSS the largest resident set among them (``wait4``). Ratios are
medians over medians. On a shared machine the wall times of the parallel runs suffer most from the
other load (the load average at each run's start is printed): the CPU ratios say what the work
costs whatever the load.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpus"
PACKAGE = "django"
VERSION = "5.1"
STAGES = ("index", "command")


def fetch_corpus(package: str = PACKAGE, version: str = VERSION) -> Path:
    """The unpacked sdist in ``bench/.corpus/``, downloaded with pip on first use."""
    CACHE.mkdir(exist_ok=True)
    (CACHE / ".gitignore").write_text("*\n", encoding="utf-8")
    folder = next(
        (p for p in CACHE.iterdir() if p.is_dir() and p.name.lower() == f"{package}-{version}"), None
    )
    if folder is not None:
        return folder
    archives = [p for p in CACHE.glob("*.tar.gz") if p.name.lower().startswith(f"{package}-{version}")]
    if not archives:
        print(f"fetching the {package} {version} sdist with pip ...", file=sys.stderr)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                f"{package}=={version}",
                "--dest",
                str(CACHE),
            ],
            check=True,
        )
        archives = [p for p in CACHE.glob("*.tar.gz") if p.name.lower().startswith(f"{package}-{version}")]
    with tarfile.open(archives[0]) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(CACHE, filter="data")
        else:  # pragma: no cover - Python without the extraction filters
            archive.extractall(CACHE)
    return next(p for p in CACHE.iterdir() if p.is_dir() and p.name.lower() == f"{package}-{version}")


def corpus_files(root: Path, languages: tuple[str, ...]) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """The (path, language) of every file the index would read, and the languages indexed."""
    from projectgraph.config import load_config
    from projectgraph.discover import discover
    from projectgraph.indexer import IndexOptions
    from projectgraph.languages import all_languages

    options = IndexOptions(languages=languages).validated()
    specs = [all_languages()[name] for name in options.languages]
    found = discover(root, specs, load_config(root))
    return [(f.path, f.language) for f in found.files], options.languages


def parse_floor(root: Path, files: list[tuple[str, str]]) -> dict[str, float]:
    """Seconds to parse every file once with tree-sitter, one core, sources in memory."""
    from projectgraph.languages import all_languages
    from projectgraph.languages.base import parser

    specs = all_languages()
    sources = [((root / path).read_bytes(), parser(specs[language].grammar)) for path, language in files]
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        for data, language_parser in sources:
            language_parser.parse(data)
        return {"seconds": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    finally:
        gc.enable()


def run_process(command: list[str], cwd: Path) -> dict[str, Any]:
    """Run one process to its end: wall seconds, its peak RSS in MB (``wait4``), exit code, JSON output."""
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=out_file, stderr=err_file)
        _, status, usage = os.wait4(process.pid, 0)  # the child's own usage, before Popen reaps it
        seconds = time.perf_counter() - started
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    try:
        summary = json.loads(out)
    except json.JSONDecodeError:
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{err.decode(errors='replace')}") from None
    cpu = usage.ru_utime + usage.ru_stime  # the process and the workers it waited for
    return {
        "seconds": seconds,
        "cpu": cpu,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": code,
        "summary": summary,
    }


def index_stage(root: Path, languages: tuple[str, ...], workers: int) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child-index",
        str(root),
        "--languages",
        ",".join(languages),
        "--workers",
        str(workers),
    ]
    return run_process(command, root)


def index_command(root: Path, languages: tuple[str, ...], workers: int) -> dict[str, Any]:
    cli = Path(sys.executable).with_name("projectgraph")
    command = [
        str(cli),
        "index",
        str(root),
        "--languages",
        ",".join(languages),
        "--workers",
        str(workers),
        "--json",
    ]
    return run_process(command, root)


def child_index(root: Path, languages: tuple[str, ...], workers: int) -> None:
    """The index stage as ``projectgraph index`` runs it, in this process; its summary on stdout."""
    from projectgraph.indexer import IndexOptions, run_index
    from projectgraph.store import open_project_store

    store = open_project_store(root)
    try:
        result = run_index(root, IndexOptions(languages=languages, workers=workers), store)
    finally:
        store.close()
    json.dump(result.summary(), sys.stdout)


def languages_of(summary: dict[str, Any]) -> str:
    """``python 2788 indexed, javascript 111 cached``: what one run read, by language."""
    parts = []
    for language, counts in summary.get("languages", {}).items():
        parts.append(f"{language} " + " ".join(f"{n} {status}" for status, n in counts.items()))
    return ", ".join(parts) or "no files"


def fresh(root: Path) -> None:
    shutil.rmtree(root / ".projectgraph", ignore_errors=True)


def bench(args: argparse.Namespace) -> dict[str, Any]:
    source = Path(args.corpus).resolve() if args.corpus else fetch_corpus()
    requested = tuple(n.strip() for n in args.languages.split(",") if n.strip()) if args.languages else ()
    stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise SystemExit(f"unknown stage(s): {', '.join(unknown)} (known: {', '.join(STAGES)})")
    scratch = Path(tempfile.mkdtemp(prefix="projectgraph-bench-"))
    try:
        root = scratch / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".projectgraph"), symlinks=True)
        files, languages = corpus_files(root, requested)
        size = sum((root / path).stat().st_size for path, _ in files)
        by_language: dict[str, int] = {}
        for _, language in files:
            by_language[language] = by_language.get(language, 0) + 1
        print(
            f"corpus {source.name}: {len(files)} files, {size / 1e6:.1f} MB "
            f"({', '.join(f'{lang} {n}' for lang, n in sorted(by_language.items()))}); "
            f"languages asked: {', '.join(languages)}; {os.cpu_count()} CPUs; {args.runs} run(s)",
            flush=True,
        )
        runs: list[dict[str, Any]] = []
        for number in range(1, args.runs + 1):
            run: dict[str, Any] = {"floor": parse_floor(root, files), "load": os.getloadavg()[0]}
            line = [f"run {number} (load {run['load']:.1f}): floor {run['floor']['seconds']:.2f} s"]
            if "index" in stages:
                fresh(root)
                run["index_cold"] = index_stage(root, languages, args.workers)
                run["index_warm"] = index_stage(root, languages, args.workers)
                for name in ("index_cold", "index_warm"):
                    r = run[name]
                    line.append(
                        f"{name.replace('_', ' ')} {r['seconds']:.2f} s (cpu {r['cpu']:.2f} s) "
                        f"{r['peak_mb']:.0f} MB ({languages_of(r['summary'])})"
                    )
            if "command" in stages:
                fresh(root)
                run["command_cold"] = index_command(root, languages, args.workers)
                run["command_warm"] = index_command(root, languages, args.workers)
                for name in ("command_cold", "command_warm"):
                    r = run[name]
                    line.append(
                        f"{name.replace('_', ' ')} {r['seconds']:.2f} s "
                        f"(index {r['summary']['seconds']:.2f} s) {r['peak_mb']:.0f} MB "
                        f"({languages_of(r['summary'])})"
                    )
            print(" | ".join(line), flush=True)
            runs.append(run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return report(source.name, files, size, languages, runs)


def report(
    corpus: str,
    files: list[tuple[str, str]],
    size: int,
    languages: tuple[str, ...],
    runs: list[dict[str, Any]],
) -> dict[str, Any]:
    def median(name: str, field: str = "seconds") -> float:
        return float(statistics.median(run[name][field] for run in runs))

    floor = median("floor")
    rows: dict[str, dict[str, float]] = {"floor": {"seconds": floor, "cpu": median("floor", "cpu")}}
    for name in ("index_cold", "index_warm", "command_cold", "command_warm"):
        if name in runs[0]:
            rows[name] = {
                "seconds": median(name),
                "cpu": median(name, "cpu"),
                "peak_mb": max(run[name]["peak_mb"] for run in runs),
            }
            if name.startswith("command"):
                rows[name]["index_seconds"] = statistics.median(
                    run[name]["summary"]["seconds"] for run in runs
                )
    for row in rows.values():
        row["files_per_s"] = len(files) / row["seconds"]
        row["mb_per_s"] = size / 1e6 / row["seconds"]
        row["x_floor"] = row["seconds"] / floor
        row["cpu_x_floor"] = row["cpu"] / rows["floor"]["cpu"]
    print()
    loads = ", ".join(f"{run['load']:.1f}" for run in runs)
    print(
        f"median of {len(runs)} run(s), {len(files)} files, {size / 1e6:.1f} MB, {os.cpu_count()} CPUs, "
        f"load average at each run's start {loads}"
    )
    print(
        f"{'':34} {'seconds':>8} {'files/s':>8} {'MB/s':>6} {'x floor':>8} "
        f"{'CPU s':>6} {'CPU x':>6} {'peak RSS':>9}"
    )
    labels = {
        "floor": "floor: raw parse, 1 core",
        "index_cold": "index cold (all cores)",
        "index_warm": "index warm (all cached)",
        "command_cold": "projectgraph index cold (+ link)",
        "command_warm": "projectgraph index warm (+ link)",
    }
    for name, row in rows.items():
        peak = f"{row['peak_mb']:.0f} MB" if "peak_mb" in row else "-"
        print(
            f"{labels[name]:34} {row['seconds']:8.2f} {row['files_per_s']:8.0f} {row['mb_per_s']:6.1f} "
            f"{row['x_floor']:8.2f} {row['cpu']:6.2f} {row['cpu_x_floor']:6.2f} {peak:>9}"
        )
    if "index_cold" in rows:
        cold, warm = rows["index_cold"], rows["index_warm"]
        top = max(cold["peak_mb"], warm["peak_mb"])
        print(
            f"targets: cold {cold['x_floor']:.2f}x floor (<= 2), warm {warm['x_floor']:.2f}x (<= 1), "
            f"peak {top:.0f} MB (< 400)"
        )
    return {
        "corpus": corpus,
        "files": len(files),
        "bytes": size,
        "languages": list(languages),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "runs": [{name: _plain(row) for name, row in run.items()} for run in runs],
        "median": rows,
    }


def _plain(row: Any) -> Any:
    """A run's figures for the JSON output: the summary cut to the languages and statuses."""
    if not isinstance(row, dict):
        return row
    plain = {k: v for k, v in row.items() if k != "summary"}
    if "summary" in row:
        plain["languages"] = row["summary"].get("languages", {})
    return plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs to take the median of (default 3)")
    parser.add_argument("--languages", default="", help="comma-separated languages (default: every one)")
    parser.add_argument("--stages", default="index,command", help="index, command, or both (default)")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (0: the CPU count)")
    parser.add_argument("--corpus", help="a folder to index instead of the Django sdist")
    parser.add_argument("--json", dest="json_out", help="write the figures to this JSON file ('-': stdout)")
    parser.add_argument("--child-index", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_index:
        names = tuple(n for n in args.languages.split(",") if n)
        child_index(Path(args.child_index), names, args.workers)
        return
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    figures = bench(args)
    if args.json_out == "-":
        json.dump(figures, sys.stdout, indent=2)
        print()
    elif args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
