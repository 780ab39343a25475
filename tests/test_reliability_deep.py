"""Deep nesting (issue 24, finding 4): a file nested past the depth budget is ``truncated`` with the
reason, its deep part left out and the rest of it indexed; real code is never cut. The times are in
``bench/deep_nesting.py`` (never a timed test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.config import ProjectConfig
from projectgraph.indexer import MAX_DEPTH, IndexOptions, run_index

OPTIONS = IndexOptions(workers=1, config=ProjectConfig())


def nested_calls(depth: int) -> str:
    return "f(" * depth + ")" * depth


CASES = {
    "app.py": "def before():\n    pass\n\nx = " + nested_calls(3000) + "\n\ndef after():\n    before()\n",
    "app.js": "function before() {}\nconst x = "
    + "[" * 3000
    + "]" * 3000
    + ";\nfunction after() { before(); }\n",
    "main.go": "package main\n\nfunc before() {}\n\nfunc main() {\n\tx := "
    + nested_calls(3000)
    + "\n\t_ = x\n}\n\nfunc after() { before() }\n",
    "app.ts": "function before(): void {}\nconst x = "
    + nested_calls(3000)
    + ";\nfunction after(): void { before(); }\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_file_nested_past_the_budget_is_truncated_and_the_rest_indexed(tmp_path: Path, name: str) -> None:
    root = write_tree(tmp_path / "p", {name: CASES[name]})
    result = run_index(root, OPTIONS)
    (status,) = result.statuses
    assert status.status == "truncated"
    assert status.reason.startswith(f"nesting deeper than {MAX_DEPTH} levels: left out of the index at line")
    assert "deep-nesting" in status.flags
    (index,) = result.indexes
    names = {d.name for d in index.definitions}
    assert {"before", "after"} <= names  # the code around the deep part is indexed
    lines = CASES[name].splitlines()
    after = next(d for d in index.definitions if d.name == "after")
    assert after.line == next(n for n, line in enumerate(lines, 1) if "after" in line)
    assert any(c.callee.endswith("before") for c in index.calls)  # lines and calls as in the file
    summary = result.summary()
    assert summary["problems"] == [{"path": name, "status": "truncated", "reason": status.reason}]


def test_nesting_within_the_budget_is_indexed_whole(tmp_path: Path) -> None:
    # 60 nested calls: deeper than any file of a venv and Debian's node_modules (63 tree levels)
    root = write_tree(tmp_path / "p", {"app.py": "x = " + nested_calls(60) + "\n"})
    result = run_index(root, OPTIONS)
    assert [s.status for s in result.statuses] == ["indexed"]
    assert len(result.indexes[0].calls) == 60


def test_many_nests_within_the_depth_budget_are_cut_at_the_deep_level(tmp_path: Path) -> None:
    # each nest is within MAX_DEPTH, but together they hold more deep nodes than the budget
    text = ("x = " + nested_calls(100) + "\n") * 100
    root = write_tree(tmp_path / "p", {"app.py": text})
    result = run_index(root, OPTIONS)
    (status,) = result.statuses
    assert status.status == "truncated"
    assert (
        "lines" not in status.reason and "line 1, line 2" in status.reason and "and 95 more" in status.reason
    )
    calls = result.indexes[0].calls
    assert 0 < len(calls) < 100 * 100
    assert {c.line for c in calls} == set(range(1, 101))  # each line keeps its outer calls
