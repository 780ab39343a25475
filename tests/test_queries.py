"""The query engine on real fixture projects (``tests/fixtures/queries/<case>/``), indexed into a
real SQLite store: symbol forms, callers/callees, impact, path, hierarchy, cycles and search."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURES, write_tree
from projectgraph.project import Project
from projectgraph.query import AmbiguousSymbolError, QueryEngine, QueryError, SymbolNotFoundError

CASES = FIXTURES / "queries"


def opened(tmp_path_factory: pytest.TempPathFactory, case: str) -> Iterator[QueryEngine]:
    root = tmp_path_factory.mktemp(case) / case
    shutil.copytree(CASES / case, root, ignore=shutil.ignore_patterns("README.md"))
    with Project(root) as project:
        project.refresh()
        yield project.engine()


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueryEngine]:
    yield from opened(tmp_path_factory, "calls")


@pytest.fixture(scope="module")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueryEngine]:
    yield from opened(tmp_path_factory, "hierarchy")


def keys_of(items: list[dict[str, object]]) -> list[object]:
    return [item["key"] for item in items]


# ---- symbol and the SYMBOL forms ------------------------------------------------------------


def test_symbol_by_name_qualified_name_and_key(calls: QueryEngine) -> None:
    by_name = calls.symbol("total")["results"]
    assert keys_of(by_name) == ["app/models.py//Order//total"]
    hit = by_name[0]
    assert hit == {
        "key": "app/models.py//Order//total",
        "kind": "method",
        "name": "total",
        "qualname": "Order.total",
        "path": "app/models.py",
        "line": 16,
        "end_line": 17,
        "signature": "def total(self)",
        "score": 1.0,
    }
    assert calls.symbol("Order.total")["results"] == by_name
    assert calls.symbol("app/models.py//Order//total")["results"] == by_name
    assert calls.symbol("app/models.py:Order.total")["results"] == by_name
    # every definition of a name, in key order
    assert keys_of(calls.symbol("save")["results"]) == [
        "app/models.py//Order//save",
        "app/models.py//Record//save",
    ]


def test_symbol_unknown_is_empty(calls: QueryEngine) -> None:
    assert calls.symbol("no_such_thing") == {"query": "no_such_thing", "results": []}
    assert calls.symbol("   ")["results"] == []


def test_symbol_forms_resolve_to_one_node(calls: QueryEngine) -> None:
    for text in (
        "app/models.py//Order//total",
        "app/models.py:Order.total",
        "Order.total",
        "total",
        "  total  ",
    ):
        assert calls.resolve(text)[1] == "app/models.py//Order//total", text
    assert calls.resolve("app/service.py")[1] == "app/service.py"  # a module by its key
    assert calls.resolve("builtins//len")[1] == "builtins//len"  # an external by its key


def test_ambiguous_bare_name_lists_candidates_never_guesses(calls: QueryEngine) -> None:
    with pytest.raises(AmbiguousSymbolError) as caught:
        calls.callers("save")
    assert [c["key"] for c in caught.value.candidates] == [
        "app/models.py//Order//save",
        "app/models.py//Record//save",
    ]
    message = str(caught.value)
    assert message.splitlines() == [
        "'save' names 2 symbols; give one of these keys:",
        "  app/models.py//Order//save (method, app/models.py:19)",
        "  app/models.py//Record//save (method, app/models.py:5)",
    ]
    assert isinstance(caught.value, QueryError)  # a usage error
    # the qualified forms pick one
    assert calls.resolve("Record.save")[1] == "app/models.py//Record//save"


def test_unknown_symbols_are_usage_errors(calls: QueryEngine) -> None:
    with pytest.raises(SymbolNotFoundError, match="no symbol named 'nothing_here'"):
        calls.callers("nothing_here")
    with pytest.raises(SymbolNotFoundError, match=r"no symbol 'Order\.nope' in 'app/models\.py'"):
        calls.impact("app/models.py:Order.nope")
    with pytest.raises(QueryError, match="empty symbol"):
        calls.callees("")


# ---- callers and callees --------------------------------------------------------------------


def test_callers_with_edge_kind_confidence_and_site(calls: QueryEngine) -> None:
    answer = calls.callers("Order.total")
    assert answer["symbol"] == "app/models.py//Order//total"
    assert (answer["total"], answer["truncated"]) == (2, False)
    assert [(r["key"], r["kind"], r["confidence"], r["relation"], r["site"]) for r in answer["results"]] == [
        (
            "app/service.py//audit",
            "name",
            "low",
            "calls",
            {"path": "app/service.py", "line": 23, "column": 11},
        ),
        (
            "app/service.py//checkout",
            "name",
            "low",
            "calls",
            {"path": "app/service.py", "line": 6, "column": 4},
        ),
    ]
    # the strongest edges first
    assert [r["confidence"] for r in calls.callers("handle")["results"]] == ["high", "low"]


def test_callees(calls: QueryEngine) -> None:
    answer = calls.callees("checkout")
    assert [(r["key"], r["kind"], r["confidence"]) for r in answer["results"]] == [
        ("app/models.py//sum_prices", "direct", "high"),
        ("app/models.py//Order//total", "name", "low"),
    ]
    assert answer["results"][0]["node_kind"] == "function"
    assert calls.callees("lonely") == {
        "symbol": "app/service.py//lonely",
        "total": 0,
        "truncated": False,
        "results": [],
        "nextCursor": None,
    }


def test_callers_limit_default_50_and_truncation(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"hub.py": "def target():\n    return 1\n"}
    for n in range(55):
        files[f"spoke_{n:02d}.py"] = f"from hub import target\n\n\ndef caller_{n:02d}():\n    target()\n"
    root = write_tree(tmp_path / "fan", files)
    with Project(root) as project:
        project.refresh()
        engine = project.engine()
        answer = engine.callers("target")
        assert (answer["total"], answer["truncated"], len(answer["results"])) == (55, True, 50)
        assert keys_of(answer["results"]) == [f"spoke_{n:02d}.py//caller_{n:02d}" for n in range(50)]
        few = engine.callers("target", limit=3)
        assert (few["total"], few["truncated"], keys_of(few["results"])) == (
            55,
            True,
            ["spoke_00.py//caller_00", "spoke_01.py//caller_01", "spoke_02.py//caller_02"],
        )
        assert engine.callers("target", limit=55)["truncated"] is False
        with pytest.raises(QueryError, match="--limit must be at least 1"):
            engine.callees("target", limit=0)


# ---- impact ---------------------------------------------------------------------------------


def test_impact_depths_and_edge_count(calls: QueryEngine) -> None:
    one = calls.impact("sum_prices", depth=1)
    assert one["root"] == "app/models.py//sum_prices"
    assert [(i["key"], i["depth"]) for i in one["impacted"]] == [
        ("app/models.py//sum_prices", 0),
        ("app/models.py//Order//total", 1),
        ("app/service.py//checkout", 1),
    ]
    assert one["edgeCount"] == 2
    three = calls.impact("sum_prices", depth=3)
    assert [(i["key"], i["depth"]) for i in three["impacted"]] == [
        ("app/models.py//sum_prices", 0),
        ("app/models.py//Order//total", 1),
        ("app/service.py//checkout", 1),
        ("app/service.py//audit", 2),
        ("app/service.py//report", 2),
        ("app/service.py//main", 3),
    ]
    # sum_prices <- total, checkout; total <- audit, checkout (seen); checkout <- audit, report;
    # report <- main: every edge the walk crosses counts, also into a node already reached
    assert three["edgeCount"] == 7
    assert calls.impact("sum_prices")["impacted"] == three["impacted"][:5]  # default depth 2


def test_impact_follows_extends_not_imports(calls: QueryEngine) -> None:
    answer = calls.impact("Record", depth=6)
    assert [(i["key"], i["depth"]) for i in answer["impacted"]] == [
        ("app/models.py//Record", 0),
        ("app/models.py//Order", 1),
        ("app/service.py//main", 2),
        ("app/service.py", 3),  # the module's top level calls main()
    ]
    modules = calls.impact("app/http.py", depth=6)  # imported by service.py: not an impact edge
    assert [i["key"] for i in modules["impacted"]] == ["app/http.py"]


def test_impact_low_confidence_marked_or_left_out(calls: QueryEngine) -> None:
    marked = {i["key"]: i["low_confidence"] for i in calls.impact("Order.total", depth=3)["impacted"]}
    assert marked == {
        "app/models.py//Order//total": False,
        "app/service.py//audit": True,  # a `name` edge: low
        "app/service.py//checkout": True,
        "app/service.py//report": True,  # reached only through a low edge
        "app/service.py//main": True,
    }
    strict = calls.impact("Order.total", depth=3, include_low=False)
    assert strict["impacted"] == [
        {
            "key": "app/models.py//Order//total",
            "depth": 0,
            "kind": "method",
            "path": "app/models.py",
            "line": 16,
            "low_confidence": False,
        }
    ]
    assert strict["edgeCount"] == 0
    # audit is reached at depth 2 through total (a low edge) and through checkout (a high one)
    mixed = {i["key"]: i["low_confidence"] for i in calls.impact("sum_prices", depth=2)["impacted"]}
    assert mixed["app/service.py//audit"] is False


@pytest.mark.parametrize("depth", [0, 7, -1])
def test_impact_depth_bounds(calls: QueryEngine, depth: int) -> None:
    with pytest.raises(QueryError, match=f"--depth must be between 1 and 6 \\(got {depth}\\)"):
        calls.impact("sum_prices", depth=depth)


def test_impact_depth_6_is_allowed(calls: QueryEngine) -> None:
    assert calls.impact("first", depth=6)["impacted"][-1]["depth"] == 2  # the cycle closes


# ---- path -----------------------------------------------------------------------------------


def test_path_found_with_each_hop_kind(calls: QueryEngine) -> None:
    answer = calls.path("main", "price_of")
    assert (answer["from"], answer["to"], answer["found"]) == (
        "app/service.py//main",
        "app/models.py//price_of",
        True,
    )
    assert [(h["key"], h["kind"], h["relation"]) for h in answer["path"]] == [
        ("app/service.py//main", "start", ""),
        ("app/service.py//report", "direct", "calls"),
        ("app/service.py//checkout", "direct", "calls"),
        ("app/models.py//sum_prices", "direct", "calls"),
        ("app/models.py//price_of", "direct", "calls"),
    ]
    assert answer["path"][1]["site"] == {"path": "app/service.py", "line": 17, "column": 4}
    # imports are hops too: a module's top level runs what it imports
    through = calls.path("cyc/alpha.py", "cyc/gamma.py")
    assert [(h["key"], h["kind"], h["relation"]) for h in through["path"]] == [
        ("cyc/alpha.py", "start", ""),
        ("cyc/beta.py", "import", "imports"),
        ("cyc/gamma.py", "import", "imports"),
    ]


def test_path_not_found_and_to_itself(calls: QueryEngine) -> None:
    assert calls.path("price_of", "main") == {
        "from": "app/models.py//price_of",
        "to": "app/service.py//main",
        "found": False,
        "path": [],
    }
    assert calls.path("lonely", "handle")["found"] is False
    same = calls.path("lonely", "lonely")
    assert same["found"] is True and [h["key"] for h in same["path"]] == ["app/service.py//lonely"]


def test_path_around_a_cycle(calls: QueryEngine) -> None:
    assert [h["key"] for h in calls.path("second", "first")["path"]] == [
        "app/service.py//second",
        "app/service.py//third",
        "app/service.py//first",
    ]


# ---- hierarchy ------------------------------------------------------------------------------


def test_hierarchy_diamond_in_mro_order(zoo: QueryEngine) -> None:
    answer = zoo.hierarchy("Diamond")
    assert answer["class"] == "zoo/shapes.py//Diamond"
    assert [(b["key"], b["depth"]) for b in answer["bases"]] == [
        ("zoo/shapes.py//Left", 1),
        ("zoo/shapes.py//Right", 1),
        ("zoo/shapes.py//Base", 2),
    ]
    assert [(s["key"], s["depth"]) for s in answer["subclasses"]] == [("zoo/shapes.py//Gem", 1)]


def test_hierarchy_keeps_the_declared_base_order(zoo: QueryEngine) -> None:
    # class Reversed(Right, Left): Python's MRO is Right, Left, Base, not the names' order
    assert keys_of(zoo.hierarchy("Reversed")["bases"]) == [
        "zoo/shapes.py//Right",
        "zoo/shapes.py//Left",
        "zoo/shapes.py//Base",
    ]


def test_hierarchy_mro_is_not_breadth_first(zoo: QueryEngine) -> None:
    # class Mixed(Left, Other): C3 gives Left, Base, Other (breadth-first would say Left, Other, Base)
    assert keys_of(zoo.hierarchy("Mixed")["bases"]) == [
        "zoo/shapes.py//Left",
        "zoo/shapes.py//Base",
        "zoo/shapes.py//Other",
    ]
    assert keys_of(zoo.hierarchy("Gem")["bases"]) == [
        "zoo/shapes.py//Diamond",
        "zoo/shapes.py//Left",
        "zoo/shapes.py//Right",
        "zoo/shapes.py//Base",
    ]


def test_hierarchy_external_base(zoo: QueryEngine) -> None:
    assert keys_of(zoo.hierarchy("Registry")["bases"]) == [
        "collections//OrderedDict",
        "zoo/shapes.py//Base",
    ]


def test_hierarchy_subclasses_transitively_by_depth(zoo: QueryEngine) -> None:
    answer = zoo.hierarchy("Base")
    assert answer["bases"] == []
    assert [(s["key"], s["depth"]) for s in answer["subclasses"]] == [
        ("zoo/shapes.py//Left", 1),
        ("zoo/shapes.py//Registry", 1),
        ("zoo/shapes.py//Right", 1),
        ("zoo/shapes.py//Diamond", 2),
        ("zoo/shapes.py//Mixed", 2),
        ("zoo/shapes.py//Reversed", 2),
        ("zoo/shapes.py//Gem", 3),
    ]


def test_hierarchy_of_a_function_is_a_usage_error(zoo: QueryEngine) -> None:
    with pytest.raises(QueryError, match=r"zoo/shapes\.py//area_of is a function, not a class"):
        zoo.hierarchy("area_of")


# ---- cycles ---------------------------------------------------------------------------------


def test_cycles_of_calls_and_imports_largest_first(calls: QueryEngine) -> None:
    answer = calls.cycles()
    assert answer["calls"] == {
        "count": 3,
        "cycles": [
            ["app/service.py//first", "app/service.py//second", "app/service.py//third"],
            ["app/service.py//ping", "app/service.py//pong"],
            ["app/service.py//countdown"],  # calls itself
        ],
    }
    assert answer["imports"] == {
        "count": 1,
        "cycles": [["cyc/alpha.py", "cyc/beta.py", "cyc/gamma.py"]],
    }
    limited = calls.cycles(limit=1)
    assert limited["calls"]["count"] == 3 and len(limited["calls"]["cycles"]) == 1


# ---- search ---------------------------------------------------------------------------------


def test_search_splits_names_on_case_and_underscores(calls: QueryEngine) -> None:
    answer = calls.search("http request", mode="keyword")
    assert answer["results"][0]["key"] == "app/http.py//parseHTTPRequest"
    hit = answer["results"][0]
    assert set(hit) == {"key", "name", "qualname", "kind", "path", "line", "end_line", "signature", "score"}
    assert hit["score"] > 0
    assert keys_of(calls.search("http response", mode="keyword")["results"])[0] == (
        "app/http.py//parse_http_response"
    )
    # a doc comment is searched too
    assert "app/models.py//sum_prices" in keys_of(calls.search("price of every item")["results"])


def test_search_ranks_the_exact_name_first(calls: QueryEngine) -> None:
    # handle_error's doc says "handle" four times and handler_for starts with it: BM25 alone
    # would put them first; the definition named exactly `handle` comes first
    results = keys_of(calls.search("handle", mode="keyword")["results"])
    assert results[0] == "app/http.py//handle"
    assert set(results[1:3]) == {"app/http.py//handle_error", "app/http.py//handler_for"}
    assert keys_of(calls.search("Order.total")["results"])[0] == "app/models.py//Order//total"


def test_search_puts_a_top_level_definition_before_methods_of_the_name(calls: QueryEngine) -> None:
    assert keys_of(calls.search("validate", limit=2)["results"]) == [
        "app/http.py//validate",
        "app/models.py//Record//validate",
    ]


def test_search_wants_every_word_and_falls_back_to_any(calls: QueryEngine) -> None:
    # every word: parseHTTPRequest has "http" but not "response"
    assert keys_of(calls.search("http response")["results"]) == ["app/http.py//parse_http_response"]
    # the last word is a prefix: "handl" finds handle, handle_error and handler_for
    assert set(keys_of(calls.search("handl")["results"])) == {
        "app/http.py//handle",
        "app/http.py//handle_error",
        "app/http.py//handler_for",
    }
    # no symbol has both words: any of them will do
    fallback = keys_of(calls.search("parse nothingness")["results"])
    assert set(fallback[:2]) == {"app/http.py//parseHTTPRequest", "app/http.py//parse_http_response"}


def test_search_limit_and_no_match(calls: QueryEngine) -> None:
    assert len(calls.search("app", limit=2)["results"]) == 2
    assert calls.search("zzzqqq")["results"] == []
    assert calls.search("!!!")["results"] == []
    with pytest.raises(ValueError, match="unknown search mode"):
        calls.search("x", mode="fuzzy")


def test_search_hybrid_without_the_extra_says_keyword_only(
    calls: QueryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from projectgraph.query.search import UNAVAILABLE

    monkeypatch.setenv("PROJECTGRAPH_SEMANTIC", "off")  # as without the extra, whether it is installed
    answer = calls.search("http request")
    assert answer["mode"] == "hybrid"
    assert answer["semantic"] == f"{UNAVAILABLE}: keyword only"
    assert "pip install 'projectgraph[semantic]'" in UNAVAILABLE
    assert answer["results"] == calls.search("http request", mode="keyword")["results"]
    semantic = calls.search("http request", mode="semantic")
    assert semantic["results"] == []
    assert semantic["semantic"] == f"{UNAVAILABLE}; use --mode keyword"
