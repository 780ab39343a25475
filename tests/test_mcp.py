"""The MCP server through the SDK's own client, over stdio and streamable HTTP, each server a real
``projectgraph serve --mcp`` subprocess on a copy of examples/shop.

Every test is bounded (``anyio.fail_after``) and every server process is killed on the way out,
whatever happens in the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import jsonschema
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from conftest import EXAMPLES
from projectgraph.cli import main
from projectgraph.mcp import TOOLS
from projectgraph.mcp.arguments import ArgumentError, check_arguments
from projectgraph.mcp.server import parse_address
from projectgraph.project import Project
from projectgraph.query import QueryEngine

CLI = Path(sys.executable).with_name("projectgraph")
TRANSPORTS = ("stdio", "http")
CALL_TIMEOUT = 60  # seconds for one test's whole conversation with its server
START_TIMEOUT = 30  # seconds for an HTTP server to print its address
NAMES = [
    "search_code",
    "code_symbol",
    "code_callers",
    "code_callees",
    "code_impact",
    "code_reach",
    "code_path",
    "explore",
    "code_changes",
    "index_status",
]


# ---- projects ------------------------------------------------------------------------------------
def _copy_shop(target: Path) -> Path:
    shutil.copytree(EXAMPLES / "shop", target, ignore=shutil.ignore_patterns(".projectgraph", "__pycache__"))
    with Project(target) as project:
        project.refresh()
    return target.resolve()


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An indexed copy of examples/shop that no test changes."""
    return _copy_shop(tmp_path_factory.mktemp("mcp") / "shop")


@pytest.fixture
def stale_shop(tmp_path: Path) -> Path:
    """An indexed copy of examples/shop, then a file deleted, a file changed and a file added."""
    root = _copy_shop(tmp_path / "shop")
    (root / "shop" / "extra.py").write_text("def extra():\n    return 1\n", encoding="utf-8")
    (root / "shop" / "legacy.py").unlink()
    orders = root / "shop" / "orders.py"
    orders.write_text(orders.read_text(encoding="utf-8") + "\n# changed after indexing\n", encoding="utf-8")
    return root


# ---- servers -------------------------------------------------------------------------------------
@asynccontextmanager
async def _stdio(cwd: Path, args: list[str], log: Any, mode: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=str(CLI),
        args=["serve", "--mcp", *args],
        cwd=str(cwd),
        env=dict(os.environ),  # direct mode
    )
    async with Client(
        stdio_client(params, errlog=log), mode=mode, read_timeout_seconds=CALL_TIMEOUT
    ) as client:
        yield client


class HttpServer:
    """``projectgraph serve --mcp --http 127.0.0.1:0`` in a subprocess; the URL it prints on stderr."""

    def __init__(self, cwd: Path, args: list[str], address: str = "127.0.0.1:0") -> None:
        self.process = subprocess.Popen(
            [str(CLI), "serve", "--mcp", "--http", address, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr: list[str] = []
        self._url = threading.Event()
        self.url = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            found = re.search(r"MCP server on (http://\S+)", line)
            if found and not self.url:
                self.url = found.group(1)
                self._url.set()
        self._url.set()  # the process ended: wake the waiter

    def wait_url(self) -> str:
        if not self._url.wait(START_TIMEOUT) or not self.url:
            self.stop()
            raise AssertionError(f"the HTTP server did not start: {''.join(self.stderr)}")
        return self.url

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._reader.join(10)
        if self.process.stderr is not None:
            self.process.stderr.close()


@asynccontextmanager
async def _http(cwd: Path, args: list[str], mode: str) -> AsyncIterator[Client]:
    server = HttpServer(cwd, args)
    try:
        url = await anyio.to_thread.run_sync(server.wait_url)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        async with Client(url, mode=mode, read_timeout_seconds=CALL_TIMEOUT) as client:
            yield client
    finally:
        server.stop()


Conversation = Callable[[Client], Any]


def converse(
    transport: str, cwd: Path, conversation: Conversation, args: list[str] | None = None, mode: str = "auto"
) -> None:
    """Start a server, run the conversation with the SDK client, stop the server; all bounded."""

    async def run() -> None:
        with anyio.fail_after(CALL_TIMEOUT), tempfile.TemporaryFile("w+") as log:
            try:
                if transport == "stdio":
                    async with _stdio(cwd, args or [], log, mode) as client:
                        await conversation(client)
                else:
                    async with _http(cwd, args or [], mode) as client:
                        await conversation(client)
            except BaseException:
                log.seek(0)
                sys.stderr.write(log.read())
                raise

    anyio.run(run)


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def refused(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, result.structured_content
    text = result.content[0].text  # type: ignore[union-attr]
    assert isinstance(text, str)
    return text


def without_checks(value: Any) -> Any:
    """An answer less what the working-copy check and the routing add."""
    if isinstance(value, dict):
        return {
            k: without_checks(v)
            for k, v in value.items()
            if k not in ("stale", "missing", "staleOmitted", "notes", "project", "generation")
        }
    if isinstance(value, list):
        return [without_checks(v) for v in value]
    return value


@pytest.fixture
def engine(shop: Path) -> Iterator[QueryEngine]:
    with Project(shop) as project:
        yield QueryEngine(project.store.connection)


# ---- listing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_are_listed_with_their_schemas(shop: Path, transport: str, mode: str) -> None:
    async def conversation(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert sorted(listed) == sorted(NAMES)
        for tool in listed.values():
            assert tool.description and len(tool.description) > 60, tool.name
            schema = tool.input_schema
            assert schema["type"] == "object" and schema["additionalProperties"] is False
            for name, prop in schema["properties"].items():
                assert prop.get("description"), f"{tool.name}.{name} has no description"
            assert "project_path" in schema["properties"]
            jsonschema.Draft202012Validator.check_schema(schema)
        assert tool.annotations is not None and tool.annotations.read_only_hint
        props = {name: tool.input_schema["properties"] for name, tool in listed.items()}
        assert props["search_code"]["mode"]["enum"] == ["keyword", "semantic", "hybrid"]
        # a page of 20 at detail normal, every entry at full (query/answers.py): no fixed default
        assert (
            "default" not in props["code_callers"]["limit"]
            and "default" not in props["code_callees"]["limit"]
        )
        assert props["code_callers"]["detail"]["default"] == "normal"
        assert props["code_impact"]["detail"]["enum"] == ["summary", "normal", "full"]
        assert (props["code_impact"]["depth"]["minimum"], props["code_impact"]["depth"]["maximum"]) == (1, 6)
        assert props["code_impact"]["depth"]["default"] == 2
        assert set(props["code_reach"]) == {
            "targets",
            "sources",
            "sources_only",
            "max_depth",
            "summaries",
            "project_path",
        }
        assert set(props["code_path"]) == {"from", "to", "project_path"}
        assert listed["code_reach"].input_schema["required"] == ["targets"]
        assert listed["code_path"].input_schema["required"] == ["from", "to"]

    converse(transport, shop, conversation, mode=mode)


# ---- every tool, the same answers as the query engine --------------------------------------------
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_tool_answers_as_the_engine(shop: Path, engine: QueryEngine, transport: str) -> None:
    async def conversation(client: Client) -> None:
        answers = {}
        answers["search"] = await call(client, "search_code", {"query": "load catalog", "mode": "keyword"})
        answers["symbol"] = await call(client, "code_symbol", {"name": "Basket"})
        answers["callers"] = await call(
            client, "code_callers", {"symbol_id": "shop/catalog.py//load_catalog", "detail": "full"}
        )
        answers["callees"] = await call(client, "code_callees", {"symbol_id": "checkout", "limit": 2})
        answers["impact"] = await call(
            client, "code_impact", {"symbol_id": "load_catalog", "depth": 3, "detail": "full"}
        )
        answers["path"] = await call(client, "code_path", {"from": "main", "to": "load_catalog"})
        answers["reach"] = await call(client, "code_reach", {"targets": ["yaml//load", "pickle//loads"]})
        answers["status"] = await call(client, "index_status", {})

        for answer in answers.values():
            assert answer["project"] == str(shop)
        for name in ("search", "symbol", "callers", "callees", "impact", "path", "reach"):
            assert answers[name]["staleOmitted"] == 0 and answers[name]["notes"] == [], name

        assert without_checks(answers["search"]) == engine.search("load catalog", "keyword", 10)
        assert answers["search"]["results"][0]["key"] == "shop/catalog.py//load_catalog"
        assert without_checks(answers["symbol"]) == engine.symbol("Basket")
        assert [r["key"] for r in answers["symbol"]["results"]] == ["shop/orders.py//Basket"]
        # detail full: the engine's entries, grouped by file beside them (query/answers.py)
        direct = engine.callers("shop/catalog.py//load_catalog")
        assert without_checks(answers["callers"]["results"]) == direct["results"]
        assert (
            answers["callers"]["total"] == direct["total"]
            and answers["callers"]["status"] == direct["status"]
        )
        assert [r["key"] for r in answers["callers"]["results"]] == ["shop/orders.py//checkout"]
        callees = engine.callees("checkout", 2)
        assert [r["key"] for r in answers["callees"]["results"]] == [r["key"] for r in callees["results"]]
        assert answers["callees"]["total"] == callees["total"]
        assert answers["callees"]["truncated"] is True and len(answers["callees"]["results"]) == 2
        full = engine.impact("load_catalog", 3)
        assert {(i["key"], i["depth"]) for i in answers["impact"]["impacted"]} == {
            (i["key"], i["depth"]) for i in full["impacted"]
        }
        assert answers["impact"]["total"] == len(full["impacted"]) - 1
        impacted = {i["key"]: i["depth"] for i in answers["impact"]["impacted"]}
        assert impacted["shop/catalog.py//load_catalog"] == 0
        assert impacted["shop/orders.py//checkout"] == 1 and impacted["shop/cli.py//main"] == 2
        assert answers["impact"]["edgeCount"] >= 2
        assert without_checks(answers["path"]) == engine.path("main", "load_catalog")
        assert answers["path"]["found"] is True
        assert [h["key"] for h in answers["path"]["path"]][-1] == "shop/catalog.py//load_catalog"

        reach = {r["target"]: r for r in answers["reach"]["results"]}
        assert reach["yaml//load"]["status"] == "found"
        assert reach["yaml//load"]["path"][-1]["key"] == "yaml//load"
        # only shop/legacy.py calls it, which nothing runs; but yaml.load, whose code no unit gives, could
        assert reach["pickle//loads"]["status"] == "uncertain"

        status = answers["status"]
        assert status["indexed"] is True and status["files"] == 5
        assert status["statuses"] == {"indexed": 5}
        assert status["staleness"]["stale"] is False
        assert status["graph"]["nodes"] > 0 and status["lastRun"]["id"] >= 1

    converse(transport, shop, conversation)


def test_reach_answers_as_the_cli(shop: Path) -> None:
    cli = subprocess.run(
        [str(CLI), "reach", "yaml//load", "pickle//loads", "--json"],
        cwd=shop,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    expected = json.loads(cli.stdout)

    async def conversation(client: Client) -> None:
        answer = await call(client, "code_reach", {"targets": ["yaml//load", "pickle//loads"]})
        for result in (*answer["results"], *expected["results"]):
            del result["searched"]["seconds"]
        assert without_checks(answer) == expected
        with_sources = await call(
            client,
            "code_reach",
            {"targets": ["yaml//load"], "sources": ["shop/orders.py:Basket.total"], "sources_only": True},
        )
        assert with_sources["results"][0]["status"] == "not-found"

    converse("stdio", shop, conversation)


# ---- the working copy ----------------------------------------------------------------------------
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_answers_are_checked_against_the_working_copy(stale_shop: Path, transport: str) -> None:
    database = stale_shop / ".projectgraph" / "graph.db"
    before = database.stat().st_mtime_ns

    async def conversation(client: Client) -> None:
        # the symbol of a deleted file is left out, counted, and a note says why
        symbol = await call(client, "code_symbol", {"name": "restore"})
        assert symbol["results"] == [] and symbol["staleOmitted"] == 1
        assert any("shop/legacy.py" in n and "stale" in n for n in symbol["notes"])
        search = await call(client, "search_code", {"query": "restore"})
        assert "shop/legacy.py//restore" not in [r["key"] for r in search["results"]]
        assert search["staleOmitted"] >= 1
        # a symbol of a changed file stays, marked stale
        callers = await call(client, "code_callers", {"symbol_id": "load_catalog"})
        assert [(r["key"], r["stale"]) for r in callers["results"]] == [("shop/orders.py//checkout", True)]
        assert callers["staleOmitted"] == 0
        assert any("changed since indexing" in n and "shop/orders.py" in n for n in callers["notes"])
        impact = await call(client, "code_impact", {"symbol_id": "load_catalog"})
        stale = {i["key"]: i.get("stale", False) for i in impact["impacted"]}  # marked when true
        assert stale == {
            "shop/catalog.py//load_catalog": False,
            "shop/orders.py//checkout": True,
            "shop/cli.py//main": False,
        }
        # the callees of a symbol whose file is gone: the subject is named in a note
        callees = await call(client, "code_callees", {"symbol_id": "shop/legacy.py//restore"})
        assert callees["results"] == [] and callees["staleOmitted"] >= 1
        assert any("shop/legacy.py" in n and "no longer exists" in n for n in callees["notes"])
        # a structure keeps its parts, marked
        reach = await call(client, "code_reach", {"targets": ["yaml//load"]})
        hops = {h["key"]: h["stale"] for h in reach["results"][0]["path"]}
        assert hops["shop/orders.py//checkout"] is True and reach["results"][0]["status"] == "found"
        path = await call(client, "code_path", {"from": "main", "to": "load_catalog"})
        # checkout is in orders.py; load_catalog is called from there
        assert [h["stale"] for h in path["path"]] == [False, True, True]
        # index_status tells the staleness, and the server never refreshed the index
        assert (await call(client, "code_symbol", {"name": "extra"}))["results"] == []  # not indexed yet
        status = await call(client, "index_status", {"list_limit": 5})
        staleness = status["staleness"]
        assert staleness["stale"] is True
        assert (staleness["added"], staleness["removed"], staleness["changed"]) == (1, 1, 1)
        assert staleness["paths"] == {
            "added": ["shop/extra.py"],
            "removed": ["shop/legacy.py"],
            "changed": ["shop/orders.py"],
        }

    converse(transport, stale_shop, conversation)
    assert database.stat().st_mtime_ns == before


# ---- refusals ------------------------------------------------------------------------------------
BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("code_impact", {"symbol_id": "load_catalog", "bogus": 1}, "unknown argument 'bogus'"),
    ("code_impact", {"symbol_id": "load_catalog", "depth": 7}, "'depth' must be between 1 and 6 (got 7)"),
    ("code_impact", {"symbol_id": "load_catalog", "depth": 0}, "'depth' must be between 1 and 6"),
    ("code_impact", {"symbol_id": "load_catalog", "depth": "3"}, "'depth' must be an integer"),
    ("code_impact", {"symbol_id": "load_catalog", "depth": True}, "'depth' must be an integer"),
    (
        "code_impact",
        {"symbol_id": "load_catalog", "depth": 2.5},
        "'depth' must be an integer (got number 2.5)",
    ),
    ("code_impact", {}, "argument 'symbol_id' is required"),
    ("code_callers", {"symbol_id": "load_catalog", "limit": 0}, "'limit' must be between 1 and"),
    ("code_callers", {"symbol_id": ""}, "'symbol_id' must not be empty"),
    ("code_callers", {"symbol_id": None}, "'symbol_id' must be a string (got null"),
    ("code_callers", {"symbol_id": "no_such_thing"}, "no symbol named 'no_such_thing'"),
    ("code_callers", {"symbol_id": "no_such_thing"}, "search_code finds a symbol's key"),
    ("code_callees", {"symbol_id": "__init__"}, "'__init__' names 2 symbols"),
    ("search_code", {"query": "x", "mode": "fuzzy"}, "'mode' must be one of keyword, semantic, hybrid"),
    ("search_code", {"text": "x"}, "unknown argument 'text'"),
    ("code_symbol", {"name": "Basket", "Name": "x"}, "unknown argument 'Name'"),
    ("code_reach", {"targets": "yaml//load"}, "'targets' must be a list of strings"),
    ("code_reach", {"targets": []}, "'targets' needs at least 1 item"),
    ("code_reach", {"targets": ["yaml//load", 3]}, "'targets' must hold non-empty strings"),
    (
        "code_reach",
        {"targets": ["yaml//load"], "sources_only": True},
        "sources_only needs at least one source",
    ),
    (
        "code_reach",
        {"targets": ["yaml//load"], "sources_only": "yes"},
        "'sources_only' must be true or false",
    ),
    ("code_reach", {"targets": ["yaml//load"], "sources": ["shop/nope.py:f"]}, "code_reach:"),
    ("code_path", {"from": "main"}, "argument 'to' is required"),
    ("index_status", {"list_limit": -1}, "'list_limit' must be between 0 and"),
    ("code_symbol", {"name": "Basket", "project_path": "no/such/folder"}, "not a folder"),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bad_arguments_are_refused_with_a_clear_error(shop: Path, transport: str) -> None:
    async def conversation(client: Client) -> None:
        for name, arguments, message in BAD_CALLS:
            text = await refused(client, name, arguments)
            assert message in text, (name, arguments, text)
            assert text.startswith(f"{name}: "), text
        with pytest.raises(MCPError, match="unknown tool 'code_everything'"):
            await client.call_tool("code_everything", {})
        # the server still answers after all that
        assert (await call(client, "code_symbol", {"name": "Basket"}))["results"]

    converse(transport, shop, conversation)


# ---- which project -------------------------------------------------------------------------------
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_project_path_names_another_indexed_project_never_an_unindexed_one(
    shop: Path, tmp_path: Path, transport: str
) -> None:
    elsewhere = tmp_path / "not-indexed"
    (elsewhere / "pkg").mkdir(parents=True)
    (elsewhere / "pkg" / "m.py").write_text("def f():\n    pass\n", encoding="utf-8")

    async def conversation(client: Client) -> None:
        # the server's own project (its working directory) is not indexed: it says so
        text = await refused(client, "code_symbol", {"name": "Basket"})
        assert "is not an indexed project" in text and "projectgraph index" in text
        status = await call(client, "index_status", {})
        assert status["indexed"] is False and status["project"] == str(elsewhere.resolve())
        # another, indexed project by path
        answer = await call(client, "code_symbol", {"name": "Basket", "project_path": str(shop)})
        assert answer["project"] == str(shop) and answer["results"][0]["key"] == "shop/orders.py//Basket"
        relative = os.path.relpath(shop, elsewhere)
        answer = await call(client, "code_callers", {"symbol_id": "load_catalog", "project_path": relative})
        assert answer["project"] == str(shop)

    converse(transport, elsewhere, conversation)
    assert not (elsewhere / ".projectgraph").exists(), "the server must not create an index"


def test_serve_path_argument_names_the_project(shop: Path, tmp_path: Path) -> None:
    async def conversation(client: Client) -> None:
        answer = await call(client, "code_symbol", {"name": "Catalog"})
        assert answer["project"] == str(shop) and answer["results"]

    converse("stdio", tmp_path, conversation, args=[str(shop)])


# ---- the command ---------------------------------------------------------------------------------
def test_serve_needs_mcp_and_a_good_address(shop: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["serve", str(shop)])
    assert result.exit_code == 2 and "--mcp" in result.output
    result = runner.invoke(main, ["serve", "--mcp", "--http", "localhost:http", str(shop)])
    assert result.exit_code == 2 and "HOST:PORT" in result.output
    result = runner.invoke(main, ["serve", "--mcp", str(shop / "missing")])
    assert result.exit_code == 2


def test_addresses_default_to_loopback() -> None:
    assert parse_address("8123") == ("127.0.0.1", 8123)
    assert parse_address("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_address("[::1]:9000") == ("::1", 9000)
    for bad in ("", "host:", ":80", "1:99999", "[::1]9000", "a:b"):
        with pytest.raises(ValueError):
            parse_address(bad)


def test_a_busy_port_is_a_clear_error(shop: Path) -> None:
    first = HttpServer(shop, [])
    try:
        port = first.wait_url().rsplit(":", 1)[1].split("/")[0]
        second = subprocess.run(
            [str(CLI), "serve", "--mcp", "--http", f"127.0.0.1:{port}"],
            cwd=shop,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert second.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in second.stderr
    finally:
        first.stop()


# ---- the schema and the check agree --------------------------------------------------------------
def test_the_listed_schema_and_the_check_refuse_the_same_calls() -> None:
    tools = {tool.name: tool for tool in TOOLS}
    for name, arguments, _message in BAD_CALLS:
        tool = tools[name]
        validator = jsonschema.Draft202012Validator(tool.schema())
        try:
            check_arguments(name, tool.all_params, arguments)
        except ArgumentError:
            assert not validator.is_valid(arguments), (name, arguments)
        else:
            assert validator.is_valid(arguments), (name, arguments)  # refused later, by the engine
    good = {"symbol_id": "x", "depth": 6, "project_path": "/p"}
    assert jsonschema.Draft202012Validator(tools["code_impact"].schema()).is_valid(good)
    defaults = {
        "include_uncertain": False,
        "uncertain_limit": None,
        "limit": None,
        "cursor": None,
        "detail": "normal",
    }
    assert check_arguments("code_impact", tools["code_impact"].all_params, good) == good | defaults
    checked = check_arguments(
        "code_impact", tools["code_impact"].all_params, {"symbol_id": "x", "depth": 3.0}
    )
    assert checked == {"symbol_id": "x", "depth": 3, "project_path": None} | defaults
    assert type(checked["depth"]) is int
