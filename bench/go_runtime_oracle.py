"""The Go runtime oracle: which call edges a real module's own tests execute, and which of them the
graph has.

    .venv/bin/python bench/go_runtime_oracle.py [-v] [--go GO] [--json OUT] [MODULE_DIR [PACKAGE ...]]

With no argument the module is ``golang.org/x/net`` as Debian's ``golang-golang-x-net-dev`` ships
it (``/usr/share/gocode/src/golang.org/x/net``), package ``html`` and the packages under it but
``html/charset`` (which imports ``golang.org/x/text``; ``--skip``), whose tests run offline with the
standard library alone; the Go toolchain is Debian's
``golang-1.19-go`` (``/usr/lib/go-1.19/bin/go``, or ``--go``).

The packages are copied to a scratch module (a go.mod of the module's path with no requirement,
so nothing is fetched: ``GOPROXY=off``). Every function, method and function literal body of their
non-test files gets one statement first, on the line of its ``{`` (no line moves), a call of
``pgTrace``, which a file of the same package adds: it reads the two frames above it with
``runtime.Callers`` (the function the body is, and the code that called it) and appends each new
pair, as file and line, to a trace file. ``go test -gcflags=all=-l`` (no inlining, so each call is
a frame) runs each package's tests once. A pair counts when both frames are in the copied files: a
call made by the module's own code (a call through the standard library, as ``sort.Slice`` calling
a literal, has a caller frame outside and is left out, as a frame of C code is in the Python
oracle). Each frame maps to the innermost definition around its line (a literal is its own node,
``F$1``; a package variable's value is the file's top level).

Then projectgraph indexes the same copy (``build_graph``, the original tree, not the instrumented
one) and each executed edge is one of:

- ``edge``: the graph has a ``calls`` edge from the caller to the callee;
- ``site``: no such edge, but the graph has an unresolved site in that caller at the line of the
  call, so reach and callers answer uncertain there (honest, not known);
- ``silent``: neither: a silent miss.

The figures: executed edges, the share that are edges, the silent misses (``-v`` lists each).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from projectgraph.indexer import IndexOptions
from projectgraph.languages.base import parser
from projectgraph.pipeline import build_graph

DEFAULT_MODULE = Path("/usr/share/gocode/src/golang.org/x/net")
DEFAULT_PACKAGES = ("html",)
DEFAULT_SKIP = ("html/charset",)  # it imports golang.org/x/text, another module

TRACER = """package {package}

import (
	"fmt"
	"os"
	"runtime"
	"sync"
)

var pgTraceMu sync.Mutex
var pgTraceSeen = map[[2]uintptr]bool{{}}

// pgTrace appends (callee file:line, caller file:line) once per pair of program counters.
func pgTrace() {{
	var pcs [2]uintptr
	if runtime.Callers(2, pcs[:]) < 2 {{
		return
	}}
	pgTraceMu.Lock()
	defer pgTraceMu.Unlock()
	if pgTraceSeen[pcs] {{
		return
	}}
	pgTraceSeen[pcs] = true
	frames := runtime.CallersFrames(pcs[:])
	callee, _ := frames.Next()
	caller, _ := frames.Next()
	out, err := os.OpenFile(os.Getenv("PG_TRACE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {{
		return
	}}
	defer out.Close()
	fmt.Fprintf(out, "%s\\t%d\\t%s\\t%d\\n", callee.File, callee.Line, caller.File, caller.Line)
}}
"""
_BODIES = ("function_declaration", "method_declaration", "func_literal")


def module_path(module: Path) -> str:
    for line in (module / "go.mod").read_text(encoding="utf-8").splitlines():
        if line.startswith("module "):
            return line.split()[1].strip('"')
    raise SystemExit(f"{module}/go.mod has no module line")


def instrument(source: bytes) -> tuple[bytes, str]:
    """The file with ``pgTrace();`` after each body's ``{``, and its package name."""
    tree = parser("go").parse(source)
    inserts: list[int] = []
    package = ""
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "package_clause" and node.named_child_count:
            package = (node.named_children[0].text or b"").decode()
        if node.type in _BODIES:
            body = node.child_by_field_name("body")
            if body is not None and body.type == "block":
                inserts.append(body.start_byte + 1)
        stack.extend(node.named_children)
    out = bytearray(source)
    for offset in sorted(inserts, reverse=True):
        out[offset:offset] = b" pgTrace();"
    return bytes(out), package


def copy_packages(module: Path, packages: list[str], skip: list[str], dest: Path, path: str) -> list[str]:
    """Copy the packages (and the folders under them, but ``skip``) to ``dest``; the Go folders."""
    folders: list[str] = []
    for package in packages:
        shutil.copytree(module / package, dest / package, dirs_exist_ok=True)
    for folder in skip:
        shutil.rmtree(dest / folder, ignore_errors=True)
    for folder in sorted({p.parent for p in dest.rglob("*.go")}):
        folders.append(folder.relative_to(dest).as_posix())
    (dest / "go.mod").write_text(f"module {path}\n\ngo 1.17\n", encoding="utf-8")
    return folders


def run_traced(copy: Path, folders: list[str], go: str, trace: Path) -> str:
    """Instrument a second copy, run its tests, return go test's output."""
    traced = copy.parent / "traced"
    shutil.copytree(copy, traced)
    for folder in folders:
        package = ""
        for file in sorted((traced / folder).glob("*.go")):
            if file.name.endswith("_test.go"):
                continue
            text, package = instrument(file.read_bytes())
            file.write_bytes(text)
        if package:
            (traced / folder / "zz_pgtrace.go").write_text(TRACER.format(package=package), encoding="utf-8")
    env = dict(os.environ, GOPROXY="off", GOFLAGS="-mod=mod", PG_TRACE=str(trace), GOTOOLCHAIN="local")
    env.setdefault("GOCACHE", str(copy.parent / "gocache"))
    env.setdefault("GOPATH", str(copy.parent / "gopath"))
    done = subprocess.run(
        [go, "test", "-count=1", "-gcflags=all=-l", "./..."],
        cwd=traced,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"go test failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def innermost(spans: dict[str, list[tuple[int, int, str]]], path: str, line: int) -> str:
    """The key of the innermost definition around a line of a file (the file's top level if none)."""
    best = path
    size = 1 << 30
    for start, end, key in spans.get(path, ()):
        if start <= line <= end and end - start < size:
            best, size = key, end - start
    return best


def oracle(module: Path, packages: list[str], skip: list[str], go: str) -> dict[str, Any]:
    """Run the module's tests traced and classify each executed edge (see the module doc)."""
    path = module_path(module)
    scratch = Path(tempfile.mkdtemp(prefix="pg-go-oracle-"))
    try:
        copy = scratch / "module"
        copy.mkdir()
        folders = copy_packages(module, packages, skip, copy, path)
        trace = scratch / "trace.tsv"
        tested = run_traced(copy, folders, go, trace)
        traced_root = str((scratch / "traced").resolve()) + "/"
        graph = build_graph(copy, IndexOptions(workers=1)).graph
        spans: dict[str, list[tuple[int, int, str]]] = {}
        for node in graph.nodes:
            if node.path and not node.external and node.kind in ("function", "method"):
                spans.setdefault(node.path, []).append((node.line, node.end_line, node.key))
        calls = {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}
        sites = {(u.caller, u.site.line) for u in graph.unresolved}
        executed: dict[tuple[str, str], tuple[str, int]] = {}
        for row in trace.read_text(encoding="utf-8").splitlines():
            callee_file, callee_line, caller_file, caller_line = row.split("\t")
            if not (callee_file.startswith(traced_root) and caller_file.startswith(traced_root)):
                continue
            callee_path = callee_file[len(traced_root) :]
            caller_path = caller_file[len(traced_root) :]
            if callee_path.endswith("zz_pgtrace.go") or caller_path.endswith("zz_pgtrace.go"):
                continue
            callee = innermost(spans, callee_path, int(callee_line))
            caller = innermost(spans, caller_path, int(caller_line))
            executed.setdefault((caller, callee), (caller_path, int(caller_line)))
        verdicts: dict[str, list[tuple[str, str, str]]] = {"edge": [], "site": [], "silent": []}
        for (caller, callee), (caller_path, line) in sorted(executed.items()):
            where = f"{caller_path}:{line}"
            if (caller, callee) in calls:
                verdicts["edge"].append((caller, callee, where))
            elif (caller, line) in sites:
                verdicts["site"].append((caller, callee, where))
            else:
                verdicts["silent"].append((caller, callee, where))
        return {"module": path, "packages": packages, "tested": tested.strip(), **verdicts}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("module", nargs="?", default=str(DEFAULT_MODULE))
    options.add_argument("packages", nargs="*")
    options.add_argument("--skip", action="append", help="a folder to leave out (repeatable)")
    options.add_argument("--go", default=shutil.which("go") or "/usr/lib/go-1.19/bin/go")
    options.add_argument("--json")
    options.add_argument("-v", action="store_true")
    args = options.parse_args(argv)
    packages = args.packages or list(DEFAULT_PACKAGES)
    skip = args.skip if args.skip is not None else (list(DEFAULT_SKIP) if not args.packages else [])
    report = oracle(Path(args.module), packages, skip, args.go)
    total = sum(len(report[v]) for v in ("edge", "site", "silent"))
    edges, sites, silent = (len(report[v]) for v in ("edge", "site", "silent"))
    print(report["tested"])
    print(
        f"{report['module']} ({', '.join(packages)}): {total} executed edges; graph edges {edges} "
        f"({edges / max(total, 1):.1%}), uncertain sites {sites}, silent misses {silent} "
        f"({silent / max(total, 1):.1%})"
    )
    if args.v:
        for verdict in ("site", "silent"):
            for caller, callee, where in report[verdict]:
                print(f"  {verdict:6} {where}  {caller} -> {callee}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
