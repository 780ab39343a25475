"""Uncertain callers (issue 19): callers and impact list what might call a symbol beside the edges,
on ``tests/fixtures/queries/uncertain`` indexed into a real store, and say "no caller" only when
nothing unresolved could name it. The sites expected are the fixture's ``# caller: RULE SYMBOL``
markers, so no line number is written here."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES, write_tree
from projectgraph.cli import main
from projectgraph.project import Project
from projectgraph.query import QueryEngine

CASE = FIXTURES / "queries" / "uncertain"
MARKER = re.compile(r"# caller: (\w+) (\w+)")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("uncertain") / "uncertain"
    shutil.copytree(CASE, root, ignore=shutil.ignore_patterns("README.md"))
    with Project(root) as project:
        project.refresh()
    yield root


@pytest.fixture(scope="module")
def engine(root: Path) -> Iterator[QueryEngine]:
    with Project(root) as project:
        yield project.engine()


def markers() -> dict[str, set[tuple[str, str, int]]]:
    """symbol name -> {(rule, path, line)} from the fixture's markers."""
    found: dict[str, set[tuple[str, str, int]]] = {}
    for path in sorted(CASE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for rule, name in MARKER.findall(line):
                found.setdefault(name, set()).add((rule, path.relative_to(CASE).as_posix(), number))
    return found


def sites(uncertain: dict[str, object]) -> set[tuple[str, str, int]]:
    results = uncertain["results"]
    assert isinstance(results, list)
    return {(u["rule"], u["site"]["path"], u["site"]["line"]) for u in results}


@pytest.mark.parametrize("name", ["by_param", "by_dict", "by_decorator"])
def test_a_function_called_only_in_ways_the_link_cannot_resolve_has_uncertain_callers(
    engine: QueryEngine, name: str
) -> None:
    expected = markers()[name]
    answer = engine.callers(name)
    # no edge calls it: its only edges are references (values)
    assert {r["relation"] for r in answer["results"]} == {"references"}
    assert sites(answer["uncertain"]) == expected
    assert answer["uncertain"]["total"] == len(expected) and not answer["uncertain"]["truncated"]
    assert answer["status"] == "callers-unknown"
    impact = engine.impact(name, 2)
    assert [i["key"] for i in impact["impacted"]] == [answer["symbol"]]
    assert impact["status"] == "callers-unknown"
    assert {
        (u["rule"], u["site"]["path"], u["site"]["line"], u["depth"], u["of"])
        for u in impact["uncertain"]["results"]
    } == {(*site, 1, answer["symbol"]) for site in expected}
    assert impact["byDepth"] == [
        {"depth": 1, "impacted": 0, "uncertain": len(expected)},
        {"depth": 2, "impacted": 0, "uncertain": 0},
    ]


def test_the_parameter_call_is_tied_to_the_call_that_passes_the_function(engine: QueryEngine) -> None:
    by_rule = {u["rule"]: u for u in engine.callers("by_param")["uncertain"]["results"]}
    assert by_rule["argument"]["key"] == "app/params.py//call_with"
    assert by_rule["argument"]["reason"].startswith("computed-name: f()")
    assert "app/main.py:" in by_rule["argument"]["reason"]  # where it is passed
    assert by_rule["value"]["key"] == "app/main.py//main" and by_rule["value"]["kind"] == "reference"


def test_an_unknown_receiver_call_of_the_name_is_an_uncertain_caller(engine: QueryEngine) -> None:
    # the link guessed a low-confidence name edge at that site: it is listed as an edge, not twice
    answer = engine.callers("by_name")
    assert [(r["key"], r["kind"], r["confidence"]) for r in answer["results"]] == [
        ("app/receiver.py//poke", "name", "low")
    ]
    assert answer["uncertain"]["total"] == 0 and answer["status"] == "callers"
    # a method of the same name the link guessed no edge to: the unresolved site is its uncertain caller
    other = engine.callers("Greeter.by_name")
    assert other["symbol"] == answer["symbol"]


def test_a_function_nothing_can_name_has_no_caller(engine: QueryEngine) -> None:
    answer = engine.callers("nobody")
    assert answer["results"] == [] and answer["uncertain"]["total"] == 0
    assert answer["status"] == "no-caller"
    impact = engine.impact("nobody", 3)
    assert impact["status"] == "no-caller" and impact["uncertain"]["total"] == 0
    assert engine.callers("plain")["status"] == "callers"
    assert engine.callers("main")["status"] == "callers"
    assert engine.callers("app/main.py")["status"] == "entry-point"
    assert engine.callers("app/main.py")["roots"] == [{"kind": "main", "rule": "python-main-guard"}]


def test_include_uncertain_walks_them(engine: QueryEngine) -> None:
    plain = engine.impact("by_param", 2)
    walked = engine.impact("by_param", 2, include_uncertain=True)
    assert [i["key"] for i in plain["impacted"]] == ["app/params.py//by_param"]
    got = {(i["key"], i["depth"], i["uncertain"]) for i in walked["impacted"]}
    assert got == {
        ("app/params.py//by_param", 0, False),
        ("app/main.py//main", 1, True),
        ("app/params.py//call_with", 1, True),
        ("app/main.py", 2, True),  # calls main: walked on from an uncertain caller
    }
    assert walked["byDepth"][0] == {"depth": 1, "impacted": 2, "uncertain": 2}
    # the edge app/main.py -> main and the one main -> call_with are walked at depth 2
    assert walked["edgeCount"] == 2


def test_uncertain_lists_are_capped_with_their_totals(engine: QueryEngine) -> None:
    full = engine.impact("by_param", 2)
    capped = engine.impact("by_param", 2, limit=1)
    assert capped["uncertain"]["total"] == full["uncertain"]["total"] == 2
    assert capped["uncertain"]["truncated"] is True
    assert capped["uncertain"]["results"] == full["uncertain"]["results"][:1]
    assert capped["uncertain"]["counts"] == full["uncertain"]["counts"] == {"argument": 1, "value": 1}
    listed = engine.callers("by_param", limit=1)["uncertain"]
    assert listed["total"] == 2 and len(listed["results"]) == 1 and listed["truncated"]


def test_a_dynamic_feature_of_running_code_makes_every_caller_unknown(tmp_path: Path) -> None:
    def status(tree: dict[str, str]) -> dict[str, object]:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        write_tree(root, tree)
        with Project(root) as project:
            project.refresh()
            return project.engine().callers("nobody")

    lonely = "def nobody():\n    return 1\n"
    guard = "if __name__ == '__main__':\n    print('hi')\n"
    dead = status(
        {"lonely.py": lonely, "dead.py": "def never_run(s):\n    return eval(s)\n", "main.py": guard}
    )
    assert dead["status"] == "no-caller"  # the eval is in code nothing runs
    running = status(
        {
            "lonely.py": lonely,
            "main.py": "def run(s):\n    return eval(s)\n\n\nif __name__ == '__main__':\n    run('1')\n",
        }
    )
    assert running["status"] == "callers-unknown"
    (flag,) = running["uncertain"]["results"]
    assert flag["rule"] == "dynamic" and flag["kind"] == "dynamic-flag" and flag["reason"] == "eval"
    assert flag["key"] == "main.py//run" and flag["site"]["path"] == "main.py"


def test_the_cli_says_no_caller_and_callers_unknown(root: Path) -> None:
    runner = CliRunner()
    nobody = runner.invoke(main, ["callers", "nobody", "--project", str(root)])
    assert nobody.exit_code == 0, nobody.output
    assert nobody.output == (
        "app/lonely.py//nobody: 0\n  no caller: no edge, and nothing unresolved could name it\n"
    )
    unknown = runner.invoke(main, ["impact", "by_dict", "--project", str(root)])
    assert unknown.exit_code == 0, unknown.output
    lines = unknown.output.splitlines()
    assert lines[0] == "app/table.py//by_dict: 0 impacted, 0 edges, 2 uncertain (by depth 1: 0+2?, 2: 0+0?)"
    assert "callers unknown" in lines[-1]
    assert any(line.startswith("  1  ? app/table.py//dispatch at app/table.py:") for line in lines)
    walked = runner.invoke(
        main, ["impact", "by_param", "--include-uncertain", "--json", "--project", str(root)]
    )
    assert walked.exit_code == 0, walked.output
    data = json.loads(walked.output)
    # the DESIGN.md contract's fields stay, the new ones beside them
    assert {"root", "impacted", "edgeCount", "uncertain", "byDepth", "status"} <= set(data)
    assert all({"key", "depth"} <= set(i) for i in data["impacted"])
    callers = json.loads(
        runner.invoke(main, ["callers", "by_param", "--json", "--project", str(root)]).output
    )
    assert {"symbol", "results", "uncertain", "status"} <= set(callers)
    assert all({"key", "kind", "confidence", "site"} <= set(r) for r in callers["results"])


def test_the_mcp_tools_give_the_uncertain_callers(root: Path, engine: QueryEngine) -> None:
    from test_mcp import call, converse, without_checks

    async def conversation(client: object) -> None:
        args = {"symbol_id": "by_param", "include_uncertain": True, "detail": "full"}
        impact = await call(client, "code_impact", args)  # type: ignore[arg-type]
        direct = engine.impact("by_param", 2, include_uncertain=True)
        assert without_checks(impact["uncertain"]) == direct["uncertain"]
        assert {i["key"]: i["uncertain"] for i in impact["impacted"]} == {
            i["key"]: i["uncertain"] for i in direct["impacted"]
        }
        assert impact["byDepth"] == direct["byDepth"] and impact["status"] == direct["status"]
        capped = await call(client, "code_impact", {"symbol_id": "by_param", "uncertain_limit": 1})  # type: ignore[arg-type]
        assert capped["uncertain"]["total"] == 2 and len(capped["uncertain"]["results"]) == 1
        nobody = await call(client, "code_callers", {"symbol_id": "nobody"})  # type: ignore[arg-type]
        assert nobody["status"] == "no-caller" and nobody["uncertain"]["total"] == 0
        by_dict = await call(client, "code_callers", {"symbol_id": "by_dict", "detail": "full"})  # type: ignore[arg-type]
        assert without_checks(by_dict["uncertain"]) == engine.callers("by_dict")["uncertain"]

    converse("stdio", root, conversation)
