"""``projectgraph serve --mcp [PATH] [--http [HOST:]PORT]``: the MCP server for coding agents."""

from __future__ import annotations

from pathlib import Path

import click

from projectgraph.cli.common import fail


@click.command("serve")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--mcp", "mcp", is_flag=True, help="Serve the Model Context Protocol (the tools for agents).")
@click.option(
    "--http",
    "address",
    metavar="[HOST:]PORT",
    help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST: 127.0.0.1 unless named; "
    "PORT 0 picks a free one, printed on stderr).",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name HTTP clients may use besides IP literals and localhost (repeatable); any other "
    "Host or Origin is refused (DNS rebinding protection, on for every bind).",
)
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option(
    "--no-daemon",
    "no_daemon",
    is_flag=True,
    help="Direct mode (as PROJECTGRAPH_NO_DAEMON=1): answer from the stored index in this process, "
    "not through the project's daemon.",
)
def command(
    path: Path | None,
    mcp: bool,
    address: str | None,
    allowed_hosts: tuple[str, ...],
    project: Path | None,
    no_daemon: bool,
) -> None:
    """Serve the indexed project at PATH (default: the working directory) to MCP clients.

    Over stdio by default, as agent clients launch it. Each call on an indexed project is answered
    by that project's daemon (started when none runs), whose watcher keeps the index current; with
    --no-daemon the server reads the stored index itself (it never re-indexes). Either way each
    answer is checked against the working copy.
    """
    if not mcp:
        fail("say which protocol to serve: --mcp (the only one for now)")
    root = (path or project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    import logging

    logging.basicConfig(level=logging.WARNING, format="projectgraph: %(message)s")
    from projectgraph.mcp import server

    if address is not None:
        try:
            host, port = server.parse_address(address)
        except ValueError as error:
            fail(f"--http {error}")
            return
    from projectgraph.daemon.paths import direct_mode

    daemon = not (no_daemon or direct_mode())
    try:
        if address is None:
            server.serve_stdio(root, daemon)
        else:
            server.serve_http(root, host, port, allowed_hosts, daemon)
    except server.ListenError as error:
        fail(str(error))
    except KeyboardInterrupt:
        raise SystemExit(130) from None
