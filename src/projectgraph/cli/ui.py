"""``projectgraph ui [PATH] [--port N] [--open] [--host H]``: the browser viewer."""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
from pathlib import Path
from types import FrameType

import click

from projectgraph.cli.common import fail
from projectgraph.cli.project import load_project

DEFAULT_PORT = 8760


@click.command("ui")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The port to serve on (0: a free one; the URL is printed on stderr).",
)
@click.option(
    "--host",
    "host",
    default=None,
    metavar="HOST",
    help="Serve on this address instead of 127.0.0.1. Anyone who reaches it can read the index, "
    "so an address that is not loopback is served only when named here, with a warning.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option(
    "--no-daemon",
    "no_daemon",
    is_flag=True,
    help="Direct mode (as PROJECTGRAPH_NO_DAEMON=1): sync the index in this process, not through "
    "the project's daemon.",
)
def command(
    path: Path | None, project: Path | None, port: int, host: str | None, open_browser: bool, no_daemon: bool
) -> None:
    """Serve a browser viewer of the project at PATH (default: the working directory).

    The page searches symbols, draws their callers and callees node by node, shows impact radii,
    reach paths with their uncertainties, and the files with their statuses; it refreshes itself
    when a sync (the project's daemon, a watcher, `projectgraph sync`) changes the stored graph. A
    project with no index is indexed first, a stale one synced first, by the project's daemon, which
    the viewer keeps alive while it runs (--no-daemon: in this process).
    """
    logging.basicConfig(level=logging.WARNING, format="projectgraph: %(message)s")
    from projectgraph.daemon.client import held
    from projectgraph.daemon.paths import direct_mode
    from projectgraph.ui.server import BindRefusedError, ListenError, UiServer, is_loopback

    lease = None
    if not (no_daemon or direct_mode()):
        asked = (path or project or Path.cwd()).resolve()
        lease = held(asked, create=True) if asked.is_dir() else None
    if lease is None:
        opened = load_project(path or project)
        root = opened.root
        opened.close()
    else:
        root = lease.client.root
    if host is not None and not is_loopback(host):
        click.echo(
            f"projectgraph: warning: serving on {host}, which is not loopback: anyone who reaches "
            "it can read this project's index and code",
            err=True,
        )
    try:
        server = UiServer(root, host or "127.0.0.1", port, allow_remote=host is not None)
    except (BindRefusedError, ListenError) as error:
        hint = " (--port 0 picks a free port)" if isinstance(error, ListenError) else ""
        fail(f"{error}{hint}")
        return

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    click.echo(f"projectgraph: viewer of {root} on {server.url} (Ctrl-C to stop)", err=True)
    sys.stderr.flush()
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C or SIGTERM: the server closes itself
            server.serve_forever()
    finally:
        if lease is not None:
            lease.close()
