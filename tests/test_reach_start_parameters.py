"""A call of a parameter in a search's start is uncertain: the start's callers are not in the graph.

A call of a parameter (``cb(1)``) is answered by the arguments its function's callers pass: reach
walks the reference edges from those callers to the values they pass, so the site itself is not an
uncertainty (it is "covered"). A start of the search (a ``--source``, or a root) has callers the
graph does not hold, so what its parameters hold is unknown: ``reach logging//error --source
run`` answered not-found for ``def run(cb): cb(1)``, although ``run(logging.error)`` from any caller
calls it (a false not-found, in every language with covered sites). A function entered by a call
from the search keeps the precise answer (its parameter holds what the search's callers pass).
Each case runs the real CLI on real parses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = Path(sys.executable).with_name("projectgraph")
ENV = {**os.environ, "PROJECTGRAPH_NO_DAEMON": "1"}

PYTHON = """\
import logging


def run(cb):
    cb(1)


def relay(cb):
    cb(2)


def shout(cb):
    cb(3)


def quiet(x):
    return x


def calm():
    relay(quiet)


def loud():
    shout(logging.error)
"""

JAVASCRIPT = """\
function run(cb) { cb(1) }
function relay(cb) { cb(2) }
function shout(cb) { cb(3) }
function quiet(x) { return x }
function calm() { relay(quiet) }
function loud() { shout(console.error) }
module.exports = { run, calm, loud }
"""


def _reach(root: Path, target: str, source: str) -> dict[str, object]:
    run = subprocess.run(
        [str(CLI), "reach", target, "--source", source, "--sources-only", "--project", str(root), "--json"],
        capture_output=True,
        text=True,
        check=False,
        env=ENV,
    )
    [answer] = json.loads(run.stdout)["results"]
    assert run.returncode == {"not-found": 1, "uncertain": 3}.get(answer["status"], 0), run.stderr
    return answer  # type: ignore[no-any-return]


@pytest.fixture(scope="module", params=["python", "javascript"])
def project(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp(request.param)
    if request.param == "python":
        (root / "mod.py").write_text(PYTHON, encoding="utf-8")
        target, prefix = "logging//error", "mod.py"
    else:
        (root / "package.json").write_text('{"name": "starts", "version": "1.0.0"}\n', encoding="utf-8")
        (root / "index.js").write_text(JAVASCRIPT, encoding="utf-8")
        target, prefix = "console//error", "index.js"
    run = subprocess.run([str(CLI), "index", str(root)], capture_output=True, text=True, check=False, env=ENV)
    assert run.returncode == 0, run.stderr
    return root, target, prefix


def test_a_start_that_calls_its_parameter_is_uncertain(project: tuple[Path, str, str]) -> None:
    root, target, prefix = project
    answer = _reach(root, target, f"{prefix}:run")
    assert answer["status"] == "uncertain", answer
    assert "computed-name: cb(1)" in json.dumps(answer)


def test_a_parameter_call_entered_from_the_search_is_answered_by_its_arguments(
    project: tuple[Path, str, str],
) -> None:
    root, target, prefix = project
    assert _reach(root, target, f"{prefix}:calm")["status"] == "not-found"  # relay(quiet)
    assert _reach(root, target, f"{prefix}:loud")["status"] == "found"  # shout(<the target>)
