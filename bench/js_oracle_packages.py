"""The JavaScript runtime oracle on real npm packages' own test suites: what the tests execute,
against what the graph knows.

    .venv/bin/python bench/js_oracle_packages.py [--work DIR] [--json OUT] [-v] [PACKAGE ...]

Each package (``PACKAGES``: name, version, the test files run, the dev dependencies its tests
load) is fetched with ``npm pack`` from the registry into ``--work`` (default a folder under the
system temp dir, never the repo), unpacked, its test dependencies installed with ``npm install``
(the other dev dependencies, linters and bundlers, are dropped from its package.json), and each
test file run under the inspector tracer of ``tests/test_js_honesty_oracle.py``: a breakpoint at
every first-party definition (the package's files, ``node_modules`` aside), each hit mapped to
its caller (the nearest first-party frame below it, else its async stack).

Printed per package: the executed first-party call edges (caller known), the share that are
graph ``calls`` edges, the share the graph knows in any way (a calls/imports/references edge),
and the silent misses: executed edges for which reach from the caller answers not-found (the
honesty rule broken), listed with ``-v``; then the functions the runtime ran that reach from
the roots answers not-found. Network is used only by npm, once per package (a folder already
prepared is reused).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach
from test_js_honesty_oracle import Scopes, dishonest, edges_of_hits, trace_program


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    tests: tuple[tuple[str, ...], ...]  # each: the argv of one node run, in the package folder
    dev: tuple[str, ...]  # the dev dependencies the tests load (the others are dropped)


PACKAGES = {
    "qs": Package(
        "qs",
        "6.17.1",
        (("test/parse.js",), ("test/stringify.js",), ("test/utils.js",)),
        (
            "tape",
            "for-each",
            "es-value-fixtures",
            "has-symbols",
            "has-bigints",
            "has-override-mistake",
            "has-property-descriptors",
            "has-proto",
            "iconv-lite",
            "mock-property",
            "object-inspect",
            "qs-iconv",
            "safer-buffer",
        ),
    ),
    "events": Package(
        "events",
        "3.3.0",
        (("tests/index.js",),),
        ("tape", "functions-have-names", "has", "has-symbols", "isarray"),
    ),
}


def prepare(package: Package, work: Path) -> Path:
    """The unpacked package with its test dependencies installed (made once)."""
    folder = work / f"{package.name}-{package.version}"
    if (folder / ".prepared").is_file():
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    packed = subprocess.run(
        ["npm", "pack", f"{package.name}@{package.version}", "--silent"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[-1]
    subprocess.run(["tar", "xzf", str(work / packed), "-C", str(folder), "--strip-components=1"], check=True)
    manifest = folder / "package.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    dev = data.get("devDependencies") or {}
    data["devDependencies"] = {name: dev.get(name, "*") for name in package.dev}
    data["scripts"] = {}
    manifest.write_text(json.dumps(data, indent=2), encoding="utf-8")
    subprocess.run(
        ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"],
        cwd=folder,
        check=True,
    )
    (folder / ".prepared").touch()
    return folder


@dataclass(frozen=True)
class Measure:
    package: str
    version: str
    executed: int  # first-party call edges the tests executed, caller known
    called: int  # of them, graph calls edges
    known: int  # of them, any calls/imports/references edge
    silent: tuple[str, ...]  # executed edges reach from the caller answers not-found for
    unreached: tuple[str, ...]  # functions that ran that reach from the roots answers not-found for
    missed: tuple[str, ...]  # executed edges with no graph edge (reach may still find them)
    problems: int  # hits the oracle could not place

    def to_json(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "version": self.version,
            "executed": self.executed,
            "calls": self.called,
            "known": self.known,
            "callsShare": round(self.called / self.executed, 3) if self.executed else 1.0,
            "knownShare": round(self.known / self.executed, 3) if self.executed else 1.0,
            "silent": list(self.silent),
            "unreached": list(self.unreached),
            "missed": list(self.missed),
            "problems": self.problems,
        }


def measure(package: Package, folder: Path, graph: Graph | None = None) -> Measure:
    """Run the package's tests under the tracer and compare what ran with its graph."""
    table = Scopes(folder)
    breakpoints = table.breakpoints()
    edges: set[tuple[str | None, str]] = set()
    problems = 0
    for argv in package.tests:
        found, bad = edges_of_hits(
            table, trace_program(folder, list(argv), breakpoints, timeout=900, once=True)
        )
        edges |= found
        problems += len(bad)
    if graph is None:
        graph = build_graph(folder, IndexOptions(workers=1)).graph
    calls = {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}
    walked = {(e.caller, e.callee) for e in graph.edges if e.relation in ("calls", "imports", "references")}
    executed = sorted((c, k) for c, k in edges if c is not None and c != k)
    ran = sorted({k for _c, k in edges})
    results = reach(graph, Query(targets=tuple(Target(k) for k in ran if k in graph.node_by_key)))
    unreached = tuple(r.target for r in results if r.status == "not-found")
    return Measure(
        package.name,
        package.version,
        len(executed),
        sum(1 for e in executed if e in calls),
        sum(1 for e in executed if e in walked),
        tuple(dishonest(graph, set(executed))),
        unreached,
        tuple(f"{c} -> {k}" for c, k in executed if (c, k) not in walked),
        problems,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", default=sorted(PACKAGES))
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "projectgraph-js-oracle")
    parser.add_argument("--json", type=Path)
    parser.add_argument("-v", action="store_true", dest="verbose")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    measures = []
    print(f"{'package':20} {'executed':>8} {'calls':>6} {'share':>6} {'known':>6} {'share':>6} {'silent':>6}")
    for name in args.packages:
        package = PACKAGES[name]
        m = measure(package, prepare(package, args.work))
        measures.append(m)
        data = m.to_json()
        print(
            f"{name + '@' + package.version:20} {m.executed:8} {m.called:6} {data['callsShare']:6.3f} "
            f"{m.known:6} {data['knownShare']:6.3f} {len(m.silent):6}"
        )
        if args.verbose:
            for line in m.missed:
                print(f"    miss   {line}")
            for line in m.silent:
                print(f"    SILENT {line}")
            for key in m.unreached:
                print(f"    UNREACHED {key}")
    total = sum(m.executed for m in measures)
    called = sum(m.called for m in measures)
    known = sum(m.known for m in measures)
    if total:
        print(f"{'total':20} {total:8} {called:6} {called / total:6.3f} {known:6} {known / total:6.3f}")
    if args.json:
        args.json.write_text(json.dumps([m.to_json() for m in measures], indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
