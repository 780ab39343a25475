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

let trace
trace = (typeof process === 'object' && process.env.TRACE) ? (...a) => console.error(...a) : () => {}
var log
const [low, high] = pickPair()()
const { warn, info = console.error, ...rest } = pickLogger()
const [plain] = makePair()
let later
;[later] = pickPair()()

function pickPair() { return () => [console.error, console.warn] }
function pickLogger() { return console }
function makePair() { return [console.log, console.warn] }

function traced(x) { trace('traced', x); return x }
function logged(x) { log(x); return x }
function lowest(x) { low(x); return x }
function defaulted(x) { info(x); return x }
function rested(x) { rest.error(x); return x }
function reassigned(x) { later(x); return x }
function followed(x) { plain(x); return x }
function caught() { try { risky() } catch (fail) { fail(1) } }
function looped() { for (const h of noHandlers()) h(1) }
function noHandlers() { return [] }
function indexed(...fns) { fns[0](1) }

module.exports = {
  newer, first, quiet, traced, logged, lowest, defaulted, rested, reassigned, followed,
  caught, looped, indexed
}
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


@pytest.mark.parametrize(
    ("source", "site"),
    [
        ("traced", "trace('traced', x)"),  # `let trace` then `trace = cond ? f : g`
        ("logged", "log(x)"),  # `var log` with no value
        ("lowest", "low(x)"),  # an array pattern from a value the index does not follow
        ("defaulted", "info(x)"),  # an object pattern's default
        ("reassigned", "later(x)"),  # `[later] = ...`: a destructuring assignment
        ("caught", "fail(1)"),  # a catch clause's parameter: the thrown value
        ("looped", "h(1)"),  # for-of over a value the index does not follow
        ("indexed", "fns[0](1)"),  # an array element: no definition is named "0"
    ],
)
def test_a_name_declared_or_destructured_without_a_followed_value_is_uncertain(
    project: Path, source: str, site: str
) -> None:
    answer = _reach(project, "console//error", f"index.js:{source}")
    assert answer["status"] == "uncertain", answer
    assert f"computed-name: {site}" in json.dumps(answer)


def test_the_rest_of_an_object_pattern_is_an_unknown_receiver(project: Path) -> None:
    answer = _reach(project, "console//error", "index.js:rested")
    assert answer["status"] == "uncertain", answer


def test_a_destructured_value_the_index_follows_keeps_its_edge(project: Path) -> None:
    """`const [plain] = makePair()` is followed to console.log: an edge, and console.error stays
    not-found (the rule does not turn every destructured name into an unknown)."""
    run = subprocess.run(
        [str(CLI), "callees", "index.js:followed", "--project", str(project), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [r["key"] for r in json.loads(run.stdout)["results"]] == ["console//log"]
    assert _reach(project, "console//error", "index.js:followed")["status"] == "not-found"
