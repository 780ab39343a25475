"""Distributed unit summaries (issue 23): job lists, the shared store on a real PostgreSQL, real
registry downloads run on a local Ray cluster, and reach answered from the store alone.

The PostgreSQL server is a throwaway cluster (``tests/pg_cluster.py``) unless
``PROJECTGRAPH_TEST_POSTGRES`` names one (``.ci/run`` starts one and sets it); each test gets a
database of its own. Without the server binaries the PostgreSQL tests skip, except where
``PROJECTGRAPH_REQUIRE_POSTGRES=1`` (CI) makes that a failure; so do PyPI and npm with their
``PROJECTGRAPH_REQUIRE_*`` variables.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import write_tree
from pg_cluster import bindir
from pg_cluster import start as start_cluster
from pg_cluster import stop as stop_cluster
from projectgraph import summary
from projectgraph.distributed import JobListError, open_store, parse_jobs, read_jobs
from projectgraph.distributed.jobs import Job
from projectgraph.pipeline import build_graph
from projectgraph.store.sqlite import SqliteStore

FIXTURES = Path(__file__).parent / "fixtures" / "distributed"
CLI = Path(sys.executable).with_name("projectgraph")


def _unavailable(variable: str, reason: str) -> None:
    if os.environ.get(variable) == "1":
        pytest.fail(f"{reason} ({variable}=1)")
    pytest.skip(reason)


# ---- job lists ----------------------------------------------------------------------------------------


def test_a_requirements_file_gives_its_pins_and_lists_what_is_not_a_job() -> None:
    text = "\n".join(
        [
            "# a comment",
            "PyYAML==6.0.2",
            "requests[socks]==2.32.3 ; python_version >= '3.8'",
            "idna==3.10 --hash=sha256:abc",
            "flask>=3",
            "-e .",
            "mylib @ file:///tmp/mylib",
            "npm:@babel/core@7.24.0",
            "pyyaml==6.0.2",
            "",
        ]
    )
    listed = parse_jobs(text)
    assert [job.spec for job in listed.jobs] == [
        "npm:@babel/core@7.24.0",
        "pypi:idna@3.10",
        "pypi:PyYAML@6.0.2",
        "pypi:requests@2.32.3",
    ]
    assert [job.lookup for job in listed.jobs][2] == "pypi:pyyaml@6.0.2"
    assert [(r.line, r.text) for r in listed.rejected] == [
        (5, "flask>=3"),
        (6, "-e ."),
        (7, "mylib @ file:///tmp/mylib"),
    ]
    assert "not pinned" in listed.rejected[0].reason


def test_a_package_lock_gives_every_installed_version() -> None:
    listed = read_jobs(FIXTURES / "small" / "package-lock.json")
    assert [job.spec for job in listed.jobs] == ["npm:debug@4.3.4", "npm:ms@2.1.2"]
    assert listed.rejected == ()
    version_one = json.dumps(
        {
            "lockfileVersion": 1,
            "dependencies": {"send": {"version": "0.18.0", "dependencies": {"ms": {"version": "2.1.3"}}}},
        }
    )
    assert [job.spec for job in parse_jobs(version_one, "package-lock.json").jobs] == [
        "npm:ms@2.1.3",
        "npm:send@0.18.0",
    ]
    linked = json.dumps({"lockfileVersion": 3, "packages": {"node_modules/mine": {"link": True}}})
    assert [r.text for r in parse_jobs(linked, "package-lock.json").rejected] == ["mine"]
    with pytest.raises(JobListError, match="not JSON"):
        parse_jobs("{oops", "package-lock.json")


def test_an_unknown_ecosystem_is_a_rejected_line() -> None:
    listed = parse_jobs("cargo:serde@1.0.0\nnpm:ms@2.1.2\n")
    assert [job.spec for job in listed.jobs] == ["npm:ms@2.1.2"]
    assert "no registry for the ecosystem 'cargo'" in listed.rejected[0].reason


# ---- the stores ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A URL of a PostgreSQL server: CI's, else a throwaway cluster for the session."""
    given = os.environ.get("PROJECTGRAPH_TEST_POSTGRES")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("PROJECTGRAPH_REQUIRE_POSTGRES", "psycopg is not installed (the distributed extra)")
    if given:
        yield given
        return
    if bindir() is None:
        _unavailable(
            "PROJECTGRAPH_REQUIRE_POSTGRES", "no PostgreSQL server binaries (apt-get install postgresql)"
        )
    folder = Path(tempfile.mkdtemp(prefix="pgtest."))  # short: a socket path has a length limit
    try:
        yield start_cluster(folder)
    finally:
        stop_cluster(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres(postgres_server: str) -> str:
    """A database of its own on the server, for one test."""
    import psycopg

    name = f"pgtest_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base, _, query = postgres_server.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


@pytest.fixture(params=["postgresql", "sqlite"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "summaries.db")
    return str(request.getfixturevalue("postgres"))


SMALL_PACKAGE = {
    "pkg/__init__.py": "from pkg.core import start\n",
    "pkg/core.py": (
        "import json\n\n\ndef start(x):\n    return json.dumps(helper(x))\n\n\ndef helper(x):\n    return x\n"
    ),
}


def _small_summary(tmp_path: Path) -> summary.Summary:
    for rel, text in SMALL_PACKAGE.items():
        (tmp_path / "pkg-src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg-src" / rel).write_text(text, encoding="utf-8")
    return summary.build(build_graph(tmp_path / "pkg-src").graph, unit="pypi:pkg@1.0")


def test_the_shared_store_keeps_the_records_of_a_projects_summaries(
    store_location: str, tmp_path: Path
) -> None:
    built = _small_summary(tmp_path)
    local = SqliteStore(tmp_path / "graph.db")
    try:
        summary.save(local.connection, built)
        kept_locally = summary.load(local.connection, built.unit)
        local_bytes = local.connection.execute("SELECT data FROM summaries").fetchone()[0]
    finally:
        local.close()
    with open_store(store_location) as store:
        assert store.stored_unit("pypi:pkg@1.0") is None
        assert store.begin("pypi:pkg@1.0", os.getpid(), "here") == 1
        assert store.running() == [("pypi:pkg@1.0", os.getpid(), "here")]
        assert store.put("pypi:pkg@1.0", built, 1.5, ("json-helpers",)) == len(local_bytes)
        assert store.stored_unit("pypi:pkg@1.0") == "pypi:pkg@1.0"
        found = store.summaries(["pypi:pkg@1.0", "pypi:other@2"])
        assert list(found) == ["pypi:pkg@1.0"]
        assert found["pypi:pkg@1.0"] == (kept_locally, ("json-helpers",))
        assert store.job("pypi:pkg@1.0") is not None
        assert store.running() == []
        assert store.begin("npm:gone@1.0.0", 7, "there") == 1
        store.fail("npm:gone@1.0.0", "FetchError: no such version")
        assert store.begin("npm:gone@1.0.0", 8, "there") == 2
        store.fail("npm:gone@1.0.0", "FetchError: no such version")
        status = store.status().to_json()
    assert status["summaries"] == 1
    assert status["by_ecosystem"] == {"pypi": {"summaries": 1, "bytes": len(local_bytes)}}
    assert status["states"] == {"built": 1, "failed": 1}
    assert status["failures"] == [
        {"lookup": "npm:gone@1.0.0", "state": "failed", "attempts": 2, "error": "FetchError: no such version"}
    ]
    # a second connection sees the same records (another worker, another machine)
    with open_store(store_location) as again:
        assert again.summaries(["pypi:pkg@1.0"])["pypi:pkg@1.0"].summary == kept_locally


def test_a_store_that_cannot_be_opened_is_a_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder" / "s.db"
    done = subprocess.run(
        [str(CLI), "distributed", "status", "--store", str(missing)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert f"no folder {missing.parent}" in done.stderr
    jobs = subprocess.run(
        [str(CLI), "distributed", "run", str(tmp_path / "nope.txt"), "--store", str(tmp_path / "s.db")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert jobs.returncode == 2
    assert "cannot read the job list" in jobs.stderr
    bad = subprocess.run(
        [str(CLI), "distributed", "status", "--store", "postgresql://nobody@/nodb?host=/nonexistent"],
        capture_output=True,
        text=True,
        check=False,
    )
    if "psycopg" not in bad.stderr:
        assert bad.returncode == 2
        assert "cannot connect to the summary store" in bad.stderr


# ---- real jobs: registry downloads, a local Ray cluster, reach from the store ----------------------------


def _require_registries() -> None:
    if shutil.which("npm") is None:
        _unavailable("PROJECTGRAPH_REQUIRE_NPM", "npm is not installed")


def _require_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        _unavailable("PROJECTGRAPH_REQUIRE_POSTGRES", "ray is not installed (the distributed extra)")


def _installed_project(case: Path, tmp_path: Path) -> Path:
    """The case's project with its units installed: a .venv from requirements.txt, npm ci."""
    root = tmp_path / "installed"
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("README.md"))
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    pip = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet"),
            *("--no-deps", "--disable-pip-version-check", "-r", str(root / "requirements.txt")),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if pip.returncode != 0:
        _unavailable("PROJECTGRAPH_REQUIRE_PYPI", f"pip install failed: {pip.stderr.strip()[-1000:]}")
    npm = subprocess.run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if npm.returncode != 0:
        _unavailable("PROJECTGRAPH_REQUIRE_NPM", f"npm ci failed: {npm.stderr.strip()[-1000:]}")
    return root


# direct mode: each command reads the store itself, and no test leaves a project's daemon running
DIRECT = {**os.environ, "PROJECTGRAPH_NO_DAEMON": "1"}


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=1800,
        stdin=subprocess.DEVNULL,
        check=False,
        cwd=cwd,
        env=DIRECT,
    )


def _answers(root: Path, sources: list[str], targets: list[str], *extra: str) -> dict[str, dict[str, object]]:
    """Per source: reach's JSON result per target (status, path, uncertainties), by the CLI."""
    found = {}
    for source in sources:
        done = _cli(
            "reach", *targets, "--source", source, "--sources-only", "--project", str(root), "--json", *extra
        )
        assert done.returncode in (0, 1, 3), done.stderr
        found[source] = {r["target"]: r["status"] for r in json.loads(done.stdout)["results"]}
    return found


def _externals(root: Path) -> list[str]:
    """The external keys some code of the graph calls (the keys an npm surface names that no code
    calls, as ``debug//default``, are not in a summary: the store side does not know them)."""
    done = _cli("graph", "--project", str(root), "--json")
    assert done.returncode == 0, done.stderr
    graph = json.loads(done.stdout)
    called = {e["callee"] for e in graph["edges"]}
    return sorted(n["key"] for n in graph["nodes"] if n["kind"] == "external" and n["key"] in called)


def _run_jobs(location: str, *jobfiles: Path, engine: str = "ray") -> dict[str, object]:
    done = _cli(
        "distributed",
        "run",
        *map(str, jobfiles),
        "--engine",
        engine,
        "--workers",
        "2",
        "--store",
        location,
        "--json",
    )
    assert done.returncode in (0, 4), done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    answer["exit"] = done.returncode
    answer["stderr"] = done.stderr
    return answer


def _reach_from_the_store_equals_reach_installed(
    case: Path,
    sources: list[str],
    tmp_path: Path,
    location: str,
) -> None:
    """Summarise the case's lock files into the store on Ray, then compare reach from a bare copy of
    the project (no units, no local summaries) through the store to reach with the units installed.
    Every answer must be equal."""
    installed = _installed_project(case, tmp_path)
    assert _cli("index", str(installed)).returncode == 0
    targets = _externals(installed)
    assert len(targets) > 5
    expected = _answers(installed, sources, targets)
    bare = tmp_path / "bare"
    shutil.copytree(case, bare, ignore=shutil.ignore_patterns("README.md"))
    assert _cli("index", str(bare)).returncode == 0
    unjoined = _answers(bare, sources, targets)
    assert unjoined != expected  # without units or summaries, the calls into packages stay uncertain
    joined = _answers(bare, sources, targets, "--summaries", "--summary-store", location)
    differ = {
        (source, target): (status, joined[source][target])
        for source, answers in expected.items()
        for target, status in answers.items()
        if joined[source][target] != status
    }
    assert differ == {}
    statuses = [status for answers in joined.values() for status in answers.values()]
    assert statuses.count("found") > len(sources)  # the answers go through the summaries' code


@pytest.mark.parametrize("engine", ["ray"])
def test_a_local_cluster_summarises_real_packages_and_reach_from_the_store_alone_agrees(
    engine: str, postgres: str, tmp_path: Path
) -> None:
    _require_registries()
    _require_ray()
    case = FIXTURES / "small"
    broken = tmp_path / "broken.txt"
    broken.write_text("idna==0.0.99999\n", encoding="utf-8")
    first = _run_jobs(postgres, case / "requirements.txt", case / "package-lock.json", broken, engine=engine)
    outcomes = {o["job"]: o for o in first["outcomes"]}  # type: ignore[attr-defined]
    assert sorted(outcomes) == ["npm:debug@4.3.4", "npm:ms@2.1.2", "pypi:idna@0.0.99999", "pypi:idna@3.10"]
    assert {job: o["status"] for job, o in outcomes.items()} == {
        "npm:debug@4.3.4": "built",
        "npm:ms@2.1.2": "built",
        "pypi:idna@0.0.99999": "failed",
        "pypi:idna@3.10": "built",
    }
    assert first["exit"] == 4  # a failed version is an exit of its own, and listed
    assert "pip download" in outcomes["pypi:idna@0.0.99999"]["error"]
    assert "[4/4]" in str(first["stderr"])  # progress, one line per job
    status = json.loads(_cli("distributed", "status", "--store", postgres, "--json").stdout)
    assert status["summaries"] == 3
    assert status["states"] == {"built": 3, "failed": 1}
    assert [f["lookup"] for f in status["failures"]] == ["pypi:idna@0.0.99999"]
    # a second run rebuilds nothing it has: the same versions are stored (whatever the engine: the
    # plain pool here, which starts no cluster)
    with open_store(postgres) as store:
        before = store._execute("SELECT lookup, written_at FROM summaries ORDER BY lookup")
    again = _run_jobs(postgres, case / "requirements.txt", case / "package-lock.json", engine="local")
    assert {o["status"] for o in again["outcomes"]} == {"stored"}  # type: ignore[attr-defined]
    assert again["exit"] == 0
    with open_store(postgres) as store:
        assert store._execute("SELECT lookup, written_at FROM summaries ORDER BY lookup") == before
    sources = ["app.py:encode_host", "app.py:check_label", "index.js:turnOn"]
    _reach_from_the_store_equals_reach_installed(case, sources, tmp_path, postgres)


def test_a_job_whose_process_dies_is_run_again(tmp_path: Path) -> None:
    _require_registries()
    location = str(tmp_path / "summaries.db")
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("npm:ms@2.1.2\n", encoding="utf-8")
    with open_store(location):
        pass  # the tables exist before the run, so the test can watch them
    run = subprocess.Popen(
        [str(CLI), "distributed", "run", str(jobs), "--engine", "local", "--store", location, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    killed = None
    deadline = time.monotonic() + 300
    with open_store(location) as store:
        while killed is None and time.monotonic() < deadline and run.poll() is None:
            running = store.running()
            if running:
                killed = running[0][1]
                os.kill(killed, signal.SIGKILL)
            else:
                time.sleep(0.05)
    out, err = run.communicate(timeout=600)
    assert killed is not None, f"the job never ran: {err}"
    answer = json.loads(out)
    outcome = answer["outcomes"][0]
    assert (outcome["status"], outcome["attempts"]) == ("built", 2), err
    with open_store(location) as store:
        state = store.job("npm:ms@2.1.2")
        assert state is not None and (state.state, state.attempts) == ("built", 2)


def test_a_job_that_dies_every_time_is_recorded_with_how_it_died(tmp_path: Path) -> None:
    from projectgraph.distributed import work

    _require_registries()
    location = str(tmp_path / "summaries.db")
    with open_store(location):
        pass
    job = Job.of("npm", "ms", "2.1.2")
    # the job's process is the real worker, killed by the test each time it starts
    outcome = None
    import threading

    def killer() -> None:
        with open_store(location) as store:
            seen: set[int] = set()
            deadline = time.monotonic() + 300
            while outcome is None and time.monotonic() < deadline:
                for _lookup, pid, _host in store.running():
                    if pid not in seen:
                        seen.add(pid)
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.05)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        outcome = work.attempt(job, location, retries=1)
    finally:
        thread.join()
    assert (outcome.status, outcome.attempts) == ("failed", 2)
    assert "died (signal 9)" in outcome.error
    with open_store(location) as store:
        failures = store.status().failures
    assert [(f.lookup, f.attempts) for f in failures] == [("npm:ms@2.1.2", 2)]
    assert "signal 9" in failures[0].error


# Shaped like semver 7.6.3 beside debug 4.3.4 (what the 34-version run found): semver's classes call
# a local ``debug(...)`` whose value the linker cannot know (a conditional of two arrows), so the call
# is scoped by its name, and with the units installed it may go to the ``debug`` that debug's
# ``createDebug`` defines, which reaches ``Date``.
NAMED_PROJECT = {
    "index.js": (
        "const semver = require('semverish');\nconst log = require('debugish')('named');\n\n"
        "function newer(a, b) {\n  return semver.gt(a, b);\n}\n\n"
        "function relay(logger) {\n  return logger.debug('relay');\n}\n\n"
        "function roll() {\n  return Math.random();\n}\n\n"
        "module.exports = { newer, relay, roll, log };\n"
    ),
    "package.json": json.dumps(
        {
            "name": "named",
            "version": "1.0.0",
            "dependencies": {"semverish": "1.0.0", "debugish": "1.0.0", "idleish": "1.0.0"},
        }
    ),
    "package-lock.json": json.dumps(
        {
            "name": "named",
            "lockfileVersion": 3,
            "packages": {
                "": {"name": "named", "version": "1.0.0"},
                "node_modules/debugish": {"version": "1.0.0"},
                "node_modules/idleish": {"version": "1.0.0"},
                "node_modules/semverish": {"version": "1.0.0"},
            },
        }
    ),
}
NAMED_UNITS = {
    "semverish": {
        "package.json": json.dumps({"name": "semverish", "version": "1.0.0", "main": "index.js"}),
        "index.js": "const gt = require('./functions/gt');\n\nmodule.exports = { gt };\n",
        "functions/gt.js": (
            "const compare = require('./compare');\n\n"
            "const gt = (a, b) => compare(a, b) > 0;\n\nmodule.exports = gt;\n"
        ),
        "functions/compare.js": (
            "const SemVer = require('../classes/semver');\n\n"
            "const compare = (a, b) => new SemVer(a).compare(new SemVer(b));\n\nmodule.exports = compare;\n"
        ),
        "classes/semver.js": (
            "const debug = require('../internal/debug');\n\n"
            "class SemVer {\n  constructor(version) {\n    this.version = version;\n  }\n\n"
            "  compare(other) {\n    debug('SemVer.compare', this.version, other);\n"
            "    return this.version.localeCompare(other.version);\n  }\n}\n\nmodule.exports = SemVer;\n"
        ),
        "internal/debug.js": (
            "const debug = (typeof process === 'object' && process.env && process.env.NODE_DEBUG)\n"
            "  ? (...args) => console.error('SEMVER', ...args)\n  : () => {};\n\nmodule.exports = debug;\n"
        ),
    },
    "debugish": {
        "package.json": json.dumps({"name": "debugish", "version": "1.0.0", "main": "index.js"}),
        "index.js": (
            "function createDebug(namespace) {\n"
            "  function debug(...args) {\n    const curr = Number(new Date());\n"
            "    return [namespace, curr, ...args];\n  }\n  return debug;\n}\n\n"
            "module.exports = createDebug;\n"
        ),
    },
    # installed but imported by no code: an index with it installed does not load it, so its own
    # debug (which reaches Math.random) is no place semverish's debug(...) can go
    "idleish": {
        "package.json": json.dumps({"name": "idleish", "version": "1.0.0", "main": "index.js"}),
        "index.js": "function debug() {\n  return Math.random();\n}\n\nmodule.exports = debug;\n",
    },
}


def _named_case(tmp_path: Path) -> tuple[Path, Path, str]:
    """The named case installed, and bare with its units' summaries in a SQLite store, built as a
    job builds them (each unit linked alone); both indexed."""
    from projectgraph.distributed.work import summarise

    installed, bare = tmp_path / "installed", tmp_path / "bare"
    for root in (installed, bare):
        write_tree(root, NAMED_PROJECT)
    location = str(tmp_path / "summaries.db")
    with open_store(location) as store:
        for name, files in NAMED_UNITS.items():
            write_tree(installed / "node_modules" / name, files)
            write_tree(tmp_path / "units" / name, files)
            unit = f"npm:{name}@1.0.0"
            built, _files = summarise(tmp_path / "units" / name, unit, tmp_path / f"scratch-{name}")
            store.put(unit, built, 0.0, ())
    for root in (installed, bare):
        assert _cli("index", str(root)).returncode == 0
    return installed, bare, location


def test_a_call_by_name_in_one_stored_unit_may_go_to_another_units_definition(tmp_path: Path) -> None:
    """The store side knows what every package's definitions of a name reach: a call by name
    (semverish's ``debug(...)``, the project's ``logger.debug()``) is uncertain of ``Date`` as with
    the units installed, never not-found."""
    installed, bare, location = _named_case(tmp_path)
    targets = ["Date", "Number", "Math//random", "console//error", "Object//*"]
    sources = ["index.js:newer", "index.js:relay"]
    expected = _answers(installed, sources, targets)
    assert expected["index.js:newer"]["Date"] == "uncertain"  # semverish's debug(...) may be debugish's
    assert expected["index.js:relay"]["Date"] == "uncertain"
    assert expected["index.js:newer"]["Math//random"] == "not-found"  # idleish is not loaded
    joined = _answers(bare, sources, targets, "--summaries", "--summary-store", location)
    assert joined == expected


def test_reach_through_the_daemon_reads_the_summary_store_as_direct_mode_does(tmp_path: Path) -> None:
    """The launcher forwards ``reach --summaries --summary-store`` to the project's daemon, which
    runs it in the caller's working directory (a relative store path) and answers as direct mode."""
    from projectgraph.daemon import writer

    _installed, bare, location = _named_case(tmp_path)
    ask = ["reach", "Date", "Number", "--source", "index.js:newer", "--sources-only", "--project", str(bare)]
    ask += ["--json", "--summaries", "--summary-store", Path(location).name]
    direct = subprocess.run(
        [str(CLI), *ask], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=DIRECT, check=False
    )
    assert direct.returncode == 3, direct.stderr
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k != "PROJECTGRAPH_NO_DAEMON"}
    env |= {"XDG_RUNTIME_DIR": str(runtime), "PROJECTGRAPH_DAEMON_IDLE": "120"}
    try:
        served = subprocess.run(
            [str(CLI), *ask], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env, check=False
        )
        held = writer.holder(bare / ".projectgraph") or {}
        assert held.get("role") == "daemon"  # the daemon answered, not the launcher in process
    finally:
        stopped = subprocess.run(
            [str(CLI), "daemon", "stop", str(bare)], capture_output=True, text=True, timeout=120, env=env
        )
    assert stopped.returncode == 0, stopped.stderr
    assert served.returncode == direct.returncode, served.stderr
    answers = json.loads(served.stdout)["results"]
    assert [r["status"] for r in answers] == ["uncertain", "uncertain"]
    # through the store's semverish code: its debug(...) site, not a call into a package of no code
    assert [u["reason"].split(":")[0] for u in answers[0]["uncertainties"]] == ["unknown-receiver"]
    strip = [(r["target"], r["status"], r["uncertainties"]) for r in json.loads(direct.stdout)["results"]]
    assert [
        (r["target"], r["status"], r["uncertainties"]) for r in json.loads(served.stdout)["results"]
    ] == strip


@pytest.mark.slow
def test_a_local_cluster_over_thirty_real_package_versions_answers_reach_as_installed(
    postgres: str, tmp_path: Path
) -> None:
    _require_registries()
    _require_ray()
    case = FIXTURES / "wide"
    listed = [*read_jobs(case / "requirements.txt").jobs, *read_jobs(case / "package-lock.json").jobs]
    assert len(listed) >= 30
    first = _run_jobs(postgres, case / "requirements.txt", case / "package-lock.json")
    statuses = {o["job"]: o["status"] for o in first["outcomes"]}  # type: ignore[attr-defined]
    assert len(statuses) == len(listed)
    assert set(statuses.values()) == {"built"}, first["outcomes"]
    sources = sorted(json.loads((case / "sources.json").read_text(encoding="utf-8")))
    _reach_from_the_store_equals_reach_installed(case, sources, tmp_path, postgres)
