"""A graph written to a fresh store and read back is the graph linked in memory, record for record.

The queries answer from the store (``QueryEngine`` reads its tables) while the Python API, the
daemon and the tests answer from the graph in memory: a row the store cannot keep (a root, edge,
unresolved site or flag of a key that is no node) would make the two answer differently. zod's
``lib/__tests__/Mocker.d.ts`` found one: the test-files rule made roots of the declaration file's
class and methods, which no linker makes nodes of (a .d.ts stands for no code); the store keeps a
root by its node, so 15 roots of 622 were in memory only.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, write_tree
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.project import Project
from projectgraph.store import sqlite as sql

ONE = IndexOptions(workers=1)


def stored_graph(root: Path) -> Graph:
    with Project(root) as project:
        project.sync(ONE)
        return sql.read_graph(project.store.connection)


def assert_same(memory: Graph, stored: Graph) -> None:
    """Equal JSON, and equal records beyond it (a node's name, qualname, signature and doc, a
    file's word filter: what the JSON form leaves out but queries read)."""
    for part in ("nodes", "edges", "roots", "unresolved", "dynamic", "truncations", "files"):
        assert getattr(memory, part) == getattr(stored, part), part
    assert memory.dumps() == stored.dumps()


def test_roots_of_a_declaration_file_in_a_test_folder_are_roots_of_nodes_only(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "package.json": '{"name": "p", "version": "1.0.0", "main": "lib/index.js"}\n',
            "lib/index.js": "function parse(x) {\n  return x;\n}\nmodule.exports = { parse };\n",
            "lib/__tests__/Mocker.js": (
                "class Mocker {\n  get string() {\n    return 'a';\n  }\n  pick(...args) {\n"
                "    return args[0];\n  }\n}\nexports.Mocker = Mocker;\n"
            ),
            "lib/__tests__/Mocker.d.ts": (
                "export declare class Mocker {\n  get string(): string;\n  pick(...args: any[]): any;\n}\n"
            ),
        },
    )
    memory = build_graph(root, ONE).graph
    keys = memory.node_by_key
    assert "lib/__tests__/Mocker.d.ts" in keys and "lib/__tests__/Mocker.js//Mocker//pick" in keys
    assert "lib/__tests__/Mocker.d.ts//Mocker" not in keys  # a declaration is no code: no node
    rooted = {r.key for r in memory.roots}
    assert {"lib/__tests__/Mocker.d.ts", "lib/__tests__/Mocker.js//Mocker//pick"} <= rooted
    assert [r for r in memory.roots if r.key not in keys] == []
    assert_same(memory, stored_graph(root))


ROUND_TRIP_FIXTURES = (
    "python/django_app",
    "python/dynamic_features",
    "python/pytest_fixtures",
    "javascript/express_app",
    "javascript/dynamic",
    "typescript/workspace_packages",
    "go/multi_module",
    "rust/cargo_deps",
    "java/spring_junit",
)


@pytest.mark.parametrize("case", ROUND_TRIP_FIXTURES)
def test_a_fixture_graph_round_trips_through_a_fresh_store(case: str, tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(FIXTURES / case, root)
    assert_same(build_graph(root, ONE).graph, stored_graph(root))
