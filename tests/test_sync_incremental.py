"""The incremental link (``link.incremental`` through ``sync.relink``) against a full index.

Each edit is synced by a project that keeps its tracked link (``incremental=True``); the stored
graph must equal a fresh full index (``test_sync_oracle.full_index_dumps``), and the edits that the
incremental link can follow must have been linked by it, not by the full-link fallback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from projectgraph.project import Project
from projectgraph.store import sqlite as sql
from test_sync_oracle import (
    EXAMPLES,
    FIXTURES,
    ONE_WORKER,
    PYTHON_SOURCES,
    STEP_COUNT,
    TS_SOURCES,
    _settings,
    full_index_dumps,
    run_oracle,
)


def _stored(project: Project) -> str:
    return sql.read_graph(project.store.connection).dumps()


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _check(project: Project, root: Path, links: list[str]) -> None:
    result = project.sync(ONE_WORKER, incremental=True)
    links.append(result.link)
    assert _stored(project) == full_index_dumps(root), links


def test_python_edits_follow_a_full_index(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "shop", root)
    links: list[str] = []
    with Project(root) as project:
        project.sync(ONE_WORKER, incremental=True)
        # a body edit (same lines), an appended function, lines inserted above definitions
        _edit(
            root,
            "shop/orders.py",
            "def checkout(catalog_path, names):",
            "def checkout(catalog_path, names):  # x",
        )
        _check(project, root, links)
        (root / "shop/legacy.py").write_text(
            (root / "shop/legacy.py").read_text() + "\n\ndef extra(value):\n    return restore(value)\n"
        )
        _check(project, root, links)
        _edit(root, "shop/catalog.py", "class Catalog:", "# one\n# two\nclass Catalog:")
        _check(project, root, links)
        # a function used elsewhere renamed, then back; a base class changed; a re-export changed
        _edit(root, "shop/catalog.py", "def load_catalog(path):", "def load_catalog2(path):")
        _check(project, root, links)
        _edit(root, "shop/catalog.py", "def load_catalog2(path):", "def load_catalog(path):")
        _check(project, root, links)
        _edit(root, "shop/orders.py", "class Basket:", "class Basket(dict):")
        _check(project, root, links)
        _edit(
            root,
            "shop/__init__.py",
            "from .catalog import Catalog, load_catalog",
            "from .catalog import load_catalog",
        )
        _check(project, root, links)
        # a function passed as an argument (a parameter binding changes): the full-link fallback
        _edit(
            root, "shop/cli.py", "def main():", "def run(f):\n    return f()\n\n\ndef main():\n    run(main)"
        )
        _check(project, root, links)
    # the body edit and the inserted lines are followed; a changed binding is linked in full
    assert links[0] == links[2] == "incremental", links
    assert links.count("incremental") >= 4, links


def test_mro_and_reexport_fixtures_follow_a_full_index(tmp_path: Path) -> None:
    for name in ("inheritance_mro", "reexports"):
        root = tmp_path / name
        shutil.copytree(FIXTURES / "python" / name, root)
        links: list[str] = []
        with Project(root) as project:
            project.sync(ONE_WORKER, incremental=True)
            for path in sorted(root.rglob("*.py")):
                path.write_text(path.read_text() + "\n\ndef appended_here(value):\n    return value\n")
                _check(project, root, links)
                path.write_text("# moved\n" + path.read_text())
                _check(project, root, links)
        assert "incremental" in links, (name, links)


# the oracle's edits that keep the set of files (the incremental link's domain), synced after each
IN_FILE = (
    "add_function",
    "remove_function",
    "rename_symbol",
    "change_base",
    "change_import",
    "reexport",
    "touch",
)
IN_FILE_STEPS = st.lists(
    st.tuples(
        st.sampled_from(IN_FILE),
        st.integers(0, 1000),
        st.integers(0, 1000),
        st.booleans().map(lambda fresh: not fresh),
        st.just(True),
    ),
    min_size=1,
    max_size=STEP_COUNT,
)
_LINKS: list[str] = []


@_settings()
@given(name=st.sampled_from(sorted(PYTHON_SOURCES)), steps=IN_FILE_STEPS)
def test_in_file_edits_python(name: str, steps: list[tuple[str, int, int, bool, bool]]) -> None:
    """The oracle with in-file edits only, each synced by a project that relinks incrementally."""
    _LINKS.extend(run_oracle(PYTHON_SOURCES[name], "python", steps, incremental=True))


def test_in_file_edits_took_the_incremental_path() -> None:
    """(after the run above) most of its syncs were incremental ones."""
    if not _LINKS:  # run alone
        return
    assert _LINKS.count("incremental") * 3 >= len(_LINKS), _LINKS


@_settings()
@given(name=st.sampled_from(sorted(TS_SOURCES)), steps=IN_FILE_STEPS)
def test_in_file_edits_typescript(name: str, steps: list[tuple[str, int, int, bool, bool]]) -> None:
    """TypeScript edits under an incremental project: the full-link fallback, each sync exact."""
    links = run_oracle(TS_SOURCES[name], "typescript", steps, incremental=True)
    assert "incremental" not in links


def test_a_sync_told_what_changed_skips_discovery_and_still_equals_a_full_index(tmp_path: Path) -> None:
    """A watcher names the paths its events gave: a known file edited needs no walk of the tree;
    a new file, a deleted one or a control file makes the sync discover as without them."""
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES / "shop", root)
    with Project(root) as project:
        project.sync(ONE_WORKER, incremental=True)

        def synced(*changed: str) -> bool:
            result = project.sync(ONE_WORKER, incremental=True, changed_paths=changed)
            assert _stored(project) == full_index_dumps(root), changed
            return result.discovered

        _edit(root, "shop/catalog.py", "def load_catalog(path):", "def load_catalog2(path):")
        assert not synced("shop/catalog.py")
        _edit(root, "shop/catalog.py", "def load_catalog2(path):", "def load_catalog(path):")
        _edit(root, "shop/orders.py", "class Basket:", "class Basket(dict):")
        assert not synced("shop/catalog.py", "shop/orders.py")
        (root / "shop/extra.py").write_text("from shop.catalog import load_catalog\n\nload_catalog('x')\n")
        assert synced("shop/extra.py")  # a new file: the file list changes
        assert not synced("shop/extra.py")  # known now (nothing changed: the stored graph stays)
        (root / "shop/extra.py").unlink()
        assert synced("shop/extra.py")  # gone
        (root / "pyproject.toml").write_text(
            '[project]\nname = "shop"\n[project.scripts]\nshop = "shop.cli:main"\n'
        )
        assert synced("pyproject.toml")  # a control file
        assert synced()  # no path named: as a plain sync
