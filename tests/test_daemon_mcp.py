"""Two MCP clients (the SDK's stdio client, each a real ``projectgraph serve --mcp``) share one
daemon; it is killed with SIGKILL while both are connected, and both recover and answer; it exits
when its last client is gone, or when its index is removed, and no index is ever made again.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from test_daemon import APP, TIMEOUT, daemons, holder_pid, indexed, wait_for

__all__ = ["daemons"]  # the fixture, used by name

CLI = Path(sys.executable).with_name("projectgraph")


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie, not reaped yet by the server that started it, counts)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


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


def with_clients(root: Path, count: int, conversation: Callable[..., Awaitable[None]]) -> None:
    """Run ``conversation(*clients)`` with ``count`` stdio servers of ``root`` (daemon mode)."""

    async def run() -> None:
        with anyio.fail_after(3 * TIMEOUT), tempfile.TemporaryFile("w+") as log:
            try:
                async with AsyncExitStack() as stack:
                    clients = []
                    for _ in range(count):
                        params = StdioServerParameters(
                            command=str(CLI),
                            args=["serve", "--mcp", str(root)],
                            cwd=str(root),
                            env=dict(os.environ),
                        )
                        clients.append(
                            await stack.enter_async_context(
                                Client(stdio_client(params, errlog=log), read_timeout_seconds=TIMEOUT)
                            )
                        )
                    await conversation(*clients)
            except BaseException:
                log.seek(0)
                sys.stderr.write(log.read())
                raise

    anyio.run(run)


async def daemon_of(client: Client) -> dict[str, Any]:
    """The daemon that answers ``client`` (waited for: a daemon at its first sync has the server
    answer from the stored index meanwhile, without ``daemon``)."""

    async def answered() -> dict[str, Any] | None:
        status = await call(client, "index_status", {})
        if "daemon" not in status:
            assert any("still at its first sync" in note for note in status["notes"]), status
            return None
        assert status["freshness"]["daemon"] == status["daemon"]["pid"]
        daemon: dict[str, Any] = status["daemon"]
        return daemon

    found: dict[str, Any] = await until(answered, "the daemon's answer")
    return found


async def until(condition: Callable[[], Awaitable[Any]], what: str) -> Any:
    with anyio.fail_after(TIMEOUT):
        while True:
            value = await condition()
            if value:
                return value
            await anyio.sleep(0.1)


def test_two_clients_share_one_daemon_and_both_survive_its_sigkill(
    tmp_path: Path, daemons: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROJECTGRAPH_DAEMON_IDLE", "2")
    root = indexed(tmp_path / "p")
    daemons.append(root)
    plain = tmp_path / "plain"  # a project nobody indexed
    (plain / "app").mkdir(parents=True)
    (plain / "app" / "m.py").write_text(APP["app/m.py"], encoding="utf-8")
    pids: list[int] = []

    async def conversation(first: Client, second: Client) -> None:
        one, two = await daemon_of(first), await daemon_of(second)
        assert one["pid"] == two["pid"] == holder_pid(root)
        # each server holds a lease: two clients of one daemon
        await until(lambda: _clients(first, 2), "both leases")
        for client in (first, second):
            answer = await call(client, "code_callers", {"symbol_id": "helper"})
            assert [r["key"] for r in answer["results"]] == ["app/m.py//main"]
            assert answer["freshness"]["generation"] == answer["generation"]
        pids.append(one["pid"])

        os.kill(one["pid"], signal.SIGKILL)
        for client in (first, second):  # both recover, through a daemon started again
            answer = await call(client, "code_callers", {"symbol_id": "helper"})
            assert [r["key"] for r in answer["results"]] == ["app/m.py//main"]
        again = [(await daemon_of(first))["pid"], (await daemon_of(second))["pid"]]
        assert again[0] == again[1] == holder_pid(root) != one["pid"]
        await until(lambda: _clients(second, 2), "both leases again")
        pids.append(again[0])

        # a folder with no index is refused, and stays without one
        text = await refused(first, "code_callers", {"symbol_id": "helper", "project_path": str(plain)})
        assert "is not an indexed project" in text
        assert (await call(second, "index_status", {"project_path": str(plain)}))["indexed"] is False
        assert not (plain / ".projectgraph").exists()

    with_clients(root, 2, conversation)
    assert gone(pids[0])
    # the last client gone, the daemon exits once idle (2 s)
    wait_for(lambda: holder_pid(root) is None, "the idle exit")
    log = (root / ".projectgraph" / "daemon.log").read_text()
    assert f"{pids[1]} INFO projectgraph.daemon: exited: idle for 2 s after its last client" in log
    assert not (plain / ".projectgraph").exists()


async def _clients(client: Client, count: int) -> bool:
    return bool((await daemon_of(client))["clients"] == count)


def test_an_index_removed_under_the_daemon_is_never_made_again(tmp_path: Path, daemons: list[Path]) -> None:
    root = indexed(tmp_path / "p")
    daemons.append(root)

    async def conversation(client: Client) -> None:
        pid = (await daemon_of(client))["pid"]
        shutil.rmtree(root / ".projectgraph")
        text = await refused(client, "code_callers", {"symbol_id": "helper"})
        assert "is not an indexed project" in text
        await until(lambda: _gone_async(pid), "the daemon's exit")
        # the server's lease looked for a daemon again meanwhile: none started, nothing made
        assert "is not an indexed project" in await refused(client, "code_callers", {"symbol_id": "helper"})
        assert (await call(client, "index_status", {}))["indexed"] is False
        assert not (root / ".projectgraph").exists()

    with_clients(root, 1, conversation)
    assert not (root / ".projectgraph").exists()


async def _gone_async(pid: int) -> bool:
    return gone(pid)


def test_the_http_server_answers_through_the_daemon(tmp_path: Path, daemons: list[Path]) -> None:
    from test_mcp import HttpServer

    root = indexed(tmp_path / "p")
    daemons.append(root)
    server = HttpServer(root, [str(root)])

    async def run() -> None:
        with anyio.fail_after(3 * TIMEOUT):
            # the server's imports take long on a loaded machine: wait longer than test_mcp does
            await anyio.to_thread.run_sync(server._url.wait, 2 * TIMEOUT)
            url = await anyio.to_thread.run_sync(server.wait_url)
            async with Client(url, read_timeout_seconds=TIMEOUT) as client:
                daemon = await daemon_of(client)
                assert daemon["pid"] == holder_pid(root)
                await until(lambda: _clients(client, 1), "the server's lease")
                answer = await call(client, "code_callers", {"symbol_id": "helper"})
                assert [r["key"] for r in answer["results"]] == ["app/m.py//main"]
                assert answer["freshness"]["daemon"] == daemon["pid"]

    try:
        anyio.run(run)
    finally:
        server.stop()
