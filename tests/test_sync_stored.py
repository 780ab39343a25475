"""The incremental link from the state in the store (``link.persisted``): a sync in a fresh process.

Each sync here runs in a ``Project`` of its own (nothing kept in memory, as a one-shot
``projectgraph sync``), or as a real ``projectgraph`` subprocess; the stored graph must equal a
fresh full index (``test_sync_oracle.full_index_dumps``), and the edits the stored state can follow
must have been linked from it (``SyncResult.link == "stored"``), not by the full-link fallback.
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
from test_sync_incremental import IN_FILE_STEPS
from test_sync_oracle import (
    EXAMPLES,
    FIXTURES,
    ONE_WORKER,
    PYTHON_SOURCES,
    _settings,
    full_index_dumps,
    run_oracle,
)

CLI = Path(sys.executable).with_name("projectgraph")


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _sync(root: Path, links: list[str], **kwargs: object) -> None:
    """One sync in a fresh project (a one-shot process), checked against a full index."""
    with Project(root) as project:
        result = project.sync(ONE_WORKER, **kwargs)  # type: ignore[arg-type]
        links.append(result.link)
        stored = sql.read_graph(project.store.connection).dumps()
    assert stored == full_index_dumps(root), links


def test_one_shot_syncs_follow_a_full_index(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "shop", root, ignore=shutil.ignore_patterns(".projectgraph"))
    links: list[str] = []
    _sync(root, links)  # a full link that records what each unit read, and keeps it in the store
    # a body edit, an appended function that passes an argument, lines inserted above definitions
    _edit(
        root,
        "shop/orders.py",
        "def checkout(catalog_path, names):",
        "def checkout(catalog_path, names):  # x",
    )
    _sync(root, links)
    (root / "shop/legacy.py").write_text(
        (root / "shop/legacy.py").read_text() + "\n\ndef extra(value):\n    return restore(value)\n"
    )
    _sync(root, links)
    _edit(root, "shop/catalog.py", "class Catalog:", "# one\n# two\nclass Catalog:")
    _sync(root, links)
    # a function used elsewhere renamed and back; a base class changed; a re-export changed
    _edit(root, "shop/catalog.py", "def load_catalog(path):", "def load_catalog2(path):")
    _sync(root, links)
    _edit(root, "shop/catalog.py", "def load_catalog2(path):", "def load_catalog(path):")
    _sync(root, links)
    _edit(root, "shop/orders.py", "class Basket:", "class Basket(dict):")
    _sync(root, links)
    _edit(
        root,
        "shop/__init__.py",
        "from .catalog import Catalog, load_catalog",
        "from .catalog import load_catalog",
    )
    _sync(root, links)
    # a function passed as an argument: a binding pass binds otherwise, so the link is in full
    _edit(root, "shop/cli.py", "def main():", "def run(f):\n    return f()\n\n\ndef main():\n    run(main)")
    _sync(root, links)
    _sync(root, links)  # nothing changed: no link
    assert links[0] == "tracked" and links[-1] == "", links
    # the body edit, the inserted lines, the rename back, the base class, the re-export are followed
    assert links[1] == links[3] == links[6] == links[7] == "stored", links
    assert links[-2] == "tracked", links  # (the fallback saves the state again)


def test_mro_and_reexport_fixtures_one_shot(tmp_path: Path) -> None:
    for name in ("inheritance_mro", "reexports"):
        root = tmp_path / name
        shutil.copytree(FIXTURES / "python" / name, root)
        links: list[str] = []
        _sync(root, links)
        for path in sorted(root.rglob("*.py")):
            path.write_text(path.read_text() + "\n\ndef appended_here(value):\n    return value\n")
            _sync(root, links)
            path.write_text("# moved\n" + path.read_text())
            _sync(root, links)
        assert links.count("stored") * 2 >= len(links), (name, links)


def test_a_process_that_relinked_in_memory_leaves_no_stale_state(tmp_path: Path) -> None:
    """A graph written from a tracked link kept in memory (a watcher's) is not the stored state's
    graph: a later one-shot sync must not follow that state, and links in full."""
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "shop", root, ignore=shutil.ignore_patterns(".projectgraph"))
    links: list[str] = []
    with Project(root) as kept:
        kept.sync(ONE_WORKER, incremental=True)
        legacy = root / "shop/legacy.py"
        legacy.write_text(legacy.read_text() + "\n\ndef extra(value):\n    return value\n")
        assert kept.sync(ONE_WORKER, incremental=True).link == "incremental"
    legacy.write_text(legacy.read_text() + "\n\ndef more():\n    return extra(1)\n")
    _sync(root, links)
    assert links == ["tracked"]
    legacy.write_text(legacy.read_text() + "\n\ndef again():\n    return more()\n")
    _sync(root, links)
    assert links == ["tracked", "stored"]


def test_a_module_getattr_that_comes_and_goes_is_followed(tmp_path: Path) -> None:
    """PEP 562: every ``m.x`` read of a module that binds no ``x`` depends on whether m defines
    ``__getattr__``; the stored and the in-memory relink take that set from their own tables (not
    every file), and link in full when a module's ``__getattr__`` comes or goes."""
    root = tmp_path / "getattr"
    shutil.copytree(FIXTURES / "python" / "module_getattr_attribute", root)
    package = root / "pkg/__init__.py"
    links: list[str] = []
    _sync(root, links)
    _edit(root, "pkg/__init__.py", "def __getattr__(name):", "def __getattr_off__(name):")
    _sync(root, links)  # gone: pkg.make_widget reaches no __getattr__
    _edit(root, "pkg/__init__.py", "def __getattr_off__(name):", "def __getattr__(name):")
    _sync(root, links)  # back
    package.write_text(package.read_text() + "\n\ndef appended(value):\n    return value\n")
    _sync(root, links)  # the set is unchanged: followed from the state
    assert links[1] == links[2] == "tracked" and links[3] == "stored", links
    with Project(root) as kept:  # the same edits, in memory (a watcher's link)
        kept.sync(ONE_WORKER, incremental=True)
        for old, new in (("def __getattr__(name):", "def __getattr_off__(name):"), ("_off__", "__")):
            _edit(root, "pkg/__init__.py", old, new)
            kept.sync(ONE_WORKER, incremental=True)
            assert sql.read_graph(kept.store.connection).dumps() == full_index_dumps(root)


def test_a_cli_sync_links_from_the_stored_state(tmp_path: Path) -> None:
    """``projectgraph index``, an edit, then ``projectgraph sync`` as processes of their own."""
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "shop", root, ignore=shutil.ignore_patterns(".projectgraph"))
    env = {**os.environ, "NO_COLOR": "1"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(CLI), *args], capture_output=True, text=True, check=False, env=env, timeout=120
        )

    assert cli("index", str(root)).returncode == 0
    orders = root / "shop/orders.py"
    orders.write_text(orders.read_text() + "\n\ndef appended(value):\n    return checkout('x', [])\n")
    done = cli("sync", str(root), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["link"] == "stored" and summary["changed"] == ["shop/orders.py"], summary
    assert 0 < summary["relinked_units"] <= 4, summary
    with Project(root) as project:
        stored = sql.read_graph(project.store.connection).dumps()
        assert "shop/orders.py//appended" in {n.key for n in sql.read_graph(project.store.connection).nodes}
    assert stored == full_index_dumps(root)


_LINKS: list[str] = []


@_settings()
@given(name=st.sampled_from(sorted(PYTHON_SOURCES)), steps=IN_FILE_STEPS)
def test_in_file_edits_one_shot_python(name: str, steps: list[tuple[str, int, int, bool, bool]]) -> None:
    """The oracle's in-file edits, each synced by a process of its own."""
    _LINKS.extend(run_oracle(PYTHON_SOURCES[name], "python", steps, fresh=True))


def test_in_file_edits_one_shot_took_the_stored_path() -> None:
    """(after the run above) many of its syncs linked from the stored state."""
    if not _LINKS:  # run alone
        return
    assert _LINKS.count("stored") * 3 >= len(_LINKS), _LINKS
