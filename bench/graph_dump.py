"""Dump a corpus's graphs, to check that a speed or memory change changed no output.

    .venv/bin/python bench/graph_dump.py CORPUS OUT [--against OTHER]

The corpus (Django 5.1 as ``bench/query_bench.py`` fetches it, or any project) is copied to a
scratch folder outside this repository and indexed there; then two graphs are written with
``Graph.dumps``: ``OUT/link.json``, the Python files' plain link (what
``bench/python_link_bench.py`` times), and ``OUT/tracked.json``, the tracked link of every
language (what a cold ``projectgraph index`` stores, ``incremental.build_tracked``). Each file's
sha256 is printed. Run it with the checkout before a change and the one after (``PYTHONPATH`` or
two worktrees' interpreters), then ``--against`` the first folder: it says whether each dump is
byte-identical, and where the first difference is when not.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
from pathlib import Path


def dumps(corpus: Path, out: Path) -> dict[str, str]:
    """Write both dumps of the corpus into ``out``; their sha256 by file name."""
    from projectgraph.config import load_config
    from projectgraph.indexer import IndexOptions, run_index
    from projectgraph.languages.python.link.incremental import build_tracked
    from projectgraph.pipeline import link_indexed, link_options
    from projectgraph.store.sqlite import open_project_store

    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="pg-graph-dump-"))
    found: dict[str, str] = {}
    try:
        root = scratch / corpus.name
        shutil.copytree(corpus, root, ignore=shutil.ignore_patterns(".projectgraph"))
        store = open_project_store(root)
        config = load_config(root)
        python = run_index(root, IndexOptions(languages=("python",), workers=1), store)
        texts = {"link.json": link_indexed(root, config, python).dumps()}
        every = run_index(root, IndexOptions(workers=1), store)
        texts["tracked.json"] = build_tracked(every.indexes, link_options(root, config, every))[0].dumps()
        store.close()
        for name, text in texts.items():
            (out / name).write_text(text, encoding="utf-8")
            found[name] = hashlib.sha256(text.encode()).hexdigest()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return found


def compare(out: Path, other: Path) -> bool:
    """Print whether each dump of ``out`` equals the one in ``other``; True when all do."""
    same = True
    for name in ("link.json", "tracked.json"):
        mine = (out / name).read_text(encoding="utf-8").splitlines()
        theirs = (other / name).read_text(encoding="utf-8").splitlines()
        if mine == theirs:
            print(f"{name}: byte-identical ({len(mine)} lines)")
            continue
        same = False
        line = next(
            (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
            min(len(mine), len(theirs)),
        )
        print(f"{name}: DIFFERS from line {line + 1}: {mine[line : line + 1]} vs {theirs[line : line + 1]}")
    return same


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--against", type=Path, help="a folder of an earlier run's dumps")
    args = parser.parse_args(argv)
    for name, digest in dumps(args.corpus, args.out).items():
        print(f"{name} sha256 {digest}")
    if args.against is not None:
        return 0 if compare(args.out, args.against) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
