"""Go in depth: build constraints, module paths, the seed's examples, skeletons.

The fixtures of ``tests/fixtures/go/`` (small Go modules) are checked against their gold by
``test_fixtures.py``, as every language's are; this module tests what is Go's own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from projectgraph.fileindex import FileIndex
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.languages import language
from projectgraph.languages.base import parser
from projectgraph.languages.go import NO_BODY, constraints
from projectgraph.languages.go.extract import skeleton
from projectgraph.link import LinkOptions, build
from projectgraph.pipeline import build_graph

FIXTURES = Path(__file__).parent / "fixtures" / "go"
Pair = tuple[str, str]


def call_edges(graph: Graph) -> set[Pair]:
    return {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}


def index_of(source: str, path: str = "a.go") -> FileIndex:
    data = source.encode()
    spec = language("go")
    return spec.extract_function()(parser("go").parse(data), data, path, "hash")


# ---- the fixtures -------------------------------------------------------------------------------


def test_every_fixture_is_a_module() -> None:
    cases = [p for p in sorted(FIXTURES.iterdir()) if (p / "expected.json").is_file()]
    assert len(cases) >= 6
    for folder in cases:
        assert any(folder.glob("**/go.mod")) or folder.name == "gopath_layout", folder.name


def test_build_constraints_flag_the_files_no_default_build_reads() -> None:
    statuses = run_index(FIXTURES / "build_constraints", IndexOptions(workers=1)).statuses
    excluded = {s.path for s in statuses if "build-excluded" in s.flags}
    assert excluded == {"sum/block_purego.go", "sum/gen.go", "sum/legacy.go"}


@pytest.mark.parametrize(
    ("header", "excluded"),
    [
        ("//go:build ignore\n", True),
        ("//go:build purego\n", True),
        ("//go:build !purego\n", False),
        ("//go:build linux && amd64\n", False),
        ("//go:build windows || (darwin && arm64)\n", False),
        ("//go:build go1.21 && cgo\n", False),
        ("//go:build goexperiment.boringcrypto\n", False),
        ("//go:build amd64 && purego\n", True),
        ("//go:build !linux\n", False),
        ("//go:build linux && !linux\n", True),
        ("//go:build integration\n", True),
        ("// +build ignore\n", True),
        ("// +build linux,amd64 darwin\n", False),
        ("// +build linux\n// +build purego\n", True),
        ("// Copyright\n\n//go:build race\n", False),
        ("//go:build (\n", False),  # a constraint the go command rejects: kept, nothing said
        ("", False),
    ],
)
def test_constraint_expressions(header: str, excluded: bool) -> None:
    assert constraints.excluded(header.encode()) is excluded


def test_a_constraint_after_the_package_clause_does_not_count() -> None:
    index = index_of("package p\n\n//go:build ignore\nfunc F() {}\n")
    assert "build-excluded" not in index.flags


# ---- the index records --------------------------------------------------------------------------

SEED = """package crawl

import (
	"io"
	h "golang.org/x/net/html"
	. "strings"
	_ "embed"
)

func Links(r io.Reader) (*h.Tokenizer, error) {
	h.NewTokenizer(r).Next()
	z := h.NewTokenizer(r)
	z.Next()
	n, err := h.Parse(r)
	_, e2 := h.Parse(r)
	_ = n
	return z, err
}
"""


def test_imports_record_path_alias_dot_and_blank() -> None:
    index = index_of(SEED)
    got = {(i.module, i.alias, i.star) for i in index.imports}
    assert got == {
        ("io", None, False),
        ("golang.org/x/net/html", "h", False),
        ("strings", None, True),
        ("embed", "_", False),
    }
    assert "package:crawl" in index.flags and not index.main_guard


def test_chained_call_has_the_call_result_as_receiver() -> None:
    calls = {(c.line, c.callee): c for c in index_of(SEED).calls}
    chained = calls[(11, "h.NewTokenizer().Next")]
    assert (chained.receiver, chained.name) == ("h.NewTokenizer()", "Next")
    assert calls[(13, "z.Next")].receiver == "z"


def test_results_by_position_and_bindings() -> None:
    index = index_of(SEED)
    links = next(d for d in index.definitions if d.name == "Links")
    assert links.returns == ("h.Tokenizer", "error")
    assert [(p.name, p.type) for p in links.params] == [("r", "io.Reader")]
    bound = {(a.target, a.value) for a in index.assignments}
    assert ("z", "call:h.NewTokenizer") in bound
    assert ("n", "call:h.Parse") in bound and ("err", "call:h.Parse#1") in bound
    assert ("e2", "call:h.Parse#1") in bound
    assert not any(a.target == "_" for a in index.assignments)


def test_methods_types_and_method_sets() -> None:
    index = index_of(
        """package p

import "io"

type Shape interface {
	io.Reader
	Area() float64
}

type Circle struct {
	Base
	*pkg.Embedded
	R, S float64
}

func (c *Circle) Area() float64 { return 0 }
func (c Circle) Name() string { return "" }

type Alias = Circle
type Celsius float64
"""
    )
    defs = {d.qualname: d for d in index.definitions}
    assert defs["Shape"].kind == "interface" and defs["Shape"].bases == ("io.Reader",)
    assert defs["Shape.Area"].kind == "method" and defs["Shape.Area"].returns == ("float64",)
    assert defs["Circle"].kind == "struct" and defs["Circle"].bases == ("Base", "pkg.Embedded")
    assert [(p.name, p.type) for p in defs["Circle"].params] == [
        ("Base", "Base"),
        ("Embedded", "pkg.Embedded"),
        ("R", "float64"),
        ("S", "float64"),
    ]
    assert defs["Circle.Area"].bases == ("*Circle",) and defs["Circle.Name"].bases == ("Circle",)
    assert defs["Alias"].kind == "alias" and defs["Alias"].returns == ("Circle",)
    assert defs["Celsius"].kind == "type" and defs["Celsius"].returns == ("float64",)
    receivers = {(a.scope, a.target, a.value) for a in index.assignments}
    assert ("Circle.Area", "c", "type:*Circle") in receivers


def test_composite_literals_are_constructors_and_bind_their_type() -> None:
    index = index_of(
        """package p

func F() {
	c := &Circle{R: 1}
	s := pkg.Server{}
	var w Writer
	t, ok := x.(*Tokenizer)
	u := new(Buffer)
}
"""
    )
    made = {(c.callee, c.new) for c in index.calls}
    assert {("Circle", True), ("pkg.Server", True)} <= made
    bound = {(a.target, a.value) for a in index.assignments}
    assert {
        ("c", "type:Circle"),
        ("s", "type:pkg.Server"),
        ("w", "type:Writer"),
        ("t", "type:Tokenizer"),
        ("u", "type:Buffer"),
    } <= bound
    assert not any(a.target == "ok" for a in index.assignments)


def test_function_literals_are_scopes_named_by_position_and_top_level_calls_belong_to_the_file() -> None:
    index = index_of(
        """package main

var ready = setup()

var handler = func(w Writer) { w.Write(nil) }

func main() {
	run := func() { work() }
	run()
	func() { cleanup() }()
}

func init() {}
"""
    )
    scopes = {c.callee: c.scope for c in index.calls}
    assert scopes == {
        "setup": "",
        "w.Write": "handler",
        "work": "main$1",
        "run": "main",
        "cleanup": "main$2",
        "func:main$2": "main",  # called where it is written: a call of the literal by main
    }
    assert ("run", "func:main$1") in {(a.target, a.value) for a in index.assignments}
    assert ("main", "func:main$1") in {(r.scope, r.name) for r in index.references}
    assert not any(r.name == "func:main$2" for r in index.references)
    kinds = {d.qualname: (d.kind, d.exported) for d in index.definitions}
    assert kinds["handler"] == ("function", False) and kinds["ready"] == ("variable", False)
    assert kinds["main$1"] == ("function", False) and kinds["main$2"] == ("function", False)
    assert kinds["init"] == ("function", True)  # the runtime calls it: an entry point of a library
    assert index.main_guard


def test_literal_names_nest_and_stay_when_another_function_changes() -> None:
    source = """package p

func (s *S) Run() {
	outer := func(n int) {
		inner := func() { s.step(n) }
		inner()
	}
	outer(1)
	go func() { done() }()
}

var table = map[string]func(){"a": func() { a() }, "b": func() { b() }}
"""
    first = index_of(source)
    scopes = {c.callee: c.scope for c in first.calls}
    assert scopes["s.step"] == "S.Run$1$1" and scopes["inner"] == "S.Run$1" and scopes["done"] == "S.Run$2"
    assert scopes["a"] == "table$1" and scopes["b"] == "table$2"
    keys_before = {d.qualname for d in first.definitions}
    assert {"S.Run$1", "S.Run$1$1", "S.Run$2", "table$1", "table$2"} <= keys_before
    params = {d.qualname: d.params for d in first.definitions}
    assert [p.name for p in params["S.Run$1"]] == ["n"]
    # a literal added in another function, above: every name here stays
    edited = index_of(source.replace("package p\n", "package p\n\nfunc G() { func() {}() }\n"))
    assert {d.qualname for d in edited.definitions} == keys_before | {"G", "G$1"}


def test_references_are_function_values_not_locals() -> None:
    index = index_of(
        """package p

func F(cb func(), n int) {
	local := 1
	use(cb, n, local, G, pkg.H, s.method)
	table := map[string]func(){"g": G}
	s.hook = G
	return G
}
"""
    )
    names = sorted({r.name for r in index.references})
    assert names == ["G", "pkg.H", "s.method"]


def test_doc_comments_and_directives() -> None:
    index = index_of(
        """package p

// Fast does it fast.
// More text.
//
//go:noinline
func Fast() {}
"""
    )
    fast = index.definitions[0]
    assert fast.doc == "Fast does it fast." and fast.decorators == ("go:noinline",)
    assert fast.signature == "func Fast()"


def test_syntax_errors_are_counted_and_definitions_kept() -> None:
    index = index_of("package p\n\nfunc A() { x := }\n\nfunc B() { C() }\n")
    assert index.syntax_errors and "syntax-error" in index.flags
    assert {d.name for d in index.definitions} >= {"A", "B"}
    assert any(c.callee == "C" for c in index.calls)


# ---- generated files: the skeleton --------------------------------------------------------------


def test_a_generated_file_over_the_limit_is_indexed_as_a_skeleton() -> None:
    folder = FIXTURES / "generated_table"
    result = run_index(folder, IndexOptions(workers=1, max_records=100))
    status = {s.path: s for s in result.statuses}["tables/tables.go"]
    assert status.status == "indexed"
    assert {"generated", "skeleton"} <= set(status.flags) and "skeleton" in status.reason
    index = {i.path: i for i in result.indexes}["tables/tables.go"]
    assert {c.callee for c in index.calls} == {"buildLookup", "find"}  # the table's 300 entries are gone
    source = (folder / "tables/tables.go").read_text(encoding="utf-8").splitlines()
    for d in index.definitions:  # every line number is the file's own
        assert d.name in source[d.line - 1], d
    graph = build(result.indexes, LinkOptions(root=str(folder), files=result.statuses))
    assert {
        ("tables/tables.go//Code", "tables/tables.go//find"),
        ("main.go//main", "tables/tables.go//Code"),
    } <= (call_edges(graph))
    assert all(f.status == "indexed" for f in graph.files)


def test_a_file_over_the_limit_that_is_not_generated_stays_truncated(tmp_path: Path) -> None:
    body = "\n".join(f"\tf{i}()" for i in range(50))
    (tmp_path / "big.go").write_text(f"package big\n\nfunc F() {{\n{body}\n}}\n", encoding="utf-8")
    result = run_index(tmp_path, IndexOptions(workers=1, max_records=10))
    assert [s.status for s in result.statuses] == ["truncated"]


def test_skeleton_blanks_data_only_values_and_keeps_lines() -> None:
    source = (
        b"package p\n\nvar data = []T{\n\t{1, 2},\n\t{3, 4},\n}\n\nvar made = []T{build(1)}\n\n"
        b"var fn = &S{run: func() { go1() }}\n\nfunc F() { x := []T{{5}}; use(x) }\n"
    )
    blanked = skeleton(source)
    assert blanked is not None and len(blanked) == len(source)
    assert blanked.count(b"\n") == source.count(b"\n")
    assert b"var data = []T{" in blanked and b"{1, 2}" not in blanked
    assert b"build(1)" in blanked and b"go1()" in blanked and b"{{5}}" in blanked
    assert not parser("go").parse(blanked).root_node.has_error
    assert skeleton(b"package p\n\nfunc F() {}\n") is None


# ---- real code ----------------------------------------------------------------------------------

GOROOT_SRC = next(
    (
        p
        for p in sorted(Path("/usr/share").glob("go*/src")) + sorted(Path("/usr/lib").glob("go*/src"))
        if p.is_dir()
    ),
    None,
)


@pytest.mark.skipif(GOROOT_SRC is None, reason="no Go source tree (Debian's golang-src) on this machine")
def test_standard_library_packages_link_as_module_std(tmp_path: Path) -> None:
    """A few packages of the Go source tree, as `module std` (the peer bug: pkg.F() unresolved)."""
    assert GOROOT_SRC is not None
    for package in ("io", "strings", "bufio", "unicode/utf8", "errors"):
        shutil.copytree(GOROOT_SRC / package, tmp_path / package)
    (tmp_path / "go.mod").write_text("module std\n\ngo 1.19\n", encoding="utf-8")
    run = build_graph(tmp_path, IndexOptions(workers=1))
    assert run.index.statuses and all(s.status == "indexed" for s in run.index.statuses)
    edges = call_edges(run.graph)
    assert ("bufio/bufio.go//Reader//ReadString", "bufio/bufio.go//Reader//collectFragments") in edges
    assert ("strings/reader.go//Reader//ReadRune", "unicode/utf8/utf8.go//DecodeRuneInString") in edges
    assert ("io/io.go//ReadAll", "io/io.go//Reader//Read") in edges
    # r.Read on an io.Reader reaches the first-party readers: per site, or through the interface's method
    readers = {
        callee for caller, callee in edges if caller in ("io/io.go//ReadAll", "io/io.go//Reader//Read")
    }
    assert "strings/reader.go//Reader//Read" in readers and "bufio/bufio.go//Reader//Read" in readers


def test_the_graph_does_not_depend_on_the_order_of_the_indexes() -> None:
    folder = FIXTURES / "interfaces_cha"
    result = run_index(folder, IndexOptions(workers=1))
    forward = build(result.indexes, LinkOptions(root=str(folder), files=result.statuses))
    backward = build(tuple(reversed(result.indexes)), LinkOptions(root=str(folder), files=result.statuses))
    assert forward.dumps() == backward.dumps()


def test_type_parameters_bind_their_constraint() -> None:
    index = index_of(
        "package p\n\nfunc Show[T fmt.Stringer, K comparable](x T, k K) string { return x.String() }\n"
    )
    bound = {(a.scope, a.target, a.value) for a in index.assignments}
    assert ("Show", "T", "constraint:fmt.Stringer") in bound and (
        "Show",
        "K",
        "constraint:comparable",
    ) in bound


def test_a_declaration_without_a_body_is_marked() -> None:
    index = index_of(
        """package p

//go:linkname nano runtime.nanotime
func nano() int64

//go:noinline
func (t T) Sum() int { return 0 }

func asm(x float64) float64
"""
    )
    decorators = {d.qualname: d.decorators for d in index.definitions}
    assert decorators["nano"] == ("go:linkname nano runtime.nanotime", NO_BODY)
    assert decorators["T.Sum"] == ("go:noinline",)
    assert decorators["asm"] == (NO_BODY,)


def test_linkname_runs_from_the_side_without_a_body_to_the_side_with_it(tmp_path: Path) -> None:
    """A push (the directive above the function with the code, as the runtime gives sync its
    semaphores) is an edge into it; a pull (the directive above a declaration with no body) an edge
    out of it. Where the records cannot tell (both have a body) the two are joined both ways."""
    files = {
        "go.mod": "module std\n\ngo 1.19\n",
        "runtime/push.go": """package runtime

import _ "unsafe"

//go:linkname sync_wait sync.wait
func sync_wait() { park() }

func park() {}

func nanotime() int64 { return 0 }

//go:linkname os_beforeExit os.beforeExit
func os_beforeExit() {}

//go:linkname both sync.both
func both() {}
""",
        "sync/sync.go": """package sync

func wait()

func both() {}

func Wait() { wait() }
""",
        "time/time.go": """package time

import _ "unsafe"

//go:linkname nano runtime.nanotime
func nano() int64

//go:linkname fastrand vendor.example/missing.fastrand
func fastrand() uint32

func Now() int64 { return nano() }
""",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    edges = call_edges(build_graph(tmp_path, IndexOptions(workers=1)).graph)
    callers = ("sync/sync.go//Wait", "time/time.go//Now")
    linked = {(a, b) for a, b in edges if "park" not in b and a not in callers}
    assert linked == {
        ("sync/sync.go//wait", "runtime/push.go//sync_wait"),  # a push
        ("time/time.go//nano", "runtime/push.go//nanotime"),  # a pull
        ("time/time.go//fastrand", "vendor.example//missing//fastrand"),  # a pull from code not linked
        ("runtime/push.go//both", "sync/sync.go//both"),  # both bodies: both ways
        ("sync/sync.go//both", "runtime/push.go//both"),
    }
