"""Sync benchmark: a one-file edit on a Django-sized project, then ``sync``; and the watcher's latency
from a save to the updated stored graph. The median of several runs (never a timed test).

    python bench/sync_bench.py [--runs 7] [--corpus PATH] [--file django/utils/text.py]
                               [--languages python] [--told] [--skip-watch] [--skip-cli] [--json OUT]

The corpus is ``--corpus``, else ``/tmp/corpus/Django-5.1`` when it is there, else the Django 5.1
sdist that ``bench/index_bench.py`` downloads into ``bench/.corpus/``. The benchmark works on a copy
outside this repository, indexes it once (``Project.refresh``), then measures:

- **sync in process** (what a watcher or a long-lived server pays): one edit to one file, then
  ``Project.sync(incremental=True)``, which keeps a tracked link and relinks incrementally
  (``sync.relink``); the time of each phase (discover, index, link, write) from ``SyncResult``, how
  it linked (incremental, or tracked: in full) and the units it ran again, for three edits (``--edits``):
  ``append`` a function at the end of the file, ``insert`` two comment lines above a function in
  the middle (the definitions below move), ``rename`` a function other files import (``--rename``,
  renamed back on the next run);
  With ``--told`` each of these syncs is told the edited file (``changed_paths``), as the watcher's
  events tell it, so it takes the last sync's file list, units and control files instead of
  walking the tree;
- **no-op sync in process**: nothing changed since the last sync;
- **CLI sync** (``--skip-cli`` leaves it out): ``projectgraph sync --json`` as a whole process after
  each of the same edits, interpreter start and imports included (wall and CPU seconds, how it
  linked: ``stored`` is the incremental link from the state in the store), and a no-op one after
  each; ``--skip-process`` leaves the syncs in process out;
- **watcher latency** (``--skip-watch`` leaves it out): ``projectgraph watch`` running; append a
  function, then poll the store (a reader's connection) until the new node is there.

Every edit is checked: the new node must be in the stored graph after the sync.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLI = Path(sys.executable).with_name("projectgraph")
PHASES = ("discover", "index", "link", "write", "total")


def corpus(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    local = Path("/tmp/corpus/Django-5.1")
    if local.is_dir():
        return local
    sys.path.insert(0, str(HERE))
    from index_bench import fetch_corpus  # type: ignore[import-not-found]

    found: Path = fetch_corpus()
    return found


# per language of the edited file (its suffix): a definition's start, a comment, a new function
_SYNTAX = {
    ".py": ("def ", "#", "\n\ndef {name}(value):\n    return value\n"),
    ".js": ("function ", "//", "\nfunction {name}(value) {{\n  return value;\n}}\n"),
    ".ts": ("function ", "//", "\nfunction {name}(value: number): number {{\n  return value;\n}}\n"),
    ".go": ("func ", "//", "\nfunc {name}(value int) int {{\n\treturn value\n}}\n"),
}


class Editor:
    """Edits one file per call: appends a new function with a fresh name (the default), inserts
    comment lines above a function in the middle, or renames a function (and back); in Python,
    JavaScript, TypeScript or Go, by the file's suffix."""

    def __init__(self, root: Path, rel: str, rename: str = "compress_string") -> None:
        self.root = root
        self.rel = rel
        self.count = 0
        self.rename = rename
        self.renamed = False

    def edit(self, kind: str = "append") -> str:
        """Edit the file; the key of a node the stored graph must hold afterwards."""
        self.count += 1
        path = self.root / self.rel
        text = path.read_text(encoding="utf-8")
        start, comment, function = _SYNTAX[
            Path(self.rel).suffix if Path(self.rel).suffix in _SYNTAX else ".js"
        ]
        if kind == "insert":
            starts = [m.start() for m in re.finditer(rf"^{start}", text, re.M)]
            at = starts[len(starts) // 2]
            path.write_text(
                f"{text[:at]}{comment} bench edit {self.count}\n{comment} (a comment)\n{text[at:]}",
                encoding="utf-8",
            )
            head = re.match(rf"{start}(\w+)", text[at:])
            return f"{self.rel}//{head.group(1) if head else ''}"
        if kind == "rename":
            old, new = self.rename, f"{self.rename}_renamed"
            if self.renamed:
                old, new = new, old
            path.write_text(re.sub(rf"\b{start}{old}\(", f"{start}{new}(", text), encoding="utf-8")
            self.renamed = not self.renamed
            return f"{self.rel}//{new}"
        name = f"bench_sync_{os.getpid()}_{self.count}"
        with path.open("a", encoding="utf-8") as handle:
            handle.write(function.format(name=name))
        return f"{self.rel}//{name}"


def has_key(database: Path, key: str) -> bool:
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT 1 FROM nodes WHERE key = ?", (key,)).fetchone() is not None
    finally:
        connection.close()


def median(values: list[float]) -> float:
    return round(statistics.median(values), 4) if values else float("nan")


def bench_in_process(
    root: Path, editor: Editor, runs: int, edits: list[str], told: bool = False
) -> dict[str, Any]:
    from projectgraph.project import Project

    report: dict[str, Any] = {}
    noop: list[float] = []
    # --told: each sync is told the edited file, as the watcher's events tell it (no tree walk)
    changed = (editor.rel,) if told else None
    with Project(root) as project:
        started = time.perf_counter()
        project.sync(incremental=True)  # warm: modules, store, stamps; the tracked link made
        report["prime"] = round(time.perf_counter() - started, 2)
        for kind in edits:
            phases: dict[str, list[float]] = {phase: [] for phase in PHASES}
            links: list[str] = []
            units: list[int] = []
            for _ in range(runs):
                key = editor.edit(kind)
                result = project.sync(incremental=True, changed_paths=changed)
                assert has_key(project.store.path, key), f"{key} missing after sync"
                for phase in PHASES:
                    phases[phase].append(result.seconds.get(phase, 0.0))
                links.append(result.link)
                units.append(result.relinked_units)
                started = time.perf_counter()
                again = project.sync(incremental=True, changed_paths=changed)
                noop.append(time.perf_counter() - started)
                assert not again.relinked
            incremental = [i for i, how in enumerate(links) if how == "incremental"]
            report[f"sync_{kind}"] = {phase: median(values) for phase, values in phases.items()}
            report[f"sync_{kind}_incremental"] = {
                phase: median([values[i] for i in incremental]) for phase, values in phases.items()
            }
            report[f"sync_{kind}_runs"] = {
                "total": [round(v, 4) for v in phases["total"]],
                "link": links,
                "units": units,
            }
            print(f"{kind}: {report[f'sync_{kind}']} links {links}", file=sys.stderr)
    report["noop_sync"] = median(noop)
    return report


def _cli_sync(root: Path) -> tuple[float, float, dict[str, Any]]:
    """One ``projectgraph sync --json`` process: wall seconds, CPU seconds, its summary."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [str(CLI), "sync", str(root), "--json"], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode in (0, 4), done.stderr
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def bench_cli(root: Path, editor: Editor, runs: int, edits: list[str]) -> dict[str, Any]:
    """``projectgraph sync`` as a whole process after each edit (interpreter start and imports
    included): the first one links in full if the stored state is not the graph's (a sync in
    process above wrote the graph from memory), the next ones from the state in the store."""
    database = root / ".projectgraph" / "graph.db"
    report: dict[str, Any] = {}
    key = editor.edit()
    wall, cpu, summary = _cli_sync(root)
    assert has_key(database, key)
    report["cli_prime"] = {"wall": round(wall, 3), "cpu": round(cpu, 3), "link": summary["link"]}
    noop: list[tuple[float, float]] = []
    for kind in ("append", *[e for e in edits if e != "append"]):
        times: list[tuple[float, float]] = []
        links: list[str] = []
        units: list[int] = []
        for _ in range(runs):
            key = editor.edit(kind)
            wall, cpu, summary = _cli_sync(root)
            assert has_key(database, key), f"{key} missing after sync"
            times.append((wall, cpu))
            links.append(summary["link"])
            units.append(summary["relinked_units"])
            wall, cpu, again = _cli_sync(root)
            assert not again["relinked"]
            noop.append((wall, cpu))
        report[f"cli_sync_{kind}"] = {
            "wall": median([t[0] for t in times]),
            "cpu": median([t[1] for t in times]),
            "runs": [round(t[0], 3) for t in times],
            "link": links,
            "units": units,
        }
        print(f"CLI {kind}: {report[f'cli_sync_{kind}']}", file=sys.stderr)
    report["cli_sync"] = report["cli_sync_append"]["wall"]
    report["cli_noop"] = {"wall": median([t[0] for t in noop]), "cpu": median([t[1] for t in noop])}
    return report


def bench_watch(root: Path, editor: Editor, runs: int, timeout: float = 300.0) -> dict[str, Any]:
    database = root / ".projectgraph" / "graph.db"
    latencies: list[float] = []
    with subprocess.Popen(
        [str(CLI), "watch", str(root), "--json", "--debounce", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    ) as watcher:
        try:
            assert watcher.stdout is not None
            watcher.stdout.readline()  # the start-up sync is done
            for _ in range(runs):
                key = editor.edit()
                started = time.perf_counter()
                while not has_key(database, key):
                    if time.perf_counter() - started > timeout:
                        raise TimeoutError(f"the watcher did not store {key} in {timeout} s")
                    time.sleep(0.005)
                latencies.append(time.perf_counter() - started)
                watcher.stdout.readline()  # this edit's sync line: the watcher is idle again
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(watcher.pid, signal.SIGKILL)
    return {"watch_latency": median(latencies), "watch_latency_runs": [round(t, 4) for t in latencies]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--corpus")
    parser.add_argument("--file", default="django/utils/text.py", help="The file each run edits.")
    parser.add_argument(
        "--languages", help="Comma-separated languages (written to the copy's projectgraph.toml)."
    )
    parser.add_argument(
        "--edits", default="append,insert,rename", help="The kinds of one-file edit to time in process."
    )
    parser.add_argument("--rename", default="compress_string", help="The function the rename edit renames.")
    parser.add_argument(
        "--told",
        action="store_true",
        help="In process, tell each sync the edited file (as the watcher does).",
    )
    parser.add_argument("--skip-watch", action="store_true")
    parser.add_argument("--skip-process", action="store_true", help="Leave out the syncs in process.")
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()

    from projectgraph.project import Project

    source = corpus(args.corpus)
    with tempfile.TemporaryDirectory(prefix="sync-bench-") as folder:
        root = Path(folder) / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".projectgraph"))
        if args.languages:
            names = ", ".join(f'"{n.strip()}"' for n in args.languages.split(",") if n.strip())
            (root / "projectgraph.toml").write_text(f"languages = [{names}]\n", encoding="utf-8")
        started = time.perf_counter()
        with Project(root) as project:
            refreshed = project.refresh()
        report: dict[str, Any] = {
            "corpus": str(source),
            "files": len(refreshed.index.statuses),
            "nodes": refreshed.graph.stats["nodes"],
            "edges": refreshed.graph.stats["edges"],
            "first_index": round(time.perf_counter() - started, 2),
            "runs": args.runs,
            "edited": args.file,
            "languages": args.languages or "all",
        }
        print(f"indexed {report['files']} files in {report['first_index']} s", file=sys.stderr)
        editor = Editor(root, args.file, args.rename)
        edits = [kind.strip() for kind in args.edits.split(",") if kind.strip()]
        if not args.skip_process:
            report |= bench_in_process(root, editor, args.runs, edits, args.told)
            print(f"no-op sync in process: {report['noop_sync']} s", file=sys.stderr)
        if not args.skip_cli:
            report |= bench_cli(root, editor, args.runs, edits)
            print(f"CLI sync: {report['cli_sync']} s, no-op {report['cli_noop']}", file=sys.stderr)
        if not args.skip_watch:
            report |= bench_watch(root, editor, args.runs)
            print(f"watcher latency: {report['watch_latency']} s", file=sys.stderr)
    text = json.dumps(report, indent=2)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
