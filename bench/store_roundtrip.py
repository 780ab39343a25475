"""Whether real trees' graphs survive the store: the graph linked in memory (``build_graph``)
against the one ``projectgraph index`` writes to a fresh store and ``read_graph`` reads back.

    .venv/bin/python bench/store_roundtrip.py /tmp/rel/zod/package /tmp/rel/click ...

Each tree is copied to a temporary folder first (the index writes ``.projectgraph`` into it).
Prints, per tree and per part (nodes, edges, roots, unresolved, dynamic, truncations, files), the
counts on each side and what only one side holds; exits 1 when a tree differs. The records are
compared whole (a node's name, signature and doc, a file's word filter), not only their JSON.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.store import sqlite as sql

PARTS = ("nodes", "edges", "roots", "unresolved", "dynamic", "truncations", "files")
CLI = Path(sys.executable).with_name("projectgraph")


def compare(memory: Graph, stored: Graph, shown: int) -> bool:
    same = True
    for part in PARTS:
        left, right = getattr(memory, part), getattr(stored, part)
        only_memory, only_stored = sorted(set(left) - set(right)), sorted(set(right) - set(left))
        print(f"  {part:12} memory {len(left):7}  stored {len(right):7}", end="")
        print(f"  only in memory {len(only_memory)}  only stored {len(only_stored)}")
        for row in only_memory[:shown]:
            print(f"    - {row}")
        for row in only_stored[:shown]:
            print(f"    + {row}")
        same = same and left == right
    dumps = memory.dumps() == stored.dumps()
    print(f"  dumps equal: {dumps}")
    return same and dumps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--shown", type=int, default=5, help="rows shown of each difference")
    args = parser.parse_args()
    failed = []
    with tempfile.TemporaryDirectory(prefix="roundtrip-") as scratch:
        for number, tree in enumerate(args.trees):
            root = Path(scratch) / str(number) / tree.name
            shutil.copytree(tree, root, ignore=shutil.ignore_patterns(".projectgraph"))
            clock = time.process_time()
            memory = build_graph(root, IndexOptions(workers=1)).graph
            cpu = time.process_time() - clock
            done = subprocess.run(
                [str(CLI), "index", str(root)], capture_output=True, text=True, timeout=3600, check=False
            )
            if done.returncode not in (0, 4):  # 4: indexed, with files it could not read whole
                print(f"{tree}: index exited {done.returncode}\n{done.stderr[-2000:]}")
                failed.append(tree)
                continue
            connection = sqlite3.connect(root / ".projectgraph" / "graph.db")
            stored = sql.read_graph(connection)
            connection.close()
            print(f"{tree} ({len(memory.files)} files; in-memory build {cpu:.1f} s CPU)")
            if not compare(memory, stored, args.shown):
                failed.append(tree)
    print("differ:", ", ".join(map(str, failed)) if failed else "none")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
