"""``projectgraph changes`` on real git repositories made in the test: commits, a rename, a
signature change, a deleted function, a move across commits; the symbols, their impacted callers
and their tests are exact."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import write_tree
from projectgraph.cli import main

CORE = """\
def compute(a):
    return helper(a) + 1


def helper(a):
    return a * 2


def gone():
    return 0


def old_name(x):
    y = x + 1
    return y * 3
"""

CLI_PY = """\
from app.core import compute, gone, old_name


def main():
    print(compute(1), gone(), old_name(2))


if __name__ == "__main__":
    main()
"""

TEST_CORE = """\
from app.core import compute, helper


def test_compute():
    assert compute(1) == 3


def test_helper():
    assert helper(2) == 4
"""

CHANGED_CORE = """\
def compute(a, b=0):
    return helper(a) + 1 + b


def helper(a):
    doubled = a * 2
    return doubled


def new_name(x):
    y = x + 1
    return y * 3


def added():
    return compute(5)
"""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL
    )
    return done.stdout


def repository(root: Path, tree: dict[str, str]) -> Path:
    write_tree(root, tree)
    (root / ".gitignore").write_text(".projectgraph/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    commit(root, "first")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def changes(root: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["changes", "--json", "--project", str(root), *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def by_key(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in answer["symbols"]}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repository(
        tmp_path / "repo",
        {"app/__init__.py": "", "app/core.py": CORE, "app/cli.py": CLI_PY, "tests/test_core.py": TEST_CORE},
    )


def test_the_working_tree_changes_with_their_impact_and_tests(repo: Path) -> None:
    (repo / "app" / "core.py").write_text(CHANGED_CORE, encoding="utf-8")
    answer = changes(repo)
    assert answer["base"] == "HEAD" and answer["side"] == "working tree"
    got = {s["key"]: (s["change"], s.get("from")) for s in answer["symbols"]}
    assert got == {
        "app/core.py//compute": ("signature-changed", None),
        "app/core.py//helper": ("body-changed", None),
        "app/core.py//gone": ("removed", None),
        "app/core.py//new_name": ("renamed", "app/core.py//old_name"),  # matched by its body
        "app/core.py//added": ("added", None),
    }
    assert answer["counts"] == {
        "added": 1,
        "removed": 1,
        "body-changed": 1,
        "signature-changed": 1,
        "renamed": 1,
    }
    symbols = by_key(answer)
    compute = symbols["app/core.py//compute"]
    assert compute["signature"] == {"old": "def compute(a)", "new": "def compute(a, b=0)"}
    assert [(i["key"], i["depth"]) for i in compute["impact"]["impacted"]] == [
        ("app/cli.py//main", 1),
        ("app/core.py//added", 1),
        ("tests/test_core.py//test_compute", 1),
        ("app/cli.py", 2),
    ]
    assert [t["key"] for t in compute["tests"]["results"]] == ["tests/test_core.py//test_compute"]
    helper = symbols["app/core.py//helper"]
    assert [(i["key"], i["depth"]) for i in helper["impact"]["impacted"]] == [
        ("app/core.py//compute", 1),
        ("tests/test_core.py//test_helper", 1),
        ("app/cli.py//main", 2),
        ("app/core.py//added", 2),
        ("tests/test_core.py//test_compute", 2),
    ]
    assert [t["key"] for t in helper["tests"]["results"]] == [
        "tests/test_core.py//test_compute",
        "tests/test_core.py//test_helper",
    ]
    # the removal and the rename break the calls of the old names, which the graph holds unresolved
    gone = symbols["app/core.py//gone"]
    assert gone["inGraph"] is False and "impact" not in gone
    assert [(u["key"], u["site"]["path"]) for u in gone["stillCalled"]["results"]] == [
        ("app/cli.py//main", "app/cli.py")
    ]
    assert (
        symbols["app/core.py//new_name"]["stillCalled"]["results"][0]["reason"]
        == "computed-name: old_name(2)"
    )
    assert symbols["app/core.py//added"]["impact"]["total"] == 0
    assert symbols["app/core.py//added"]["tests"]["total"] == 0


def test_staged_changes_alone(repo: Path) -> None:
    (repo / "app" / "core.py").write_text(CORE.replace("a * 2", "a * 2 + 0"), encoding="utf-8")
    git(repo, "add", "app/core.py")
    (repo / "app" / "cli.py").write_text(CLI_PY.replace("print(", "print('x', "), encoding="utf-8")
    staged = changes(repo, "--staged")
    assert staged["side"] == "index"
    assert [(s["key"], s["change"]) for s in staged["symbols"]] == [("app/core.py//helper", "body-changed")]
    both = changes(repo)
    assert [(s["key"], s["change"]) for s in both["symbols"]] == [
        ("app/cli.py//main", "body-changed"),
        ("app/core.py//helper", "body-changed"),
    ]


def test_a_function_moved_in_the_last_commit_is_moved_against_the_commit_before(repo: Path) -> None:
    core = repo / "app" / "core.py"
    core.write_text(CORE.replace("def helper(a):\n    return a * 2\n\n\n", ""), encoding="utf-8")
    (repo / "app" / "helpers.py").write_text("def helper(a):\n    return a * 2\n", encoding="utf-8")
    core.write_text(
        "from app.helpers import helper\n\n\n" + core.read_text(encoding="utf-8"), encoding="utf-8"
    )
    commit(repo, "move helper")
    assert changes(repo)["symbols"] == []  # nothing changed since that commit
    answer = changes(repo, "--base", "HEAD~1")
    moved = by_key(answer)["app/helpers.py//helper"]
    assert (moved["change"], moved["from"]) == ("moved", "app/core.py//helper")
    assert "app/core.py//helper" not in by_key(answer)  # not also removed
    assert [i["key"] for i in moved["impact"]["impacted"] if i["depth"] == 1] == [
        "app/core.py//compute",
        "tests/test_core.py//test_helper",
    ]
    # the import line added at the top of core.py is a module-level change
    assert by_key(answer)["app/core.py"]["change"] == "body-changed"


def test_a_renamed_file_moves_its_functions(repo: Path) -> None:
    git(repo, "mv", "app/core.py", "app/engine.py")
    answer = changes(repo, "--staged")
    assert {(s["key"], s["change"], s["from"]) for s in answer["symbols"]} == {
        (f"app/engine.py//{name}", "moved", f"app/core.py//{name}")
        for name in ("compute", "helper", "gone", "old_name")
    }


def test_the_text_answer(repo: Path) -> None:
    (repo / "app" / "core.py").write_text(CHANGED_CORE, encoding="utf-8")
    result = CliRunner().invoke(main, ["changes", "--project", str(repo)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        lines[0]
        == "working tree against HEAD: 1 added, 1 removed, 1 body-changed, 1 signature-changed, 1 renamed"
    )
    assert "  renamed  app/core.py//new_name (from app/core.py//old_name)  app/core.py:10" in lines
    assert "    signature: def compute(a)  ->  def compute(a, b=0)" in lines
    assert "      test  tests/test_core.py//test_compute" in lines


def test_bad_input_is_a_clear_error(tmp_path: Path, repo: Path) -> None:
    plain = tmp_path / "plain"
    write_tree(plain, {"a.py": "def f():\n    return 1\n"})
    result = CliRunner().invoke(main, ["changes", "--project", str(plain)])
    assert result.exit_code == 2
    assert "not in a git work tree" in result.output or "not a git repository" in result.output
    result = CliRunner().invoke(main, ["changes", "--base", "no-such-ref", "--project", str(repo)])
    assert result.exit_code == 2 and "no-such-ref" in result.output


def test_the_mcp_tool_answers_as_the_cli(repo: Path) -> None:
    from test_mcp import call, converse, without_checks

    (repo / "app" / "core.py").write_text(CHANGED_CORE, encoding="utf-8")
    expected = changes(repo)  # indexes the working tree, which the server then reads

    async def conversation(client: Any) -> None:
        answer = await call(client, "code_changes", {})
        assert without_checks(answer) == expected
        assert all(s["stale"] is False for s in answer["symbols"])
        refused = await client.call_tool("code_changes", {"base": "no-such-ref"})
        assert refused.is_error and "no-such-ref" in refused.content[0].text

    converse("stdio", repo, conversation)
