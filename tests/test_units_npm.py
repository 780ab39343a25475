"""npm units: discovery from node_modules (written here, no network) and the export surface of a
package (the external keys another package writes for its definitions)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import git, write_tree
from projectgraph import keys
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.languages.javascript.link.surface import unit_surface
from projectgraph.languages.javascript.units import package_files
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach
from projectgraph.units import NO_DEPS, DepsConfig, DepsError, discover_units, parse_deps


def manifest(name: str, version: str, **fields: object) -> str:
    return json.dumps({"name": name, "version": version, **fields})


def test_units_of_node_modules_scoped_nested_and_requires(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "package.json": manifest("app", "1.0.0", dependencies={"a": "1", "@s/b": "2"}),
            "node_modules/a/package.json": manifest("a", "1.0.0", dependencies={"ms": "*", "@s/b": "*"}),
            "node_modules/a/index.js": "module.exports = require('ms')\n",
            "node_modules/a/node_modules/ms/package.json": manifest("ms", "2.1.3"),
            "node_modules/a/node_modules/ms/index.js": "module.exports = function (v) { return v }\n",
            "node_modules/ms/package.json": manifest("ms", "2.0.0"),
            "node_modules/ms/index.js": "module.exports = function (v) { return v }\n",
            "node_modules/@s/b/package.json": manifest("@s/b", "2.0.0", dependencies={"ms": "*"}),
            "node_modules/@s/b/lib/b.js": "exports.b = function b() {}\n",
            "node_modules/.bin/x": "#!/bin/sh\n",
            "node_modules/.package-lock.json": "{}",
            "node_modules/no-version/package.json": json.dumps({"name": "no-version"}),
            "node_modules/no-version/index.js": "",
        },
    )
    units = {u.name: u for u in discover_units(root)}
    assert sorted(units) == ["npm:@s/b@2.0.0", "npm:a@1.0.0", "npm:ms@2.0.0", "npm:ms@2.1.3"]
    a = units["npm:a@1.0.0"]
    assert a.files == ("index.js",)  # the nested node_modules is a unit of its own
    assert a.requires == ("npm:@s/b@2.0.0", "npm:ms@2.1.3")  # Node's resolution: the nested ms
    assert units["npm:@s/b@2.0.0"].requires == ("npm:ms@2.0.0",)
    assert units["npm:@s/b@2.0.0"].provides == ("@s/b",)
    assert units["npm:ms@2.1.3"].root == str((root / "node_modules/a/node_modules/ms").resolve())
    assert a.languages == ("javascript",)


def test_excluded_files_are_listed_never_silent(tmp_path: Path) -> None:
    folder = write_tree(
        tmp_path / "pkg",
        {
            "package.json": manifest("pkg", "1.0.0", main="test/entry.js"),
            "index.js": "",
            "index.d.ts": "export declare function f(): void;\n",
            "types/more.d.mts": "",
            "lib/x.js": "",
            "lib/x.min.js": "",
            "dist/only.min.js": "",  # no unminified copy: kept
            "lib/x.test.js": "",
            "test/helper.js": "",
            "test/entry.js": "",  # named by main: kept
            "examples/demo.ts": "",
            "eslint.config.mjs": "import config from '@ljharb/eslint-config/flat'\n",
            "lib/karma.conf.js": "",  # not at the top: kept
            "README.md": "",
        },
    )
    files, excluded = package_files(folder, frozenset({"test/entry.js"}))
    assert files == ("dist/only.min.js", "index.js", "lib/karma.conf.js", "lib/x.js", "test/entry.js")
    assert excluded == (
        ("eslint.config.mjs", "tool configuration"),
        ("examples/demo.ts", "examples"),
        ("index.d.ts", "declarations"),
        ("lib/x.min.js", "minified copy"),
        ("lib/x.test.js", "tests"),
        ("test/helper.js", "tests"),
        ("types/more.d.mts", "declarations"),
    )
    root = write_tree(tmp_path / "app", {"package.json": manifest("app", "1.0.0")})
    (root / "node_modules").mkdir()
    os.symlink(folder, root / "node_modules" / "pkg")  # a linked package is read at its target
    (unit,) = discover_units(root)
    assert unit.root == str(folder.resolve())
    assert "test/entry.js" in unit.files and "index.d.ts" in unit.excluded


def test_named_folders(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "vendor/lib", {"main.js": "exports.run = function run() {}\n"})
    (unit,) = discover_units(tmp_path, parse_deps([f"{folder}=npm:lib@0.1.0"], tmp_path))
    assert (unit.name, unit.files, unit.provides) == ("npm:lib@0.1.0", ("main.js",), ("lib",))
    modules = write_tree(
        tmp_path / "elsewhere/node_modules",
        {"q/package.json": manifest("q", "3.0.0"), "q/index.js": ""},
    )
    units = discover_units(tmp_path, parse_deps([f"{modules}=npm"], tmp_path))
    assert [u.name for u in units] == ["npm:q@3.0.0"]
    empty = write_tree(tmp_path / "empty", {"README.md": ""})
    with pytest.raises(DepsError, match="no JavaScript"):
        discover_units(tmp_path, parse_deps([f"{empty}=npm:e@1.0.0"], tmp_path))
    assert discover_units(tmp_path, DepsConfig(auto=False)) == ()


def surface_of(folder: Path, package: str) -> dict[str, tuple[str, ...]]:
    """External key -> the unit keys (or ``-> key`` forwards to another package's keys)."""
    (made,) = [u for u in discover_units(folder) if u.package == package]
    indexed = run_index(made.root, IndexOptions(workers=1, languages=made.languages))
    found = unit_surface(made.root, package, [i for i in indexed.indexes if i.path in made.files])
    forwards = {k: tuple(f"-> {t}" for t in v) for k, v in found.forwards.items()}
    return {k: found.targets.get(k, ()) + forwards.get(k, ()) for k in sorted({*found.targets, *forwards})}


def test_surface_of_a_commonjs_package(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "node_modules/kit/package.json": manifest("kit", "1.0.0", main="lib/index.js"),
            "node_modules/kit/lib/index.js": "module.exports = require('./core')\n",
            "node_modules/kit/lib/core.js": (
                "var Base = require('./base')\n"
                "exports = module.exports = create\n"
                "function create() { return new Klass() }\n"
                "function helper() {}\n"
                "class Klass extends Base { m() {} }\n"
                "exports.helper = helper\n"
                "exports.Klass = Klass\n"
                "exports.json = require('other').json\n"
            ),
            "node_modules/kit/lib/base.js": "module.exports = class Base { b() {} }\n",
        },
    )
    table = surface_of(root, "kit")
    assert table["kit"] == ("lib/index.js", "lib/core.js", "lib/core.js//create")
    assert table["kit//helper"] == ("lib/core.js//helper",)
    assert table["kit//Klass//m"] == ("lib/core.js//Klass//m",)
    assert table["kit//Klass//b"] == ("lib/base.js//Base//b",)  # inherited
    assert table["kit//json"] == ("-> other//json",)  # on into the other package
    # without an exports map every file is a subpath, with and without its extension
    assert table["kit//lib//core//helper"] == table["kit//lib//core.js//helper"] == ("lib/core.js//helper",)
    assert table["kit//lib"] == table["kit"]  # a folder's index
    made = next(u for u in discover_units(root) if u.package == "kit")
    indexed = run_index(made.root, IndexOptions(workers=1))
    externals = unit_surface(made.root, "kit", indexed.indexes).externals
    assert externals["lib/core.js//create"] == "kit"
    assert externals["lib/core.js//Klass//m"] == "kit//Klass//m"
    assert externals["lib/base.js//Base//b"] == "kit//Klass//b"  # the shortest key that stands for it


def test_surface_of_an_exports_map_with_conditions_and_patterns(tmp_path: Path) -> None:
    exports = {
        ".": {"types": "./index.d.ts", "import": "./esm/index.mjs", "require": "./cjs/index.js"},
        "./feature": "./cjs/feature.js",
        "./utils/*": "./cjs/utils/*.js",
        "./package.json": "./package.json",
    }
    root = write_tree(
        tmp_path / "app",
        {
            "node_modules/@s/mod/package.json": manifest("@s/mod", "2.0.0", exports=exports),
            "node_modules/@s/mod/index.d.ts": "export declare function run(): void;\n",
            "node_modules/@s/mod/esm/index.mjs": (
                "export function run() {}\n"
                "export default class Mod { go() {} }\n"
                "export * from './extra.mjs'\n"
            ),
            "node_modules/@s/mod/esm/extra.mjs": "export const extra = () => 1\n",
            "node_modules/@s/mod/cjs/index.js": "exports.run = function run() {}\n",
            "node_modules/@s/mod/cjs/feature.js": "module.exports = function feature() {}\n",
            "node_modules/@s/mod/cjs/utils/fmt.js": "exports.fmt = function fmt() {}\n",
            "node_modules/@s/mod/cjs/internal.js": "exports.hidden = function hidden() {}\n",
        },
    )
    table = surface_of(root, "@s/mod")
    # each condition's file (import, then require), never the declarations
    assert table["@s//mod//run"] == ("esm/index.mjs//run", "cjs/index.js//run")
    assert table["@s//mod"] == ("esm/index.mjs", "esm/index.mjs//Mod", "cjs/index.js")
    assert table["@s//mod//go"] == ("esm/index.mjs//Mod//go",)  # a member of the default export
    assert table["@s//mod//extra"] == ("esm/extra.mjs//extra",)
    assert table["@s//mod//feature"] == ("cjs/feature.js", "cjs/feature.js//feature")
    assert table["@s//mod//utils//fmt//fmt"] == ("cjs/utils/fmt.js//fmt",)
    assert not any("internal" in key or "hidden" in key for key in table)  # not exported by the map


def test_surface_of_an_instance_export(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "node_modules/mime/package.json": manifest("mime", "1.6.0", main="mime.js"),
            "node_modules/mime/mime.js": (
                "function Mime() { this.types = {} }\n"
                "Mime.prototype.lookup = function (path) { return this.types[path] }\n"
                "var mime = new Mime()\n"
                "module.exports = mime\n"
            ),
        },
    )
    table = surface_of(root, "mime")
    assert table["mime//lookup"] == ("mime.js//Mime//lookup",)


def test_commonjs_calls_through_the_module_s_own_exports(tmp_path: Path) -> None:
    # inside a unit (and a project) `exports.x()` / `module.exports.x()` call the module's own x;
    # read as the external keys exports//x and module//exports//x they named no package at all
    root = write_tree(
        tmp_path / "p",
        {
            "lib.js": (
                "exports.helper = function helper() {}\n"
                "module.exports.other = function other() {}\n"
                "exports.run = function run() { exports.helper(); module.exports.other() }\n"
            ),
        },
    )
    graph = build_graph(root, IndexOptions(workers=1)).graph
    callees = {e.callee for e in graph.out_edges.get("lib.js//run", ())}
    assert callees == {"lib.js//helper", "lib.js//other"}
    assert not any(n.key.startswith(("exports", "module")) for n in graph.nodes)


def scoped_app(root: Path) -> Path:
    return write_tree(
        root,
        {
            "package.json": manifest("app", "1.0.0", main="app.js", dependencies={"@s/mod": "1"}),
            "app.js": "const mod = require('@s/mod')\nfunction main() { mod.missing() }\nmain()\n",
            "node_modules/@s/mod/package.json": manifest("@s/mod", "1.0.0", dependencies={"@s/helper": "2"}),
            "node_modules/@s/mod/index.js": (
                "const helper = require('@s/helper')\nexports.run = function run() { return helper.go() }\n"
            ),
            "node_modules/@s/helper/package.json": manifest("@s/helper", "2.0.0"),
            "node_modules/@s/helper/index.js": (
                "exports.go = function go() {}\nexports.deep = function deep() {}\n"
            ),
        },
    )


def test_node_modules_is_never_project_code(tmp_path: Path, git_env: Path) -> None:
    walked = scoped_app(tmp_path / "walked")  # no .gitignore, no git: the walk leaves it out
    assert [f.path for f in run_index(walked, IndexOptions(workers=1, deps=NO_DEPS)).statuses] == ["app.js"]
    committed = scoped_app(tmp_path / "committed")  # a repository that commits its node_modules
    git(committed, "init", "-q")
    git(committed, "add", "-A")
    assert [f.path for f in run_index(committed, IndexOptions(workers=1, deps=NO_DEPS)).statuses] == [
        "app.js"
    ]


def test_a_scoped_package_s_scope_is_its_two_segments(tmp_path: Path) -> None:
    assert keys.package_of("@s//mod//run") == "@s/mod"
    assert keys.package_of("lodash//template") == "lodash"
    graph = build_graph(scoped_app(tmp_path / "app"), IndexOptions(workers=1)).graph
    results = {
        r.target: r
        for r in reach(
            graph, Query(tuple(Target.by_key(k) for k in ("@s//helper//deep", "lodash//x", "@s//*")))
        )
    }
    # mod.missing() is a call into @s/mod at no definition: it can reach what @s/mod's code reaches
    # (@s/helper), not any package
    assert results["@s//helper//deep"].status == "uncertain"
    assert results["lodash//x"].status == "no-such-target"
    assert results["@s//*"].status == "found"


def uses_a_missing_package(root: Path) -> Path:
    return write_tree(
        root,
        {
            "package.json": manifest("app", "1.0.0", main="app.js", dependencies={"kit": "1"}),
            "app.js": "const kit = require('kit')\nkit.build()\n",
            "node_modules/kit/package.json": manifest("kit", "1.0.0", devDependencies={"absent": "1"}),
            "node_modules/kit/index.js": "exports.build = function build() { require('absent').go() }\n",
        },
    )


def test_a_package_missing_from_a_whole_node_modules_cannot_run(tmp_path: Path) -> None:
    # kit's code calls a package that is not installed: the call throws, it reaches nothing
    whole = uses_a_missing_package(tmp_path / "alone" / "app")
    (unit,) = discover_units(whole)
    assert unit.environment == str((whole / "node_modules").resolve())
    graph = build_graph(whole, IndexOptions(workers=1)).graph
    (result,) = reach(graph, Query((Target.by_key("other//thing"),)))
    assert result.status == "no-such-target"
    # a node_modules above the project (a workspace root's hoisted packages) may hold it: unknown
    hoisted = uses_a_missing_package(tmp_path / "workspace" / "packages" / "app")
    (tmp_path / "workspace" / "node_modules").mkdir()
    (unit,) = discover_units(hoisted)
    assert unit.environment == ""
    graph = build_graph(hoisted, IndexOptions(workers=1)).graph
    (result,) = reach(graph, Query((Target.by_key("other//thing"),)))
    assert result.status == "uncertain"
    assert any("absent" in u.reason for u in result.uncertainties)


def test_surface_of_main_and_module(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "node_modules/dual/package.json": manifest(
                "dual", "1.0.0", main="cjs/index.js", module="esm/index.js"
            ),
            "node_modules/dual/cjs/index.js": "exports.run = function run() {}\n",
            "node_modules/dual/esm/index.js": "export function run() {}\n",
        },
    )
    assert surface_of(root, "dual")["dual//run"] == ("esm/index.js//run", "cjs/index.js//run")


def test_a_unit_is_linked_with_its_package_json(tmp_path: Path) -> None:
    # the unit's own name resolves inside it (a package importing itself), and its dependencies
    # are declared (no unresolved site scoped by a name for each call into them)
    root = write_tree(
        tmp_path / "app",
        {
            "package.json": manifest("app", "1.0.0", main="app.js", dependencies={"kit": "1"}),
            "app.js": "require('kit').run()\n",
            "node_modules/kit/package.json": manifest("kit", "1.0.0", dependencies={"dep": "1"}),
            "node_modules/kit/index.js": (
                "const own = require('kit/lib/x')\n"
                "const dep = require('dep')\n"
                "exports.run = function run() { own.go(); dep.work() }\n"
            ),
            "node_modules/kit/lib/x.js": "exports.go = function go() {}\n",
            "node_modules/dep/package.json": manifest("dep", "1.0.0"),
            "node_modules/dep/index.js": "exports.work = function work() {}\n",
        },
    )
    graph = build_graph(root, IndexOptions(workers=1)).graph
    run = "npm:kit@1.0.0//index.js//run"
    assert {(e.callee, e.kind) for e in graph.out_edges.get(run, ())} == {
        ("npm:kit@1.0.0//lib/x.js//go", "direct"),
        ("dep//work", "direct"),
    }
    assert not [u for u in graph.unresolved if u.caller == run]
