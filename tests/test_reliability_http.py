"""DNS rebinding (issue 24, finding 8): the MCP HTTP server checks Host and Origin on every bind.

A real ``projectgraph serve --mcp --http`` process per bind, and raw HTTP requests with forged Host
and Origin headers (``http.client``, which sends the headers it is given). Before the fix a bind to
0.0.0.0 or 127.0.0.2 served ``Host: evil.example``, and 127.0.0.2 and 127.1 were called "not
loopback"."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from projectgraph.mcp.server import HostCheck, is_loopback

CLI = Path(sys.executable).with_name("projectgraph")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@contextmanager
def server(tmp_path: Path, address: str, *extra: str) -> Iterator[tuple[int, list[str]]]:
    """The server's port and the lines of its stderr so far."""
    process = subprocess.Popen(
        [str(CLI), "serve", "--mcp", "--http", address, *extra, str(tmp_path)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "MCP server on http://" in line:
                ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(120), "the server did not start"
        url = next((line for line in lines if "MCP server on http://" in line), "")
        assert url, "".join(lines)
        yield int(url.rsplit(":", 1)[1].split("/")[0]), lines
    finally:
        process.terminate()
        process.wait(30)
        reader.join(30)
        assert process.stderr is not None
        process.stderr.close()


def post(port: int, connect: str, host: str, origin: str | None = None) -> int:
    """The status of an initialize request to ``connect``:port with the given Host and Origin."""
    connection = http.client.HTTPConnection(connect, port, timeout=60)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True)
        connection.putheader("Host", host)
        if origin is not None:
            connection.putheader("Origin", origin)
        body = json.dumps(INITIALIZE).encode()
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Accept", "application/json, text/event-stream")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_a_wildcard_bind_refuses_a_foreign_host_and_origin(tmp_path: Path) -> None:
    with server(tmp_path, "0.0.0.0:0") as (port, lines):
        assert post(port, "127.0.0.1", "evil.example") == 421
        assert post(port, "127.0.0.1", f"evil.example:{port}") == 421
        assert post(port, "127.0.0.1", f"127.0.0.1:{port}", origin="http://evil.example") == 403
        assert post(port, "127.0.0.1", f"127.0.0.1:{port}") == 200
        assert post(port, "127.0.0.1", f"192.0.2.7:{port}") == 200  # an IP literal: nothing resolved
        assert post(port, "127.0.0.1", f"localhost:{port}", origin=f"http://localhost:{port}") == 200
    assert any("not loopback" in line for line in lines)


@pytest.mark.parametrize("address", ["127.0.0.2", "127.1"])
def test_every_loopback_address_is_loopback_and_checked(tmp_path: Path, address: str) -> None:
    with server(tmp_path, f"{address}:0") as (port, lines):
        connect = "127.0.0.2" if address == "127.0.0.2" else "127.0.0.1"
        assert post(port, connect, f"evil.example:{port}") == 421
        assert post(port, connect, f"{address}:{port}", origin="http://evil.example") == 403
        assert post(port, connect, f"{address}:{port}", origin=f"http://{address}:{port}") == 200
    assert not any("not loopback" in line for line in lines), "".join(lines)


def test_an_allowed_host_name_is_served(tmp_path: Path) -> None:
    with server(tmp_path, "0.0.0.0:0", "--allow-host", "pg.example") as (port, _lines):
        assert post(port, "127.0.0.1", f"pg.example:{port}", origin=f"https://pg.example:{port}") == 200
        assert post(port, "127.0.0.1", f"pg.example.evil:{port}") == 421


def test_the_checks_read_loopback_and_hosts_as_the_c_library_does() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "127.1", "localhost", "::1", "[::1]"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "10.0.0.1", "evil.example", "127.example", "::"))
    check = HostCheck(None, "0.0.0.0")
    assert check.refusal(None, None) is not None  # no Host at all
    assert check.refusal("[::1]:8080", "http://[::1]:8080") is None
    assert check.refusal("127.0.0.1:80", "null") is not None  # a sandboxed page's Origin
