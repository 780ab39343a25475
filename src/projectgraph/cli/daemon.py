"""``projectgraph daemon status|stop|list``: the per-project daemons, for people (``daemon``)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

import click

from projectgraph.cli.common import emit_json, fail

STOP_WAIT = 30.0  # seconds a stop waits for the daemon to drain before it sends SIGTERM


def _root(path: Path | None, project: Path | None) -> Path:
    root = (path or project or Path.cwd()).resolve()
    if not root.is_dir():
        fail(f"not a folder: {root}")
    return root


def _status(root: Path) -> dict[str, Any] | None:
    """The status of the live daemon of ``root``, or None."""
    from projectgraph.daemon.client import exchange, live
    from projectgraph.daemon.protocol import ProtocolError

    info = live(root)
    if info is None:
        return None
    try:
        answer = exchange(info["socket"], {"op": "status"}, 5.0)
    except (OSError, ProtocolError):
        return None
    return {k: v for k, v in answer.items() if k != "ok"} if answer.get("ok") else None


def _ago(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def _lines(status: dict[str, Any]) -> list[str]:
    last = status.get("lastSync") or {}
    when = f"{_ago(time.time() - last['at'])} ago ({last.get('reason')})" if last.get("at") else "none yet"
    if last.get("error"):
        when += f", failed: {last['error']}"
    return [
        f"daemon of {status['root']}: pid {status['pid']}, version {status['version']}",
        f"  up {_ago(status['uptime'])}, {status['clients']} client(s), {status['requests']} request(s)",
        f"  state {status['state']}{' (recovering: a full reconcile)' if status['recovering'] else ''}, "
        f"{status['queue']} path(s) queued, {status['syncs']} sync(s), last {when}",
        f"  exits after {status['idle']:g} s without a client (idle for {status['idleFor']:g} s)",
        f"  socket {status['socket']}",
        f"  log {status['log']}",
    ]


@click.group("daemon")
def command() -> None:
    """The project's daemon: one process per project that owns the watcher and the writer and
    answers the MCP server, the viewer and the query commands (PROJECTGRAPH_NO_DAEMON=1 or
    --no-daemon: without it). Clients start it; it exits once idle (PROJECTGRAPH_DAEMON_IDLE
    seconds after its last client, 600 by default)."""


@command.command("status")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status_command(path: Path | None, project: Path | None, as_json: bool) -> None:
    """Whether a daemon serves the project at PATH (default: the working directory), and how it is
    doing (exit 1 when none runs)."""
    root = _root(path, project)
    status = _status(root)
    if as_json:
        emit_json({"root": str(root), "running": status is not None} | (status or {}))
    elif status is None:
        click.echo(f"no daemon runs for {root}")
    else:
        for line in _lines(status):
            click.echo(line)
    if status is None:
        raise SystemExit(1)


def stop_daemon(root: Path, wait: float = STOP_WAIT) -> int | None:
    """Ask the daemon of ``root`` to stop and wait for it to go (SIGTERM past ``wait``); its pid,
    or None when none ran."""
    from projectgraph.daemon import writer
    from projectgraph.daemon.client import exchange, live
    from projectgraph.daemon.protocol import ProtocolError

    folder = root / ".projectgraph"
    held = writer.holder(folder)
    if held is None or held.get("role") != "daemon" or not isinstance(held.get("pid"), int):
        return None
    pid = held["pid"]
    info = live(root)
    if info is not None:
        with contextlib.suppress(OSError, ProtocolError):
            exchange(
                info["socket"], {"op": "stop", "by": f"projectgraph daemon stop (pid {os.getpid()})"}, 5.0
            )
    deadline = time.monotonic() + wait
    signalled = False
    while (writer.holder(folder) or {}).get("pid") == pid:
        if time.monotonic() >= deadline:
            if signalled:
                break
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            signalled, deadline = True, time.monotonic() + 10.0
        time.sleep(0.05)
    return int(pid)


@command.command("stop")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--project", "project", type=click.Path(file_okay=False, path_type=Path), help="Project root.")
@click.option("--json", "as_json", is_flag=True, help="Print what was stopped as JSON.")
def stop_command(path: Path | None, project: Path | None, as_json: bool) -> None:
    """Stop the daemon of the project at PATH (it drains: the query in progress ends first; exit 1
    when none runs)."""
    root = _root(path, project)
    pid = stop_daemon(root)
    if as_json:
        emit_json({"root": str(root), "stopped": pid})
    elif pid is None:
        click.echo(f"no daemon runs for {root}")
    else:
        click.echo(f"stopped the daemon (pid {pid}) of {root}")
    if pid is None:
        raise SystemExit(1)


def running() -> list[dict[str, Any]]:
    """The status of every live daemon of this user (stale registry entries are removed)."""
    from projectgraph.daemon import writer
    from projectgraph.daemon.paths import read_json, registry

    found = []
    for entry in sorted(registry().glob("*.json")):
        info = read_json(entry)
        root = Path(str((info or {}).get("root", "")))
        held = writer.holder(root / ".projectgraph") if info and root.is_absolute() else None
        if not info or held is None or held.get("pid") != info.get("pid"):
            with contextlib.suppress(OSError):
                entry.unlink()
            continue
        status = _status(root)
        if status is not None:
            found.append(status)
    return sorted(found, key=lambda s: str(s["root"]))


@command.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the daemons as JSON.")
def list_command(as_json: bool) -> None:
    """The daemons that run for this user, one a line: pid, version, uptime, clients, state, root."""
    daemons = running()
    if as_json:
        emit_json({"daemons": daemons})
        return
    if not daemons:
        click.echo("no daemon runs")
    for d in daemons:
        click.echo(
            f"{d['pid']:>7}  {d['version']:<8} up {_ago(d['uptime']):<9} {d['clients']} client(s)  "
            f"{d['state']:<10} {d['root']}"
        )
