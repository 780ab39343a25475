"""Rust: the extractor's records on real parses, and what the fixture projects' graphs show of Rust.

The fixtures of ``tests/fixtures/rust/`` (small Cargo packages) are checked against their gold by
``test_fixtures.py``, as every language's are (a macro invocation is a call of the macro,
``std//println`` or a ``macro_rules!`` definition, and a ``macro_rules!`` body calls what its
tokens call); this module tests what is Rust's own: edge kinds, trait dispatch, external keys.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import fixture_cases as fc
from fixture_cases import index_source
from projectgraph.fileindex import FileIndex
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions
from projectgraph.languages import all_languages
from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach

FIXTURES = Path(__file__).parent / "fixtures" / "rust"


def fixture_graph(folder: Path) -> Graph:
    return build_graph(folder, IndexOptions(workers=1)).graph


def case_graph(case: str) -> Graph:
    return fc.case_run(FIXTURES / case).graph


def _edge(graph: Graph, caller: str, callee: str) -> Any:
    found = [e for e in graph.edges if e.caller == caller and e.callee == callee and e.relation == "calls"]
    assert found, f"no call edge {caller} -> {callee}"
    return found[0]


def test_seed_associated_function_binds_its_return_type() -> None:
    """``let b = Buffer::from_vec(v); b.len()``: the seed's example, a member edge (high)."""
    graph = case_graph("result_types")
    assert _edge(graph, "src/lib.rs//build", "src/buffer.rs//Buffer//from_vec").kind == "member"
    edge = _edge(graph, "src/lib.rs//build", "src/buffer.rs//Buffer//len")
    assert (edge.kind, edge.confidence) == ("member", "high")
    # unwrap, expect and ? give the T of Option/Result; a chain takes each result in turn
    assert _edge(graph, "src/lib.rs//chained", "src/buffer.rs//Token//size").kind == "member"


def test_seed_trait_receivers_are_cha_edges() -> None:
    graph = case_graph("trait_dispatch")
    for caller in ("run_one", "run_generic", "run_impl"):
        for impl in ("Echo", "Upper"):
            edge = _edge(graph, f"src/lib.rs//{caller}", f"src/plugins.rs//{impl}//run")
            assert (edge.kind, edge.confidence) == ("cha", "medium")
    # a Box<dyn Plugin> a function returns holds what its body ends in (Box::new(Echo)): no cha
    assert _edge(graph, "src/lib.rs//through_box", "src/plugins.rs//Echo//run").kind == "member"
    upper = "src/plugins.rs//Upper//run"
    assert not any(e.caller == "src/lib.rs//through_box" and e.callee == upper for e in graph.edges)
    # a default method: member to it, cha to the override
    assert _edge(graph, "src/lib.rs//run_where", "src/plugins.rs//Plugin//name").kind == "member"
    assert _edge(graph, "src/lib.rs//run_where", "src/plugins.rs//Upper//name").kind == "cha"
    # a trait of a dependency: its key and the project's impl
    assert _edge(graph, "src/lib.rs//emit", "std//io//Write//flush").kind == "member"
    assert _edge(graph, "src/lib.rs//emit", "src/plugins.rs//Counter//flush").kind == "cha"
    # no impl and no default: a trait-receiver site that keeps the method name
    sites = [u for u in graph.unresolved if u.reason == "trait-receiver"]
    assert [(u.caller, u.name) for u in sites] == [("src/lib.rs//to_sink", "write_line")]
    # an impl is an implements edge, and the type refers to its trait methods (override)
    relations = {(e.caller, e.callee, e.relation) for e in graph.edges}
    assert ("src/plugins.rs//Echo", "src/plugins.rs//Plugin", "implements") in relations
    assert ("src/plugins.rs//Counter", "std//io//Write", "implements") in relations
    assert ("src/plugins.rs//Counter", "src/plugins.rs//Counter//flush", "references") in relations


def test_seed_renamed_crate_keeps_the_written_name() -> None:
    graph = case_graph("cargo_deps")
    node = graph.node_by_key["helper//serve"]
    assert node.kind == "external" and node.external == "helper//serve"
    assert "kit//serve" in node.doc and "crate kit" in node.doc
    assert "kit//serve" not in graph.node_by_key


def test_modules_resolve_through_reexports() -> None:
    graph = case_graph("modules_uses")
    # `pub use catalog::item::Item as Product` then Product::new
    assert _edge(graph, "src/lib.rs//run", "src/catalog/item.rs//Item//new").kind == "member"
    # a glob import of a module with a re-export
    assert _edge(graph, "src/pricing.rs//total", "src/catalog/mod.rs//list").kind == "direct"
    imports = {(e.caller, e.callee) for e in graph.edges if e.relation == "imports"}
    assert ("src/lib.rs", "src/catalog/mod.rs") in imports
    assert ("src/pricing.rs", "src/pricing/rules.rs") in imports


def test_public_items_have_their_shortest_public_path() -> None:
    """The key another crate writes: an item of a private module that the root gives on with
    ``pub use`` gets the shortest path (``shop//Product``, not ``shop//catalog//item//Item``)."""
    graph = case_graph("modules_uses")
    external = {n.key: n.external for n in graph.nodes if n.external and n.kind != "external"}
    assert external == {
        "src/catalog/item.rs//Item": "shop//Product",
        "src/catalog/item.rs//Item//new": "shop//Product//new",
        "src/catalog/item.rs//Item//price": "shop//Product//price",
        "src/catalog/mod.rs//list": "shop//catalog//list",
        "src/lib.rs//run": "shop//run",
        "src/lib.rs//util//deep//depth": "shop//util//deep//depth",
        "src/lib.rs//util//slug": "shop//util//slug",
        "src/pricing.rs//total": "shop//total",
    }
    # a target by that key matches the definition
    results = reach(graph, Query(targets=(Target.by_key("shop//Product//new"),)))
    assert results[0].status == "found"


# ---- the extractor -------------------------------------------------------------------------------
SOURCE = """\
use std::collections::{HashMap, self as coll};
use crate::shapes::{Shape, Circle as C};
pub use self::model::*;
mod model;
#[path = "other.rs"] pub mod other;

/// A wheel.
#[derive(Clone, Debug)]
pub struct Wheel<T: Shape> { inner: Box<dyn Shape>, spare: Option<Vec<u8>>, hub: Rc<Hub>, t: T }

pub trait Roll: Shape + Send {
    fn roll(&self) -> f64;
    fn twice(&self) -> f64 { self.roll() * 2.0 }
}

impl<T: Shape> Wheel<T> {
    pub fn from_vec(v: Vec<f64>) -> Option<Self> { None }
    pub(crate) fn hub(&mut self) -> &mut Hub { &mut self.hub }
    fn each<F>(&self, f: F) -> std::io::Result<Arc<Hub>> where F: Fn(u8) + Clone { todo!() }
}

impl<T: Shape> Roll for Wheel<T> {
    fn roll(&self) -> f64 { helper(self.t.area()) }
}

#[tokio::main]
async fn main() {
    let w = Wheel::from_vec(vec![1.0]).unwrap();
    let typed: Wheel<C> = make();
    if let Some(x) = maybe()? { x.roll(); }
    println!("{} {}", w.roll(), compute(1));
}
"""


@cache
def sample() -> FileIndex:
    return index_source("rust", SOURCE, "src/lib.rs")


def _definition(qualname: str) -> Any:
    return next(d for d in sample().definitions if d.qualname == qualname)


def test_extract_use_trees_and_mods() -> None:
    imports = {(i.module, i.name, i.alias, i.star, i.kind) for i in sample().imports}
    assert ("std::collections", "HashMap", None, False, "use") in imports
    assert ("std", "collections", "coll", False, "use") in imports  # `self as coll` in a group
    assert ("crate::shapes", "Circle", "C", False, "use") in imports
    assert ("self::model", None, None, True, "use") in imports
    assert ("", "model", None, False, "mod") in imports
    assert ("other.rs", "other", None, False, "mod") in imports  # #[path]
    exports = {(e.name, e.module, e.star) for e in sample().exports}
    assert exports == {("*", "self::model", True), ("other", None, False)}


def test_extract_items_types_and_returns() -> None:
    wheel = _definition("Wheel")
    assert (wheel.kind, wheel.doc, wheel.decorators) == (
        "struct",
        "A wheel.",
        ("derive(Clone)", "derive(Debug)"),
    )
    roll = _definition("Roll")
    assert (roll.kind, roll.bases) == ("trait", ("Shape",))
    assert _definition("Roll.roll").decorators == ("abstract",)
    assert _definition("Roll.twice").decorators == ()
    from_vec = _definition("Wheel.from_vec")
    assert (from_vec.kind, from_vec.returns, from_vec.bases) == (
        "method",
        ("Wheel", "wraps:Option"),
        ("Wheel",),
    )
    hub = _definition("Wheel.hub")
    assert (hub.returns, hub.exported) == (("Hub",), False)  # &mut dropped; pub(crate) is not public
    each = _definition("Wheel.each")
    assert each.returns == ("Hub", "wraps:Result")  # io::Result<Arc<Hub>>
    assert [(p.name, p.type) for p in each.params] == [("self", "Wheel"), ("f", "Clone")]  # Fn dropped
    impl_roll = _definition("Wheel.roll")
    assert (impl_roll.bases, impl_roll.exported) == (("Wheel", "Roll"), True)
    main = _definition("main")
    assert (main.decorators, main.is_async) == (("tokio::main",), True)


def test_extract_fields_lets_and_impls() -> None:
    facts = {(a.scope, a.target, a.value) for a in sample().assignments}
    assert ("Wheel", "self.inner", "type:Shape") in facts  # Box<dyn Shape>
    assert ("Wheel", "self.spare", "type:Option<Vec>") in facts
    assert ("Wheel", "self.hub", "type:Hub") in facts  # Rc dropped
    assert ("Wheel", "self.t", "type:Shape") in facts  # T: Shape
    assert ("", "Wheel", "impl:Roll") in facts
    assert ("main", "w", "name:Wheel::from_vec().unwrap()") in facts
    assert ("main", "typed", "type:Wheel") in facts
    assert ("main", "x", "name:maybe()??") in facts  # `?` then the Some pattern


def test_extract_calls_and_macro_tokens() -> None:
    calls = {(c.scope, c.callee, c.receiver) for c in sample().calls}
    assert ("Wheel.roll", "helper", None) in calls
    assert ("Wheel.roll", "self.t.area", "self.t") in calls
    assert ("main", "Wheel::from_vec().unwrap", "Wheel::from_vec()") in calls
    assert ("main", "println!", None) in calls
    assert ("main", "w.roll", "w") in calls  # read from the macro's tokens
    assert ("main", "compute", None) in calls
    assert ("Roll.twice", "self.roll", "self") in calls


def test_language_spec_is_deep() -> None:
    spec = all_languages()["rust"]
    assert spec.tier == "deep" and spec.extensions == (".rs",)
    assert {"cha", "member", "direct"} <= set(spec.edge_kinds)


ITEM_MACROS = """\
cfg_rt! {
    mod worker;
    pub use worker::spawn;
    pub fn run() {
        helper();
    }
}
impl Pool {
    cfg_metrics! { pub fn count(&self) -> usize { self.len() } }
}
fn start() {
    traced! { #[cfg(feature = "trace")] emit(level(1)) }
}
"""


def test_extract_items_inside_item_macros() -> None:
    """An item-position macro's braces are read as items (tokio's cfg_* macros); an attribute's
    tokens inside a macro are no calls."""
    index = index_source("rust", ITEM_MACROS, "src/lib.rs")
    assert ("", "worker", "mod") in {(i.module, i.name, i.kind) for i in index.imports}
    assert ("worker", "spawn", "use") in {(i.module, i.name, i.kind) for i in index.imports}
    definitions = {d.qualname: d for d in index.definitions}
    assert (definitions["run"].line, definitions["run"].end_line) == (4, 6)
    assert (definitions["Pool.count"].kind, definitions["Pool.count"].bases) == ("method", ("Pool",))
    calls = {(c.scope, c.callee, c.line) for c in index.calls}
    assert {("", "cfg_rt!", 1), ("run", "helper", 5), ("Pool.count", "self.len", 9)} <= calls
    assert {("start", "emit", 12), ("start", "level", 12)} <= calls
    assert not [c for c in index.calls if c.name in ("cfg", "feature")]


def test_edition_2015_use_paths_start_at_the_crate_root(tmp_path: Path) -> None:
    """A Cargo.toml without ``edition`` is Rust 2015: ``use de::Visitor`` in a submodule names
    ``crate::de::Visitor`` (serde's style)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "old"\nversion = "0.1.0"\n', encoding="utf-8")
    (tmp_path / "src" / "lib.rs").write_text("mod de;\nmod private;\n", encoding="utf-8")
    (tmp_path / "src" / "de.rs").write_text(
        "pub trait Visitor { fn visit(&self); }\npub struct V;\nimpl Visitor for V { fn visit(&self) {} }\n",
        encoding="utf-8",
    )
    (tmp_path / "src" / "private.rs").write_text(
        "use de::Visitor;\npub fn go(v: &dyn Visitor) { v.visit(); }\n", encoding="utf-8"
    )
    graph = fixture_graph(tmp_path)
    assert _edge(graph, "src/private.rs//go", "src/de.rs//V//visit").kind == "cha"
    assert not graph.unresolved


def test_closures_are_nodes_named_by_position() -> None:
    index = index_source(
        "rust",
        """pub struct Job;
impl Job {
    fn step(&self) {}
    pub fn run(&self) {
        let go = || self.step();
        go();
        apply(|x: i32| leaf(x));
        let outer = move |n| { let inner = || leaf(n); inner() };
        outer(1);
        (|| leaf(0))();
    }
}
fn leaf(x: i32) {}
fn apply(f: impl Fn(i32)) { f(1) }
fn make() -> impl Fn() { || leaf(2) }
""",
        "src/lib.rs",
    )
    kinds = {d.qualname: (d.kind, d.exported) for d in index.definitions}
    closures = {"Job.run$1", "Job.run$2", "Job.run$3", "Job.run$3$1", "Job.run$4", "make$1"}
    assert closures <= set(kinds) and all(kinds[q] == ("function", False) for q in closures)
    scopes = {(c.callee, c.scope) for c in index.calls}
    assert {("self.step", "Job.run$1"), ("leaf", "Job.run$3$1"), ("inner", "Job.run$3")} <= scopes
    assert ("closure:Job.run$4", "Job.run") in scopes  # called where it is written
    bindings = {(a.scope, a.target, a.value) for a in index.assignments}
    assert ("Job.run", "go", "closure:Job.run$1") in bindings
    assert ("Job.run$2", "x", "type:i32") in bindings  # a closure's parameter is its own
    assert ("make", "return", "closure:make$1") in bindings
    assert ("Job.run", "closure:Job.run$2") in {(r.scope, r.name) for r in index.references}
