"""Every gold fixture of every language, run the same way (tests/fixtures/README.md says how).

One test per case and check that has something to check: a case with no expectation fails its
``well_formed`` check, and a check with nothing to check is not generated, so no test passes
having checked nothing. Each case's graph is built once (``fixture_cases.case_run``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fixture_cases as fc

README = Path(__file__).parent.parent / "README.md"

CASES = fc.discover()
PARAMS = [
    pytest.param(case, check, id=f"{case.id}:{check}") for case in CASES for check in fc.checks_of(case)
]


@pytest.mark.parametrize(("case", "check"), PARAMS)
def test_fixture(case: fc.Case, check: str) -> None:
    problems = fc.run_check(case, check)
    assert problems == [], f"{case.id} ({check}):\n  " + "\n  ".join(problems)


def test_every_language_folder_holds_cases() -> None:
    """A folder under a language's fixtures without expected.json is a case that never runs."""
    for case_language in {c.language for c in CASES}:
        for folder in sorted((fc.FIXTURES / case_language).iterdir()):
            if folder.is_dir():
                assert (folder / "expected.json").is_file(), f"{folder}: no expected.json"


@pytest.mark.parametrize(
    ("language", "floor"),
    [("python", 0.98), ("javascript", 0.98), ("typescript", 0.98), ("go", 0.9), ("rust", 0.9), ("java", 0.9)],
)
def test_precision_and_recall_per_language(language: str, floor: float) -> None:
    """Known gaps count here as misses: the per-case tests let them pass, the totals do not."""
    tp = fp = fn = 0
    for case in (c for c in CASES if c.language == language):
        hits, extra, missing = fc.scores(case)
        tp, fp, fn = tp + len(hits), fp + len(extra), fn + len(missing)
    assert tp, f"{language}: no gold edge in any fixture"
    precision, recall = fc.precision_recall(tp, fp, fn)
    assert precision >= floor and recall >= 0.9, (language, precision, recall)


def test_the_readme_holds_the_current_scores() -> None:
    text = README.read_text(encoding="utf-8")
    assert fc.readme_with_scores(text) == text, "README.md's scores table is stale: run `make scores`"
