"""Rust units: crates of Cargo.lock from vendor/ or a registry, and reach through them.

The discovery tests and the hand-written crate need nothing; the real crate is smallvec from
Debian's ``librust-smallvec-dev`` (/usr/share/cargo/registry/smallvec-*), vendored into a project.
Without it that test skips, except where ``PROJECTGRAPH_REQUIRE_DEPS_SOURCES=1`` (CI sets it, after
``.ci/run`` installs the package) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.languages.rust import units as rust_units
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, ReachResult, Target, reach
from projectgraph.units import DepsError, discover_units, parse_deps

DEBIAN_REGISTRY = Path("/usr/share/cargo/registry")


def _unavailable(reason: str) -> None:
    if os.environ.get("PROJECTGRAPH_REQUIRE_DEPS_SOURCES") == "1":
        pytest.fail(
            f"Debian's dependency sources are required here (PROJECTGRAPH_REQUIRE_DEPS_SOURCES=1): {reason}"
        )
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def _no_machine_crates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No cargo home or Debian registry of the machine leaks into a test."""
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "cargo-home"))
    monkeypatch.setattr(rust_units, "DEBIAN_REGISTRY", tmp_path / "no-debian-registry")


def run(root: Path, *deps: str) -> Graph:
    return build_graph(root, IndexOptions(workers=1, deps=parse_deps(deps))).graph


def answer(graph: Graph, target: str) -> ReachResult:
    return reach(graph, Query(targets=(Target.by_key(target),)))[0]


def hops(result: ReachResult) -> list[tuple[str, str]]:
    return [(hop.key, hop.kind) for hop in result.path]


def lock(*packages: tuple[str, str]) -> str:
    """A Cargo.lock of the app and registry packages."""
    out = ['version = 3\n\n[[package]]\nname = "app"\nversion = "0.1.0"\n']
    for name, version in packages:
        out.append(
            f'\n[[package]]\nname = "{name}"\nversion = "{version}"\n'
            'source = "registry+https://github.com/rust-lang/crates.io-index"\n'
        )
    return "".join(out)


def cargo_toml(name: str, version: str, deps: str = "") -> str:
    return f'[package]\nname = "{name}"\nversion = "{version}"\nedition = "2021"\n\n[dependencies]\n{deps}'


KIT = {
    "vendor/kit/Cargo.toml": cargo_toml("kit", "0.3.1"),
    "vendor/kit/.cargo-checksum.json": '{"files": {}, "package": "0"}',
    "vendor/kit/src/lib.rs": (
        "mod inner;\npub mod tools;\npub use inner::{make, serve, Tool};\n\n"
        "pub trait Job {\n    fn work(&self);\n}\n\nimpl Job for Tool {\n    fn work(&self) {\n"
        "        tools::polish();\n    }\n}\n\npub trait Hook {\n    fn fire(&self);\n}\n"
    ),
    "vendor/kit/src/inner.rs": (
        "pub fn serve() {\n    listen();\n}\n\nfn listen() {}\n\npub struct Tool;\n\n"
        "impl Tool {\n    pub fn run(&self) {\n        crate::tools::sharpen();\n    }\n}\n\n"
        "pub fn make() -> Tool {\n    Tool\n}\n"
    ),
    "vendor/kit/src/tools.rs": "pub fn sharpen() {\n    grind();\n}\n\nfn grind() {}\n\npub fn polish() {}\n",
    "vendor/kit/tests/it.rs": "fn main() {}\n",
    "vendor/kit/build.rs": "fn main() {}\n",
}


# ---- discovery ---------------------------------------------------------------------------------


def test_crates_of_cargo_lock_from_vendor_and_registries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = write_tree(
        tmp_path / "cargo-home/registry/src/index.crates.io-6f17d22bba15001f",
        {
            "itoa-1.0.9/Cargo.toml": cargo_toml("itoa", "1.0.9"),
            "itoa-1.0.9/src/lib.rs": "pub fn fmt() {}\n",
            "itoa-1.0.9/benches/b.rs": "fn main() {}\n",
        },
    )
    debian = write_tree(
        tmp_path / "debian",
        {
            "memchr-2.5.0/Cargo.toml": cargo_toml("memchr", "2.5.0")
            + '\n[lib]\nname = "memchr"\npath = "lib.rs"\n',
            "memchr-2.5.0/lib.rs": "pub fn memchr() {}\n",
            "memchr-2.5.0/src/bin/tool.rs": "fn main() {}\n",
        },
    )
    monkeypatch.setattr(rust_units, "DEBIAN_REGISTRY", debian)
    root = write_tree(
        tmp_path / "app",
        {
            "Cargo.toml": cargo_toml(
                "app", "0.1.0", 'helper = { package = "kit", version = "0.3" }\nitoa = "1"\nmemchr = "2"\n'
            ),
            "Cargo.lock": lock(("kit", "0.3.1"), ("itoa", "1.0.9"), ("memchr", "2.5.0"), ("absent", "1.0.0")),
            "src/main.rs": "fn main() {}\n",
            **KIT,
        },
    )
    units = {u.name: u for u in discover_units(root)}
    assert sorted(units) == ["cargo:itoa@1.0.9", "cargo:kit@0.3.1", "cargo:memchr@2.5.0"]
    kit = units["cargo:kit@0.3.1"]
    assert kit.files == ("src/inner.rs", "src/lib.rs", "src/tools.rs")  # the lib target only
    assert kit.provides == ("helper", "kit")  # the name the project's Cargo.toml gives it, too
    assert (kit.ecosystem, kit.package, kit.version, kit.languages) == ("cargo", "kit", "0.3.1", ("rust",))
    assert units["cargo:itoa@1.0.9"].root == str((registry / "itoa-1.0.9").resolve())
    assert units["cargo:itoa@1.0.9"].files == ("src/lib.rs",)
    assert units["cargo:memchr@2.5.0"].files == ("lib.rs",)  # [lib] path, no binary
    assert discover_units(root, parse_deps(["none"])) == ()


def test_a_cargo_config_source_directory_and_named_crates(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "app",
        {
            "Cargo.toml": cargo_toml("app", "0.1.0", 'kit = "0.3"\n'),
            "Cargo.lock": lock(("kit", "0.3.1")),
            ".cargo/config.toml": '[source.crates-io]\nreplace-with = "vendored"\n\n'
            '[source.vendored]\ndirectory = "third_party/crates"\n',
            "src/main.rs": "fn main() {}\n",
            **{k.replace("vendor/kit/", "third_party/crates/kit-0.3.1/"): v for k, v in KIT.items()},
        },
    )
    (unit,) = discover_units(root)
    assert unit.name == "cargo:kit@0.3.1" and unit.root.endswith("third_party/crates/kit-0.3.1")
    (named,) = discover_units(root, parse_deps([f"{root}/third_party/crates/kit-0.3.1=cargo:kit@0.3.1"]))
    assert named.name == "cargo:kit@0.3.1"
    (tmp_path / "empty").mkdir()
    with pytest.raises(DepsError, match="no lib crate"):
        discover_units(root, parse_deps([f"{tmp_path / 'empty'}=cargo:kit@0.3.1"]))


# ---- reach -------------------------------------------------------------------------------------

APP = {
    "Cargo.toml": cargo_toml("app", "0.1.0", 'helper = { package = "kit", version = "0.3" }\nrand = "0.8"\n'),
    "Cargo.lock": lock(("kit", "0.3.1"), ("rand", "0.8.5")),
    "src/main.rs": (
        "fn main() {\n    helper::serve();\n    let t = helper::make();\n    t.run();\n"
        "    let _x: u32 = rand::random();\n}\n\nfn call(job: &dyn helper::Job) {\n    job.work();\n}\n"
        "\nfn trigger(hook: &dyn helper::Hook) {\n    hook.fire();\n}\n"
    ),
    **KIT,
}


def test_reach_through_a_renamed_vendored_crate(tmp_path: Path) -> None:
    graph = run(write_tree(tmp_path / "app", APP))
    unit = "cargo:kit@0.3.1"
    assert not [f.path for f in graph.files if f.path.startswith("vendor/")]  # vendor/ is the unit's
    nodes = {n.key: n for n in graph.nodes}
    # the shortest public path: inner is private, the root gives its items on with pub use
    assert nodes[f"{unit}//src/inner.rs//serve"].external == "kit//serve"
    assert nodes[f"{unit}//src/inner.rs//Tool//run"].external == "kit//Tool//run"
    assert nodes[f"{unit}//src/tools.rs//sharpen"].external == "kit//tools//sharpen"
    assert not nodes[f"{unit}//src/inner.rs//listen"].external  # private: no crate can write it
    edges = {(e.caller, e.callee, e.kind) for e in graph.edges}
    # the written name stays, the package edge goes on to the unit's key and its definition
    assert ("src/main.rs//main", "helper//serve", "direct") in edges
    assert ("helper//serve", "kit//serve", "package") in edges
    assert ("kit//serve", f"{unit}//src/inner.rs//serve", "package") in edges
    # the return type of make() comes from the unit: t.run() is Tool's method
    assert ("src/main.rs//main", "kit//Tool//run", "member") in edges
    found = answer(graph, "kit//tools//sharpen")
    assert found.status == "found"
    assert ("kit//Tool//run", "member") in hops(found)
    assert (f"{unit}//src/inner.rs//Tool//run", "package") in hops(found)
    assert answer(graph, "kit//serve").status == "found"
    # a trait object of the unit's trait: cha edges to the impls its crate gives, at their keys
    assert ("src/main.rs//call", "helper//Job//work", "member") in edges
    assert ("src/main.rs//call", "kit//Tool//work", "cha") in edges
    assert ("kit//Tool//work", f"{unit}//src/lib.rs//Tool//work", "package") in edges
    # with no impl and no body, the site is a trait-receiver record
    assert [u.reason for u in graph.unresolved if u.caller == "src/main.rs//trigger"] == ["trait-receiver"]
    # rand has no source on this machine: a target inside it is uncertain, never not-found
    inside = answer(graph, "rand//rngs//thread//ThreadRng//next_u32")
    assert inside.status == "uncertain"
    assert any("no-dependency-source" in u.reason for u in inside.uncertainties)


def test_reach_through_vendored_smallvec(tmp_path: Path) -> None:
    sources = sorted(DEBIAN_REGISTRY.glob("smallvec-1.*"))
    if not sources:
        _unavailable("no smallvec sources (Debian's librust-smallvec-dev)")
    source = sources[-1]
    version = source.name.removeprefix("smallvec-")
    root = tmp_path / "app"
    shutil.copytree(source, root / "vendor" / "smallvec")
    write_tree(
        root,
        {
            "Cargo.toml": cargo_toml("app", "0.1.0", f'smallvec = "{version}"\n'),
            "Cargo.lock": lock(("smallvec", version)),
            "src/main.rs": (
                "use smallvec::SmallVec;\n\nfn main() {\n"
                "    let mut v: SmallVec<[u8; 4]> = SmallVec::new();\n    v.push(1);\n"
                "    let w = SmallVec::<[u8; 4]>::from_vec(vec![1, 2]);\n    w.len();\n}\n"
            ),
        },
    )
    graph = run(root)
    unit = f"cargo:smallvec@{version}"
    assert unit in graph.stats["units"]
    nodes = {n.key: n for n in graph.nodes}
    assert nodes[f"{unit}//src/lib.rs//SmallVec"].external == "smallvec//SmallVec"
    edges = {(e.caller, e.callee, e.kind) for e in graph.edges}
    assert ("src/main.rs//main", "smallvec//SmallVec//push", "member") in edges
    # from_vec's return type is read from the unit (no naming rule gives it)
    assert ("src/main.rs//main", "smallvec//SmallVec//len", "member") in edges
    found = answer(graph, "smallvec//SmallVec//try_grow")  # only push's own code reaches it
    assert found.status == "found"
    assert hops(found)[:3] == [
        ("src/main.rs//main", "main"),
        ("smallvec//SmallVec//push", "member"),
        (f"{unit}//src/lib.rs//SmallVec//push", "package"),
    ]


def test_a_git_dependency_from_cargos_checkout(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "cargo-home/git/checkouts/tools-1a2b3c4d5e6f7a8b/0123abc",
        {
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
            "crates/gadget/Cargo.toml": cargo_toml("gadget", "0.2.0"),
            "crates/gadget/src/lib.rs": "pub fn spin() {}\n",
        },
    )
    root = write_tree(
        tmp_path / "app",
        {
            "Cargo.toml": cargo_toml("app", "0.1.0", 'gadget = { git = "https://example.invalid/tools" }\n'),
            "Cargo.lock": 'version = 3\n\n[[package]]\nname = "gadget"\nversion = "0.2.0"\n'
            'source = "git+https://example.invalid/tools#0123abc"\n',
            "src/main.rs": "fn main() {\n    gadget::spin();\n}\n",
        },
    )
    (unit,) = discover_units(root)
    assert unit.name == "cargo:gadget@0.2.0" and unit.root.endswith("0123abc/crates/gadget")
    graph = run(root)
    assert ("gadget//spin", f"{unit.name}//src/lib.rs//spin") in {
        (e.caller, e.callee) for e in graph.edges if e.kind == "package"
    }
