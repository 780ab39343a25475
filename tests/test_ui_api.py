"""The viewer's JSON API, its live channel and its guards, over HTTP against a real server on a real
store: a copy of examples/shop with a few more files (dynamic code, a binary file, a unit of
dependency code), indexed for real. Every endpoint is asked here; the answers are checked against
the files and the engine, not against recorded text."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, write_tree
from projectgraph.indexer import IndexOptions
from projectgraph.project import Project
from projectgraph.query import QueryEngine
from projectgraph.ui import BindRefusedError, UiServer, is_loopback
from projectgraph.ui.server import allowed_hosts
from projectgraph.units import DepsConfig

CLI = Path(sys.executable).with_name("projectgraph")

EXTRA = {
    "shop/plugins.py": (
        "import importlib\n"
        "\n"
        "from kit import helper\n"
        "\n"
        "\n"
        "def run_plugin(name):\n"
        "    module = importlib.import_module(name)\n"
        "    return getattr(module, name)()\n"
        "\n"
        "\n"
        "def assist():\n"
        "    return helper()\n"
    ),
    "shop/blob.py": b"\x00\x01binary\x00" * 64,
}
KIT = {"kit/__init__.py": "def helper():\n    return 42\n"}
KIT_UNIT = "pypi:kit@1.0.0"


def _index(root: Path, deps: Path) -> None:
    options = IndexOptions(deps=DepsConfig(auto=False, named=((str(deps), KIT_UNIT),)))
    with Project(root) as project:
        project.refresh(options)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("ui-api")
    root = base / "shop"
    shutil.copytree(EXAMPLES / "shop", root, ignore=shutil.ignore_patterns(".projectgraph", "__pycache__"))
    write_tree(root, EXTRA)
    deps = write_tree(base / "kit-1.0.0", KIT)
    _index(root, deps)
    return root


class Client:
    """GETs against a running server: (status, parsed JSON)."""

    def __init__(self, server: UiServer) -> None:
        self.server = server

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(body) if kind.startswith("application/json") else body

    def ok(self, path: str) -> Any:
        status, data = self.get(path)
        assert status == 200, (path, data)
        return data


@pytest.fixture(scope="module")
def client(project: Path) -> Iterator[Client]:
    server = UiServer(project, poll=0.05, check_every=0.2)
    server.start()
    try:
        yield Client(server)
    finally:
        server.stop()


def engine(root: Path) -> QueryEngine:
    return QueryEngine(Project(root).store.connection)


# ---- endpoints -------------------------------------------------------------------------------------
def test_status_reports_the_stored_run_and_a_current_working_copy(client: Client, project: Path) -> None:
    data = client.ok("/api/status")
    with Project(project) as opened:
        from projectgraph.store import sqlite as sql

        run = sql.last_run(opened.store.connection)
    assert run is not None
    assert data["root"] == str(project)
    assert data["graph"]["nodes"] == run["stats"]["nodes"] and data["graph"]["edges"] == run["stats"]["edges"]
    assert data["generation"]["run"] == run["id"]
    assert data["units"] == 1
    assert data["staleness"]["checked"] and data["staleness"]["stale"] is False


def test_search_finds_a_definition_first_and_refuses_bad_arguments(client: Client) -> None:
    data = client.ok("/api/search?q=load_catalog")
    assert data["results"][0]["key"] == "shop/catalog.py//load_catalog"
    assert (
        client.ok("/api/search?q=load+cat&mode=keyword")["results"][0]["key"]
        == "shop/catalog.py//load_catalog"
    )
    status, error = client.get("/api/search?q=load&mode=psychic")
    assert status == 400 and "psychic" in error["error"]
    status, error = client.get("/api/search")
    assert status == 400 and "'q'" in error["error"]
    status, error = client.get("/api/search?q=x&limit=0")
    assert status == 400 and "limit" in error["error"]


def test_symbol_gives_the_node_its_code_and_its_unresolved_sites(client: Client, project: Path) -> None:
    data = client.ok("/api/symbol?key=load_catalog")
    symbol = data["symbol"]
    assert symbol["key"] == "shop/catalog.py//load_catalog" and symbol["kind"] == "function"
    lines = (project / symbol["path"]).read_text(encoding="utf-8").splitlines()
    code = data["code"]
    assert code["available"] and not code["stale"]
    assert code["lines"] == lines[symbol["line"] - 1 : symbol["end_line"]]
    assert code["lines"][0].startswith("def load_catalog(")

    total = client.ok("/api/symbol?key=Basket.total")
    # catalog is a parameter and self.lines a literal the records do not hold: each call on them
    # keeps its site, named by what it runs (the operator's dunders, the loop's __iter__/__next__)
    assert sorted((u["reason"], u["name"], u["text"]) for u in total["unresolved"]) == [
        ("unknown-receiver", "__iter__", "for self.lines"),
        ("unknown-receiver", "__mul__", "<op> catalog.price() * count"),
        ("unknown-receiver", "__next__", "for self.lines"),
        ("unknown-receiver", "__rmul__", "<op> catalog.price() * count"),
        ("unknown-receiver", "price", "catalog.price(name)"),
    ]
    plugin = client.ok("/api/symbol?key=shop/plugins.py:run_plugin")
    assert plugin["dynamic"], "a computed import and a computed getattr are dynamic features"
    assert all(f["site"]["path"] == "shop/plugins.py" for f in plugin["dynamic"])

    main = client.ok("/api/symbol?key=shop/cli.py//main")
    assert main["roots"] and all(r["kind"] and r["rule"] for r in main["roots"])


def test_symbol_errors_name_the_candidates_or_the_missing_name(client: Client) -> None:
    status, data = client.get("/api/symbol?key=__init__")
    assert status == 409
    assert {c["key"] for c in data["candidates"]} == {
        "shop/catalog.py//Catalog//__init__",
        "shop/orders.py//Basket//__init__",
    }
    status, data = client.get("/api/symbol?key=no_such_thing")
    assert status == 404 and "no_such_thing" in data["error"]
    external = client.ok("/api/symbol?key=yaml//load")
    assert external["code"]["available"] is False and "external" in external["code"]["note"]
    unit = client.ok("/api/symbol?key=" + f"{KIT_UNIT}//kit/__init__.py//helper")
    assert unit["symbol"]["unit"] == KIT_UNIT and unit["code"]["available"] is False


def test_callers_and_callees_are_the_engines_answers(client: Client, project: Path) -> None:
    callers = client.ok("/api/callers?key=load_catalog")
    assert callers == engine(project).callers("load_catalog", 25)
    hit = next(r for r in callers["results"] if r["key"] == "shop/orders.py//checkout")
    assert (hit["kind"], hit["confidence"], hit["site"]["line"]) == ("direct", "high", 18)

    callees = client.ok("/api/callees?key=checkout&limit=2")
    assert callees["truncated"] and callees["total"] > 2 and len(callees["results"]) == 2
    assert callees == engine(project).callees("checkout", 2)
    low = client.ok("/api/callees?key=load_catalog")
    assert any(r["confidence"] == "low" and r["kind"] == "reference" for r in low["results"])
    honest = client.ok("/api/callers?key=yaml//SafeLoader")
    assert honest["status"] == "callers-unknown"
    assert [(u["rule"], u["key"]) for u in honest["uncertain"]["results"]] == [
        ("value", "shop/catalog.py//load_catalog")
    ]
    status, _ = client.get("/api/callers?key=load_catalog&limit=abc")
    assert status == 400


def test_impact_groups_by_file_with_counts_per_depth(client: Client, project: Path) -> None:
    data = client.ok("/api/impact?key=load_catalog&depth=3")
    expected = engine(project).impact("load_catalog", 3)
    assert data["impacted"] == expected["impacted"]
    assert [d["count"] for d in data["perDepth"]] == [
        sum(1 for i in expected["impacted"] if i["depth"] == d) for d in (1, 2, 3)
    ]
    by_file = {g["path"]: g for g in data["files"]}
    assert by_file["shop/orders.py"]["depths"] == {"1": 1}
    assert by_file["shop/cli.py"]["count"] == 2
    assert sum(g["count"] for g in data["files"]) == len(expected["impacted"]) - 1
    status, error = client.get("/api/impact?key=load_catalog&depth=7")
    assert status == 400 and "depth" in error["error"]


def test_reach_gives_the_path_hop_by_hop_and_the_uncertainties(client: Client) -> None:
    data = client.ok("/api/reach?target=yaml//load&target=pickle//loads")
    found, uncertain = data["results"]
    assert found["status"] == "found"
    assert [h["key"] for h in found["path"]] == [
        "shop/cli.py//main",
        "shop/orders.py//checkout",
        "shop/catalog.py//load_catalog",
        "yaml//load",
    ]
    assert [h["kind"] for h in found["path"][1:]] == ["direct", "direct", "direct"]
    assert found["path"][1]["node"] == {"kind": "function", "path": "shop/orders.py", "line": 17, "unit": ""}
    assert uncertain["status"] == "uncertain" and uncertain["uncertainties"]
    assert all(u["caller"] and u["site"] for u in uncertain["uncertainties"])

    assert client.ok("/api/reach?prepare=1") == {"graph": "ready"}  # read by the search above

    capped = client.ok("/api/reach?target=yaml//load&max_depth=1")["results"][0]
    assert capped["status"] == "uncertain"  # where the search stopped is said, never not-found
    assert "the depth cap stopped the search" in {u["reason"] for u in capped["uncertainties"]}
    assert not client.ok("/api/reach?target=yaml//load")["results"][0]["uncertainties"]

    from_legacy = client.ok("/api/reach?target=pickle//loads&source=shop/legacy.py:restore&sources_only=1")
    assert from_legacy["results"][0]["status"] == "found"
    status, error = client.get("/api/reach?target=pickle//loads&sources_only=1")
    assert status == 400 and "source" in error["error"]
    status, error = client.get("/api/reach")
    assert status == 400 and "target" in error["error"]
    status, error = client.get("/api/reach?target=yaml////load")
    assert status == 400 and "empty segment" in error["error"]


def test_files_list_statuses_and_units_with_versions(client: Client) -> None:
    data = client.ok("/api/files")
    paths = {f["path"]: f for f in data["files"]}
    assert {"shop/catalog.py", "shop/plugins.py", "shop/blob.py"} <= set(paths)
    assert paths["shop/catalog.py"]["status"] in ("indexed", "cached")
    assert paths["shop/blob.py"]["status"] == "failed" and paths["shop/blob.py"]["reason"]
    assert sum(data["statuses"].values()) == len(data["files"])
    assert data["units"] == [
        {
            "unit": KIT_UNIT,
            "ecosystem": "pypi",
            "package": "kit",
            "version": "1.0.0",
            "files": 1,
            "statuses": data["units"][0]["statuses"],
        }
    ]
    unit = client.ok(f"/api/files?unit={KIT_UNIT}")
    assert [f["path"] for f in unit["files"]] == [f"{KIT_UNIT}//kit/__init__.py"]
    status, error = client.get("/api/files?unit=pypi:nothing@0")
    assert status == 400 and "pypi:nothing@0" in error["error"]


def test_unknown_endpoints_pages_and_methods_are_refused(client: Client) -> None:
    status, data = client.get("/api/nothing")
    assert status == 404 and "status" in data["error"]
    status, data = client.get("/secret.txt")
    assert status == 404
    connection = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=10)
    connection.request("POST", "/api/status", body=b"{}")
    response = connection.getresponse()
    assert response.status == 405
    connection.close()


def test_the_page_and_its_assets_are_served_from_the_package(client: Client) -> None:
    status, page = client.get("/")
    assert status == 200 and b'<script src="/app.js"' in page
    for asset in ("/app.js", "/app.css", "/favicon.svg"):
        status, body = client.get(asset)
        assert status == 200 and body
    connection = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    response.read()
    assert "default-src 'self'" in (response.getheader("Content-Security-Policy") or "")
    connection.close()


# ---- the guards --------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/", "/api/status", "/api/events", "/app.js"])
def test_a_foreign_host_is_refused_dns_rebinding(client: Client, path: str) -> None:
    status, data = client.get(path, {"Host": f"attacker.example:{client.server.port}"})
    assert status == 403 and "Host" in data["error"]
    status, data = client.get(path, {"Host": "127.0.0.1"})  # another port is another server
    assert status == 403


def test_a_foreign_origin_is_refused_and_this_servers_own_is_not(client: Client) -> None:
    port = client.server.port
    status, data = client.get("/api/status", {"Origin": "http://attacker.example"})
    assert status == 403 and "Origin" in data["error"]
    status, _ = client.get("/api/status", {"Origin": "null"})
    assert status == 403
    status, _ = client.get("/api/status", {"Origin": f"https://127.0.0.1:{port}"})
    assert status == 403
    assert client.get("/api/status", {"Origin": f"http://127.0.0.1:{port}"})[0] == 200
    assert (
        client.get("/api/status", {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"})[0]
        == 200
    )


def test_a_request_without_a_host_header_is_refused(client: Client) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=10)
    connection.putrequest("GET", "/api/status", skip_host=True)
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 403
    connection.close()


def test_a_non_loopback_bind_is_refused_unless_the_host_is_named(project: Path) -> None:
    for host in ("0.0.0.0", "::", "192.0.2.7", "example.org"):
        with pytest.raises(BindRefusedError, match="--host"):
            UiServer(project, host=host)
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.3.2.1", "localhost", "::1", "[::1]"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.org"))
    server = UiServer(project)
    try:
        assert server.httpd.server_address[0] == "127.0.0.1"
    finally:
        server.close()
    assert allowed_hosts("127.0.0.1", 8760) == {"127.0.0.1:8760", "localhost:8760", "[::1]:8760"}


@contextmanager
def _cli_viewer(args: list[str], cwd: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A real ``projectgraph ui`` process and what it said on stderr until it served; ended after."""
    process = subprocess.Popen(
        [str(CLI), "ui", *args], cwd=cwd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert process.stderr is not None
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("viewer of" in line for line in lines):
            line = process.stderr.readline()
            if not line:
                break
            lines.append(line)
        assert any("viewer of" in line for line in lines), "the viewer did not start: " + "".join(lines)
        yield process, "".join(lines)
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


def _status_of(port: int, headers: dict[str, str] | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/api/status", headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_the_cli_serves_another_address_only_when_named_with_a_warning(project: Path) -> None:
    with _cli_viewer(["--port", "0"], project) as (_process, said):
        assert "http://127.0.0.1:" in said and "warning" not in said
    with _cli_viewer(["--port", "0", "--host", "0.0.0.0"], project) as (process, said):
        assert "warning: serving on 0.0.0.0, which is not loopback" in said
        port = int(said.split("http://127.0.0.1:")[1].split("/")[0])
        assert _status_of(port) == 200
        # the Host check holds for every bind
        assert _status_of(port, {"Host": f"attacker.example:{port}"}) == 403
        process.terminate()
        assert process.wait(timeout=30) == 0


# ---- the live channel --------------------------------------------------------------------------------
class EventReader:
    """The server-sent events of one /api/events stream, read in a thread: (name, data)."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", "/api/events")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        name, data = "", ""
        try:
            for raw in self.response:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif not line and name:
                    with self.arrived:
                        self.events.append((name, json.loads(data)))
                        self.arrived.notify_all()
                    name, data = "", ""
        except (OSError, ValueError):
            return

    def wait_for(self, test: Any, timeout: float = 30) -> tuple[str, dict[str, Any]]:
        with self.arrived:
            ok = self.arrived.wait_for(lambda: any(test(e) for e in self.events), timeout)
            assert ok, f"no such event within {timeout} s; got {[e[0] for e in self.events]}"
            return next(e for e in self.events if test(e))

    def close(self) -> None:
        self.connection.close()


def test_the_live_channel_tells_staleness_then_the_new_generation_after_a_sync(
    tmp_path: Path, project: Path
) -> None:
    root = tmp_path / "shop"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "shop" / "blob.py").unlink()  # a sync with a failed file exits 4
    with Project(root) as opened:
        opened.sync()  # the copy's stamps are its own
    server = UiServer(root, poll=0.05, check_every=0.2)
    server.start()
    events = EventReader(server.port)
    try:
        _, hello = events.wait_for(lambda e: e[0] == "hello")
        run = hello["generation"]["run"]
        assert hello["staleness"]["stale"] is False
        orders = root / "shop" / "orders.py"
        orders.write_text(
            orders.read_text(encoding="utf-8") + "\n\ndef reorder(path):\n    return load_catalog(path)\n",
            encoding="utf-8",
        )
        _, stale = events.wait_for(lambda e: e[0] == "staleness" and e[1]["staleness"].get("stale"))
        assert stale["staleness"]["changed"] == ["shop/orders.py"]
        assert Client(server).ok("/api/symbol?key=checkout")["code"]["stale"] is True
        done = subprocess.run([str(CLI), "sync"], cwd=root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        _, moved = events.wait_for(lambda e: e[0] == "generation" and e[1]["generation"]["run"] > run)
        assert moved["generation"]["run"] == run + 1
        _, fresh = events.wait_for(lambda e: e[0] == "staleness" and e[1]["staleness"].get("stale") is False)
        # the status names the live version its staleness is from, so a page that fetched it while
        # an event came can tell which is newer (CI saw a stale status overwrite a fresh event)
        status = Client(server).ok("/api/status")
        assert status["liveVersion"] >= fresh["version"] > stale["version"]
        assert status["staleness"]["stale"] is False
        callers = Client(server).ok("/api/callers?key=load_catalog")
        assert "shop/orders.py//reorder" in {r["key"] for r in callers["results"]}
    finally:
        events.close()
        server.stop()
