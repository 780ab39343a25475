"""Framework edges on real packages from PyPI: how many, of which kinds, and how many are right.

    .venv/bin/python bench/framework_bench.py            # fetch (once), index, count, spot-check
    .venv/bin/python bench/framework_bench.py --sample   # print the 30 sampled edges with their source
    .venv/bin/python bench/framework_bench.py --npm      # the npm templates only

Each package is an sdist fetched with ``pip download --no-deps --no-binary :all:`` into
``bench/.corpus/frameworks/`` (ignored by git), the npm templates with ``npm pack``; each is linked
from a copy outside the repository. The graph is built as a project of its own; the
framework edges are those of ``graph.FRAMEWORK_KINDS``. The spot check: 30 edges drawn over all
packages in a fixed order (every n-th of the sorted edges), each judged by reading the code at its
site and at its target; ``bench/framework_spotcheck.json`` keeps the verdicts (``true`` when the
framework does run the target on behalf of that site, with a note). Precision is the true share of
the judged sample; a sampled edge with no verdict is reported, not counted. The unresolved sites a
framework call left (a computed view, ``Depends()``) are counted beside them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from projectgraph.graph import FRAMEWORK_KINDS, Edge, Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph

HERE = Path(__file__).resolve().parent
CORPUS = HERE / ".corpus" / "frameworks"
VERDICTS = HERE / "framework_spotcheck.json"
PACKAGES = (
    ("django-allauth", "65.21.1"),
    ("django-contrib-comments", "2.2.0"),
    ("django-debug-toolbar", "8.0.0"),
    ("django-registration", "5.2.1"),
)
# npm packages whose template folder is a small real project: (package, version, folder in the tarball)
NPM = (
    ("create-next-app", "16.4.3", "package/dist/templates/app/ts"),
    ("create-next-app", "16.4.3", "package/dist/templates/app-api/ts"),
    ("create-next-app", "16.4.3", "package/dist/templates/default/ts"),
    ("@nestjs/schematics", "12.0.6", "package/dist/lib/application/files/ts"),
)
SAMPLE = 30
_FRAMEWORK_CALLS = ("path(", "re_path(", "url(", "include(", "connect(", "Depends(", "register(", "as_view(")


def fetch(name: str, version: str) -> Path:
    """The unpacked sdist of one package (downloaded once)."""
    CORPUS.mkdir(parents=True, exist_ok=True)
    found = sorted(
        p for p in CORPUS.iterdir() if p.is_dir() and p.name.lower().replace("_", "-") == f"{name}-{version}"
    )
    if found:
        return found[0]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
            str(CORPUS),
            f"{name}=={version}",
        ],
        check=True,
    )
    archive = next(
        p for p in CORPUS.glob("*.tar.gz") if p.name.lower().replace("_", "-").startswith(f"{name}-{version}")
    )
    with tarfile.open(archive) as tar:
        tar.extractall(CORPUS, filter="data")
    return next(
        p for p in CORPUS.iterdir() if p.is_dir() and p.name.lower().replace("_", "-") == f"{name}-{version}"
    )


def fetch_npm(name: str, version: str, folder: str) -> Path:
    """The template folder of an npm package (``npm pack``, once)."""
    target = CORPUS / f"npm-{name.replace('/', '-').lstrip('@')}-{version}"
    if not target.is_dir():
        CORPUS.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "pack", "-q", f"{name}@{version}", "--pack-destination", str(CORPUS)], check=True
        )
        tgz = CORPUS / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
        target.mkdir()
        with tarfile.open(tgz) as tar:
            tar.extractall(target, filter="data")
    return target / folder


def graph_of(root: Path) -> Graph:
    """The graph of a copy of ``root`` outside this repository (inside it, git would hide the
    ignored corpus from discovery)."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / root.name
        shutil.copytree(root, work)
        return build_graph(work, IndexOptions(workers=1)).graph


def edge_id(package: str, edge: Edge) -> str:
    return f"{package} {edge.caller} -> {edge.callee} @{edge.site.path}:{edge.site.line}"


def framework_unresolved(graph: Graph) -> int:
    return sum(1 for u in graph.unresolved if not u.name and any(c in u.text for c in _FRAMEWORK_CALLS))


def main(argv: list[str]) -> int:
    show = "--sample" in argv
    verdicts: dict[str, dict[str, object]] = (
        json.loads(VERDICTS.read_text(encoding="utf-8")) if VERDICTS.is_file() else {}
    )
    everything: list[tuple[str, Edge, Path]] = []
    print(
        f"{'package':32} {'files':>5} {'edges':>6} {'framework':>9} {'unresolved':>10} {'seconds':>7}  kinds"
    )
    for name, version in () if "--npm" in argv else PACKAGES:
        root = fetch(name, version)
        start = time.perf_counter()
        graph = graph_of(root)
        seconds = time.perf_counter() - start
        found = [e for e in graph.edges if e.kind in FRAMEWORK_KINDS]
        kinds = Counter(e.kind for e in found)
        label = f"{name}=={version}"
        everything.extend((label, e, root) for e in found)
        print(
            f"{label:32} {len(graph.files):5} {len(graph.edges):6} {len(found):9} "
            f"{framework_unresolved(graph):10} {seconds:7.1f}  "
            + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        )
    print(f"\n{'npm template':40} {'files':>5} {'framework edges':>15}  framework roots")
    for name, version, folder in NPM:
        root = fetch_npm(name, version, folder)
        graph = graph_of(root)
        found = [e for e in graph.edges if e.kind in FRAMEWORK_KINDS]
        roots = sorted(f"{r.key} ({r.rule})" for r in graph.roots if r.kind == "framework")
        label = f"{name}@{version} {folder.rpartition('templates/')[2] or folder.rpartition('/')[2]}"
        print(f"{label:40} {len(graph.files):5} {len(found):15}  " + ", ".join(roots))
        for edge in found:
            print(f"    {edge.kind}: {edge.caller} -> {edge.callee}")
        first_party = {n.key for n in graph.nodes if n.kind != "external" and not n.external and n.path}
        for edge in graph.edges:  # the other calls between the template's own functions (JSX uses)
            if edge.relation == "calls" and edge.kind not in FRAMEWORK_KINDS and edge.callee in first_party:
                print(f"    calls ({edge.kind}): {edge.caller} -> {edge.callee}")
    everything.sort(key=lambda item: edge_id(item[0], item[1]))
    step = max(1, len(everything) // SAMPLE)
    sample = everything[::step][:SAMPLE]
    right = wrong = unjudged = 0
    for package, edge, root in sample:
        key = edge_id(package, edge)
        verdict = verdicts.get(key)
        if verdict is None:
            unjudged += 1
        elif verdict.get("true"):
            right += 1
        else:
            wrong += 1
        if show or verdict is None:
            line = (root / edge.site.path).read_text(encoding="utf-8").splitlines()[edge.site.line - 1]
            print(f"\n{edge.kind}  {key}\n    {line.strip()[:110]}\n    verdict: {verdict}")
    judged = right + wrong
    precision = right / judged if judged else 0.0
    print(
        f"\nspot check: {len(sample)} sampled of {len(everything)}, {right} right, {wrong} wrong, "
        f"{unjudged} unjudged: precision {precision:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
