"""Python units: a project with a real virtual environment, made once per test session (``python -m
venv`` and ``pip install`` from PyPI of ``tests/fixtures/pypi/requests_app/requirements.txt``), where
reach goes on from the project into requests, from requests into urllib3, and into PyYAML, through
package edges; and the honesty rule for calls into code that no unit gives.

Without PyPI the tests that need the environment skip, except where ``PROJECTGRAPH_REQUIRE_PYPI=1``
makes that a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES
from projectgraph import indexer
from projectgraph.graph import Graph
from projectgraph.indexer import IndexOptions, run_index
from projectgraph.link import units
from projectgraph.pipeline import build_graph
from projectgraph.project import Project
from projectgraph.reach import SOURCES_ONLY, Query, ReachResult, Source, Target, reach
from projectgraph.store import sqlite as sql
from projectgraph.units import AUTO_DEPS, NO_DEPS, DepsConfig, DepsError, discover_units, parse_deps

APP = FIXTURES / "pypi" / "requests_app"
REQUESTS = "pypi:requests@2.34.2"
URLLIB3 = "pypi:urllib3@2.8.0"
PYYAML = "pypi:PyYAML@6.0.4"
JINJA2 = "pypi:Jinja2@3.1.6"
CLI = Path(sys.executable).with_name("projectgraph")
ONE = IndexOptions(languages=("python",), workers=1)


def _unavailable(reason: str) -> None:
    if os.environ.get("PROJECTGRAPH_REQUIRE_PYPI") == "1":
        pytest.fail(f"PyPI is required here (PROJECTGRAPH_REQUIRE_PYPI=1): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with the fixture's requirements, made once per session."""
    folder = tmp_path_factory.mktemp("pypi") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    try:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
                *("--no-deps", "--disable-pip-version-check", "-r", str(APP / "requirements.txt")),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        _unavailable("pip install took more than 10 minutes")
    if done.returncode != 0:
        _unavailable(f"pip install failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return folder


@pytest.fixture
def app(venv: Path, tmp_path: Path) -> Path:
    """The fixture project with the session's environment as its ``.venv``."""
    root = tmp_path / "requests_app"
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("README.md", "requirements.txt"))
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    return root


@pytest.fixture(scope="session")
def app_graph(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Graph:
    root = tmp_path_factory.mktemp("pypi-graph") / "requests_app"
    shutil.copytree(APP, root)
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    return build_graph(root, ONE).graph


def one(graph: Graph, target: str, *sources: str) -> ReachResult:
    query = Query(
        (Target.by_key(target),),
        sources=tuple(Source.parse(s) for s in sources),
        mode=SOURCES_ONLY if sources else "sources-and-roots",
    )
    return reach(graph, query)[0]


# ---- discovery ---------------------------------------------------------------------------------


def test_each_distribution_of_the_environment_is_a_unit(app: Path) -> None:
    units = {u.name: u for u in discover_units(app, AUTO_DEPS)}
    assert set(units) == {
        REQUESTS,
        URLLIB3,
        PYYAML,
        JINJA2,
        "pypi:idna@3.20",
        "pypi:certifi@2026.10.19.post1",
        "pypi:charset-normalizer@3.5.3",
        "pypi:MarkupSafe@3.0.4",
    }
    yaml = units[PYYAML]
    assert (yaml.ecosystem, yaml.package, yaml.version, yaml.languages) == (
        "pypi",
        "PyYAML",
        "6.0.4",
        ("python",),
    )
    assert yaml.provides == ("_yaml", "yaml")  # _yaml: the compiled module, given without source
    assert "yaml/__init__.py" in yaml.files and list(yaml.files) == sorted(yaml.files)
    assert all(not f.startswith("/") and "__pycache__" not in f for f in yaml.files)
    assert Path(yaml.root, "yaml/__init__.py").is_file() and yaml.environment == yaml.root
    assert set(units[REQUESTS].requires) == {
        URLLIB3,
        "pypi:idna@3.20",
        "pypi:certifi@2026.10.19.post1",
        "pypi:charset-normalizer@3.5.3",
    }
    assert discover_units(app, NO_DEPS) == ()


def test_the_virtual_environment_is_not_project_code(app: Path) -> None:
    result = run_index(app, ONE)
    assert [s.path for s in result.statuses] == ["app.py"]
    names = [u.unit.name for u in result.units]
    assert REQUESTS in names and PYYAML in names and JINJA2 in names
    yaml = result.unit(PYYAML)
    assert {s.unit for s in yaml.statuses} == {PYYAML}
    assert {i.path for i in yaml.indexes} == {s.path for s in yaml.statuses if s.status != "failed"}
    assert result.summary()["units"][PYYAML]["files"] == len(yaml.unit.files)


def test_a_warm_run_parses_and_links_no_unit_again(app: Path, tmp_path: Path) -> None:
    # cold means cold: an earlier test's run of this session's environment may be in the process's
    # memo of unit indexes (it serves a unit whose files are older than that run by 2 s, so whether
    # it did depended on how loaded the machine was)
    indexer._UNIT_MEMO.clear()
    units._MEMO.clear()
    with Project(app) as project:
        cold = project.refresh(ONE)
        warm = project.refresh(ONE)  # the units' linked parts from this process
        units._MEMO.clear()
        stored = project.refresh(ONE)  # from the store, as another process would
    assert any(s.status == "indexed" for s in cold.index.unit_statuses)
    assert {s.status for s in warm.index.unit_statuses} == {"cached"}
    assert warm.graph.dumps() == cold.graph.dumps()
    assert stored.graph.dumps() == cold.graph.dumps()


# ---- link: unit keys, external keys, package edges ------------------------------------------------


def test_unit_definitions_carry_their_unit_and_external_key(app_graph: Graph) -> None:
    nodes = app_graph.node_by_key
    load = nodes[f"{PYYAML}//yaml/__init__.py//load"]
    assert (load.unit, load.external, load.path) == (PYYAML, "yaml//load", f"{PYYAML}//yaml/__init__.py")
    inner = nodes[f"{PYYAML}//yaml/constructor.py//BaseConstructor//get_single_data"]
    assert inner.external == "yaml//constructor//BaseConstructor//get_single_data"
    # a name the package __init__ re-exports gets the short key, and an export edge to its definition
    get = nodes[f"{REQUESTS}//requests/__init__.py//get"]
    assert get.external == "requests//get"
    assert [(e.callee, e.kind) for e in app_graph.out_edges[get.key]] == [
        (f"{REQUESTS}//requests/api.py//get", "export")
    ]
    joins = [(e.caller, e.callee) for e in app_graph.edges if e.kind == "package"]
    assert ("yaml//load", load.key) in joins
    assert ("requests//get", get.key) in joins
    assert ("urllib3//poolmanager//PoolManager", f"{URLLIB3}//urllib3/poolmanager.py//PoolManager") in joins
    # no roots come from dependency code
    assert all(not nodes[r.key].unit for r in app_graph.roots)
    files = {f.path: f for f in app_graph.files}
    assert files[f"{PYYAML}//yaml/__init__.py"].unit == PYYAML and files["app.py"].unit == ""


def test_reach_goes_from_the_project_through_requests_into_urllib3(app_graph: Graph) -> None:
    result = one(app_graph, "urllib3//PoolManager", "app.py:fetch")
    assert result.status == "found"
    hops = [(h.key, h.kind) for h in result.path]
    assert hops[0] == ("app.py//fetch", "query")
    assert ("requests//get", "direct") in hops
    assert (f"{REQUESTS}//requests/__init__.py//get", "package") in hops  # leaves the project
    into_urllib3 = [key for key, kind in hops if kind == "package" and key.startswith(URLLIB3)]
    assert into_urllib3 == [f"{URLLIB3}//urllib3/poolmanager.py//PoolManager"]  # requests -> urllib3
    assert hops.index((f"{REQUESTS}//requests/__init__.py//get", "package")) < hops.index(
        (into_urllib3[0], "package")
    )
    # the package hop has no call site of its own: it joins a key to its definition
    assert all(h.site is None for h in result.path if h.kind == "package")


def test_yaml_load_is_found_and_so_is_what_it_calls_inside(app_graph: Graph) -> None:
    assert one(app_graph, "yaml//load", "app.py:config").status == "found"
    inside = one(app_graph, "yaml//constructor//BaseConstructor//get_single_data", "app.py:config")
    assert inside.status == "found"
    assert [(h.key, h.kind) for h in inside.path][-3:] == [
        ("yaml//load", "direct"),
        (f"{PYYAML}//yaml/__init__.py//load", "package"),
        (f"{PYYAML}//yaml/constructor.py//BaseConstructor//get_single_data", "member"),
    ]
    # fetch() never enters PyYAML: what only yaml's code calls stays out of its reach
    assert (
        one(app_graph, "yaml//constructor//BaseConstructor//get_single_data", "app.py:fetch").status
        != "found"
    )


def test_a_target_matches_the_definition_a_reexport_stands_for(app_graph: Graph) -> None:
    # urllib3//PoolManager is urllib3/__init__.py's re-export of urllib3/poolmanager.py//PoolManager
    result = one(app_graph, "urllib3//PoolManager", "app.py:fetch")
    assert result.path[-1].key == f"{URLLIB3}//urllib3/poolmanager.py//PoolManager"


def test_jinja2_template_render_is_joined(app_graph: Graph) -> None:
    result = one(app_graph, "jinja2//environment//Template//render", "app.py:render")
    assert result.status == "found"
    assert any(h.kind == "package" and h.key.startswith(JINJA2) for h in result.path)


# ---- the honesty rule ------------------------------------------------------------------------------


def test_a_call_into_a_package_that_no_unit_gives_is_uncertain(app: Path) -> None:
    graph = build_graph(app, IndexOptions(languages=("python",), workers=1, deps=NO_DEPS)).graph
    assert "units" not in graph.stats
    result = one(graph, "urllib3//PoolManager", "app.py:fetch")
    assert result.status == "uncertain"  # without requests' code, never not-found
    reasons = [u.reason for u in result.uncertainties]
    assert any(r.startswith("no-dependency-source: requests//get") for r in reasons), reasons


def test_no_dependency_source_is_scoped_by_what_the_package_can_reach(make_project) -> None:  # type: ignore[no-untyped-def]
    root = make_project(
        {
            "std.py": "import json\n\n\ndef decode(text):\n    return len(json.loads(text))\n",
            "other.py": "import notinstalled\n\n\ndef run():\n    notinstalled.go()\n",
            "leaf.py": "import sys\n\n\ndef count(items):\n    return len(items) + sys.getsizeof(items)\n",
        }
    )
    graph = build_graph(root, IndexOptions(languages=("python",), workers=1, deps=NO_DEPS)).graph
    # the standard library reaches only standard library targets
    pickle = one(graph, "pickle//loads", "std.py:decode")
    assert pickle.status == "uncertain"
    assert [u.reason for u in pickle.uncertainties] == [
        "no-dependency-source: json//loads (no unit gives its code)"
    ]
    assert one(graph, "yaml//load", "std.py:decode").status == "no-such-target"
    # a package of no unit can reach any target
    assert one(graph, "yaml//load", "other.py:run").status == "uncertain"
    assert one(graph, "pickle//loads", "other.py:run").status == "uncertain"
    # a builtin, a module compiled into the interpreter, call back only what they are passed
    assert one(graph, "pickle//loads", "leaf.py:count").status == "no-such-target"


def test_a_unit_file_that_did_not_index_counts_only_for_searches_that_enter_it(
    make_project,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    vendor = tmp_path / "vendor" / "mylib"
    vendor.mkdir(parents=True)
    (vendor / "__init__.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (vendor / "broken.py").write_bytes(b"def g():\n    return \0\n")
    root = make_project(
        {
            "uses.py": "import mylib\n\n\ndef run():\n    mylib.f()\n",
            "alone.py": "def quiet():\n    return 2\n",
        }
    )
    deps = parse_deps([f"{vendor}=pypi:mylib@1.0"])
    graph = build_graph(root, IndexOptions(languages=("python",), workers=1, deps=deps)).graph
    broken = [f for f in graph.files if f.unit]
    assert {(f.path, f.status) for f in broken} >= {("pypi:mylib@1.0//mylib/broken.py", "failed")}
    entering = one(graph, "mylib//nothing", "uses.py:run")
    assert entering.status == "uncertain"
    assert [u.kind for u in entering.uncertainties] == ["budget"]
    assert one(graph, "mylib//nothing", "alone.py:quiet").status == "no-such-target"
    assert one(graph, "mylib//f", "alone.py:quiet").status == "not-found"


# ---- --deps values ---------------------------------------------------------------------------------


def test_deps_values(tmp_path: Path) -> None:
    assert parse_deps([]) == AUTO_DEPS
    assert parse_deps(["none"]) == NO_DEPS
    assert parse_deps(["stdlib"]) == DepsConfig(auto=True, stdlib=True)
    named = parse_deps([f"{tmp_path}=pypi"])
    assert named == DepsConfig(auto=False, named=((str(tmp_path), "pypi"),))
    assert parse_deps(["auto", f"{tmp_path}=pypi:x@1"]).auto
    for bad, message in [
        (["none", "auto"], "cannot be combined"),
        (["everything"], "expected auto, none, stdlib"),
        ([f"{tmp_path}=pypi:x"], "invalid unit name"),
        ([f"{tmp_path}/absent=pypi"], "not a folder"),
        ([f"{tmp_path}=nosuch"], "no discoverer knows"),
        (["=pypi"], "expected DIR=UNIT"),
    ]:
        with pytest.raises(DepsError, match=message):
            parse_deps(bad)


def test_the_standard_library_unit(tmp_path: Path) -> None:
    std = [u for u in discover_units(tmp_path, DepsConfig(auto=False, stdlib=True))]
    assert [u.name for u in std] == [f"python:std@{sys.version_info.major}.{sys.version_info.minor}"]
    assert "json/__init__.py" in std[0].files and not any(
        f.startswith(("test/", "idlelib/")) for f in std[0].files
    )
    assert {"json", "sys", "math"} <= set(std[0].provides)


def test_the_python_standard_library_is_indexed_only_for_a_project_with_python_files(tmp_path: Path) -> None:
    go_only = tmp_path / "go_only"
    go_only.mkdir()
    (go_only / "main.go").write_text("package main\n\nfunc main() {}\n")
    both = tmp_path / "both"
    both.mkdir()
    (both / "main.go").write_text("package main\n\nfunc main() {}\n")
    (both / "tool.py").write_text("import json\n\njson.dumps(1)\n")
    stdlib = DepsConfig(auto=False, stdlib=True)
    assert not any(u.unit.ecosystem == "python" for u in run_index(go_only, IndexOptions(deps=stdlib)).units)
    indexed = run_index(both, IndexOptions(deps=stdlib)).units
    assert [u.unit.name for u in indexed if u.unit.ecosystem == "python"] == [
        f"python:std@{sys.version_info.major}.{sys.version_info.minor}"
    ]


# ---- the store and the CLI -------------------------------------------------------------------------


def test_the_stored_graph_holds_the_units_and_queries_read_them(app: Path) -> None:
    with Project(app) as project:
        built = project.refresh(ONE).graph
        stored = sql.read_graph(project.store.connection)
        assert stored.nodes == built.nodes and stored.edges == built.edges and stored.files == built.files
        assert stored.stats["units"] == built.stats["units"]
        engine = project.engine()
        callers = engine.callers(f"{PYYAML}//yaml/__init__.py//load")
        assert {(r["key"], r["kind"]) for r in callers["results"]} >= {("yaml//load", "package")}
        symbol = engine.symbol("get_single_data")
        assert f"{PYYAML}//yaml/constructor.py//BaseConstructor//get_single_data" in {
            r["key"] for r in symbol["results"]
        }
        # nothing changed: a sync keeps the stored graph, units included
        again = project.sync(ONE)
        assert not again.relinked
        assert not project.is_stale()


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args], capture_output=True, text=True, timeout=300, cwd=root, check=False
    )


def test_cli_index_with_deps_and_reach_through_them(app: Path) -> None:
    done = cli(app, "index", "--languages", "python", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert REQUESTS in summary["graph"]["units"] and summary["graph"]["package_edges"] > 0
    assert summary["units"][PYYAML]["statuses"] in ({"indexed": 18}, {"cached": 18})
    done = cli(app, "reach", "urllib3//PoolManager", "--source", "app.py:fetch", "--sources-only", "--json")
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["status"] == "found"
    kinds = [(h["key"], h["kind"]) for h in result["path"]]
    assert (f"{REQUESTS}//requests/__init__.py//get", "package") in kinds
    assert kinds[-1] == (f"{URLLIB3}//urllib3/poolmanager.py//PoolManager", "package")
    # without units the same question is uncertain: never not-found
    done = cli(app, "index", "--languages", "python", "--deps", "none")
    assert done.returncode == 0, done.stderr
    assert "dependencies:" not in done.stdout
    done = cli(app, "reach", "urllib3//PoolManager", "--source", "app.py:fetch", "--sources-only", "--json")
    (result,) = json.loads(done.stdout)["results"]
    assert result["status"] == "uncertain"
    assert any(u["reason"].startswith("no-dependency-source") for u in result["uncertainties"])


def test_cli_rejects_a_bad_deps_value(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    done = cli(tmp_path, "index", "--deps", "everything")
    assert done.returncode == 2
    assert done.stderr == (
        "projectgraph: --deps 'everything': expected auto, none, stdlib, DIR=UNIT or DIR=ECOSYSTEM "
        "(a folder of units)\n"
    )
    done = cli(tmp_path, "index", "--deps", "none", "--deps", "stdlib")
    assert (done.returncode, done.stderr) == (
        2,
        "projectgraph: --deps none cannot be combined with other --deps values\n",
    )


def test_a_sync_in_the_same_process_sees_a_changed_unit_file(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vendor = tmp_path / "vendor" / "mylib"
    vendor.mkdir(parents=True)
    source = vendor / "__init__.py"
    source.write_text("def f():\n    return 1\n", encoding="utf-8")
    old = time.time() - 3600
    os.utime(source, (old, old))  # older than the racy window: its stamp is trusted
    root = make_project({"uses.py": "import mylib\n\n\ndef run():\n    mylib.f()\n"})
    options = IndexOptions(languages=("python",), workers=1, deps=parse_deps([f"{vendor}=pypi:mylib@1.0"]))
    with Project(root) as project:
        first = project.refresh(options)
        assert "pypi:mylib@1.0//mylib/__init__.py//g" not in first.graph.node_by_key
        assert not project.sync(options).relinked  # the unit's files unchanged: served by their stamps
        source.write_text("def f():\n    return g()\n\n\ndef g():\n    return 2\n", encoding="utf-8")
        os.utime(source, (old + 1, old + 1))
        again = project.sync(options)
    assert again.relinked and again.graph is not None
    assert "pypi:mylib@1.0//mylib/__init__.py//g" in again.graph.node_by_key
    assert one(again.graph, "mylib//g", "uses.py:run").status == "found"
