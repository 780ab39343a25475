"""The MCP server's side of the daemon: each tool call forwarded to its project's daemon.

``Broker`` is the ``forward`` of ``mcp.server.build_server``: a call on an indexed project goes to
that project's daemon (started when none runs, at most ``MAX_PROJECTS`` attached at once), which
answers it with the same ``mcp.server.respond`` a direct server calls, from an index its watcher
keeps current, with ``freshness``. The server holds a lease on the daemon of its own project for its
whole life (``client.Lease``), so the daemon does not idle-exit while an agent is connected, and
re-attaches when it is lost. What the broker answers itself, as a direct server does: a call on a
folder that is not indexed (refused, and nothing is created there: no daemon is started for it),
bad arguments for ``project_path``; and, with a note saying so, a call no daemon could take in time
(a direct-mode writer owns the project, a daemon that does not start) or that comes while a daemon
just started runs its first sync (a cold start answers at once, from the stored index).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import mcp_types as types

from projectgraph.daemon.client import Client, DaemonUnavailable, IndexGone, Lease
from projectgraph.daemon.paths import is_indexed
from projectgraph.mcp.projects import ProjectError, Projects
from projectgraph.mcp.server import respond

MAX_PROJECTS = 32
CALL_WAIT = 60.0
"""Seconds a call waits for a daemon (to start, or to come back after it died) before it is
answered directly from the stored index."""


def _noted(result: types.CallToolResult, note: str) -> types.CallToolResult:
    structured = result.structured_content
    if result.is_error or not isinstance(structured, dict):
        return result
    structured["notes"] = [*structured.get("notes", []), note]
    result.content = [types.TextContent(type="text", text=json.dumps(structured, ensure_ascii=False))]
    return result


class Broker:
    """Tool calls to the daemons of their projects (see the module docstring)."""

    def __init__(self, projects: Projects) -> None:
        self.projects = projects
        self._clients: OrderedDict[Path, Client] = OrderedDict()
        self._leases: dict[Path, Lease] = {}
        self._lock = threading.Lock()

    def hold(self, root: Path) -> None:
        """Keep a lease on ``root``'s daemon (started now when the project is indexed)."""
        with self._lock:
            if root not in self._leases and is_indexed(root):
                self._leases[root] = Lease(self._client(root))

    def _client(self, root: Path) -> Client:
        client = self._clients.get(root)
        if client is None:
            client = self._clients[root] = Client(root)
            while len(self._clients) > MAX_PROJECTS:
                oldest, _ = self._clients.popitem(last=False)
                lease = self._leases.pop(oldest, None)
                if lease is not None:
                    lease.close()
        self._clients.move_to_end(root)
        return client

    def __call__(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        given = (arguments or {}).get("project_path")
        if given is not None and not isinstance(given, str):
            return respond(self.projects, name, arguments)  # refused by the argument check
        try:
            root = self.projects.root_of(given)
        except ProjectError:
            return respond(self.projects, name, arguments)
        if not is_indexed(root):
            return respond(self.projects, name, arguments)  # refused (index_status: indexed false)
        forwarded = {k: v for k, v in (arguments or {}).items() if k != "project_path"}
        with self._lock:
            client = self._client(root)
        if root == self.projects.default_root:
            self.hold(root)
        try:
            request = {"op": "tool", "name": name, "arguments": forwarded, "wait": False}
            answer = client.request(request, CALL_WAIT)
        except IndexGone:
            return respond(self.projects, name, arguments)
        except DaemonUnavailable as error:
            note = f"answered directly from the stored index, not through the project's daemon: {error}"
            return _noted(respond(self.projects, name, arguments), note)
        if answer.get("catching_up"):  # a daemon just started: the stored index answers meanwhile
            note = (
                "answered directly from the stored index: the project's daemon is still at its first "
                "sync; its answers follow"
            )
            return _noted(respond(self.projects, name, arguments), note)
        if not answer.get("ok"):
            note = f"answered directly from the stored index: the daemon failed ({answer.get('error')})"
            return _noted(respond(self.projects, name, arguments), note)
        return types.CallToolResult.model_validate(answer["result"])

    def close(self) -> None:
        with self._lock:
            leases = list(self._leases.values())
            self._leases.clear()
        for lease in leases:
            lease.close()
