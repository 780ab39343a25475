"""Frameworks on a real Django app from PyPI (issue 21), slow: django-registration 5.2.1's sdist.

Its URLconfs hand class-based views to Django: the graph must have their handler methods as
``django-view`` edges from the URL modules (bench/framework_bench.py counts them on four apps and
keeps a spot check of 30). Its own test suite, run offline by Django's test runner under the runtime
oracle of bench/python_runtime_oracle.py (Django 5.1's source and its pure-Python dependencies on the
path, fetched by pip), executes first-party call edges, nearly all of which the graph has.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

from projectgraph.graph import FRAMEWORK_KINDS

pytestmark = pytest.mark.slow
BENCH = Path(__file__).resolve().parent.parent / "bench"
DEPS = ("Django==5.1", "asgiref==3.13.0", "sqlparse==0.6.1", "confusable-homoglyphs==3.3.1")


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def registration(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bench = _load("framework_bench")
    try:
        root = bench.fetch("django-registration", "5.2.1")
    except subprocess.CalledProcessError:
        pytest.skip("pip could not fetch django-registration 5.2.1")
    copy = tmp_path_factory.mktemp("corpus") / root.name
    shutil.copytree(root, copy)
    return Path(copy)


def test_class_based_views_are_framework_edges_from_the_urlconfs(registration: Path) -> None:
    graph = _load("framework_bench").graph_of(registration)
    found = [e for e in graph.edges if e.kind in FRAMEWORK_KINDS]
    assert len(found) >= 25
    assert {e.kind for e in found} == {"django-view"}
    assert all(e.caller.endswith("urls.py") or "/urls/" in e.caller for e in found)
    targets = {e.callee.rpartition("//")[2] for e in found}
    assert {"dispatch", "form_valid", "get_success_url"} <= targets


def test_its_own_tests_run_offline_and_the_graph_has_their_edges(registration: Path) -> None:
    deps = Path(tempfile.mkdtemp(prefix="framework-deps-"))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(deps), *DEPS],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"pip could not fetch Django and its dependencies: {done.stderr[-300:]}")
        out = registration.parent / "oracle.json"
        result = subprocess.run(
            [
                sys.executable,
                str(BENCH / "python_runtime_oracle.py"),
                "--json",
                str(out),
                "--path",
                str(deps),
                "--django",
                "test_settings:tests",
                str(registration),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        )
        assert "django: 0 failed" in result.stderr, result.stderr[-2000:]
        report = json.loads(out.read_text(encoding="utf-8"))[registration.name]
        counts = report["counts"]
        executed = sum(counts.values())
        assert executed >= 80
        assert counts["edge"] / executed >= 0.9
        assert counts["silent"] <= 3
        assert report["entered"]["framework"], "Django entered views the graph has as framework edges"
    finally:
        shutil.rmtree(deps, ignore_errors=True)
