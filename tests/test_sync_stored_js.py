"""The JavaScript/TypeScript link from the state in the store (``link.persisted_js``): each sync a
fresh ``Project`` (nothing kept in memory, as a one-shot ``projectgraph sync``) or a real
``projectgraph`` subprocess; the stored graph must equal a fresh full index, and the edits the state
can follow must have been linked from it (``SyncResult.link == "stored"``), running again only the
units that read the edited file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from projectgraph.project import Project
from projectgraph.store import sqlite as sql
from test_sync_oracle import FIXTURES, ONE_WORKER, STEPS, _settings, full_index_dumps, run_oracle

CLI = Path(sys.executable).with_name("projectgraph")

JS_SOURCES = {
    "reexports": FIXTURES / "javascript" / "reexports",
    "commonjs": FIXTURES / "javascript" / "commonjs",
    "default_exports": FIXTURES / "javascript" / "default_exports",
    "esm_imports": FIXTURES / "javascript" / "esm_imports",
    "mixins": FIXTURES / "javascript" / "mixins",
}
TS_SOURCES = {
    "ts_app": FIXTURES / "sync" / "ts_app",
    "tsconfig_paths": FIXTURES / "typescript" / "tsconfig_paths",
    "type_only_imports": FIXTURES / "typescript" / "ts_type_only_imports",
}


@_settings()
@given(name=st.sampled_from(sorted(JS_SOURCES)), steps=STEPS)
def test_one_shot_syncs_equal_a_full_index_javascript(
    name: str, steps: list[tuple[str, int, int, bool, bool]]
) -> None:
    run_oracle(JS_SOURCES[name], "javascript", steps, fresh=True)


@_settings()
@given(name=st.sampled_from(sorted(TS_SOURCES)), steps=STEPS)
def test_one_shot_syncs_equal_a_full_index_typescript(
    name: str, steps: list[tuple[str, int, int, bool, bool]]
) -> None:
    run_oracle(TS_SOURCES[name], "typescript", steps, fresh=True)


# ---- a project of two folders, edit by edit ---------------------------------------------------------
FILES = {
    "shop/prices.js": "export function price(item) {\n  return item.cost * 2;\n}\n",
    "shop/cart.js": (
        'import { price } from "./prices.js";\n\n'
        "export function total(items) {\n  return items.map(price).reduce((a, b) => a + b, 0);\n}\n"
    ),
    "shop/main.js": 'import { total } from "./cart.js";\n\nexport function run() {\n  return total([]);\n}\n',
    "report/format.js": "export function pad(text) {\n  return text.padStart(8);\n}\n",
    "report/print.js": (
        'import { pad } from "./format.js";\n\n'
        "export function show(line) {\n  console.log(pad(line));\n  return line.render();\n}\n"
    ),
    "package.json": '{"name": "two-parts", "version": "1.0.0"}\n',
}


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    assert old in text, (rel, old)
    _write(root, rel, text.replace(old, new))


def _sync(root: Path) -> tuple[str, int, str]:
    """One sync in a fresh project, checked against a full index: (link, units run again, fallback)."""
    with Project(root) as project:
        result = project.sync(ONE_WORKER)
        stored = sql.read_graph(project.store.connection).dumps()
    assert stored == full_index_dumps(root), (result.link, result.fallback)
    return result.link, result.relinked_units, result.fallback


def _callers(root: Path, key: str) -> set[str]:
    with Project(root) as project:
        graph = sql.read_graph(project.store.connection)
    return {e.caller for e in graph.edges if e.callee == key and e.relation == "calls"}


def test_an_edit_links_again_only_what_read_the_file(tmp_path: Path) -> None:
    root = tmp_path / "app"
    for rel, text in FILES.items():
        _write(root, rel, text)
    assert _sync(root)[0] == "full"  # the first sync: a full link that keeps its state
    # (a unit: a file's binding pass or its link; ten here)
    # a function appended to a file: its units run again, and those that read it (print.js imports)
    _write(root, "report/format.js", FILES["report/format.js"] + "\nfunction unused(x) {\n  return x;\n}\n")
    link, ran, why = _sync(root)
    assert (link, ran) == ("stored", 4), why

    # a function other files import renamed, then its importer follows: resolution changes elsewhere
    _edit(root, "shop/prices.js", "function price(", "function cost(")
    assert _sync(root)[0] == "stored"
    assert _callers(root, "shop/prices.js//cost") == set()  # nothing calls the new name yet...
    _edit(root, "shop/cart.js", "import { price }", "import { cost as price }")
    link, ran, why = _sync(root)
    assert (link, ran) == ("stored", 3), why  # cart.js's two and main.js's link (it calls total)
    assert "shop/cart.js//total" in _callers(root, "shop/prices.js//cost")  # ...and now total passes it

    # an import of the other folder: print.js's units only; then an edit there reaches print.js too
    joined = 'import { pad } from "./format.js";\nimport { run } from "../shop/main.js";'
    _edit(root, "report/print.js", 'import { pad } from "./format.js";', joined)
    _edit(root, "report/print.js", "console.log(pad(line));", "console.log(pad(line), run());")
    link, ran, why = _sync(root)
    assert (link, ran) == ("stored", 2), why
    assert "report/print.js//show" in _callers(root, "shop/main.js//run")
    _edit(root, "shop/main.js", "return total([]);", "return total([1]);")
    link, ran, why = _sync(root)
    assert link == "stored" and ran >= 3, (ran, why)  # main.js's two, print.js's link

    # a method of a name a call on an unknown receiver asks the table of members by name for: that
    # entry changes, and any unit may read it (a full link); a method of another name does not
    _write(root, "shop/box.js", "export class Box {\n  render() {}\n}\n")
    assert _sync(root)[0] == "full"  # (a file added)
    _edit(root, "shop/box.js", "render() {}", "render() {}\n  paint() {}")
    link, _ran, why = _sync(root)
    assert (link, why) == ("stored", ""), why  # (no call names paint: the table is read as it was)
    _edit(root, "shop/box.js", "render() {}", "draw() {}")
    link, _ran, why = _sync(root)
    assert link == "full" and "_members_by_name" in why, (link, why)
    _edit(root, "shop/box.js", "draw() {}", "render() {}")
    assert _sync(root)[0] == "full"

    # a file added, then removed: the set of files changes (a full link), and the state follows on
    _write(root, "report/extra.js", 'import { pad } from "./format.js";\nexport const x = pad("a");\n')
    assert _sync(root)[0] == "full"
    (root / "report/extra.js").unlink()
    assert _sync(root)[0] == "full"
    _write(root, "shop/prices.js", (root / "shop/prices.js").read_text() + "\n// a comment\n")
    assert _sync(root)[0] == "stored"


def test_a_one_shot_cli_sync_links_from_the_stored_state(tmp_path: Path) -> None:
    """Real ``projectgraph`` processes: ``index``, an edit, ``sync --json``."""
    root = tmp_path / "app"
    for rel, text in FILES.items():
        _write(root, rel, text)
    env = {**os.environ, "PROJECTGRAPH_NO_DAEMON": "1"}
    subprocess.run([str(CLI), "index", str(root)], check=True, capture_output=True, env=env, timeout=300)
    _write(root, "shop/main.js", FILES["shop/main.js"] + "\nexport function again() {\n  return run();\n}\n")
    done = subprocess.run(
        [str(CLI), "sync", "--json"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    summary = json.loads(done.stdout)
    assert (summary["link"], summary["relinked_units"]) == ("stored", 2), summary  # (no file reads main.js)
    with Project(root) as project:
        stored = sql.read_graph(project.store.connection).dumps()
    assert stored == full_index_dumps(root)
    shutil.rmtree(root)
