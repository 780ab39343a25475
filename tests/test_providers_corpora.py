"""The agreement tables of the README on real packages from the registries (slow: pytest -m slow).

rich 13.9.4 (PyPI, 78 Python files) against pycg and crg; rxjs 7.8.1's ``src`` (npm, 251 TypeScript
files) against crg. The floors are below the measured figures (README, External providers), so a
change that moves an engine's agreement by more than noise fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from projectgraph.providers.compare import compare
from projectgraph.store.sqlite import SqliteStore

pytestmark = pytest.mark.slow
CRG_PYTHON = os.environ.get("PROJECTGRAPH_CRG_PYTHON") or str(
    Path(__file__).parent.parent / ".venv-crg/bin/python"
)


def rich_corpus(tmp_path: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp_path), "rich==13.9.4"],
        check=True,
    )
    root = tmp_path / "rich-13.9.4"
    with zipfile.ZipFile(tmp_path / "rich-13.9.4-py3-none-any.whl") as wheel:
        wheel.extractall(tmp_path / "wheel")
    root.mkdir()
    shutil.copytree(tmp_path / "wheel" / "rich", root / "rich")
    return root


def rxjs_corpus(tmp_path: Path) -> Path:
    if shutil.which("npm") is None:
        pytest.skip("no npm")
    subprocess.run(["npm", "pack", "rxjs@7.8.1", "--silent"], cwd=tmp_path, check=True, capture_output=True)
    with tarfile.open(tmp_path / "rxjs-7.8.1.tgz") as archive:
        archive.extractall(tmp_path / "pack", filter="data")
    root = tmp_path / "rxjs-7.8.1"
    root.mkdir()
    shutil.copytree(tmp_path / "pack" / "package" / "src", root / "src")
    shutil.copy(tmp_path / "pack" / "package" / "package.json", root / "package.json")
    return root


def table_of(root: Path, other: str) -> dict[str, dict[str, object]]:
    store = SqliteStore(root / ".projectgraph" / "graph.db")
    try:
        table = compare(root, ("reference", other), store.connection, allow_unverified=True)
    finally:
        store.close()
    rows: dict[str, dict[str, object]] = {r["relation"]: r for r in table["edges"]}
    rows |= {f"nodes:{r['kind']}": r for r in table["nodes"]}
    rows["files"] = table["files"]
    return rows


def need_crg(monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.access(CRG_PYTHON, os.X_OK):
        pytest.skip("no code-review-graph environment: make crg-env")
    monkeypatch.setenv("PROJECTGRAPH_CRG_PYTHON", CRG_PYTHON)


def test_rich_reference_and_crg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need_crg(monkeypatch)
    rows = table_of(rich_corpus(tmp_path), "crg")
    assert rows["files"] == {"reference": 78, "crg": 78, "common": 78}
    assert rows["nodes:all"]["jaccard"] == 1.0
    assert rows["contains"]["jaccard"] >= 0.85  # type: ignore[operator]
    assert rows["imports"]["jaccard"] >= 0.8  # type: ignore[operator]
    assert rows["calls"]["jaccard"] >= 0.45  # type: ignore[operator]
    assert rows["extends"]["crg"] == 0  # crg names every base class by its bare name


def test_rich_reference_and_pycg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("PyCG", reason="the pycg extra is not installed")
    monkeypatch.setenv("PROJECTGRAPH_PYCG_MAX_ITER", "2")  # its fixpoint runs past 30 min here
    rows = table_of(rich_corpus(tmp_path), "pycg")
    assert rows["files"]["common"] == 78  # type: ignore[index]
    assert rows["nodes:all"]["jaccard"] >= 0.99  # type: ignore[operator]
    assert rows["contains"]["jaccard"] >= 0.99  # type: ignore[operator]
    assert rows["calls"]["jaccard"] >= 0.45  # type: ignore[operator]


def test_rxjs_reference_and_crg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need_crg(monkeypatch)
    rows = table_of(rxjs_corpus(tmp_path), "crg")
    assert rows["files"]["common"] == 252  # type: ignore[index]
    assert rows["nodes:all"]["jaccard"] >= 0.9  # type: ignore[operator]
    assert rows["imports"]["jaccard"] >= 0.7  # type: ignore[operator]  # re-exports: crg has none
    assert rows["contains"]["jaccard"] >= 0.7  # type: ignore[operator]
    assert rows["calls"]["jaccard_confident"] >= 0.5  # type: ignore[operator]
