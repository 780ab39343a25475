"""``build --provider NAME``: the checks before a run, the run row, the exchange, the stored rows.

Which failures leave a run row (protocol v1): none of those before the build starts, each refused
with a ``BuildRefused`` that names what to do: a bad ``PROJECTGRAPH_PLUGIN_TIMEOUT`` (or caps
timeout), a provider with no command, a missing program, an unverified provider (no manifest)
without ``--allow-unverified``, a manifest that cannot be used (another protocol), a conformance
result missing or failed for a language the project holds, and a capabilities probe that says the
engine is missing (or fails). Once the build has started, a failure closes the run as ``failed``
with one ``provider_unavailable`` limitation and writes no node and no edge; a valid answer with no
files closes it as ``empty_build``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph.providers import conformance
from projectgraph.providers.discovery import ProviderCommand, find_provider
from projectgraph.providers.host import MAX_OUTPUT, PROTOCOL, ProviderUnavailable, exchange, timeouts
from projectgraph.providers.manifest import Manifest, read_manifest
from projectgraph.providers.validation import Limitation, ProviderGraph, validate_build, validate_capabilities
from projectgraph.store import sqlite as sql

BUILD_OPTIONS = {"max_file_bytes": 1048576, "max_files": 50000, "full": False}


class BuildRefused(Exception):
    """A build refused before it started (no run row); ``code`` names the reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Prepared:
    """A provider checked and ready to be asked: its command, manifest and deadlines."""

    provider: ProviderCommand
    manifest: Manifest | None
    build_timeout: int
    caps_timeout: int

    def environment(self, environ: Mapping[str, str], repo_root: Path | None) -> dict[str, str]:
        env = dict(environ)
        env["PROJECTGRAPH_NETWORK"] = "1" if self.manifest is not None and self.manifest.network else "0"
        env.pop("PROJECTGRAPH_REPO_ROOT", None)
        if repo_root is not None:
            env["PROJECTGRAPH_REPO_ROOT"] = str(repo_root)
        return env


@dataclass(frozen=True)
class BuildOutcome:
    provider: str
    run: int
    status: str  # ok | empty_build | failed
    graph: ProviderGraph | None
    limitations: tuple[Limitation, ...]
    progress_lines: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        graph = self.graph
        return {
            "provider": self.provider,
            "run": self.run,
            "status": self.status,
            "nodes": len(graph.nodes) if graph else 0,
            "edges": len(graph.edges) if graph else 0,
            "files_seen": graph.files_seen if graph else None,
            "files_parsed": graph.files_parsed if graph else None,
            "progress_lines": self.progress_lines,
            "limitations": [lim.to_json() for lim in self.limitations],
        }


def allowed_unverified(flag: bool, environ: Mapping[str, str]) -> bool:
    return flag or environ.get("PROJECTGRAPH_ALLOW_UNVERIFIED", "") == "1"


def prepare(root: Path, name: str, environ: Mapping[str, str], *, allow_unverified: bool) -> Prepared:
    """The provider's command, manifest and deadlines, or BuildRefused."""
    try:
        build_timeout, caps_timeout = timeouts(environ)
    except ValueError as error:
        raise BuildRefused("bad_timeout", str(error)) from None
    try:
        provider = find_provider(root, name)
    except (LookupError, ValueError) as error:
        raise BuildRefused("not_found", str(error)) from None
    program = provider.command[0]
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        raise BuildRefused("missing_binary", f"provider {name!r}: {program} is not an executable file")
    try:
        manifest = read_manifest(Path(provider.manifest_path), name)
    except ValueError as error:
        raise BuildRefused("bad_manifest", str(error)) from None
    if manifest is None and not allowed_unverified(allow_unverified, environ):
        raise BuildRefused(
            "unverified",
            f"provider {name!r} is unverified: no {provider.manifest_path}; "
            "pass --allow-unverified (or PROJECTGRAPH_ALLOW_UNVERIFIED=1) to run it anyway",
        )
    return Prepared(provider, manifest, build_timeout, caps_timeout)


def capabilities(prepared: Prepared, environ: Mapping[str, str]) -> dict[str, Any]:
    """The provider's capabilities answer, within the probe's own deadline."""
    answer = exchange(
        prepared.provider.command,
        {"projectgraph": PROTOCOL, "op": "capabilities"},
        timeout=prepared.caps_timeout,
        env=prepared.environment(environ, None),
    )
    return validate_capabilities(answer.data)


def ask_build(
    prepared: Prepared, repo_root: Path, environ: Mapping[str, str], max_output: int = MAX_OUTPUT
) -> tuple[ProviderGraph, int]:
    """One build exchange over ``repo_root``: the validated graph and the progress lines counted."""
    request = {"projectgraph": PROTOCOL, "op": "build", "repo_root": str(repo_root), "options": BUILD_OPTIONS}
    answer = exchange(
        prepared.provider.command,
        request,
        timeout=prepared.build_timeout,
        env=prepared.environment(environ, repo_root),
        max_output=max_output,
    )
    return validate_build(answer.data), answer.progress_lines


def build(
    root: Path,
    name: str,
    connection: Any,
    *,
    allow_unverified: bool = False,
    environ: Mapping[str, str] | None = None,
    max_output: int = MAX_OUTPUT,
) -> BuildOutcome:
    """Build the project at ``root`` with provider ``name`` and store the run in ``connection``."""
    env = dict(os.environ if environ is None else environ)
    root = root.resolve()
    prepared = prepare(root, name, env, allow_unverified=allow_unverified)
    if not allowed_unverified(allow_unverified, env):
        try:
            conformance.check_gate(root, name)
        except conformance.GateRefused as error:
            raise BuildRefused(error.code, error.message) from None
    try:
        caps = capabilities(prepared, env)
    except ProviderUnavailable as error:
        raise BuildRefused(
            "provider_unavailable", f"provider {name!r}: capabilities: {error.detail}"
        ) from None
    if "unavailable" in caps:
        raise BuildRefused("provider_unavailable", f"provider {name!r} is unavailable: {caps['unavailable']}")
    started = time.time()
    run = sql.start_provider_run(connection, name, str(root), started)
    try:
        graph, progress = ask_build(prepared, root, env, max_output)
    except ProviderUnavailable as error:
        limitation = Limitation("provider_unavailable", error.detail)
        sql.finish_provider_run(connection, run, "failed", [limitation.to_json()], {})
        return BuildOutcome(name, run, "failed", None, (limitation,), 0, time.time() - started)
    except BaseException:
        limitation = Limitation("provider_unavailable", "the build was interrupted")
        sql.finish_provider_run(connection, run, "failed", [limitation.to_json()], {})
        raise
    limitations = graph.limitations
    status = "ok"
    if graph.empty:
        status = "empty_build"
        limitations = (*limitations, Limitation("empty_build", "the provider's answer holds no files"))
    stats = {"progress_lines": progress, "nodes": len(graph.nodes), "edges": len(graph.edges)}
    sql.finish_provider_run(
        connection,
        run,
        status,
        [lim.to_json() for lim in limitations],
        stats,
        (graph.files_seen, graph.files_parsed),
        (graph.nodes, graph.edges),
    )
    return BuildOutcome(name, run, status, graph, limitations, progress, time.time() - started)
