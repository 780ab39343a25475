"""``projectgraph audit``: OSV advisories (``tests/fixtures/audit/advisories``, real vulnerabilities
written in OSV's format) matched to real packages the test setup installs, PyYAML 5.3.1 and idna 3.6
from PyPI (``pip install --no-deps`` into a venv made once per session) and semver 7.5.1 from npm
(``npm ci`` once per session), and answered by reach in the projects of
``tests/fixtures/audit``: called (with the path), imported, required, uncertain (with the causes).
The version rules (OSV ranges, PEP 440, semver) and the advisory and lock readers are checked
on their own first.

The tests with real packages are ``slow`` (``pytest -m slow tests/test_audit.py`` runs them: about
a minute, the first run more while pip builds PyYAML 5.3.1's wheel, which its cache then keeps).
Without PyPI or npm they skip, except where ``PROJECTGRAPH_REQUIRE_PYPI=1`` or
``PROJECTGRAPH_REQUIRE_NPM=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, write_tree
from projectgraph.audit import osv
from projectgraph.audit.inventory import Package, packages
from projectgraph.audit.versions import Range, affects, parse
from test_sarif import assert_valid

CASES = FIXTURES / "audit"
ADVISORIES = CASES / "advisories"
CLI = Path(sys.executable).with_name("projectgraph")


# ---- versions and ranges ----------------------------------------------------------------------


def test_pep440_order() -> None:
    order = [
        "0",
        "1.0.dev1",
        "1.0a1",
        "1.0a2",
        "1.0b1",
        "1.0rc1",
        "1.0",
        "1.0.post1",
        "1.0.1",
        "1.1",
        "2!0.1",
    ]
    parsed = [parse("PyPI", v) for v in order]
    assert parsed == sorted(parsed)
    assert parse("PyPI", "1.0") == parse("PyPI", "1.0.0")
    assert parse("PyPI", "5.3.1") < parse("PyPI", "5.4") < parse("PyPI", "5.10")


def test_semver_order() -> None:
    order = ["0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11"]
    order += ["1.0.0-rc.1", "1.0.0", "1.2.0", "1.10.0", "v2.0.0"]
    parsed = [parse("npm", v) for v in order]
    assert parsed == sorted(parsed)
    assert parse("Go", "v0.7.0") == parse("Go", "0.7.0")
    assert parse("Go", "v0.0.0-20220722155237-a158d28d115b") < parse("Go", "v0.1.0")


@pytest.mark.parametrize(
    ("events", "version", "expected"),
    [
        ([("introduced", "0"), ("fixed", "5.4")], "5.3.1", True),
        ([("introduced", "0"), ("fixed", "5.4")], "5.4", False),
        ([("introduced", "0"), ("fixed", "5.4")], "5.4.1", False),
        ([("introduced", "1.0"), ("fixed", "1.2"), ("introduced", "2.0"), ("fixed", "2.1")], "1.5", False),
        ([("introduced", "1.0"), ("fixed", "1.2"), ("introduced", "2.0"), ("fixed", "2.1")], "2.0.5", True),
        ([("introduced", "1.0"), ("fixed", "1.2"), ("introduced", "2.0"), ("fixed", "2.1")], "0.9", False),
        ([("introduced", "1.0"), ("last_affected", "1.5")], "1.5", True),
        ([("introduced", "1.0"), ("last_affected", "1.5")], "1.5.1", False),
        ([("introduced", "0")], "99", True),
        ([("fixed", "3.7"), ("introduced", "0")], "3.6", True),  # events in any order
        ([("introduced", "1.0"), ("limit", "1.4")], "1.4", False),
    ],
)
def test_osv_range_events(events: list[tuple[str, str]], version: str, expected: bool) -> None:
    assert Range("ECOSYSTEM", tuple(events)).holds("PyPI", version) is expected


def test_listed_versions_semver_ranges_and_git_ranges() -> None:
    listed = affects("PyPI", "5.3.1", (), ("5.3", "5.3.1"))
    assert (listed.affected, listed.unsure) == (True, "")
    semver = Range("SEMVER", (("introduced", "7.0.0"), ("fixed", "7.5.2")))
    assert affects("npm", "7.5.1", (semver,), ()).affected
    assert not affects("npm", "7.5.2", (semver,), ()).affected
    assert not affects("npm", "7.5.2-rc.1", (Range("SEMVER", (("introduced", "7.5.2"),)),), ()).affected
    git = affects("Go", "v1.0.0", (Range("GIT", (("introduced", "abc123"),)),), ())
    assert not git.affected and "GIT range" in git.unsure
    odd = affects("PyPI", "not-a-version", (Range("ECOSYSTEM", (("introduced", "0"),)),), ())
    assert odd.affected and "does not parse" in odd.unsure


# ---- advisories -------------------------------------------------------------------------------


def test_advisories_are_read_from_files_and_folders() -> None:
    read = osv.read([ADVISORIES])
    assert [a.id for a in read] == ["GHSA-c2qf-rxjj-qqgw", "PYSEC-2018-49", "PYSEC-2021-142", "PYSEC-2024-60"]
    pyyaml = next(a for a in read if a.id == "PYSEC-2021-142")
    assert pyyaml.aliases == ("CVE-2020-14343", "GHSA-8q59-q68h-6hv4")
    [entry] = pyyaml.affected
    assert (entry.ecosystem, entry.package) == ("PyPI", "pyyaml")
    assert entry.symbols == ("yaml//full_load", "yaml//full_load_all", "yaml//load", "yaml//load_all")
    [semver] = next(a for a in read if a.id.startswith("GHSA")).affected
    assert semver.symbols == ("semver//Range",)


def test_every_symbol_form(tmp_path: Path) -> None:
    advisories = [
        {
            "id": "GO-2023-0001",
            "affected": [
                {
                    "package": {"ecosystem": "Go", "name": "golang.org/x/net"},
                    "ecosystem_specific": {
                        "imports": [{"path": "golang.org/x/net/html", "symbols": ["Tokenizer.Next", "Parse"]}]
                    },
                }
            ],
        },
        {
            "id": "RUSTSEC-2021-0003",
            "affected": [
                {
                    "package": {"ecosystem": "crates.io", "name": "smallvec"},
                    "ecosystem_specific": {"affects": {"functions": ["smallvec::SmallVec::insert_many"]}},
                }
            ],
        },
        {
            "id": "X-1",
            "affected": [
                {
                    "package": {"ecosystem": "npm", "name": "lodash"},
                    "database_specific": {"affected_functions": ["lodash:template", "lodash//merge"]},
                }
            ],
        },
    ]
    (tmp_path / "all.json").write_text(json.dumps(advisories), encoding="utf-8")
    symbols = {a.id: a.affected[0].symbols for a in osv.read([tmp_path / "all.json"])}
    assert symbols == {
        "GO-2023-0001": ("golang.org//x//net//html//Parse", "golang.org//x//net//html//Tokenizer//Next"),
        "RUSTSEC-2021-0003": ("smallvec//SmallVec//insert_many",),
        "X-1": ("lodash//merge", "lodash//template"),
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ('{"affected": []}', "needs an 'id' string"),
        ('{"id": "A-1", "affected": {}}', "'affected' must be a list"),
        ('{"id": "A-1", "affected": [{"package": {}}]}', "A-1: affected[0]: needs a 'package' with a 'name'"),
        (
            '{"id": "A-1", "affected": [{"package": {"name": "x"}, '
            '"ranges": [{"events": [{"a": 1, "b": 2}]}]}]}',
            "an event is one of",
        ),
    ],
)
def test_a_bad_advisory_file_is_an_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(osv.AdvisoryError) as caught:
        osv.read([path])
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


def test_locks_are_read(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "requirements.txt": (
                "PyYAML==5.3.1  # pinned\nrequests>=2\nidna[all]==3.6 ; python_version > '3'\n"
            ),
            "poetry.lock": '[[package]]\nname = "Jinja2"\nversion = "2.11.2"\n',
            "package-lock.json": json.dumps(
                {
                    "lockfileVersion": 3,
                    "packages": {
                        "": {"name": "app"},
                        "node_modules/lodash": {"version": "4.17.20"},
                        "node_modules/@babel/core": {"version": "7.24.0"},
                    },
                }
            ),
            "Cargo.lock": (
                'version = 3\n\n[[package]]\nname = "app"\nversion = "0.1.0"\n\n'
                '[[package]]\nname = "smallvec"\nversion = "1.6.0"\n'
                'source = "registry+https://github.com/rust-lang/crates.io-index"\n'
            ),
            "go.mod": "module example.com/app\n\ngo 1.21\n\nrequire golang.org/x/net v0.7.0\n",
        },
    )
    found = {(p.ecosystem, p.name, p.version): p for p in packages(root)}
    assert sorted(found) == [
        ("Go", "golang.org/x/net", "v0.7.0"),
        ("PyPI", "Jinja2", "2.11.2"),
        ("PyPI", "PyYAML", "5.3.1"),
        ("PyPI", "idna", "3.6"),
        ("crates.io", "smallvec", "1.6.0"),
        ("npm", "@babel/core", "7.24.0"),
        ("npm", "lodash", "4.17.20"),
    ]
    assert found[("PyPI", "PyYAML", "5.3.1")] == Package(
        "PyPI", "PyYAML", "5.3.1", ("requirements.txt",), ("pyyaml",), guessed=True
    )
    assert found[("npm", "@babel/core", "7.24.0")].sources == ("package-lock.json",)


# ---- real packages, three projects ------------------------------------------------------------------


def _unavailable(variable: str, reason: str) -> None:
    if os.environ.get(variable) == "1":
        pytest.fail(f"required here ({variable}=1): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def audit_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with PyYAML 5.3.1 and idna 3.6 (pip caches the wheel it builds for PyYAML)."""
    folder = tmp_path_factory.mktemp("audit-pypi") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    try:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python"), "install"),
                *(
                    "--quiet",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "-r",
                    str(CASES / "requirements.txt"),
                ),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        _unavailable("PROJECTGRAPH_REQUIRE_PYPI", "pip install took more than 10 minutes")
    if done.returncode != 0:
        _unavailable("PROJECTGRAPH_REQUIRE_PYPI", f"pip install failed: {done.stderr.strip()[-2000:]}")
    return folder


@pytest.fixture(scope="session")
def audit_node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """semver 7.5.1 and what it needs, by ``npm ci`` from the fixture's package-lock.json."""
    npm = shutil.which("npm")
    if npm is None:
        _unavailable("PROJECTGRAPH_REQUIRE_NPM", "npm is not installed")
    folder = tmp_path_factory.mktemp("audit-npm")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(CASES / "npm_called" / name, folder / name)
    try:
        done = subprocess.run(
            [str(npm), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        _unavailable("PROJECTGRAPH_REQUIRE_NPM", "npm ci took more than 10 minutes")
    if done.returncode != 0:
        _unavailable("PROJECTGRAPH_REQUIRE_NPM", f"npm ci failed: {done.stderr.strip()[-2000:]}")
    return folder / "node_modules"


def _python_project(case: str, venv: Path, tmp_path: Path) -> Path:
    root = tmp_path / case
    shutil.copytree(CASES / case, root, ignore=shutil.ignore_patterns("README.md"))
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    return root


def _npm_project(case: str, node_modules: Path, tmp_path: Path) -> Path:
    root = tmp_path / case
    shutil.copytree(CASES / case, root, ignore=shutil.ignore_patterns("README.md"))
    shutil.copytree(node_modules, root / "node_modules", symlinks=True)
    return root


def audit(root: Path, *args: str) -> tuple[int, Any]:
    done = subprocess.run(
        [str(CLI), "audit", *args, "--project", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout) if "--json" in args or "sarif" in args else done.stdout


def _by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["advisory"]["id"]: f for f in report["findings"]}


@pytest.mark.slow
def test_called_with_the_path(audit_venv: Path, tmp_path: Path) -> None:
    root = _python_project("called", audit_venv, tmp_path)
    code, report = audit(root, str(ADVISORIES / "pypi"), "--json")
    assert code == 1
    findings = _by_id(report)
    assert sorted(findings) == ["PYSEC-2021-142", "PYSEC-2024-60"]  # PYSEC-2018-49 was fixed in 5.1
    pyyaml, idna = findings["PYSEC-2021-142"], findings["PYSEC-2024-60"]
    assert (pyyaml["status"], pyyaml["symbol"], pyyaml["package"]["version"]) == (
        "called",
        "yaml//load",
        "5.3.1",
    )
    assert [h["key"] for h in pyyaml["path"]] == ["app.py", "app.py//read_config", "yaml//load"]
    assert pyyaml["path"][-1]["site"] == {"path": "app.py", "line": 7, "column": 15}
    assert pyyaml["fixed"] == ["5.4"] and pyyaml["package"]["sources"] == ["installed"]
    assert (idna["status"], idna["symbol"]) == ("called", "idna//encode")
    assert [h["key"] for h in idna["path"]] == ["app.py", "app.py//host", "idna//encode"]
    assert report["counts"] == {"called": 2, "uncertain": 0, "imported": 0, "required": 0}

    code, text = audit(root, str(ADVISORIES / "pypi"))
    assert code == 1
    assert "PYSEC-2021-142 (CVE-2020-14343, GHSA-8q59-q68h-6hv4): PyYAML 5.3.1 [installed]: called\n" in text
    assert "  yaml//load: called\n    app.py:15 -> app.py:7 -> yaml//load\n" in text
    assert text.endswith(
        "3 advisories, 2 packages: 2 findings 2 called, 0 uncertain, 0 imported, 0 required\n"
    )

    code, log = audit(root, str(ADVISORIES / "pypi"), "--format", "sarif")
    assert code == 1
    assert_valid(log)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("PYSEC-2021-142", "error"),
        ("PYSEC-2024-60", "error"),
    ]
    hops = results[0]["codeFlows"][0]["threadFlows"][0]["locations"]
    assert len(hops) == 3
    assert hops[2]["location"]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 16}


@pytest.mark.slow
def test_imported_and_required(audit_venv: Path, tmp_path: Path) -> None:
    root = _python_project("imported", audit_venv, tmp_path)
    code, report = audit(root, str(ADVISORIES / "pypi"), "--json")
    assert code == 0  # nothing called or uncertain
    findings = _by_id(report)
    idna, pyyaml = findings["PYSEC-2024-60"], findings["PYSEC-2021-142"]
    assert (idna["status"], idna["path"], idna["uncertainties"]) == ("imported", [], [])
    assert idna["imported_at"] == {"path": "app.py", "line": 1, "column": 0}
    assert [(s["key"], s["status"], s["reach"]["status"]) for s in idna["symbols"]] == [
        ("idna//core//encode", "imported", "not-found"),
        ("idna//encode", "imported", "not-found"),
    ]
    assert (pyyaml["status"], pyyaml["imported_at"]) == ("required", None)
    code, log = audit(root, str(ADVISORIES / "pypi"), "--format", "sarif")
    assert_valid(log)
    assert [r["level"] for r in log["runs"][0]["results"]] == ["note", "note"]


@pytest.mark.slow
def test_reached_only_through_a_dynamic_site_is_uncertain(audit_venv: Path, tmp_path: Path) -> None:
    root = _python_project("uncertain", audit_venv, tmp_path)
    code, report = audit(root, str(ADVISORIES / "pypi" / "PYSEC-2024-60.json"), "--json")
    assert code == 1
    [idna] = report["findings"]
    assert (idna["status"], idna["path"]) == ("uncertain", [])
    causes = {(u["kind"], u["site"]["path"], u["site"]["line"]) for u in idna["uncertainties"]}
    assert {("unresolved-call", "app.py", 6), ("dynamic-flag", "app.py", 5)} <= causes
    code, log = audit(root, str(ADVISORIES / "pypi" / "PYSEC-2024-60.json"), "--format", "sarif")
    assert_valid(log)
    [result] = log["runs"][0]["results"]
    assert result["level"] == "warning"
    assert len(result["relatedLocations"]) == len(idna["uncertainties"])


@pytest.mark.slow
def test_npm_called_and_imported(audit_node_modules: Path, tmp_path: Path) -> None:
    called = _npm_project("npm_called", audit_node_modules, tmp_path)
    code, report = audit(called, str(ADVISORIES / "npm"), "--json")
    assert code == 1
    [finding] = report["findings"]
    assert (finding["status"], finding["symbol"]) == ("called", "semver//Range")
    assert finding["package"]["sources"] == ["installed", "package-lock.json"]
    assert finding["path"][-1]["key"] == "npm:semver@7.5.1//classes/range.js//Range"
    imported = _npm_project("npm_imported", audit_node_modules, tmp_path)
    code, report = audit(imported, str(ADVISORIES / "npm"), "--json")
    assert code == 0
    [finding] = report["findings"]
    assert (finding["status"], finding["imported_at"]["path"]) == ("imported", "index.js")


def test_a_bad_advisory_path_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(CLI), "audit", str(tmp_path / "none"), "--project", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"projectgraph: {tmp_path / 'none'}: no such file or folder\n"
