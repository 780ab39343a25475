"""The link reads no file: its manifests and control files are read once, before it (issue 12).

``read_manifests`` reads the manifests and every language's control files (``Manifests.controls``:
go.mod, Cargo.toml, a nested package.json, a tsconfig and the configs it extends); the linkers
are given that frozen input. Each case indexes a fixture that needs its control files (Go's
modules, a Rust workspace's crates, a tsconfig's ``extends`` and ``paths``, a Tauri app's front
end and back end, a monorepo's packages), reads the manifests, then moves the project away and
links it: the graph is the one linked in place, and the link opened no file (an audit hook).
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from projectgraph.config import load_config
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.link import build
from projectgraph.manifests import read_manifests
from projectgraph.pipeline import link_options

CASES = (
    "go/multi_module",
    "go/build_constraints",
    "rust/cargo_deps",
    "rust/tauri_commands",
    "typescript/tsconfig_paths",
    "monorepos/js_packages",
)


@pytest.mark.parametrize("case", CASES)
def test_a_link_given_its_input_reads_no_file(case: str, tmp_path: Path, opened: list[str]) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / case, root)
    indexed = run_index(root, IndexOptions(workers=1))
    options = link_options(root, load_config(root), indexed)
    in_place = build(indexed.indexes, options)
    paths = tuple(i.path for i in sorted(indexed.indexes, key=lambda i: i.path))
    paths += tuple(s.path for s in indexed.statuses)
    manifests = read_manifests(root, paths)  # the read step, before the link
    assert manifests.controls.files, "the case has control files to read"

    root.rename(tmp_path / "moved")  # nothing is left where the link would look
    opened.clear()
    moved = build(indexed.indexes, dataclasses.replace(options, manifests=manifests))
    assert opened == []
    assert moved == in_place


def test_the_controls_follow_a_tsconfig_extends(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "typescript/tsconfig_paths", root)
    controls = read_manifests(root, ("src/app.ts",)).controls
    assert controls.exists("tsconfig.json") and controls.exists("config/tsconfig.base.json")
    assert not controls.exists("config/tsconfig.json")
    with pytest.raises(OSError):
        controls.read_text("config/tsconfig.json")
