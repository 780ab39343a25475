"""Per-package summaries (projectgraph.summary): the components of a small package with a cycle,
dynamic flags and unresolved sites (``tests/fixtures/summary/<case>/``), the compact form and the
store, the CLI, and the property that matters: for every exported symbol of real packages (from this
test environment, and installed from PyPI in the setup) and targets of every kind, ``Summary.status``
equals a reach query from the symbol."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from projectgraph import summary
from projectgraph.cli import main
from projectgraph.graph import Graph, Site
from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach
from projectgraph.store.sqlite import SqliteStore
from projectgraph.units import parse_deps

CASES = FIXTURES / "summary"
SITE_PACKAGES = Path(yaml.__file__).parent.parent


def package_graph(tmp: Path, *folders: Path) -> Graph:
    """The graph of installed package folders copied under ``tmp`` and linked as one project."""
    for folder in folders:
        shutil.copytree(folder, tmp / folder.name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return build_graph(tmp).graph


def fixture_graph(tmp: Path, case: str) -> Graph:
    root = tmp / case
    shutil.copytree(CASES / case, root, ignore=shutil.ignore_patterns("README.md"))
    return build_graph(root).graph


def searched(graph: Graph, symbol: str, targets: list[str]) -> dict[str, str]:
    """What reach says from ``symbol`` alone, per target."""
    results = reach(graph, Query(tuple(Target.by_key(t) for t in targets), (Source(symbol),), SOURCES_ONLY))
    return {r.target: r.status for r in results}


def targets_of(graph: Graph, most: int = 12) -> list[str]:
    """Targets of every kind: external keys (``most`` of them, evenly spread), a wildcard over each
    external head, the last name of unresolved sites under a package nobody has, keys nobody has."""
    externals = sorted(n.key for n in graph.nodes if n.kind == "external")
    heads = sorted({key.split("//")[0] for key in externals})
    names = sorted({u.name for u in graph.unresolved if u.name})
    return [
        *externals[:: max(1, len(externals) // most)],
        *(f"{head}//*" for head in heads[:: max(1, len(heads) // most)]),
        *(f"{key}//*" for key in externals[1 :: max(1, len(externals) // 5)]),
        *(f"nosuch//{name}" for name in names[:: max(1, len(names) // most)]),
        "nosuch//thing",
        "nosuch//*",
    ]


# ---- a small package: components, flags, unresolved sites -----------------------------------------


@pytest.fixture(scope="module")
def cycles(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    return fixture_graph(tmp_path_factory.mktemp("summary"), "cycles")


def test_the_exported_symbols_are_the_public_definitions(cycles: Graph) -> None:
    built = summary.build(cycles)
    assert list(built.symbols) == [
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/core.py//ping",
        "pkg/core.py//pong",
        "pkg/core.py//start",
        "pkg/tools.py",
        "pkg/tools.py//Helper",
        "pkg/tools.py//Helper//frobnicate",
        "pkg/tools.py//Helper//tidy",
        "pkg/tools.py//call_it",
        "pkg/tools.py//load_plugin",
        "pkg/tools.py//run_code",
    ]
    with pytest.raises(summary.UnknownSymbolError, match="_quiet"):
        built.status("pkg/core.py//_quiet", "json//dumps")


def test_a_cycle_is_one_component_and_its_members_share_one_set(cycles: Graph) -> None:
    built = summary.build(cycles)
    assert built.symbols["pkg/core.py//ping"] == built.symbols["pkg/core.py//pong"]
    assert built.reaches("pkg/core.py//ping") == ["json//dumps"]
    assert built.reaches("pkg/core.py//start") == ["json//dumps", "os//path//join"]
    assert built.symbols_reached("pkg/core.py//start") == [
        "pkg/core.py//ping",
        "pkg/core.py//pong",
        "pkg/core.py//start",
    ]
    assert built.stats["largest_component"] >= 2
    assert built.status("pkg/core.py//start", "json//dumps") == "found"
    assert (
        built.status("pkg/core.py//pong", "os//path//join")
        == searched(cycles, "pkg/core.py//pong", ["os//path//join"])["os//path//join"]
    )


def test_flags_and_unresolved_sites_keep_their_scope(cycles: Graph) -> None:
    built = summary.build(cycles)
    scopes = {(u.caller, u.kind, u.scope, u.value) for u in built.uncertainties}
    assert ("pkg/tools.py//run_code", "dynamic-flag", "everywhere", "") in scopes
    assert ("pkg/tools.py//load_plugin", "dynamic-flag", "prefix", "plugins") in scopes
    assert ("pkg/tools.py//call_it", "unresolved-call", "name", "frobnicate") in scopes
    # eval: anything can run
    assert built.status("pkg/tools.py//run_code", "nosuch//thing") == "uncertain"
    # a computed import under plugins concerns the targets under it, and those only
    assert built.status("pkg/tools.py//load_plugin", "plugins//extra//run") == "uncertain"
    assert built.status("pkg/tools.py//load_plugin", "plugins//*") == "uncertain"
    assert built.status("pkg/tools.py//load_plugin", "nosuch//thing") == "no-such-target"
    # an unknown receiver's method concerns the targets of its name
    assert built.status("pkg/tools.py//call_it", "nosuch//frobnicate") == "uncertain"
    assert built.status("pkg/tools.py//call_it", "subprocess//run") == "found"
    flags = [u for u in built.uncertainties_of("pkg/tools.py//run_code") if u.kind == "dynamic-flag"]
    assert [(u.caller, u.reason, u.site) for u in flags] == [
        ("pkg/tools.py//run_code", "eval", Site("pkg/tools.py", 19, 11))
    ]


def test_a_target_in_the_packages_own_unexported_code_is_refused(cycles: Graph) -> None:
    built = summary.build(cycles)
    with pytest.raises(summary.OutsideSummaryError):
        built.status("pkg/core.py//start", "pkg/core.py//_quiet")
    with pytest.raises(summary.OutsideSummaryError):
        built.status("pkg/core.py//start", "pkg/core.py//*")
    # an exported symbol is a key of the summary
    assert built.status("pkg/core.py//start", "pkg/core.py//pong") == "found"
    assert built.status("pkg/core.py//ping", "pkg/core.py//start") == "not-found"


def test_the_fixture_answers_as_reach_does(cycles: Graph) -> None:
    built = summary.build(cycles)
    targets = [*targets_of(cycles), "plugins//x", "plugins//*", "nosuch//go", "pkg/core.py//ping"]
    for symbol in built.symbols:
        expected = searched(cycles, symbol, targets)
        assert {t: built.status(symbol, t) for t in targets} == expected, symbol


def test_the_path_is_one_search(cycles: Graph) -> None:
    built = summary.build(cycles)
    result = built.path(cycles, "pkg/core.py//start", "json//dumps")
    assert result.status == "found"
    assert [hop.key for hop in result.path] == ["pkg/core.py//start", "pkg/core.py//ping", "json//dumps"]


# ---- forms and the store ---------------------------------------------------------------------------


def test_the_compact_form_round_trips(cycles: Graph) -> None:
    built = summary.build(cycles, unit="pypi:pkg@1.0")
    again = summary.Summary.loads(built.dumps())
    assert again == built
    assert summary.Summary.from_json(json.loads(json.dumps(built.to_json()))) == built
    assert again.versions == summary.versions()
    assert again.status("pkg/core.py//start", "json//dumps") == "found"


def test_the_store_keeps_a_summary_per_unit_and_versions(
    cycles: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = summary.build(cycles, unit="pypi:pkg@1.0")
    store = SqliteStore(tmp_path / "graph.db")
    try:
        assert summary.load(store.connection, "pypi:pkg@1.0") is None
        summary.save(store.connection, built)
        assert summary.load(store.connection, "pypi:pkg@1.0") == built
        assert summary.load(store.connection, "pypi:other@1.0") is None
        # a bump of the summary rules (or of the index, link or search rules) misses
        monkeypatch.setattr(summary, "VERSION", summary.VERSION + 1)
        assert summary.load(store.connection, "pypi:pkg@1.0") is None
    finally:
        store.close()


# ---- the CLI ---------------------------------------------------------------------------------------


def test_cli_summary_of_a_folder(tmp_path: Path) -> None:
    root = tmp_path / "cycles"
    shutil.copytree(CASES / "cycles", root, ignore=shutil.ignore_patterns("README.md"))
    result = CliRunner().invoke(main, ["summary", str(root), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    expected = summary.build(build_graph(root).graph, unit=report["unit"]).report()
    report["stats"].pop("seconds")
    expected["stats"].pop("seconds")
    assert report == json.loads(json.dumps(expected))
    text = CliRunner().invoke(main, ["summary", str(root)])
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[0] == "cycles: 12 symbols, 23 components, 0 uncertainties of every search"
    start = next(s for s in report["symbols"] if s["symbol"] == "pkg/core.py//start")
    assert f"pkg/core.py//start: 2 external keys, {len(start['uncertainties'])} uncertainties" in lines
    assert len(lines) == 13


def test_cli_summary_of_nothing_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["summary", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no unit or folder" in result.stderr


# ---- the property: Summary.status equals reach, on real packages --------------------------------------


@pytest.fixture(scope="session")
def from_pypi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """requests and jinja2 (with their dependencies' folders), installed from PyPI into a folder."""
    target = tmp_path_factory.mktemp("pypi")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            "requests",
            "jinja2",
            "urllib3",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"pip could not install from PyPI: {done.stderr.strip()[-300:]}")
    return target


REAL = {
    "yaml": lambda pypi: [SITE_PACKAGES / "yaml"],
    "mcp": lambda pypi: [SITE_PACKAGES / "mcp"],
    "pydantic": lambda pypi: [SITE_PACKAGES / "pydantic"],
    "requests": lambda pypi: [pypi / "requests"],
    "jinja2": lambda pypi: [pypi / "jinja2"],
}


@pytest.fixture(scope="module", params=sorted(REAL))
def real(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Graph, summary.Summary]:
    name = request.param
    pypi = request.getfixturevalue("from_pypi") if name in ("requests", "jinja2") else Path()
    graph = package_graph(tmp_path_factory.mktemp(name), *REAL[name](pypi))
    return graph, summary.build(graph, unit=name)


def test_every_exported_symbol_answers_as_reach_does(real: tuple[Graph, summary.Summary]) -> None:
    graph, built = real
    if built.unit == "pydantic":
        pytest.skip("a search per symbol takes 45 s on pydantic: the drawn property covers it")
    targets = targets_of(graph)
    assert len(built.symbols) > 50
    wrong = []
    for symbol in built.symbols:
        expected = searched(graph, symbol, targets)
        for target in targets:
            got = built.status(symbol, target)
            if got != expected[target]:
                wrong.append((symbol, target, got, expected[target]))
    assert wrong == []


def _keys(graph: Graph) -> st.SearchStrategy[str]:
    """Target keys drawn from the package's vocabulary: its external keys and their prefixes, the
    names its unresolved sites call, and names nobody has, as exact keys and wildcards."""
    externals = sorted(n.key for n in graph.nodes if n.kind == "external")
    names = sorted({u.name for u in graph.unresolved if u.name} | {n.name for n in graph.nodes if n.name})
    segments = [s for key in externals for s in key.split("//")]
    word = st.sampled_from(sorted({*names, *segments, "zz", "x"}))
    prefix = (
        st.sampled_from(externals)
        .map(lambda k: k.split("//"))
        .flatmap(lambda parts: st.integers(1, len(parts)).map(lambda n: "//".join(parts[:n])))
    )
    exact = st.one_of(
        st.sampled_from(externals),
        st.tuples(prefix, word).map("//".join),
        st.lists(word, min_size=1, max_size=3).map("//".join),
    )
    return st.one_of(exact, exact.map(lambda k: k + "//*"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_summary_status_is_reach_from_the_symbol(
    real: tuple[Graph, summary.Summary], data: st.DataObject
) -> None:
    graph, built = real
    symbol = data.draw(st.sampled_from(sorted(built.symbols)), label="symbol")
    targets = data.draw(st.lists(_keys(graph), min_size=1, max_size=8, unique=True), label="targets")
    expected = searched(graph, symbol, targets)
    for target in targets:
        if target.split("//")[0] in built.own and target not in built.symbols:
            # the package's own unexported code: the summary refuses rather than guesses
            with pytest.raises(summary.OutsideSummaryError):
                built.status(symbol, target)
        else:
            assert built.status(symbol, target) == expected[target], (symbol, target)


def test_the_real_summaries_round_trip(real: tuple[Graph, summary.Summary]) -> None:
    _graph, built = real
    assert summary.Summary.loads(built.dumps()) == built


# ---- units of a project's virtual environment --------------------------------------------------------

APP = FIXTURES / "pypi" / "requests_app"
EXHAUSTIVE_UNITS = ("pypi:PyYAML@6.0.4", "pypi:idna@3.20", "pypi:requests@2.34.2", "pypi:urllib3@2.8.0")


@pytest.fixture(scope="session")
def venv_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The requests fixture project with a virtual environment of its requirements (from PyPI)."""
    base = tmp_path_factory.mktemp("units")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet"),
            *("--no-deps", "--disable-pip-version-check", "-r", str(APP / "requirements.txt")),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"pip could not install from PyPI: {done.stderr.strip()[-300:]}")
    root = base / "requests_app"
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("README.md", "requirements.txt"))
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def app_graph(venv_app: Path) -> Graph:
    return build_graph(venv_app).graph


def unit_searched(graph: Graph, symbol: str, targets: list[str]) -> dict[str, str]:
    """What reach says from a unit's ``symbol`` alone in the unit's own graph, per target."""
    query = Query(
        tuple(Target.by_key(t) for t in targets), (Source(symbol),), SOURCES_ONLY, unit_sources=True
    )
    return {r.target: r.status for r in reach(graph, query)}


def test_a_units_symbols_are_its_definitions_with_external_keys(app_graph: Graph) -> None:
    built = summary.build(app_graph, unit="pypi:requests@2.34.2")
    assert "pypi:requests@2.34.2//requests/api.py//get" in built.symbols
    assert all(s.startswith("pypi:requests@2.34.2//") for s in built.symbols)
    get = "pypi:requests@2.34.2//requests/api.py//get"
    assert "urllib3//PoolManager" in built.reaches(get) or any(
        k.startswith("urllib3//") for k in built.reaches(get)
    )
    # an external key of the unit's own definition is a target, as reach matches it
    assert built.status(get, "requests//api//request") == "found"
    own = summary.unit_graph(app_graph, "pypi:requests@2.34.2")
    assert (
        built.status(get, "requests//api//request")
        == unit_searched(own, get, ["requests//api//request"])["requests//api//request"]
    )
    result = built.path(app_graph, get, "requests//api//request")
    assert [hop.key for hop in result.path][:2] == [get, "pypi:requests@2.34.2//requests/api.py//request"]


@pytest.mark.parametrize("unit", EXHAUSTIVE_UNITS)
def test_every_symbol_of_a_unit_answers_as_reach_on_its_graph(app_graph: Graph, unit: str) -> None:
    built = summary.build(app_graph, unit=unit)
    own = summary.unit_graph(app_graph, unit)
    targets = targets_of(own)
    assert built.symbols
    wrong = []
    for symbol in built.symbols:
        expected = unit_searched(own, symbol, targets)
        wrong.extend(
            (symbol, t, built.status(symbol, t), expected[t])
            for t in targets
            if built.status(symbol, t) != expected[t]
        )
    assert wrong == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_unit_summary_status_is_reach_from_the_symbol(app_graph: Graph, data: st.DataObject) -> None:
    units = sorted({n.unit for n in app_graph.nodes if n.unit})
    unit = data.draw(st.sampled_from(units), label="unit")
    built = _unit_summaries(app_graph, unit)
    own = summary.unit_graph(app_graph, unit)
    symbol = data.draw(st.sampled_from(sorted(built.symbols)), label="symbol")
    targets = data.draw(st.lists(_keys(own), min_size=1, max_size=8, unique=True), label="targets")
    expected = unit_searched(own, symbol, targets)
    for target in targets:
        if target.split("//")[0] in built.own and target not in built.symbols:
            with pytest.raises(summary.OutsideSummaryError):
                built.status(symbol, target)
        else:
            assert built.status(symbol, target) == expected[target], (symbol, target)


_BUILT: dict[tuple[int, str], summary.Summary] = {}


def _unit_summaries(graph: Graph, unit: str) -> summary.Summary:
    key = (id(graph), unit)
    if key not in _BUILT:
        _BUILT[key] = summary.build(graph, unit=unit)
    return _BUILT[key]


def test_cli_summary_of_a_unit_is_built_once_and_stored(venv_app: Path, app_graph: Graph) -> None:
    unit = "pypi:idna@3.20"
    first = CliRunner().invoke(main, ["summary", unit, "--project", str(venv_app), "--json"])
    assert first.exit_code == 0, first.output
    expected = summary.build(app_graph, unit=unit).report()
    report = json.loads(first.stdout)
    for answer in (report, expected):
        answer["stats"].pop("seconds")
    assert report == json.loads(json.dumps(expected))
    store = SqliteStore(venv_app / ".projectgraph" / "graph.db")
    try:
        rows = store.connection.execute("SELECT unit, summary FROM summaries").fetchall()
        assert rows == [(unit, summary.VERSION)]
        stored = summary.load(store.connection, unit)
    finally:
        store.close()
    assert stored is not None
    again = CliRunner().invoke(main, ["summary", unit, "--project", str(venv_app), "--json"])
    assert json.loads(again.stdout)["stats"] == stored.stats  # read from the store, not rebuilt
    missing = CliRunner().invoke(main, ["summary", "pypi:nope@1.0", "--project", str(venv_app)])
    assert missing.exit_code == 2
    assert "no unit 'pypi:nope@1.0' in the project's graph" in missing.stderr


# ---- a project joined to the summaries of units it does not load ------------------------------------


def test_a_project_without_its_units_reaches_through_their_summaries(
    venv_app: Path, app_graph: Graph
) -> None:
    bare = build_graph(venv_app, IndexOptions(deps=parse_deps(["none"]))).graph
    assert not any(n.unit for n in bare.nodes)
    summaries = [
        summary.build(app_graph, unit=u) for u in sorted({n.unit for n in app_graph.nodes if n.unit})
    ]
    joined = summary.join(bare, summaries)
    fetch = Query((Target("urllib3//PoolManager"),), (Source("app.py//fetch"),), SOURCES_ONLY)
    assert reach(bare, fetch)[0].status == "uncertain"  # no-dependency-source: requests//get
    found = reach(joined, fetch)[0]
    assert found.status == "found"
    hops = [hop.key for hop in found.path]
    assert hops[:3] == ["app.py//fetch", "requests//get", "pypi:requests@2.34.2//requests/__init__.py//get"]
    assert hops[-1] == "pypi:urllib3@2.8.0//urllib3/poolmanager.py//PoolManager"
    # every external key of the whole graph, from each function of the app: the same answers as with
    # the units' graphs loaded
    externals = tuple(Target(n.key) for n in app_graph.nodes if n.kind == "external")
    for source in ("app.py//fetch", "app.py//config", "app.py//render", "app.py//main"):
        query = Query(externals, (Source(source),), SOURCES_ONLY)
        loaded = {r.target: r.status for r in reach(app_graph, query)}
        assert {r.target: r.status for r in reach(joined, query)} == loaded, source
    # a unit the graph holds is answered by its graph, not joined
    assert summary.join(app_graph, summaries).nodes == app_graph.nodes


def test_cli_reach_joins_stored_summaries_of_units_the_graph_does_not_hold(
    venv_app: Path, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    shutil.copytree(venv_app, root, symlinks=True, ignore=shutil.ignore_patterns(".projectgraph"))
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(root)]).exit_code == 0
    for unit in ("pypi:requests@2.34.2", "pypi:urllib3@2.8.0"):
        assert runner.invoke(main, ["summary", unit, "--project", str(root)]).exit_code == 0
    assert runner.invoke(main, ["index", str(root), "--deps", "none"]).exit_code == 0
    ask = [
        "reach",
        "urllib3//PoolManager",
        "--source",
        "app.py:fetch",
        "--sources-only",
        "--project",
        str(root),
    ]
    bare = runner.invoke(main, [*ask, "--json"])
    assert bare.exit_code == 3
    assert json.loads(bare.stdout)["results"][0]["status"] == "uncertain"
    joined = runner.invoke(main, [*ask, "--summaries", "--json"])
    assert joined.exit_code == 0, joined.output
    result = json.loads(joined.stdout)["results"][0]
    assert result["status"] == "found"
    assert [hop["key"] for hop in result["path"]][1:3] == [
        "requests//get",
        "pypi:requests@2.34.2//requests/__init__.py//get",
    ]
