"""The shipped adapters: each answers unavailable with its install hint when its engine is missing,
and runs its real engine when it is there (pycg is in the dev extra; crg needs ``make crg-env``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import projectgraph
from projectgraph.providers import build as builds
from projectgraph.providers.compare import compare
from projectgraph.providers.conformance import FIXTURES, conform
from projectgraph.providers.host import exchange
from projectgraph.store.sqlite import SqliteStore

CRG_PYTHON = os.environ.get("PROJECTGRAPH_CRG_PYTHON") or str(
    Path(__file__).parent.parent / ".venv-crg/bin/python"
)


def capabilities_without_site(adapter: str, env: dict[str, str]) -> dict[str, object]:
    """The adapter's capabilities answer, its script run by a Python that sees no site-packages (-S)."""
    command = [
        sys.executable,
        "-S",
        str(Path(projectgraph.__file__).parent / "providers" / adapter / "adapter.py"),
    ]
    answer = exchange(command, {"projectgraph": "1", "op": "capabilities"}, timeout=60, env=env)
    assert isinstance(answer.data, dict)
    return answer.data


def test_pycg_without_its_engine_is_unavailable_with_the_install_hint() -> None:
    data = capabilities_without_site("pycg", {"PATH": os.defpath})
    assert data["unavailable"] == "PyCG is not installed: pip install 'projectgraph[pycg]' (pycg==0.0.8)"
    assert data["languages"] == ["python"]


def test_crg_without_its_engine_is_unavailable_with_the_install_hint() -> None:
    data = capabilities_without_site("crg", {"PATH": os.defpath})
    assert str(data["unavailable"]).startswith(
        "code-review-graph is not installed: install code-review-graph==2.3.9"
    )
    assert "PROJECTGRAPH_CRG_PYTHON" in str(data["unavailable"])


def test_an_unavailable_engine_refuses_the_build_before_a_run(tmp_path: Path) -> None:
    env = {"PATH": os.defpath, "PROJECTGRAPH_CRG_PYTHON": str(tmp_path / "no-python")}
    store = SqliteStore(tmp_path / "graph.db")
    try:
        with pytest.raises(builds.BuildRefused) as caught:
            builds.build(tmp_path, "crg", store.connection, allow_unverified=True, environ=env)
    finally:
        store.close()
    assert caught.value.code == "provider_unavailable"
    assert "code-review-graph is not installed" in caught.value.message


def test_pycg_conforms_for_python_and_compares_with_the_reference(tmp_path: Path) -> None:
    pytest.importorskip("PyCG", reason="the pycg extra is not installed")
    result = conform(tmp_path, "pycg")
    rows = {r["language"]: r for r in result["fixtures"]}
    assert rows["python"]["passed"] is True, rows["python"]
    assert [lang for lang, r in rows.items() if not r["passed"]] == ["go", "java", "rust", "typescript"]
    project = tmp_path / "shop"
    shutil.copytree(FIXTURES / "python", project)
    store = SqliteStore(tmp_path / "graph.db")
    try:
        table = compare(project, ("reference", "pycg"), store.connection, allow_unverified=True)
    finally:
        store.close()
    calls = next(r for r in table["edges"] if r["relation"] == "calls")
    # the fixture's four first-party calls, which both engines resolve; PyCG also names the
    # constructor call Square(2) as a call of Square.__init__, the reference as a reference
    assert calls["both"] >= 4 and calls["jaccard"] is not None and calls["jaccard"] >= 0.8, calls
    assert table["files"]["common"] == 3


@pytest.mark.slow
def test_crg_runs_its_real_engine_over_the_fixtures(tmp_path: Path) -> None:
    if not os.access(CRG_PYTHON, os.X_OK):
        pytest.skip("no code-review-graph environment: make crg-env")
    env = dict(os.environ, PROJECTGRAPH_CRG_PYTHON=CRG_PYTHON)
    result = conform(tmp_path, "crg", env)
    rows = {r["language"]: r for r in result["fixtures"]}
    assert all(r["node_recall"] == 1.0 for r in rows.values()), rows
    assert rows["python"]["passed"] and rows["rust"]["passed"]
    # code-review-graph names a base class by its bare name and a TypeScript `implements` as INHERITS
    assert "extends shop/shapes.py::Square shop/shapes.py::Shape" in rows["python"]["missing_edges"]
    written = json.loads((tmp_path / ".projectgraph" / "conform-crg.json").read_text())
    assert written["fixtures"] == result["fixtures"]
    done = subprocess.run(
        [sys.executable, "-m", "projectgraph.providers.crg"],
        input=json.dumps({"projectgraph": "1", "op": "capabilities"}).encode(),
        capture_output=True,
        env=env,
        check=True,
    )
    assert "unavailable" not in json.loads(done.stdout)["data"]
