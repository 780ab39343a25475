"""The Go link from the state in the store (``link.persisted_go``): each sync a fresh ``Project``
(nothing kept in memory, as a one-shot ``projectgraph sync``) or a real ``projectgraph`` subprocess;
the stored graph must equal a fresh full index, and the edits the state can follow must have been
linked from it (``SyncResult.link == "stored"``), running again only the units that read what
changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from projectgraph.project import Project
from projectgraph.store import sqlite as sql
from test_sync_oracle import ONE_WORKER, full_index_dumps

CLI = Path(sys.executable).with_name("projectgraph")

FILES = {
    "go.mod": "module shop\n\ngo 1.21\n",
    "util/util.go": 'package util\n\nfunc Format(n int) string {\n\treturn "x"\n}\n',
    "util/log.go": "package util\n\nfunc Log(s string) {\n\tprintln(s)\n}\n",
    "store/store.go": (
        'package store\n\nimport "shop/util"\n\ntype Store struct {\n\tname string\n}\n\n'
        "func NewStore(name string) *Store {\n\treturn &Store{name: name}\n}\n\n"
        "func (s *Store) Add(item string) {\n\tutil.Log(item)\n}\n"
    ),
    "report/report.go": (
        'package report\n\nimport "shop/util"\n\nfunc Show(n int) string {\n\treturn util.Format(n)\n}\n'
    ),
    "main.go": (
        'package main\n\nimport (\n\t"shop/store"\n\t"shop/util"\n)\n\n'
        'func main() {\n\ts := store.NewStore("books")\n\ts.Add("dune")\n\tutil.Log("done")\n'
        '\tapply(util.Log)\n}\n\nfunc apply(f func(string)) {\n\tf("applied")\n}\n'
    ),
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


def _callees(root: Path, caller: str) -> set[str]:
    with Project(root) as project:
        graph = sql.read_graph(project.store.connection)
    return {e.callee for e in graph.edges if e.caller == caller and e.relation == "calls"}


def test_an_edit_links_again_only_what_read_it(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    for rel, text in FILES.items():
        _write(root, rel, text)
    assert _sync(root)[0] == "full"  # the first sync: a full link that keeps its state
    # (units: each of the 5 files' link and its share of the passed functions)

    # a function appended that nothing calls: its file's two units only
    _write(root, "util/log.go", FILES["util/log.go"] + "\nfunc Unused() int {\n\treturn 1\n}\n")
    assert _sync(root)[:2] == ("stored", 2)

    # a call of a name the package does not define yet, then the definition: the caller's link
    # reads the name, so it runs again and now calls it (resolution changed elsewhere)
    _edit(root, "report/report.go", "return util.Format(n)", "util.Trace(n)\n\treturn util.Format(n)")
    assert _sync(root)[:2] == ("stored", 2)
    assert "util/log.go//Trace" not in _callees(root, "report/report.go//Show")
    _write(root, "util/log.go", (root / "util/log.go").read_text() + "\nfunc Trace(n int) {\n}\n")
    link, ran, why = _sync(root)
    assert (link, ran) == ("stored", 3), why  # log.go's two, report.go's link
    assert "util/log.go//Trace" in _callees(root, "report/report.go//Show")

    # the function a parameter call receives changes: the caller of the parameter follows
    _edit(root, "main.go", "apply(util.Log)", "apply(util.Trace2)")
    _write(root, "util/log.go", (root / "util/log.go").read_text() + "\nfunc Trace2(s string) {\n}\n")
    link, _ran, why = _sync(root)
    assert link == "stored", why
    assert "util/log.go//Trace2" in _callees(root, "main.go//apply")

    # a method added changes a type's method set (what interface calls read): a full link
    _edit(
        root,
        "store/store.go",
        "func (s *Store) Add(",
        "func (s *Store) Len() int {\n\treturn 0\n}\n\nfunc (s *Store) Add(",
    )
    link, _ran, why = _sync(root)
    assert link == "full" and "type or method" in why, (link, why)
    # a file added: a full link; then edits follow from the new state
    _write(root, "util/extra.go", 'package util\n\nfunc Extra() {\n\tLog("x")\n}\n')
    assert _sync(root)[0] == "full"
    _edit(root, "util/extra.go", 'Log("x")', 'Log("y")')
    assert _sync(root)[0] == "stored"
    # go.mod changed (a control file): a full link
    _write(root, "go.mod", "module example.com/shop\n\ngo 1.21\n")
    assert _sync(root)[0] == "full"


def test_a_one_shot_cli_sync_links_from_the_stored_state(tmp_path: Path) -> None:
    """Real ``projectgraph`` processes: ``index``, an edit, ``sync --json``."""
    root = tmp_path / "shop"
    for rel, text in FILES.items():
        _write(root, rel, text)
    env = {**os.environ, "PROJECTGRAPH_NO_DAEMON": "1"}
    subprocess.run([str(CLI), "index", str(root)], check=True, capture_output=True, env=env, timeout=300)
    _write(
        root, "report/report.go", FILES["report/report.go"] + "\nfunc Again() string {\n\treturn Show(1)\n}\n"
    )
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
    assert (summary["link"], summary["relinked_units"]) == ("stored", 2), summary  # (no file reads it)
    with Project(root) as project:
        stored = sql.read_graph(project.store.connection).dumps()
    assert stored == full_index_dumps(root)


def test_files_of_other_languages_are_linked_beside_the_state(tmp_path: Path) -> None:
    """A Go tree with a C file and a Python script: an edit to either links it in full beside the
    stored Go state (no Go unit runs again), an edit to a Go file follows from the state."""
    root = tmp_path / "shop"
    for rel, text in FILES.items():
        _write(root, rel, text)
    _write(
        root,
        "native/hash.c",
        "int hash(int x) {\n    return mix(x);\n}\n\nint mix(int x) {\n    return x;\n}\n",
    )
    _write(root, "tools/gen.py", "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n")
    assert _sync(root)[0] == "full"
    _write(root, "tools/gen.py", "def main():\n    return other()\n\n\ndef other():\n    return 1\n")
    assert _sync(root)[:2] == ("stored", 0)
    _write(root, "native/hash.c", "int hash(int x) {\n    return x;\n}\n")
    assert _sync(root)[:2] == ("stored", 0)
    _edit(root, "report/report.go", "return util.Format(n)", "return util.Format(n + 1)")
    assert _sync(root)[:2] == ("stored", 2)
    with Project(root) as project:
        graph = sql.read_graph(project.store.connection)
    assert "tools/gen.py//other" in {e.callee for e in graph.edges if e.caller == "tools/gen.py//main"}
