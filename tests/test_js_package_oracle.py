"""The JavaScript runtime oracle on real npm packages' own test suites (``bench/js_oracle_packages.py``):
every first-party call the tests execute is a graph edge or a place where reach says found or
uncertain, never not-found, and every function that ran is found or uncertain from the roots.

Slow (the packages come from the npm registry, their test suites run under the inspector):
``pytest -m slow tests/test_js_package_oracle.py``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from js_oracle_packages import PACKAGES, measure, prepare

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="no Node.js/npm"),
]

# the share of executed first-party call edges that are graph calls edges, as measured (README)
FLOORS = {"qs": 0.78, "events": 0.85}


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_package_tests_calls_are_known(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    package = PACKAGES[name]
    folder = prepare(package, tmp_path_factory.mktemp("npm"))
    result = measure(package, folder)
    assert result.executed > 20, "the tests ran few first-party calls: the tracer saw nothing"
    assert result.problems == 0
    assert list(result.silent) == [], "executed calls reach answers not-found for"
    assert list(result.unreached) == [], "functions that ran and reach from the roots does not find"
    assert result.called / result.executed >= FLOORS[name]
