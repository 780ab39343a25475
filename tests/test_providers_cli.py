"""The provider commands end to end: conform, the gate in build, doctor, compare (real processes)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from projectgraph.cli import main
from projectgraph.providers import conformance
from test_providers_host import make_provider, stored


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_conform_writes_the_result_by_language_and_build_refuses_a_failed_language(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    code, out, _err = invoke("providers", "conform", "mine", "--project", str(root), "--json")
    assert code == 1  # the example provider gives no class, no call: no fixture passes
    result = json.loads(out)
    written = json.loads((root / ".projectgraph" / "conform-mine.json").read_text())
    assert written["fixtures"] == result["fixtures"]
    python = next(r for r in result["fixtures"] if r["language"] == "python")
    assert python["passed"] is False
    assert python["node_recall"] == 0.5  # 2 files, 3 top-level functions of 10: no class, no method
    assert "calls shop/main.py::run shop/main.py::total" in python["missing_edges"]
    assert [r["language"] for r in result["fixtures"]] == list(conformance.FIXTURE_LANGUAGES)

    code, out, err = invoke("build", str(root), "--provider", "mine")
    assert (code, out) == (2, "")
    assert err == (
        f"projectgraph: not_conformed: provider 'mine' failed conformance for python, present in {root}; "
        "run: projectgraph providers conform mine\n"
    )
    assert stored(root) == ([], 0, 0)


def test_the_gate_judges_only_the_languages_present(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    folder = root / ".projectgraph"
    folder.mkdir()
    fixtures = [{"language": "python", "passed": True}, {"language": "java", "passed": False}]
    (folder / "conform-mine.json").write_text(json.dumps({"passed": False, "fixtures": fixtures}))
    code, out, err = invoke("build", str(root), "--provider", "mine", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "ok"
    (root / "Main.java").write_text("class Main {}\n")
    code, _out, err = invoke("build", str(root), "--provider", "mine")
    assert code == 2 and "failed conformance for java" in err
    code, _out, err = invoke("build", str(root), "--provider", "mine", "--allow-unverified")
    assert code == 0, err


def test_a_build_with_no_conformance_result_is_refused(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    code, _out, err = invoke("build", str(root), "--provider", "mine")
    assert code == 2
    assert "has no conformance result; run: projectgraph providers conform mine" in err


def test_a_failed_build_exits_4_and_names_the_reason(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "not-ok")
    code, out, _err = invoke("build", str(root), "--provider", "mine", "--allow-unverified")
    assert code == 4
    assert out.splitlines() == [
        "mine: run 1 failed: 0 nodes, 0 edges, None files parsed, 0 progress lines",
        "  provider_unavailable: ok:false answer: engine_crashed: no memory",
    ]


def test_the_reference_passes_its_own_fixtures(tmp_path: Path) -> None:
    code, out, err = invoke("providers", "conform", "reference", "--project", str(tmp_path))
    assert code == 0, out + err
    assert out.splitlines()[-1] == "conformed: go, java, python, rust, typescript; failed: -"


def test_doctor_lists_every_provider_with_its_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_provider(tmp_path / "p", "behaving.py", "unavailable")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    on_path = bin_dir / "projectgraph-provider-onpath"
    on_path.write_text(
        f"#!{sys.executable}\n" + (Path(__file__).parent / "fixtures/providers/defs_provider.py").read_text()
    )
    on_path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    code, out, err = invoke("providers", "doctor", "--project", str(root), "--json")
    assert code == 0, err
    rows = {row["name"]: row for row in json.loads(out)["providers"]}
    assert list(rows)[:1] == ["reference"]
    assert set(rows) >= {"reference", "mine", "onpath", "crg", "pycg"}
    assert rows["mine"]["state"] == "unavailable"
    assert rows["mine"]["reason"] == "the engine is not installed: pip install some-engine"
    assert rows["mine"]["manifest"] == "verified 0.1.0"
    assert rows["onpath"]["source"] == "PATH"
    assert rows["onpath"]["manifest"] == "unverified (no manifest)"
    assert rows["onpath"]["state"] == "available"
    assert rows["onpath"]["capabilities"]["languages"] == ["python"]
    assert rows["onpath"]["conformance"] == "no conformance result"


def test_compare_gives_jaccard_per_relation_over_canonical_names(tmp_path: Path) -> None:
    root = make_provider(tmp_path / "p", "defs_provider.py")
    (root / "b.py").write_text("def g():\n    pass\n\n\nclass C:\n    def m(self):\n        g()\n")
    shutil.rmtree(root / "tools")  # the provider runs from outside the project, so both see two files
    outside = tmp_path / "tools"
    outside.mkdir()
    shutil.copy(Path(__file__).parent / "fixtures/providers/defs_provider.py", outside / "defs_provider.py")
    (root / "projectgraph.toml").write_text(
        f"[providers.mine]\ncommand = {json.dumps([sys.executable, str(outside / 'defs_provider.py')])}\n"
    )
    code, out, err = invoke(
        "compare", str(root), "--providers", "reference,mine", "--allow-unverified", "--json"
    )
    assert code == 0, err
    table = json.loads(out)
    assert table["files"] == {"reference": 2, "mine": 2, "common": 2}
    rows = {row["relation"]: row for row in table["edges"]}
    # reference: a.py contains f, b.py contains g and C, C contains m; mine: only `def` at the line start
    assert rows["contains"] == {
        "relation": "contains",
        "reference": 4,
        "mine": 2,
        "both": 2,
        "jaccard": 0.5,
        "jaccard_confident": 0.5,
        "external": {"reference": 0, "mine": 0},
    }
    assert rows["calls"]["reference"] == 1 and rows["calls"]["mine"] == 0 and rows["calls"]["jaccard"] == 0.0
    assert rows["extends"]["jaccard"] is None  # neither engine has one: not agreement
    nodes = {row["kind"]: row for row in table["nodes"]}
    assert nodes["function"]["jaccard"] == 1.0 and nodes["class"]["mine"] == 0
    code, out, _err = invoke(
        "compare",
        str(root),
        "--providers",
        "reference,mine",
        "--allow-unverified",
        "--diff",
        "contains",
        "--limit",
        "1",
    )
    assert code == 0
    lines = out.splitlines()
    at = lines.index("contains only in reference: 2 (first 1)")
    assert lines[at + 1] == "  b.py -> b.py::C"
    assert lines[at + 2] == "contains only in mine: 0 (first 1)"
