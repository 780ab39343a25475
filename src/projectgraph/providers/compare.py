"""``compare --providers A,B``: build both graphs of one project, then the agreement table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from projectgraph.providers.agreement import agreement
from projectgraph.providers.build import BuildRefused, build
from projectgraph.providers.discovery import REFERENCE
from projectgraph.providers.reference import reference_graph
from projectgraph.providers.validation import ProviderGraph


class CompareFailed(Exception):
    """One side could not be built; the message names the provider and why."""


def provider_graph(root: Path, name: str, connection: Any, *, allow_unverified: bool) -> ProviderGraph:
    """The graph of ``name`` over ``root``: the stored reference graph, or a new provider run."""
    if name == REFERENCE:
        return reference_graph(root)
    try:
        outcome = build(root, name, connection, allow_unverified=allow_unverified)
    except BuildRefused as error:
        raise CompareFailed(f"{error.code}: {error.message}") from None
    if outcome.graph is None:
        details = "; ".join(f"{lim.code}: {lim.detail}" for lim in outcome.limitations)
        raise CompareFailed(f"provider {name!r} failed (run {outcome.run}): {details}")
    return outcome.graph


def compare(
    root: Path,
    names: tuple[str, str],
    connection: Any,
    *,
    allow_unverified: bool = False,
    diff: str | None = None,
    limit: int = 50,
) -> dict[str, Any]:
    left, right = (provider_graph(root, n, connection, allow_unverified=allow_unverified) for n in names)
    table = agreement(names[0], left, names[1], right, diff=diff, limit=limit)
    table["limitations"] = {
        names[0]: [lim.to_json() for lim in left.limitations],
        names[1]: [lim.to_json() for lim in right.limitations],
    }
    return table
