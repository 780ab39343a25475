"""The runtime oracle on real packages: which call edges their own test suites execute, and which
of them the graph has.

    .venv/bin/python bench/python_runtime_oracle.py [-v] [--json OUT] [PACKAGE_DIR | NAME==VERSION]...

Each package is an unpacked sdist (its sources and its tests), or ``NAME==VERSION``, which pip
downloads as an sdist (PyPI, by its ordinary client) and unpacks into ``~/.cache/projectgraph/oracle``
(``$PROJECTGRAPH_ORACLE_CACHE``), outside any git tree.
With no argument: ``markupsafe==3.0.2 itsdangerous==2.2.0 click==8.1.8 jinja2==3.1.6``.

The package's test suite runs in a subprocess (this interpreter, ``pytest`` of this venv, the
package's ``src`` or top folder first on ``sys.path``, then those of the other packages of the run,
which it may import: jinja2 needs markupsafe) under ``sys.settrace`` (and
``threading.settrace``; a global trace function sees each Python frame's ``call`` event and, as it
returns None, nothing else: far cheaper than a profile function, called for C calls too). Every
``call`` event whose frame and whose caller frame (``f_back``, the
frame right above: a call made by the code of the package itself, or through C code such as
``map``, a property slot or ``functools.partial``, which has no frame) are both files of the
package records (caller code, line of the call in the caller, callee code). A generator or
coroutine frame counts on its first entry only (a resume is no call), with its consumer as the
caller (``classify``: such a pair counts as an edge when the consumer called what made it). Code
objects map to graph keys as ``tests/test_honesty_oracle.py`` maps them (class bodies,
comprehensions and anonymous lambdas are their enclosing definition; such a callee is left out).

Then projectgraph indexes the same tree (``build_graph``, no dependency units) and each executed
edge is one of:

- ``edge``: the graph has a ``calls`` edge from the caller to the callee;
- ``site``: no such edge, but the graph has an unresolved site in that caller at a line of the
  call, so reach and callers answer uncertain there (honest, not known);
- ``dynamic``: neither, but the graph flags a dynamic feature there (a computed ``getattr``,
  ``eval``), which reach and callers count as an uncertainty for every target (honest too, and
  counted apart: it says the least);
- ``silent``: neither: a silent miss (``callers`` answers as if the caller did not exist).

The figures: executed edges, the share that are edges, the silent misses (with ``-v`` each one,
with the callee's kind: a dunder the interpreter calls, a property getter, ...).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from projectgraph.graph import Graph  # noqa: E402
from projectgraph.indexer import IndexOptions  # noqa: E402
from projectgraph.pipeline import build_graph  # noqa: E402
from test_honesty_oracle import code_key  # noqa: E402

DEFAULT = ("markupsafe==3.0.2", "itsdangerous==2.2.0", "click==8.1.8", "jinja2==3.1.6")
# outside any git tree: discover lists a git tree's files with git, which would leave out a folder
# that tree ignores, or hold the sdists as the project's own
CACHE = Path(os.environ.get("PROJECTGRAPH_ORACLE_CACHE") or Path.home() / ".cache/projectgraph/oracle")

# Runs in the subprocess: argv = package root, output file, pytest arguments...
TRACER = r"""
import dis, os, sys, threading

root = os.path.realpath(sys.argv[1])
out = sys.argv[2]
args = sys.argv[3:]
GENERATOR = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
CO_NEWLOCALS = 0x0002
paths = {}


def first_party(code):
    name = code.co_filename
    path = paths.get(name)
    if path is None:
        real = os.path.realpath(name) if os.path.isabs(name) else ""
        path = real[len(root) + 1:].replace(os.sep, "/") if real.startswith(root + os.sep) else ""
        paths[name] = path
    return path


def describe(code, path):
    if code.co_name == "<module>":
        kind = "module"
    elif not code.co_flags & CO_NEWLOCALS:
        kind = "class"
    else:
        kind = "function"
    return (path, code.co_qualname, code.co_firstlineno, kind)


edges = set()
entries = set()
generators = set()
resumes = {}


def first_resume(code):
    offset = resumes.get(code)
    if offset is None:
        offset = next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), -1)
        resumes[code] = offset
    return offset


def trace(frame, event, arg):
    code = frame.f_code
    path = first_party(code)
    if not path:
        return None
    if code.co_flags & GENERATOR and frame.f_lasti != first_resume(code):
        return None  # a generator or coroutine resumed: its first entry stands at its first RESUME
    if code.co_flags & GENERATOR:
        generators.add(describe(code, path))
    parent = frame.f_back
    if parent is not None:
        caller_path = first_party(parent.f_code)
        if caller_path:
            edges.add((describe(parent.f_code, caller_path), parent.f_lineno, describe(code, path)))
        else:  # entered from code that is not the package's: the framework, the test runner
            entries.add(describe(code, path))
    return None  # no line events


def run():
    if args[:1] == ["--django"]:
        # Django's own test runner (a Django app's runtests.py): settings module, its folder, labels
        settings_module, folder, labels = args[1], args[2], args[3:]
        sys.path.append(os.path.join(root, folder))
        os.environ["DJANGO_SETTINGS_MODULE"] = settings_module
        import django
        from django.conf import settings
        from django.test.utils import get_runner

        django.setup()
        runner = get_runner(settings)(verbosity=1, exclude_tags=["end-to-end"])
        failures = runner.run_tests(labels or [folder])
        print(f"django: {failures} failed", flush=True)
        return 1 if failures else 0
    import pytest

    return pytest.main(args)


sys.settrace(trace)
threading.settrace(trace)
try:
    status = run()
finally:
    sys.settrace(None)
    threading.settrace(None)
import json

with open(out, "w") as handle:
    json.dump(sorted(edges, key=repr), handle)
with open(out + ".entries", "w") as handle:
    json.dump(sorted(entries, key=repr), handle)
with open(out + ".generators", "w") as handle:
    json.dump(sorted(generators, key=repr), handle)
print("pytest exit", int(status), file=sys.stderr)
"""

Code = tuple[str, str, int, str]


def fetch(spec: str) -> Path:
    """An sdist unpacked in the cache: downloaded once with pip, then reused."""
    name, _, version = spec.partition("==")
    CACHE.mkdir(parents=True, exist_ok=True)
    for folder in CACHE.iterdir():
        if folder.is_dir() and folder.name.lower().replace("_", "-") == f"{name}-{version}".lower():
            return folder
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
        # pip prepares an sdist's metadata in an isolated build environment; where that cannot be
        # made (an index without the build backend), with this venv's (setuptools, flit_core)
        if subprocess.run([*command, "-d", tmp, spec], check=False).returncode != 0:
            subprocess.run([*command, "--no-build-isolation", "-d", tmp, spec], check=True)
        [archive] = Path(tmp).glob("*.tar.gz")
        with tarfile.open(archive) as tar:
            tar.extractall(CACHE, filter="data")
    return fetch(spec)


def import_root(root: Path) -> Path:
    return root / "src" if (root / "src").is_dir() else root


def run_tests(
    root: Path,
    out: Path,
    others: tuple[Path, ...] = (),
    extra_path: tuple[str, ...] = (),
    django: str = "",
) -> float:
    """Run the package's tests under the tracer (``others``: packages it imports, not first
    party; ``extra_path``: more import folders, its dependencies; ``django``: ``SETTINGS:FOLDER``,
    run by Django's test runner as a Django app's ``runtests.py`` does, not pytest); seconds taken."""
    path = os.pathsep.join([*(str(import_root(p)) for p in (root, *others)), *extra_path])
    env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
    if django:
        settings_module, _, folder = django.partition(":")
        args = ["--django", settings_module, folder or "tests"]
    else:
        args = [str(root / "tests"), "-q", "-p", "no:cacheprovider", "--rootdir", str(root)]
        args += ["-W", "ignore", "-o", "addopts=", "-o", "filterwarnings=", "--continue-on-collection-errors"]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-B", "-c", TRACER, str(root), str(out), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if not out.is_file():
        raise SystemExit(
            f"{root.name}: the traced run wrote nothing\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    last = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["?"]
    print(f"{root.name}: pytest: {last[0]}", file=sys.stderr)
    return time.perf_counter() - start


def callee_kind(graph: Graph, callee: str) -> str:
    """What kind of callee a miss has: a name the interpreter calls by itself, a property, ..."""
    name = callee.rpartition("//")[2]
    node = graph.node_by_key.get(callee)
    if name.startswith("__") and name.endswith("__"):
        return "dunder"
    if node is not None and node.kind == "property":
        return "property"
    return "function"


def classify(
    graph: Graph, raw: list[tuple[Code, int, Code]], generators: list[Code] | None = None
) -> dict[str, Any]:
    """Executed edges by what the graph says of them.

    A generator's body first runs when its consumer asks for the first item (``for x in
    progress``, ``next(g)``), so the tracer sees the consumer as the generator's caller, while the
    call that made it (``return self.generator()`` in ``__iter__``) ran before and left no frame
    event. The graph's edge is from the function that made it, as the language has it: such an
    executed pair is ``resumed`` (counted with the edges) when the graph has edges from the
    consumer to a function and from that function to the generator (the consumer called what made
    it), else it is classified as any other pair."""
    calls: set[tuple[str, str]] = {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}
    callees: dict[str, set[str]] = {}
    for caller_key, callee_key in calls:
        callees.setdefault(caller_key, set()).add(callee_key)
    made = {code_key(graph, tuple(code))[0] for code in generators or ()}  # type: ignore[arg-type]
    sites: set[tuple[str, int]] = {(u.caller, u.site.line) for u in graph.unresolved}
    flags: set[tuple[str, int]] = {(d.caller, d.site.line) for d in graph.dynamic}
    lines: dict[tuple[str, str], set[int]] = {}
    for caller_code, line, callee_code in raw:
        caller, _ = code_key(graph, tuple(caller_code))  # type: ignore[arg-type]
        callee, transparent = code_key(graph, tuple(callee_code))  # type: ignore[arg-type]
        if transparent or callee_code[3] != "function" or caller == callee:
            continue
        lines.setdefault((caller, callee), set()).add(line)
    found: dict[str, list[tuple[str, str]]] = {"edge": [], "site": [], "dynamic": [], "silent": []}
    resumed: list[tuple[str, str]] = []
    for pair in sorted(lines):
        if pair in calls:
            found["edge"].append(pair)
        elif pair[1] in made and any((maker, pair[1]) in calls for maker in callees.get(pair[0], ())):
            found["edge"].append(pair)
            resumed.append(pair)
        elif any((pair[0], line) in sites for line in lines[pair]):
            found["site"].append(pair)
        elif any((pair[0], line) in flags for line in lines[pair]):
            found["dynamic"].append(pair)
        else:
            found["silent"].append(pair)
    return {
        "pairs": found,
        "resumed": resumed,
        "lines": {f"{a} -> {b}": sorted(v) for (a, b), v in lines.items()},
    }


def framework_entries(graph: Graph, raw: list[Code]) -> dict[str, Any]:
    """The package's functions its tests entered from code outside it (Django's request handling,
    the test runner), less those of the test files: how many are the target of a framework edge
    (``graph.FRAMEWORK_KINDS``), of another calls edge only, or of none."""
    from projectgraph.graph import FRAMEWORK_KINDS
    from projectgraph.link.gates import is_test_path

    framework = {e.callee for e in graph.edges if e.kind in FRAMEWORK_KINDS}
    called = {e.callee for e in graph.edges if e.relation == "calls"}
    fixtures = {e.callee for e in graph.edges if e.kind == "pytest-fixture"}
    found: dict[str, list[str]] = {"framework": [], "other-edge": [], "none": []}
    # in the test files, what pytest itself entered that is no test: fixtures (and hooks)
    found.update({"test-fixture-edge": [], "test-other": []})
    for code in raw:
        key, transparent = code_key(graph, tuple(code))  # type: ignore[arg-type]
        if transparent or code[3] != "function":
            continue
        if is_test_path(code[0]):
            name = code[1].rpartition(".")[2]
            if name.startswith("test") or "<" in code[1]:
                continue
            kind = "test-fixture-edge" if key in fixtures else "test-other"
        else:
            kind = "framework" if key in framework else "other-edge" if key in called else "none"
        if key not in found[kind]:
            found[kind].append(key)
    return {kind: sorted(keys) for kind, keys in found.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*")
    parser.add_argument("-v", action="store_true", help="list the misses")
    parser.add_argument("--json", help="write every classified edge to this file")
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        help="a folder of dependencies for the tests' sys.path (not first party); repeatable",
    )
    parser.add_argument(
        "--django",
        default="",
        metavar="SETTINGS:FOLDER",
        help="run the tests with Django's test runner: the settings module and the folder it is in",
    )
    options = parser.parse_args(argv)
    specs = options.packages or list(DEFAULT)
    report: dict[str, Any] = {}
    total: Counter[str] = Counter()
    header = ("package", "executed", "edges", "share", "sites", "dyn", "silent", "silent%")
    header += ("tests s", "index s")
    print("{:24} {:>8} {:>6} {:>6} {:>6} {:>4} {:>6} {:>7} {:>7} {:>7}".format(*header))
    roots = [(Path(spec) if os.path.isdir(spec) else fetch(spec)).resolve() for spec in specs]
    for root in roots:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "edges.json"
            others = tuple(r for r in roots if r != root)
            tests_s = run_tests(root, out, others, tuple(options.path), options.django)
            raw = json.loads(out.read_text(encoding="utf-8"))
            entered = json.loads(Path(str(out) + ".entries").read_text(encoding="utf-8"))
            generators = json.loads(Path(str(out) + ".generators").read_text(encoding="utf-8"))
        start = time.perf_counter()
        graph = build_graph(root, IndexOptions(workers=1)).graph
        index_s = time.perf_counter() - start
        result = classify(graph, raw, generators)
        pairs = result["pairs"]
        counts = {kind: len(found) for kind, found in pairs.items()}
        executed = sum(counts.values())
        total.update(counts)
        share = counts["edge"] / executed if executed else 1.0
        silent = counts["silent"] / executed if executed else 0.0
        print(
            f"{root.name:24} {executed:8} {counts['edge']:6} {share:6.3f} {counts['site']:6} "
            f"{counts['dynamic']:4} {counts['silent']:6} {silent:7.3%} {tests_s:7.1f} {index_s:7.1f}"
        )
        outside = framework_entries(graph, entered)
        print(
            "    entered from outside the package (not tests): "
            f"{len(outside['framework']) + len(outside['other-edge']) + len(outside['none'])}; "
            f"targets of a framework edge {len(outside['framework'])}, of another edge only "
            f"{len(outside['other-edge'])}, of none {len(outside['none'])}; in the test files, not "
            f"tests (fixtures, hooks): {len(outside['test-fixture-edge']) + len(outside['test-other'])}, "
            f"targets of a pytest-fixture edge {len(outside['test-fixture-edge'])}"
        )
        if result["resumed"]:
            print(
                f"    generators resumed by a consumer that called their maker (counted as edges): "
                f"{len(result['resumed'])}"
            )
        if options.v:
            for caller, callee in result["resumed"]:
                print(f"    resumed {caller} -> {callee}")
            for kind in ("none", "other-edge", "test-other"):
                for key in outside[kind]:
                    print(f"    entered [{kind}] {key}")
            for kind in ("silent", "dynamic", "site"):
                for caller, callee in pairs[kind]:
                    lines = result["lines"][f"{caller} -> {callee}"]
                    print(f"    {kind:6} [{callee_kind(graph, callee)}] {caller} -> {callee} (lines {lines})")
        report[root.name] = {"counts": counts, "entered": outside, **result}
    executed = sum(total.values())
    if executed:
        print(
            f"{'total':24} {executed:8} {total['edge']:6} {total['edge'] / executed:6.3f} "
            f"{total['site']:6} {total['dynamic']:4} {total['silent']:6} {total['silent'] / executed:7.3%}"
        )
    if options.json:
        Path(options.json).write_text(json.dumps(report, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
