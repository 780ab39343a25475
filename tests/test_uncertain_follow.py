"""The uncertain callers' tables followed from run to run (``query.uncertain.Unknowns.follow``).

A query engine kept across syncs follows each new stored run by the files whose rows changed; what
it holds must equal the tables read whole from the same run, and its dynamic flags in code that
runs must be those a search forward from the roots reaches (the definition reach uses). Each sync
here changes a few files: the engine must have followed (an unchanged file's entries are the very
objects it held), except after a write that renumbered the node ids.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import deque
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from projectgraph.indexer import IndexOptions
from projectgraph.project import Project
from projectgraph.query import QueryEngine
from projectgraph.query import uncertain as unknown
from projectgraph.reach import WALKED
from projectgraph.store import sqlite as sql
from test_sync_oracle import EXAMPLES, OPS, Tree, _settings, apply

ONE = IndexOptions(workers=1)

SOURCES = {
    "app/__init__.py": "",
    "app/main.py": (
        "import importlib\n\nfrom app import handlers\nfrom app.util import helper\n\n\n"
        "def main():\n    helper(1)\n    run_plugin('x')\n    return handlers.dispatch('a')\n\n\n"
        "def run_plugin(name):\n    return importlib.import_module('app.plugins.' + name)\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    ),
    "app/handlers.py": (
        "def on_a():\n    return 1\n\n\ndef on_b():\n    return 2\n\n\n"
        "TABLE = {'a': on_a, 'b': on_b}\n\n\ndef dispatch(key):\n    return TABLE[key]()\n\n\n"
        "def unused_dynamic(code):\n    return eval(code)\n"
    ),
    "app/util.py": "def helper(x):\n    return x.render()\n\n\ndef evaluate(text):\n    return eval(text)\n",
    "tests/test_app.py": "from app.util import helper\n\n\ndef test_helper():\n    assert helper\n",
}


def _project(root: Path) -> Path:
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _running(connection: object) -> set[int]:
    """The nodes a search forward from the roots reaches along what reach walks."""
    assert isinstance(connection, sql.sqlite3.Connection)
    out: dict[int, list[int]] = {}
    for caller, callee in sql.walked_pairs(connection, WALKED):
        out.setdefault(caller, []).append(callee)
    seen = {node for node, _kind, _rule in sql.root_rows(connection)}
    queue = deque(seen)
    while queue:
        for callee in out.get(queue.popleft(), ()):
            if callee not in seen:
                seen.add(callee)
                queue.append(callee)
    return seen


def _check(engine: QueryEngine, project: Project) -> unknown.Unknowns:
    """The engine's tables now, checked against a whole read and the forward search."""
    connection = project.store.connection
    followed = engine.unknowns()
    with sql.snapshot(connection):
        whole = unknown.Unknowns.load(connection, sql.run_id(connection))
        running = _running(connection)
    assert followed.run == whole.run
    for field in ("by_name", "by_prefix", "computed_by_caller", "computed_by_path", "dynamic", "roots"):
        assert getattr(followed, field) == getattr(whole, field), field
    assert followed.basis is not None and whole.basis is not None
    assert followed.basis.everywhere == whole.basis.everywhere
    assert followed.dynamic == tuple(p for p in whole.basis.everywhere if p.caller in running)
    return followed


def _followed(before: unknown.Unknowns, after: unknown.Unknowns, unchanged: str) -> bool:
    """Whether ``after`` was followed from ``before``: an unchanged file's entries are the same objects."""
    assert before.basis is not None and after.basis is not None
    return after.basis.parts[unchanged] is before.basis.parts[unchanged]


def _flagged(found: unknown.Unknowns) -> set[str]:
    return {f"{p.site.path}:{p.reason}" for p in found.dynamic}


def test_followed_tables_equal_the_tables_read_whole(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    with Project(root) as project:
        project.sync(ONE, incremental=True)
        engine = QueryEngine(project.store.connection)
        found = _check(engine, project)
        assert _flagged(found) == set()  # both evals are in code nothing runs

        def step(unchanged: str) -> unknown.Unknowns:
            nonlocal found
            assert project.sync(ONE, incremental=True).relinked
            now = _check(engine, project)
            assert _followed(found, now, unchanged)
            found = now
            return now

        # a call makes evaluate run: its eval concerns every symbol now
        _edit(root, "app/util.py", "    return x.render()", "    evaluate('1')\n    return x.render()")
        assert _flagged(step("app/main.py")) == {"app/util.py:eval"}
        # the call goes: the way from a root to it changed
        _edit(root, "app/util.py", "    evaluate('1')\n", "")
        assert _flagged(step("app/main.py")) == set()
        # a new test, in another file, reaches the eval nothing reached
        _edit(
            root,
            "tests/test_app.py",
            "    assert helper\n",
            "    assert helper\n\n\ndef test_dynamic():\n    from app.handlers import unused_dynamic\n\n"
            "    unused_dynamic('1')\n",
        )
        assert _flagged(step("app/util.py")) == {"app/handlers.py:eval"}
        # a definition renamed (a node gone, another come) and a name called that nothing defines
        _edit(root, "app/handlers.py", "def on_b():", "def on_c():")
        _edit(root, "app/handlers.py", "'b': on_b", "'b': on_c")
        _edit(root, "app/util.py", "    return x.render()", "    x.paint()\n    return x.render()")
        now = step("app/main.py")
        assert "paint" in now.by_name
        # the test file goes: its roots with it
        (root / "tests/test_app.py").unlink()
        assert _flagged(step("app/main.py")) == set()
        # a new file with an exec that main calls
        (root / "app/extra.py").write_text("def run():\n    return exec('x = 1')\n", encoding="utf-8")
        _edit(root, "app/main.py", "    helper(1)\n", "    helper(1)\n    extra.run()\n")
        _edit(root, "app/main.py", "from app import handlers\n", "from app import extra, handlers\n")
        assert _flagged(step("app/util.py")) == {"app/extra.py:exec"}

        # a write that renumbers every node id: the tables are read whole again
        mark = sql.node_ids_mark(project.store.connection)
        project.store.connection.execute("DELETE FROM graph_groups")  # (then the write goes whole)
        _edit(root, "app/util.py", "def evaluate(text):", "def evaluate(text, more=1):")
        assert project.sync(ONE, incremental=True).written.get("whole") == 1
        assert sql.node_ids_mark(project.store.connection) != mark
        now = _check(engine, project)
        assert not _followed(found, now, "app/main.py")
        assert _flagged(now) == {"app/extra.py:exec"}


EDITS = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 1000), st.integers(0, 1000)), max_size=5)


@_settings()
@given(steps=EDITS)
def test_random_edits_follow_as_read_whole(steps: list[tuple[str, int, int]]) -> None:
    """The sync oracle's edits of the shop example, a sync after each: followed equals read whole."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "shop"
        shutil.copytree(EXAMPLES / "shop", root, ignore=shutil.ignore_patterns(".projectgraph"))
        tree = Tree(root, "python")
        tree.age_everything()
        with Project(root) as project:
            project.sync(ONE, incremental=True)
            engine = QueryEngine(project.store.connection)
            _check(engine, project)
            for op, a, b in steps:
                apply(tree, op, a, b, True)
                project.sync(ONE, incremental=True)
                _check(engine, project)
