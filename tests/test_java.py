"""Java: the extractor's records on real parses, and what the fixture projects' graphs show of Java.

The fixtures of ``tests/fixtures/java/`` (small Maven-layout projects) are checked against their
gold by ``test_fixtures.py``, as every language's are (a constructor call is an edge to the class
and one to its ``<init>``; calls in a lambda or an anonymous class belong to the enclosing
method); this module tests what is Java's own: edge kinds, overriding, external keys.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import fixture_cases as fc
from fixture_cases import index_source
from projectgraph.fileindex import FileIndex
from projectgraph.graph import Graph
from projectgraph.languages import all_languages

FIXTURES = fc.FIXTURES / "java"
_ZOO = "src/main/java/zoo/"
_SHAPES = "src/main/java/com/acme/shapes/"


def case_graph(case: str) -> Graph:
    return fc.case_run(FIXTURES / case).graph


def _edge(graph: Graph, caller: str, callee: str) -> Any:
    found = [e for e in graph.edges if e.caller == caller and e.callee == callee and e.relation == "calls"]
    assert found, f"no call edge {caller} -> {callee}"
    return found[0]


def test_interface_calls_reach_implementations() -> None:
    graph = case_graph("interface_dispatch")
    main = _SHAPES + "Main.java//Main//main"
    for impl in ("Circle", "Square"):
        edge = _edge(graph, main, f"{_SHAPES}{impl}.java//{impl}//area")
        assert (edge.kind, edge.confidence) == ("cha", "medium")
    # an abstract method with implementations has no edge of its own
    assert not [e for e in graph.edges if e.callee == _SHAPES + "Shape.java//Shape//area"]
    # a default method: member edge, and cha to the override
    assert _edge(graph, main, _SHAPES + "Shape.java//Shape//describe").kind == "member"
    assert _edge(graph, main, _SHAPES + "Square.java//Square//describe").kind == "cha"
    # a template method reaches the subclass's implementation of the abstract step
    assert (
        _edge(graph, _SHAPES + "Polygon.java//Polygon//summary", _SHAPES + "Square.java//Square//sides").kind
        == "cha"
    )
    sites = [(u.name, u.reason) for u in graph.unresolved]
    assert sites == [("render", "interface-receiver")]
    relations = {(e.caller, e.callee, e.relation) for e in graph.edges}
    assert (_SHAPES + "Circle.java//Circle", _SHAPES + "Shape.java//Shape", "implements") in relations
    assert (_SHAPES + "Square.java//Square", _SHAPES + "Polygon.java//Polygon", "extends") in relations
    # a class refers to its overrides (the rule override), so constructing it reaches them
    override = [e for e in graph.edges if e.via == "override" and e.caller == _SHAPES + "Square.java//Square"]
    assert {e.callee.rsplit("//", 1)[1] for e in override} == {"area", "sides", "describe"}


def test_overriding_and_constructors() -> None:
    graph = case_graph("inheritance")
    main = _ZOO + "Zoo.java//Zoo//main"
    assert _edge(graph, main, _ZOO + "Animal.java//Animal//speak").kind == "member"
    # `Animal a = new Dog(); a.speak()`: the Dog's method; `new Animal("cat").speak()` runs
    # Animal's only (the object is an Animal, no subclass): no override of it gets an edge
    assert _edge(graph, main, _ZOO + "Dog.java//Dog//speak").kind == "member"
    assert not any(e.caller == main and e.callee.endswith("Puppy//speak") for e in graph.edges)
    assert _edge(graph, main, _ZOO + "Dog.java//Dog//<init>").kind == "direct"
    # super.speak() goes to the base: the mark on its line in Dog.java (test_fixtures.py reads it)
    # a class without super(..) runs its superclass's initialization
    assert _edge(graph, _ZOO + "Puppy.java//Puppy", _ZOO + "Dog.java//Dog//<init>").kind == "direct"


def test_external_keys() -> None:
    graph = case_graph("packages_imports")
    main = "src/main/java/com/acme/app/App.java//App//main"
    assert _edge(graph, main, "java//lang//Thread//sleep").kind == "direct"
    assert _edge(graph, main, "java//io//PrintStream//println").kind == "member"
    assert _edge(graph, main, "java//util//Map//put").kind == "member"
    assert _edge(graph, main, "java//util//Objects//requireNonNull").kind == "direct"


# ---- the extractor -------------------------------------------------------------------------------
SOURCE = """\
package com.acme.shop;

import java.util.List;
import java.util.*;
import static org.junit.Assert.assertEquals;
import static java.lang.Math.*;

/** The shop. */
@RestController
public class Shop<T extends Item> extends Base implements Runnable, Comparable<Shop> {
    private final List<T> items = new ArrayList<>();
    static { init(); }
    public Shop(int x) { super(x); }
    @GetMapping("/x")
    public static void main(String[] args) throws Exception {
        var s = new Shop<Item>(1);
        s.open().close();
        System.out.println("h");
        new Thread(new Runnable() { public void run() { work(); } }).start();
        for (Item i : s.items) i.price();
        try (var in = Files.newInputStream(p)) { in.read(); }
        s.items.forEach(Item::price);
        if (o instanceof Cart c) c.total();
        I.super.m();
        super.run();
    }
    public Shop open() { return this; }
    abstract static class Inner implements I { abstract void go(); }
    interface I { default void m() { n(); } void n(); }
    enum Color { RED, GREEN }
    record Point(int x, Cart c) {}
}
"""


@cache
def sample() -> FileIndex:
    return index_source("java", SOURCE, "Shop.java")


def _definition(qualname: str) -> Any:
    return next(d for d in sample().definitions if d.qualname == qualname)


def test_extract_imports() -> None:
    imports = {(i.module, i.name, i.star, i.kind) for i in sample().imports}
    assert imports == {
        ("com.acme.shop", None, False, "package"),
        ("java.util", "List", False, "import"),
        ("java.util", None, True, "import"),
        ("org.junit.Assert", "assertEquals", False, "static"),
        ("java.lang.Math", None, True, "static"),
    }


def test_extract_types_and_members() -> None:
    shop = _definition("Shop")
    assert (shop.kind, shop.doc, shop.decorators) == ("class", "The shop.", ("RestController",))
    assert shop.bases == ("Base", "implements:Runnable", "implements:Comparable")
    main = _definition("Shop.main")
    assert main.decorators == ("GetMapping", "static", "static main")
    assert _definition("Shop.<init>").kind == "constructor"
    assert _definition("Shop.open").returns == ("Shop",)
    assert _definition("Shop.Inner").decorators == ("abstract", "static")
    assert _definition("Shop.Inner.go").decorators == ("abstract",)
    assert _definition("Shop.I.n").decorators == ("abstract",)
    assert _definition("Shop.I.m").decorators == ()
    assert _definition("Shop.I.n").exported  # an interface member is public
    assert _definition("Shop.Point").kind == "record"
    assert "Shop.main.run" not in {d.qualname for d in sample().definitions}  # anonymous class body


def test_extract_calls_and_types() -> None:
    calls = {(c.scope, c.callee, c.receiver, c.new, c.super_call) for c in sample().calls}
    assert ("Shop", "init", None, False, False) in calls  # a static initializer is the class's
    assert ("Shop", "ArrayList", None, True, False) in calls  # so is a field initializer
    assert ("Shop.<init>", "super", None, False, True) in calls
    assert ("Shop.main", "s.open().close", "s.open()", False, False) in calls
    assert ("Shop.main", "System.out.println", "System.out", False, False) in calls
    assert ("Shop.main", "(Thread).start", "(Thread)", False, False) in calls
    assert ("Shop.main", "work", None, False, False) in calls  # in the anonymous class
    assert ("Shop.main", "I.super.m", "I.super", False, True) in calls
    assert ("Shop.main", "super.run", "super", False, True) in calls
    facts = {(a.scope, a.target, a.value) for a in sample().assignments}
    assert ("Shop", "this.items", "type:List") in facts
    assert ("Shop.main", "s", "type:Shop") in facts  # var s = new Shop<Item>(1)
    assert ("Shop.main", "i", "type:Item") in facts
    assert ("Shop.main", "in", "name:Files.newInputStream()") in facts
    assert ("Shop.main", "c", "type:Cart") in facts
    assert ("Shop.Color", "this.RED", "type:Color") in facts
    assert ("Shop.Point", "this.c", "type:Cart") in facts
    assert [r.name for r in sample().references] == ["Item::price"]


def test_language_spec_is_deep() -> None:
    spec = all_languages()["java"]
    assert spec.tier == "deep" and spec.extensions == (".java",)
    assert {"cha", "member", "direct"} <= set(spec.edge_kinds)


def test_public_members_have_their_external_key() -> None:
    graph = case_graph("packages_imports")
    node = graph.node_by_key["src/main/java/com/acme/util/Strings.java//Strings//Builder//add"]
    assert node.external == "com//acme//util//Strings//Builder//add"
    # a package-private class is no public API
    assert graph.node_by_key["src/main/java/com/acme/app/Helper.java//Helper"].external == ""


def test_lambdas_are_nodes_named_by_position() -> None:
    index = index_source(
        "java",
        """package a;
import java.util.function.Supplier;
public class Main {
    void work() {}
    static void leaf(int x) {}
    void run() {
        Runnable r = () -> work();
        Runnable m = this::work;
        apply((Integer y) -> { Runnable inner = () -> leaf(y); inner.run(); });
        Shape s = new Circle();
    }
    static Supplier<String> maker() { return () -> "n"; }
}
""",
        "src/main/java/a/Main.java",
    )
    kinds = {d.qualname: (d.kind, d.exported) for d in index.definitions}
    lambdas = {"Main.run$1", "Main.run$2", "Main.run$2$1", "Main.maker$1"}
    assert lambdas <= set(kinds) and all(kinds[q] == ("function", False) for q in lambdas)
    scopes = {(c.callee, c.scope) for c in index.calls}
    assert {("work", "Main.run$1"), ("leaf", "Main.run$2$1"), ("inner.run", "Main.run$2")} <= scopes
    bindings = {(a.scope, a.target, a.value) for a in index.assignments}
    assert {
        ("Main.run", "r", "holds:lambda:Main.run$1"),
        ("Main.run", "r", "type:Runnable"),
        ("Main.run", "m", "holds:ref:this::work"),
        ("Main.run", "s", "holds:type:Circle"),
        ("Main.run$2", "y", "type:Integer"),  # a lambda's parameter is its own
        ("Main.maker", "return", "lambda:Main.maker$1"),
    } <= bindings
    assert ("Main.run", "lambda:Main.run$1") in {(r.scope, r.name) for r in index.references}
