"""Answers an agent can afford (issue 25), through the SDK's client and a real server: bounded
answers at the defaults, summaries with exact totals, pages that together are the full answer,
bad cursors refused, tool descriptions within their budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import write_tree
from projectgraph.cli import main
from projectgraph.mcp import TOOLS
from projectgraph.project import Project
from projectgraph.query import answers
from test_mcp import call, converse, without_checks

FILES = 6
PER_FILE = 9
DESCRIPTIONS_BUDGET = 2600
"""Characters of all tool descriptions together (what an agent reads before its first call)."""


def _tree() -> dict[str, str]:
    tree = {"lib/__init__.py": "", "lib/core.py": "def target(x):\n    return x + 1\n", "app/__init__.py": ""}
    calls = []
    for f in range(FILES):
        body = ["from lib.core import target", ""]
        for n in range(PER_FILE):
            body += ["", f"def use_{f}_{n}(x):", "    return target(x)", ""]
        tree[f"app/mod{f}.py"] = "\n".join(body) + "\n"
        calls += [f"from app.mod{f} import use_{f}_{n}" for n in range(PER_FILE)]
    lines = [*calls, "", "", "def main():"]
    lines += [f"    use_{f}_{n}(1)" for f in range(FILES) for n in range(PER_FILE)]
    lines += ["", "", 'if __name__ == "__main__":', "    main()", ""]
    tree["app/main.py"] = "\n".join(lines)
    tree["tests/__init__.py"] = ""
    tree["tests/test_mods.py"] = (
        "from app.mod0 import use_0_0\nfrom app.mod1 import use_1_1\n\n\n"
        "def test_zero():\n    assert use_0_0(1) == 2\n\n\ndef test_one():\n    assert use_1_1(1) == 2\n"
    )
    return tree


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A function with FILES * PER_FILE callers (and two tests that call two of them)."""
    root = tmp_path_factory.mktemp("answers") / "wide"
    write_tree(root, _tree())
    with Project(root) as project:
        project.refresh()
    return root.resolve()


async def pages(client: Any, name: str, args: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """Every page of one list, read by its cursors."""
    found: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):
        answer = await call(client, name, args | ({"cursor": cursor} if cursor else {}))
        found += answer[field]
        cursor = answer["nextCursor"]
        if cursor is None:
            return found
    raise AssertionError("the cursors did not end")


def test_pages_together_are_the_full_answer_and_the_totals_are_exact(wide: Path) -> None:
    callers_total = FILES * PER_FILE

    async def conversation(client: Any) -> None:
        full = await call(client, "code_callers", {"symbol_id": "target", "detail": "full"})
        assert full["total"] == callers_total == len(full["results"]) and full["nextCursor"] is None
        paged = await pages(
            client, "code_callers", {"symbol_id": "target", "detail": "full", "limit": 7}, "results"
        )
        assert paged == full["results"]
        normal = await pages(client, "code_callers", {"symbol_id": "target", "limit": 10}, "results")
        assert [r["key"] for r in normal] == [r["key"] for r in full["results"]]
        by_file = full["byFile"]
        assert by_file["files"] == FILES
        assert by_file["top"] == [{"path": f"app/mod{f}.py", "count": PER_FILE} for f in range(FILES)]

        impact = await call(client, "code_impact", {"symbol_id": "target", "depth": 3, "detail": "full"})
        impacted = impact["impacted"]
        assert impact["total"] == len(impacted) - 1 == callers_total + 4  # main, the module, two tests
        assert sum(d["impacted"] for d in impact["byDepth"]) == impact["total"]
        paged = await pages(
            client,
            "code_impact",
            {"symbol_id": "target", "depth": 3, "detail": "full", "limit": 8},
            "impacted",
        )
        assert paged == impacted
        # ranked: by depth, then fan-in (use_0_0 and use_1_1 have two callers: main and a test)
        depth_one = [i["key"] for i in impacted if i["depth"] == 1]
        assert depth_one[:2] == ["app/mod0.py//use_0_0", "app/mod1.py//use_1_1"]
        assert depth_one[2:] == sorted(depth_one[2:])
        assert impact["tests"]["impacted"] == 2 and impact["tests"]["files"] == 1
        summary = await call(client, "code_impact", {"symbol_id": "target", "depth": 3, "detail": "summary"})
        assert "impacted" not in summary and summary["total"] == impact["total"]
        assert [t["key"] for t in summary["top"]] == [i["key"] for i in impacted[1 : 1 + answers.TOP]]

    converse("stdio", wide, conversation)


def test_every_answer_at_the_defaults_fits_the_budget(wide: Path) -> None:
    calls = [
        ("search_code", {"query": "use"}),
        ("code_symbol", {"name": "target"}),
        ("code_callers", {"symbol_id": "target"}),
        ("code_callees", {"symbol_id": "main"}),
        ("code_impact", {"symbol_id": "target", "depth": 6}),
        ("code_reach", {"targets": ["lib/core.py//target"]}),
        ("code_path", {"from": "main", "to": "target"}),
        ("index_status", {}),
    ]

    async def conversation(client: Any) -> None:
        for name, args in calls:
            answer = await call(client, name, args)
            size = len(json.dumps(answer, ensure_ascii=False))
            assert size <= answers.BUDGET, (name, size)
        # asked for, an answer may be longer: the full list of callers is
        full = await call(client, "code_callers", {"symbol_id": "target", "detail": "full"})
        assert len(json.dumps(full)) > answers.BUDGET

    converse("stdio", wide, conversation)


def test_a_bad_cursor_is_refused(wide: Path) -> None:
    async def conversation(client: Any) -> None:
        for name in ("code_callers", "code_impact"):
            result = await client.call_tool(name, {"symbol_id": "target", "cursor": "x1"})
            assert result.is_error and "cursor 'x1'" in result.content[0].text
        result = await client.call_tool("code_callers", {"symbol_id": "target", "cursor": "999"})
        assert result.is_error

    converse("stdio", wide, conversation)


def test_tool_descriptions_stay_short() -> None:
    total = sum(len(tool.description) for tool in TOOLS)
    assert total <= DESCRIPTIONS_BUDGET, total
    for tool in TOOLS:
        assert len(tool.description) <= 450, tool.name
        for param in tool.all_params:
            assert len(param.description) <= 300, (tool.name, param.name)


def test_the_summary_first_answers_keep_the_engine_s_facts(wide: Path) -> None:
    with Project(wide) as project:
        engine = project.engine()
        direct = engine.callers("target", 1000)

    async def conversation(client: Any) -> None:
        summary = await call(client, "code_callers", {"symbol_id": "target", "detail": "summary"})
        assert summary["total"] == direct["total"] and summary["status"] == direct["status"]
        assert [t["key"] for t in summary["top"]] == [r["key"] for r in direct["results"][: answers.TOP]]
        assert without_checks(summary["uncertain"])["total"] == direct["uncertain"]["total"]

    converse("stdio", wide, conversation)


def test_explore_answers_a_question_in_one_call(wide: Path) -> None:
    async def conversation(client: Any) -> None:
        answer = await call(client, "explore", {"query": "target"})
        assert len(json.dumps(answer)) <= answers.BUDGET
        first = answer["symbols"][0]
        assert first["key"] == "lib/core.py//target" and first["signature"] == "def target(x)"
        assert first["code"] == "def target(x):\n    return x + 1"
        assert first["callers"]["total"] == FILES * PER_FILE and len(first["callers"]["results"]) == 5
        assert first["callers"]["status"] == "callers" and first["callees"]["total"] == 0

    converse("stdio", wide, conversation)
    from click.testing import CliRunner

    from projectgraph.cli import main

    result = CliRunner().invoke(main, ["explore", "use_0_0", "--limit", "1", "--project", str(wide)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:4] == [
        "use_0_0: 1 symbol(s)",
        "app/mod0.py//use_0_0  (function, app/mod0.py:4-5)",
        "  | def use_0_0(x):",
        "  |     return target(x)",
    ]
    assert "  callers (2): app/main.py//main, tests/test_mods.py//test_zero" in result.output


def _cli(root: Path, *args: str) -> Any:
    done = CliRunner().invoke(main, [*args, "--project", str(root)])
    return done.exit_code, json.loads(done.output) if done.exit_code == 0 else done.output


def test_cli_json_pages_together_are_the_full_answer(wide: Path) -> None:
    """The CLI's --json pages as MCP does: the same cursors, the totals exact on every page."""
    for command, args, field in (
        ("callers", ["target"], "results"),
        ("impact", ["target", "--depth", "3"], "impacted"),
    ):
        code, full = _cli(wide, command, *args, "--json", "--limit", "1000")
        assert code == 0 and full["nextCursor"] is None and full["truncated"] is False
        whole = full[field][1:] if field == "impacted" else full[field]
        assert full["total"] == len(whole) > 50
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(20):
            code, answer = _cli(
                wide, command, *args, "--json", "--limit", "25", *(["--cursor", cursor] if cursor else [])
            )
            assert code == 0 and answer["total"] == full["total"] and answer["truncated"] is True
            found += answer[field][1:] if field == "impacted" else answer[field]
            if field == "impacted":
                assert answer["impacted"][0] == full["impacted"][0]  # the root heads every page
            cursor = answer["nextCursor"]
            if cursor is None:
                break
        assert found == whole
    code, text = _cli(wide, "callers", "target", "--json", "--cursor", "x1")
    assert code == 2 and "cursor 'x1'" in text
    code, default = _cli(wide, "impact", "target", "--depth", "3", "--json", "--limit", "10")
    assert len(default["impacted"]) == 11 and default["nextCursor"] == "10"
