"""The package versions a project uses, and their summaries from a shared store.

A project names the versions it runs in its lock files (``requirements*.txt`` pins, a
``package-lock.json``) and in its environment (``--deps auto`` discovery: a ``.venv``, a
``node_modules``). ``summaries_for`` reads from the shared store the summaries of those the project's
graph does not hold and that the caller does not already have (its local store's), so
``join`` answers through them. A version the store has no summary of stays what reach says of a
package without code (no-dependency-source): never not-found.

The listed versions are the project's environment (as a ``.venv`` or a ``node_modules`` found is:
a package it does not hold cannot be imported, so a call of a unit's code into it cannot run) only
where they are evidently the whole of it: every summarised package's required packages (its
metadata's, stored with its summary) are listed, as in a ``pip freeze`` or a ``package-lock.json``.
A requirements file that pins only direct dependencies is not: a call into a package it does not
list stays uncertain.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from projectgraph import keys, summary
from projectgraph.distributed.jobs import Job, normalize, read_jobs
from projectgraph.distributed.store import SummaryStore
from projectgraph.graph import Graph, Node
from projectgraph.languages import ecosystem_language
from projectgraph.units import AUTO_DEPS, DepsError, discover_units

_LOCKS = ("package-lock.json",)


def project_jobs(root: str | os.PathLike[str]) -> tuple[Job, ...]:
    """The package versions the project at ``root`` pins or has installed, sorted."""
    base = Path(root)
    found: dict[str, Job] = {}
    files = [*sorted(base.glob("requirements*.txt")), *(base / name for name in _LOCKS)]
    for file in files:
        if file.is_file():
            for job in read_jobs(file).jobs:
                found.setdefault(job.lookup, job)
    for unit in discover_units(base, AUTO_DEPS):
        if unit.ecosystem in ("pypi", "npm"):
            try:
                job = Job.of(unit.ecosystem, unit.package, unit.version)
            except DepsError:
                continue
            found.setdefault(job.lookup, job)
    return tuple(sorted(found.values()))


def summaries_for(
    root: str | os.PathLike[str], graph: Graph, store: SummaryStore, have: list[summary.Summary]
) -> Shared:
    """The shared store's summaries of the project's package versions that neither ``graph`` holds
    nor ``have`` gives, and per ecosystem whether the versions listed are the whole environment."""
    covered = {n.unit for n in graph.nodes if n.unit} | {s.unit for s in have}
    covered_lookups = {_lookup_of(unit) for unit in covered}
    listed = project_jobs(root)
    wanted = [job.lookup for job in listed if job.lookup not in covered_lookups]
    found = [stored for stored in store.summaries(wanted).values() if stored.summary.unit not in covered]
    names: dict[str, set[str]] = {}
    for job in listed:
        names.setdefault(job.ecosystem, set()).add(job.normalized)
    whole = {
        ecosystem: all(
            stored.requires is not None and set(stored.requires) <= listed_names
            for stored in found
            if stored.summary.unit.startswith(f"{ecosystem}:")
        )
        for ecosystem, listed_names in names.items()
    }
    return Shared(tuple(sorted((s.summary for s in found), key=lambda s: s.unit)), whole)


class Shared(NamedTuple):
    summaries: tuple[summary.Summary, ...]
    # ecosystem -> whether the project's listed versions are its whole environment there: every
    # summarised package's required packages are listed (a pip freeze, a package-lock.json)
    environments: dict[str, bool]


def join(graph: Graph, local: list[summary.Summary], shared: Shared) -> Graph:
    """``summary.join`` of the project's graph with its local and shared summaries, and what reach
    scopes a call into a package by: each shared unit in the table of units (its import names,
    and whether it is part of a whole environment: then a call of its code into a package that is
    not listed cannot run, as for a ``.venv`` found), and a node for each external key its code
    calls or its definitions stand for (a target is known as with the units installed)."""
    joined = summary.join(graph, [*local, *shared.summaries])
    units = dict(joined.stats.get("units") or {})
    nodes = dict(joined.node_by_key)
    loaded = {n.unit for n in graph.nodes if n.unit}
    for made in shared.summaries:
        if made.unit in loaded:
            continue
        ecosystem = made.unit.partition(":")[0]
        units.setdefault(
            made.unit,
            {
                "provides": sorted({keys.package_of(external) for external, _ in made.aliases}),
                "environment": shared.environments.get(ecosystem, False),
            },
        )
        language = ecosystem_language(ecosystem)
        for key in (*made.keys[: made.external_count], *(external for external, _ in made.aliases)):
            if key not in nodes:
                nodes[key] = Node(
                    key, "external", language=language, external=key, name=keys.last_segment(key)
                )
    return replace(
        joined,
        nodes=tuple(nodes[k] for k in sorted(nodes)),
        stats={**joined.stats, "units": dict(sorted(units.items()))},
    )


def _lookup_of(unit: str) -> str:
    ecosystem, _, rest = unit.partition(":")
    name, _, version = rest.rpartition("@")
    return f"{ecosystem}:{normalize(ecosystem, name)}@{version}"
