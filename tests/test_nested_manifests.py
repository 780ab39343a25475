"""Manifest entry points in nested folders (monorepos) are roots.

A monorepo's ``packages/cli/package.json`` ``bin``, a package's ``exports``/``module``, a
``services/api/pyproject.toml`` script and a ``scripts.start`` command (``node server.js``) each
give a root, resolved relative to its own manifest's folder. Each fixture has a reach answer that
was not-found before nested manifests were read (the fixtures' README says which). Unreadable
nested manifests are named in the problems, never a crash; a sync sees a changed nested manifest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, write_tree
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.manifests import EntryPoint, read_manifests, script_targets
from projectgraph.pipeline import build_graph
from projectgraph.project import Project
from projectgraph.reach import Query, TargetByKey, reach
from projectgraph.store import sqlite as sql
from projectgraph.sync import control_files

MONOREPOS = FIXTURES / "monorepos"
ONE = IndexOptions(workers=1)


def graph_of(root: Path) -> Graph:
    return build_graph(root, ONE).graph


def manifest_roots(g: Graph) -> dict[str, str]:
    return {r.key: r.rule for r in g.roots if r.kind == "manifest"}


def stored(project: Project) -> Graph:
    """The graph the last sync stored (not refreshed on reading)."""
    return sql.read_graph(project.store.connection)


def status(g: Graph, key: str) -> str:
    result = reach(g, Query((TargetByKey(key),)))[0]
    return str(result.status)


def test_js_monorepo_packages_bin_exports_and_module_are_roots() -> None:
    g = graph_of(MONOREPOS / "js_packages")
    assert sorted(manifest_roots(g)) == [
        "index.js",  # the root package.json's main, as before
        "index.js//hello",  # what a library entry exports is called by the package's importers
        "packages/cli/bin/acme.js",
        "packages/cli/bin/admin.js",  # "./bin/admin.js": the bin map's value relative to its folder
        "packages/lib/src/api.js",  # exports "./api"
        "packages/lib/src/api.js//unused",
        "packages/lib/src/esm.js",  # module
        "packages/lib/src/helper.js//helper",  # re-exported by api.js
        "packages/lib/src/index.js",  # exports "." import/require (not the types condition)
        "packages/lib/src/internal.js",  # exports "./internal"
        "packages/lib/src/more.js//more",  # export * from "./more.js" in api.js
    ]
    assert not g.stats["root_fallback"]
    # not-found before: no root reached the cli's bin or the lib's subpath export
    for key in (
        "packages/cli/bin/acme.js//main",
        "packages/cli/src/run.js//parseCommand",
        "packages/cli/bin/admin.js//admin",
        "packages/lib/src/helper.js//hidden",
        "packages/lib/src/esm.js//boot",
    ):
        assert status(g, key) == "found", key


def test_a_library_entry_roots_what_it_exports_and_re_exports() -> None:
    g = graph_of(MONOREPOS / "js_packages")
    roots = manifest_roots(g)
    assert {
        "packages/lib/src/api.js",
        "packages/lib/src/api.js//unused",  # its own export: the package's importers call it
        "packages/lib/src/helper.js//helper",  # export { helper as assist } from "./helper.js"
        "packages/lib/src/more.js//more",  # export * from "./more.js"
    } <= set(roots)
    assert "packages/lib/src/more.js//moreDeep" not in roots  # not exported: reached, not a root
    for key in ("packages/lib/src/api.js//deep", "packages/lib/src/more.js//moreDeep"):
        assert status(g, key) == "found", key
    # no entry names private.js and the exports map keeps importers out: nothing runs it
    assert "packages/lib/src/private.js//secret" not in roots
    assert status(g, "packages/lib/src/private.js//secret") == "not-found"


def test_python_monorepo_scripts_resolve_under_each_services_own_roots() -> None:
    g = graph_of(MONOREPOS / "python_services")
    assert manifest_roots(g) == {
        "services/api/src/api/cli.py//main": "manifest-entry-points",  # src layout
        "services/api/src/api/admin.py//admin": "manifest-entry-points",  # via the package's re-export
        "services/worker/worker/run.py//start": "manifest-entry-points",  # Poetry, flat layout
    }
    assert not g.stats["root_fallback"]
    for key in (
        "services/api/src/api/cli.py//_serve",
        "services/api/src/api/admin.py//_audit",
        "services/worker/worker/run.py//_loop",
    ):
        assert status(g, key) == "found", key  # not-found before


def test_scripts_start_and_dev_commands_are_roots() -> None:
    g = graph_of(MONOREPOS / "start_script")
    assert sorted(manifest_roots(g)) == ["scripts/seed.js", "server.js", "src/main.ts"]
    assert status(g, "server.js//handle") == "found"  # not-found before
    assert status(g, "src/main.ts//devServer") == "found"
    assert not g.stats["root_fallback"]  # the bin is a strong root: no fallback, before or now
    assert status(g, "tools.js//unusedTool") == "not-found"


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("node server.js", ["server.js"]),
        ("ts-node src/index.ts", ["src/index.ts"]),
        ("tsx watch src/main.ts", ["src/main.ts"]),
        ("NODE_ENV=production node --require dotenv/config dist/index.js", ["dist/index.js"]),
        ("cross-env PORT=1 nodemon --watch src src/app.ts", ["src/app.ts"]),
        ("node --watch server.js", ["server.js"]),
        ("node build.js && node ./bin/post", ["build.js", "./bin/post"]),
        ("node -e 'require(\"x\")'", []),
        ("node --version", []),
        ("next start", []),
        ("bun run dev", []),  # a script name, not a file
        ("node server", []),  # no extension and no folder: could be anything
        ("jest --coverage", []),
        ("node 'unterminated", []),
    ],
)
def test_script_commands_are_read_conservatively(command: str, files: list[str]) -> None:
    assert script_targets(command) == files


def test_nested_manifests_never_come_from_dependency_folders(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "node_modules/dep/package.json": '{"name": "dep", "bin": "cli.js"}',
            "node_modules/dep/cli.js": "",
            ".venv/lib/site-packages/x/pyproject.toml": '[project.scripts]\nx = "x:main"\n',
            "app/package.json": '{"name": "app", "main": "main.js"}',
        },
    )
    paths = ("node_modules/dep/cli.js", ".venv/lib/site-packages/x/x.py", "app/main.js")
    found = read_manifests(root, paths)
    assert found.entry_points == (EntryPoint("app/package.json", "main", "app", "main.js"),)
    assert found.problems == ()


def test_unreadable_nested_manifests_are_problems_never_a_crash(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "main.py": "if __name__ == '__main__':\n    pass\n",
            "a/package.json": "{ not json",
            "a/index.js": "",
            "b/package.json": "[1, 2]",
            "b/index.js": "",
            "c/pyproject.toml": "[project\nname = ",
            "c/c.py": "",
            "d/pyproject.toml": 'project = "a string"\n',
            "d/d.py": "",
            "e/setup.cfg": "no section header\n",
            "e/e.py": "",
            "f/package.json": b"\xff\xfe{}",
            "f/index.js": "",
        },
    )
    g = graph_of(root)
    problems = g.stats["manifest_problems"]
    for manifest in ("a/package.json", "b/package.json", "c/pyproject.toml", "d/pyproject.toml"):
        assert any(p.startswith(f"{manifest}: ") for p in problems), (manifest, problems)
    assert any(p.startswith("e/setup.cfg: ") for p in problems), problems
    assert any(p.startswith("f/package.json: ") for p in problems), problems
    assert [r.key for r in g.roots if r.kind == "main"] == ["main.py"]


def test_nested_manifests_are_control_files_and_a_change_relinks(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(MONOREPOS / "python_services", root)
    sources = ["services/api/src/api/cli.py", "services/worker/worker/run.py", "tools/check.py"]
    controls = [c.path for c in control_files(root, sources)]
    assert "services/api/pyproject.toml" in controls and "services/worker/pyproject.toml" in controls
    with Project(root) as project:
        project.sync(ONE)
        before = manifest_roots(stored(project))
        assert "services/worker/worker/run.py//start" in before
        manifest = root / "services/worker/pyproject.toml"
        manifest.write_text(manifest.read_text().replace("worker.run:start", "worker.run:_loop"))
        result = project.sync(ONE)
        assert "services/worker/pyproject.toml" in result.controls
        after = manifest_roots(stored(project))
    assert "services/worker/worker/run.py//_loop" in after
    assert "services/worker/worker/run.py//start" not in after
    assert after == manifest_roots(graph_of(root))  # the sync's graph is a fresh build's


def test_a_changed_nested_package_json_relinks(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(MONOREPOS / "start_script", root)
    write_tree(root / "pkg", {"package.json": '{"bin": "tool.js"}', "tool.js": "run();\nfunction run() {}\n"})
    with Project(root) as project:
        project.sync(ONE)
        assert "pkg/tool.js" in manifest_roots(stored(project))
        (root / "pkg/package.json").write_text('{"scripts": {"start": "node other.js"}}')
        result = project.sync(ONE)
        assert "pkg/package.json" in result.controls
        assert "pkg/tool.js" not in manifest_roots(stored(project))
        (root / "pkg/package.json").write_text('{"scripts": {"start": "node tool.js"}}')
        project.sync(ONE)
        assert manifest_roots(stored(project))["pkg/tool.js"] == "manifest-entry-points"


def test_two_services_with_the_same_module_names_each_get_their_own_script(tmp_path: Path) -> None:
    script = '[project]\nname = "{0}"\n\n[project.scripts]\n{0} = "app.main:run"\n'
    body = "def run():\n    return 1\n"
    root = write_tree(
        tmp_path / "p",
        {
            "services/a/pyproject.toml": script.format("a"),
            "services/a/app/__init__.py": "",
            "services/a/app/main.py": body,
            "services/b-svc/pyproject.toml": script.format("b"),  # no identifier: by file path
            "services/b-svc/src/app/__init__.py": "",
            "services/b-svc/src/app/main.py": body,
        },
    )
    assert sorted(manifest_roots(graph_of(root))) == [
        "services/a/app/main.py//run",
        "services/b-svc/src/app/main.py//run",
    ]
