"""The fixture harness itself (``fixture_cases``), on temporary fixtures: it fails where it must."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fixture_cases as fc

MAIN = "def helper():\n    return 1\n\n\ndef main():\n    helper()\n\n\nmain()\n"


def make_case(root: Path, expected: dict[str, Any] | None, source: str = MAIN, name: str = "case") -> fc.Case:
    folder = root / "python" / name
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(source, encoding="utf-8")
    (folder / "README.md").write_text("A call from main to helper.\n", encoding="utf-8")
    if expected is not None:
        (folder / "expected.json").write_text(json.dumps(expected), encoding="utf-8")
    return fc.load_case(folder)


def test_a_right_expectation_passes_every_check(tmp_path: Path) -> None:
    case = make_case(
        tmp_path,
        {
            "calls": [
                ["main.py", "main.py//main"],
                {
                    "caller": "main.py//main",
                    "callee": "main.py//helper",
                    "kind": "direct",
                    "confidence": "high",
                },
            ],
            "reach": [{"target": "main.py//helper", "status": "found"}],
            "complete": ["calls"],
        },
    )
    checks = fc.checks_of(case)
    assert checks == ["well_formed", "calls", "reach", "precision"]
    assert {check: fc.run_check(case, check) for check in checks} == {check: [] for check in checks}


def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"calls": [["main.py//main", "main.py//other"]]})
    assert fc.run_check(case, "calls") == ["calls: the graph misses ('main.py//main', 'main.py//other')"]
    wrong_kind = make_case(
        tmp_path,
        {"calls": [{"caller": "main.py//main", "callee": "main.py//helper", "kind": "name"}]},
        name="kind",
    )
    assert fc.run_check(wrong_kind, "calls") == [
        "calls: ('main.py//main', 'main.py//helper') is of kind ['direct'], not 'name'"
    ]
    wrong_reach = make_case(
        tmp_path, {"reach": [{"target": "main.py//helper", "status": "not-found"}]}, name="r"
    )
    assert fc.run_check(wrong_reach, "reach") == [
        "reach from the roots: main.py//helper is 'found', not 'not-found'"
    ]


def test_an_edge_the_gold_lacks_fails_when_calls_is_complete(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"calls": [["main.py", "main.py//main"]], "complete": ["calls"]})
    assert fc.run_check(case, "precision") == [
        "calls: the graph has ('main.py//main', 'main.py//helper'), which the program never makes"
    ]


def test_a_known_gap_the_graph_no_longer_has_fails(tmp_path: Path) -> None:
    case = make_case(
        tmp_path,
        {
            "calls": [["main.py//main", "main.py//helper"]],
            "known_gaps": [
                {
                    "caller": "main.py//main",
                    "callee": "main.py//helper",
                    "gap": "missing",
                    "reason": "was once",
                }
            ],
        },
    )
    assert fc.run_check(case, "calls") == [
        "known_gaps: the graph now has ('main.py//main', 'main.py//helper'): remove the gap"
    ]


def test_a_fixture_with_no_expectation_fails(tmp_path: Path) -> None:
    empty = make_case(tmp_path, {"calls": [], "reach": []})
    assert fc.checks_of(empty) == ["well_formed"]  # no check that would pass having checked nothing
    assert fc.run_check(empty, "well_formed") == [
        "no expectation: expected.json lists nothing and no source line has a mark"
    ]
    missing = make_case(tmp_path, None, name="missing")
    assert "no expected.json" in fc.run_check(missing, "well_formed")
    broken = make_case(tmp_path, None, name="broken")
    (broken.folder / "expected.json").write_text('{"calls": [', encoding="utf-8")
    problems = fc.run_check(fc.load_case(broken.folder), "well_formed")
    assert problems[0].startswith("expected.json is not readable JSON: "), problems


def test_an_expectation_off_the_schema_fails(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"calls": [["main.py//main"]], "callers": []})
    problems = fc.run_check(case, "well_formed")
    assert any(p.startswith("expected.json: calls/0:") for p in problems), problems
    assert any("'callers' was unexpected" in p for p in problems), problems


def test_a_mark_naming_a_callee_the_graph_lacks_fails_with_its_file_and_line(tmp_path: Path) -> None:
    source = MAIN.replace("    helper()\n", "    helper()  # <- calls: helper, nothere\n")
    case = make_case(tmp_path, {}, source=source)
    assert fc.checks_of(case) == ["well_formed", "marks"]
    assert fc.run_check(case, "well_formed") == []
    assert fc.run_check(case, "marks") == [
        f"{case.folder / 'main.py'}:6: the mark says it calls 'nothere'; the graph's calls from this "
        "line go to ['main.py//helper']"
    ]


def test_a_mark_holds_when_lines_are_added_above_it(tmp_path: Path) -> None:
    marked = MAIN.replace("    helper()\n", "    helper()  # <- calls: helper\n")
    first = make_case(tmp_path, {}, source=marked)
    moved = make_case(tmp_path, {}, source="import os\n\n\n" + marked, name="moved")
    assert [m.line for m in first.marks] == [6] and [m.line for m in moved.marks] == [9]
    assert fc.run_check(first, "marks") == [] and fc.run_check(moved, "marks") == []


def test_marks_in_c_family_and_unresolved_marks(tmp_path: Path) -> None:
    folder = tmp_path / "javascript" / "case"
    folder.mkdir(parents=True)
    (folder / "main.js").write_text(
        "function helper() { return 1; }\nfunction main(t) {\n  helper(); // <- calls: helper\n"
        "  t[k](); // <- unresolved: computed-name\n}\nmain({});\n",
        encoding="utf-8",
    )
    (folder / "README.md").write_text("A C-family mark.\n", encoding="utf-8")
    (folder / "expected.json").write_text("{}", encoding="utf-8")
    case = fc.load_case(folder)
    assert [(m.line, m.what, m.name) for m in case.marks] == [
        (3, "calls", "helper"),
        (4, "unresolved", "computed-name"),
    ]
    assert fc.run_check(case, "marks") == []


def test_reach_from_a_source_and_not_calls(tmp_path: Path) -> None:
    case = make_case(
        tmp_path,
        {
            "reach": [
                {"target": "main.py//main", "source": "main.py//helper", "status": "not-found"},
                {"target": "main.py//helper", "source": "main.py//main", "status": "not-found"},
            ],
            "not_calls": [["main.py//main", "main.py//helper"], ["main.py//helper", "main.py//main"]],
        },
    )
    assert fc.checks_of(case) == ["well_formed", "not_calls", "reach"]
    assert fc.run_check(case, "reach") == [
        "reach from main.py//main: main.py//helper is 'found', not 'not-found'"
    ]
    assert fc.run_check(case, "not_calls") == [
        "not_calls: the graph has ('main.py//main', 'main.py//helper')"
    ]
