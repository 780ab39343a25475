"""The MCP server on the official SDK: the tools of ``tools.py`` over stdio or streamable HTTP.

A call is checked against its tool's schema first (``arguments.py``), then answered in a worker
thread, one call at a time per server (the projects share SQLite connections), so a long reach
does not stall the transport. A refused call (bad arguments, a project that is not indexed, a
symbol that does not exist, an ambiguous name) is a tool result with ``isError`` and a message the
agent can act on; an unknown tool name is a protocol error. Logs go to stderr: on stdio, stdout
carries the protocol alone.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import logging
import socket
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from projectgraph.mcp.arguments import ArgumentError, check_arguments
from projectgraph.mcp.projects import NotIndexedError, ProjectError, Projects
from projectgraph.mcp.tools import BY_NAME, TOOLS, Tool, ToolError
from projectgraph.query import QueryError, SymbolNotFoundError

NAME = "projectgraph"
INSTRUCTIONS = (
    "projectgraph answers questions about a project's call graph from its stored index: find a "
    "symbol with search_code or code_symbol, then pass its key as symbol_id to code_callers, "
    "code_callees, code_impact (what a change breaks) or code_path; code_reach tells whether running "
    "code reaches a symbol such as 'yaml//load' (never not-found when unsure). Answers are checked "
    "against the working copy: symbols of deleted files are left out (staleOmitted), those of "
    "changed files marked stale; index_status tells how stale the index is."
)

log = logging.getLogger("projectgraph.mcp")


class ListenError(OSError):
    """The HTTP server cannot listen on the address asked for."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("projectgraph")
    except PackageNotFoundError:
        return "0"


def answer(projects: Projects, tool: Tool, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The answer of one call (raises the errors that go back to the agent as a refusal)."""
    args = check_arguments(tool.name, tool.all_params, arguments)
    project_path = args.pop("project_path")
    with projects.lock:
        try:
            served = projects.open(project_path)
            result = tool.run(served, args)
            generation = served.generation
        except NotIndexedError as error:
            if tool.name != "index_status":
                raise
            return {"project": str(error.root), "indexed": False, "note": str(error)}
    stamped: dict[str, Any] = {"project": str(served.root), "generation": generation} | result
    if generation is not None and served.writer_active():
        note = (
            f"another process is writing the index now: this answer is from the stored graph of "
            f"generation {generation}, which that write replaces"
        )
        stamped["notes"] = [*stamped.get("notes", []), note]
    return stamped


def _refused(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def respond(projects: Projects, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call's result: the answer, or a refusal the agent can act on (an unknown tool is a
    protocol error). A server calls it in a worker thread; a project's daemon calls it for the
    servers that forward their calls to it (``daemon.server``)."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise MCPError(INVALID_PARAMS, f"unknown tool {name!r} (the tools: {', '.join(BY_NAME)})")
    try:
        result = answer(projects, tool, arguments)
    except SymbolNotFoundError as error:
        return _refused(f"{tool.name}: {error}; search_code finds a symbol's key by words of its name")
    except (ArgumentError, ProjectError, ToolError, QueryError, ValueError) as error:
        message = str(error)
        return _refused(message if message.startswith(f"{tool.name}:") else f"{tool.name}: {message}")
    except sqlite3.OperationalError as error:  # busy, locked: not damage
        return _refused(f"{tool.name}: the index could not be read ({error}); try again")
    except sqlite3.DatabaseError as error:
        return _refused(
            f"{tool.name}: the index is damaged ({error}): run `projectgraph index --rebuild` "
            "to rebuild it from the sources"
        )
    except Exception as error:  # an agent gets a message, the server keeps serving
        log.exception("%s failed", tool.name)
        return _refused(f"{tool.name}: internal error ({type(error).__name__}: {error})")
    text = json.dumps(result, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=result
    )


Forward = Callable[[str, dict[str, Any] | None], types.CallToolResult]


def build_server(projects: Projects, forward: Forward | None = None) -> Server[Any]:
    """The SDK server with the tools, answering from ``projects``, or through ``forward`` (a
    project's daemon: ``daemon.attach``)."""

    listed = [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            input_schema=tool.schema(),
            annotations=types.ToolAnnotations(
                title=tool.title, read_only_hint=True, idempotent_hint=True, open_world_hint=False
            ),
        )
        for tool in TOOLS
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in BY_NAME:
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r} (the tools: {', '.join(BY_NAME)})")
        call = functools.partial(respond, projects) if forward is None else forward
        return await anyio.to_thread.run_sync(call, params.name, params.arguments)

    def tool_schema(name: str) -> dict[str, Any] | None:
        tool = BY_NAME.get(name)
        return tool.schema() if tool else None

    return Server(
        NAME,
        version=_version(),
        title="projectgraph",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=tool_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _warn_unindexed(projects: Projects) -> None:
    root = projects.default_root
    if not (root / ".projectgraph" / "graph.db").is_file():
        log.warning(
            "%s is not indexed: calls on it are refused until `projectgraph index %s` runs", root, root
        )


def _forward(projects: Projects, daemon: bool) -> Any:
    """The daemon broker of ``projects`` (``daemon.attach``), holding its project's daemon, or None."""
    if not daemon:
        return None
    from projectgraph.daemon.attach import Broker

    broker = Broker(projects)
    broker.hold(projects.default_root)
    return broker


def serve_stdio(root: Path, daemon: bool = False) -> None:
    """Serve the project at ``root`` over stdin/stdout until the client closes them (``daemon``:
    the calls answered by the project's daemon, ``daemon.attach``)."""
    projects = Projects(root)
    _warn_unindexed(projects)
    broker = _forward(projects, daemon)
    server = build_server(projects, broker)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        if broker is not None:
            broker.close()
        projects.close()


def parse_address(text: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; the host is 127.0.0.1 unless named."""
    text = text.strip()
    host, port = "127.0.0.1", text
    if text.startswith("["):
        inside, _, rest = text[1:].partition("]")
        if not rest.startswith(":"):
            raise ValueError(f"{text!r}: write an IPv6 address as [ADDRESS]:PORT")
        host, port = inside, rest[1:]
    elif ":" in text:
        host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: give PORT or HOST:PORT, with a port from 0 to 65535")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback: ``localhost``, any of 127.0.0.0/8 in any
    form the C library reads (``127.1``, ``127.0.0.2``), ``::1``."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    address = _ip(host)
    return address is not None and address.is_loopback


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address an IP literal names (IPv4 shorthand such as ``127.1`` too), else None."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or not all(part.isdigit() or part.lower().startswith("0x") for part in host.split(".")):
        return None
    try:
        return ipaddress.ip_address(socket.inet_ntoa(socket.inet_aton(host)))
    except OSError:
        return None


def _hostname(value: str) -> str:
    """The host of a Host header or an Origin's authority, without the port, lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rpartition(":")[0] if value.count(":") == 1 else value


class HostCheck:
    """DNS rebinding protection for every bind, as ASGI middleware in front of the MCP app.

    A web page that an attacker's name (``evil.example``) serves can make its name resolve to this
    machine and then call the server from the victim's browser: its requests carry ``Host:
    evil.example``, and its cross-origin requests an ``Origin``. So a request is served only when
    its Host is an IP literal (no name was resolved), a loopback name, or a name of ``allowed``
    (``--allow-host``), and its Origin, when it has one, is loopback, the bound address or an
    allowed name. 421 (Host) and 403 (Origin) otherwise, whatever address the server is bound to.
    """

    def __init__(self, app: Any, bound: str, allowed: tuple[str, ...] = ()) -> None:
        self.app = app
        self.bound = bound.strip("[]").lower()
        self.allowed = frozenset(name.strip().lower() for name in allowed)

    def refusal(self, host: str | None, origin: str | None) -> tuple[int, str] | None:
        """(status, message) for a request to refuse, None for one to serve."""
        name = _hostname(host or "")
        if not name or not (_ip(name) is not None or is_loopback(name) or name in self.allowed):
            return 421, f"Invalid Host header: {host!r} (allow a name with --allow-host)"
        if origin:
            authority = origin.partition("://")[2].split("/", 1)[0]
            source = _hostname(authority)
            if not (is_loopback(source) or source == self.bound or source in self.allowed):
                return 403, f"Invalid Origin header: {origin!r} (allow a name with --allow-host)"
        return None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") in ("http", "websocket"):
            headers = {key.decode("latin-1").lower(): val.decode("latin-1") for key, val in scope["headers"]}
            refused = self.refusal(headers.get("host"), headers.get("origin"))
            if refused is not None:
                from starlette.responses import PlainTextResponse

                log.warning("refused a request: %s", refused[1])
                await PlainTextResponse(refused[1], status_code=refused[0])(scope, receive, send)
                return
        await self.app(scope, receive, send)


def serve_http(
    root: Path, host: str, port: int, allowed_hosts: tuple[str, ...] = (), daemon: bool = False
) -> None:
    """Serve the project at ``root`` over streamable HTTP at ``http://HOST:PORT/mcp``.

    The socket is bound before the URL is printed (on stderr), so port 0 picks a free port and the
    printed URL is the one to use. The Host and Origin checks (``HostCheck``) hold on every bind,
    ``0.0.0.0`` too; ``allowed_hosts`` are the names a client may use besides IP literals and
    loopback names.
    """
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    projects = Projects(root)
    _warn_unindexed(projects)
    broker = _forward(projects, daemon)
    server = build_server(projects, broker)
    # the SDK's own check knows three loopback spellings only: HostCheck does it for every bind
    unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = HostCheck(server.streamable_http_app(host=host, transport_security=unchecked), host, allowed_hosts)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from error
    listener.listen(128)
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    if not is_loopback(host):
        log.warning("listening on %s, which is not loopback: anyone who reaches it can query the index", host)
    print(f"projectgraph: MCP server on http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    try:
        uvicorn.Server(config).run(sockets=[listener])
    finally:
        listener.close()
        if broker is not None:
            broker.close()
        projects.close()
