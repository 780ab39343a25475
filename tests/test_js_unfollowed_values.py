"""A JavaScript name bound to a value the index does not follow is no undeclared global.

semver's ``const debug = cond ? (...args) => console.error(...args) : () => {}``: the index records
no value for an operator expression, so ``debug(...)`` used to be a ``no-definition`` site, which
reach scopes to targets named ``debug``, and ``console//error`` from a function that calls
``debug`` was answered not-found although it runs when ``NODE_DEBUG`` is set: a false not-found.
The declarator now records that the name holds an expression the index does not follow, and the
call is a ``computed-name`` site (it may call anything). Each case runs the real CLI on real parses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = Path(sys.executable).with_name("projectgraph")

SOURCE = """\
const debug = (typeof process === 'object' && process.env.NODE_DEBUG)
  ? (...args) => console.error('SEMVER', ...args)
  : () => {}
const pick = process.env.FAST || slowPick

function slowPick(xs) { return xs[0] }

function newer(a, b) {
  debug('compare', a, b)
  return a > b
}

function first(xs) {
  return pick(xs)
}

function quiet(a) {
  return a + 1
}

module.exports = { newer, first, quiet }
"""


def _reach(root: Path, target: str, source: str) -> dict[str, object]:
    run = subprocess.run(
        [str(CLI), "reach", target, "--source", source, "--sources-only", "--project", str(root), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    [answer] = json.loads(run.stdout)["results"]
    # the exit code says the answer too: 1 not found, 3 uncertain
    assert run.returncode == {"not-found": 1, "uncertain": 3}.get(answer["status"], 0), run.stderr
    return answer  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("semverish")
    (root / "package.json").write_text('{"name": "semverish", "version": "1.0.0"}\n', encoding="utf-8")
    (root / "index.js").write_text(SOURCE, encoding="utf-8")
    run = subprocess.run([str(CLI), "index", str(root)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return root


def test_a_call_of_a_conditionally_bound_name_is_uncertain_not_not_found(project: Path) -> None:
    answer = _reach(project, "console//error", "index.js:newer")
    assert answer["status"] == "uncertain", answer
    assert "computed-name: debug('compare', a, b)" in json.dumps(answer)


def test_a_name_bound_by_an_or_expression_is_uncertain_too(project: Path) -> None:
    answer = _reach(project, "console//error", "index.js:first")
    assert answer["status"] == "uncertain", answer


def test_a_function_that_calls_nothing_still_answers_not_found(project: Path) -> None:
    answer = _reach(project, "console//error", "index.js:quiet")
    assert answer["status"] == "not-found", answer
