"""The stored link state of a project with files of other languages (``link.persisted``).

The other linkers read no Python file, so while only Python files change their rows are kept as
stored (a relink does not even run them again); a file of theirs that changed is a link in full.
Each sync runs in a ``Project`` of its own (as a one-shot ``projectgraph sync``); the stored graph
must equal a fresh full index.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from projectgraph.project import Project
from projectgraph.store import sqlite as sql
from test_sync_oracle import EXAMPLES, ONE_WORKER, full_index_dumps

WEB = {
    "web/app.js": (
        "const _ = require('lodash');\n"
        "import { render } from './view.js';\n\n"
        "export function start(items) {\n  return render(_.sortBy(items));\n}\n\n"
        "function helper() {\n  return start([]);\n}\n\nhelper();\n"
    ),
    "web/view.js": "export function render(list) {\n  return list.map(String).join(',');\n}\n",
    "web/types.ts": (
        "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n"
    ),
}


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _sync(root: Path) -> tuple[str, str]:
    """One sync in a fresh project, checked against a full index: (how it linked, why not stored)."""
    with Project(root) as project:
        result = project.sync(ONE_WORKER)
        stored = sql.read_graph(project.store.connection).dumps()
    assert stored == full_index_dumps(root), (result.link, result.fallback)
    return result.link, result.fallback


def test_a_mixed_project_relinks_its_python_from_the_store(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "shop", root, ignore=shutil.ignore_patterns(".projectgraph"))
    for rel, text in WEB.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    links = [_sync(root)]
    _edit(
        root,
        "shop/orders.py",
        "def checkout(catalog_path, names):",
        "def checkout(catalog_path, names):  # x",
    )
    links.append(_sync(root))
    legacy = root / "shop/legacy.py"  # an appended function that passes an argument
    legacy.write_text(legacy.read_text() + "\n\ndef extra(value):\n    return restore(value)\n")
    links.append(_sync(root))
    _edit(root, "shop/catalog.py", "class Catalog:", "# one\n# two\nclass Catalog:")
    links.append(_sync(root))
    # a file of another language: its linker's rows change, so the link is in full (and saved)
    _edit(root, "web/view.js", "return list.map(String)", "return list.filter(Boolean).map(String)")
    links.append(_sync(root))
    _edit(root, "shop/catalog.py", "# one\n# two\nclass Catalog:", "class Catalog:")
    links.append(_sync(root))
    how = [link for link, _ in links]
    assert how[0] == "tracked", links
    assert how[1] == how[3] == "stored", links  # (the appended call binds a pass otherwise: in full)
    assert how[4] == "tracked" and links[4][1] == "a file of another language changed", links
    assert how[5] == "stored", links
