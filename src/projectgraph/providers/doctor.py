"""``providers doctor``: every provider the project can use and what state it is in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from projectgraph.providers import build as builds
from projectgraph.providers import conformance
from projectgraph.providers.discovery import REFERENCE, find_provider, provider_names
from projectgraph.providers.host import ProviderUnavailable


def doctor(root: Path, environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per provider, ``reference`` first: command, manifest, capabilities, conformance."""
    env = dict(os.environ if environ is None else environ)
    rows: list[dict[str, Any]] = [
        {
            "name": REFERENCE,
            "command": [],
            "source": "projectgraph",
            "manifest": "builtin",
            "state": "available",
            "conformance": conformance.summary(conformance.read_result(root, REFERENCE)),
        }
    ]
    for name in provider_names(root):
        row: dict[str, Any] = {"name": name}
        try:
            provider = find_provider(root, name)
            row |= {"command": list(provider.command), "source": provider.source}
            prepared = builds.prepare(root, name, env, allow_unverified=True)
        except builds.BuildRefused as error:
            row |= {"manifest": "-", "state": "refused", "reason": error.message}
        except (LookupError, ValueError) as error:
            row |= {"manifest": "-", "state": "refused", "reason": str(error)}
        else:
            manifest = prepared.manifest
            row["manifest"] = f"verified {manifest.version}" if manifest else "unverified (no manifest)"
            try:
                caps = builds.capabilities(prepared, env)
            except ProviderUnavailable as error:
                row |= {"state": "unavailable", "reason": error.detail}
            else:
                if "unavailable" in caps:
                    row |= {"state": "unavailable", "reason": caps["unavailable"]}
                else:
                    row |= {"state": "available", "capabilities": caps}
        result = conformance.read_result(root, name)
        row["conformance"] = conformance.summary(result)
        row["conformance_passed"] = None if result is None else result.get("passed") is True
        rows.append(row)
    return rows
