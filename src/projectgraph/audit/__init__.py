"""Vulnerability reachability: OSV advisories matched to the project's packages, answered by reach.

``audit(graph, advisories, packages)`` takes the advisories (``audit.osv``, read from local files),
the packages the project installs or locks (``audit.inventory``) and the graph, keeps each affected
entry whose package and version a package of the project is (OSV range semantics:
``audit.versions``), and answers one reach query for every symbol the advisories name, with one
search. Each finding (an advisory and a package version) gets the strongest status of its symbols:

- ``called``: a path from a root (or a source) reaches the symbol; the finding carries the path;
- ``uncertain``: no path reaches it, but something the tool could not resolve concerns it (the
  honesty rule of reach: an unresolved call of its name, a dynamic import, a call into code no unit
  gives, ...); the finding carries the causes;
- ``imported``: no path reaches the symbol and nothing concerns it, and code of the graph (the
  project's or a dependency's) imports or calls into the package;
- ``required``: the package is installed or locked, and nothing in the graph imports it.

An advisory that names no symbol is answered for the package as a whole: its target is every name
under the package's import names (``yaml//*``), so a call of any of them is ``called``; an import
alone is ``imported``. A match the version comparison is unsure of (a GIT range, a version that does
not parse) says why in ``unsure``. ``AuditReport.exit_code`` is 1 when a finding is called or
uncertain, else 0 (as govulncheck does).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from projectgraph import keys
from projectgraph.audit.inventory import Package, normalize
from projectgraph.audit.osv import Advisory, Affected
from projectgraph.audit.versions import affects
from projectgraph.graph import Graph, Site
from projectgraph.languages import advisory_language
from projectgraph.reach import SOURCES_AND_ROOTS, Hop, Query, ReachResult, Source, Target, Uncertainty, reach

VERSION = 1
"""audit.VERSION: the matching and status rules."""

STATUSES = ("called", "uncertain", "imported", "required")  # strongest first
EXIT_FINDINGS = 1


@dataclass(frozen=True)
class SymbolAnswer:
    """One symbol of a finding (a key, or a package's ``prefix//*``) and its status."""

    key: str
    status: str
    result: ReachResult

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "status": self.status, "reach": self.result.to_json()}


@dataclass(frozen=True)
class Finding:
    advisory: Advisory
    package: Package
    status: str
    scope: str  # symbol | package
    symbols: tuple[SymbolAnswer, ...]  # strongest first (a shorter path first), then by key
    fixed: tuple[str, ...]  # the versions that fix it, from the ranges
    unsure: str = ""
    imported_at: Site | None = None  # where code of the project first imports or calls the package

    @property
    def deciding(self) -> SymbolAnswer:
        return self.symbols[0]

    @property
    def path(self) -> tuple[Hop, ...]:
        return self.deciding.result.path if self.status == "called" else ()

    @property
    def uncertainties(self) -> tuple[Uncertainty, ...]:
        return self.deciding.result.uncertainties if self.status == "uncertain" else ()

    def to_json(self) -> dict[str, Any]:
        return {
            "advisory": self.advisory.to_json(),
            "package": self.package.to_json(),
            "status": self.status,
            "scope": self.scope,
            "symbol": self.deciding.key,
            "path": [hop.to_json() for hop in self.path],
            "uncertainties": [u.to_json() for u in self.uncertainties],
            "symbols": [s.to_json() for s in self.symbols],
            "fixed": list(self.fixed),
            "unsure": self.unsure,
            "imported_at": self.imported_at.to_json() if self.imported_at else None,
        }


@dataclass(frozen=True)
class AuditReport:
    findings: tuple[Finding, ...]
    advisories: int  # read
    packages: int  # installed or locked
    withdrawn: tuple[str, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        return {status: sum(1 for f in self.findings if f.status == status) for status in STATUSES}

    @property
    def exit_code(self) -> int:
        return EXIT_FINDINGS if any(f.status in ("called", "uncertain") for f in self.findings) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "advisories": self.advisories,
            "packages": self.packages,
            "withdrawn": list(self.withdrawn),
            "counts": self.counts,
            "findings": [f.to_json() for f in self.findings],
        }


def prefixes(package: Package) -> list[str]:
    """The key prefixes of a package's code: each import name as a key (``@babel//core``,
    ``golang.org//x//net``)."""
    spec = advisory_language(package.ecosystem)
    if spec is None:
        raise KeyError(package.ecosystem)
    separator = spec.module_separator
    return sorted(
        {keys.external(name, spec.name) if separator in name else name for name in package.provides}
    )


def _under(key: str, prefix: str) -> bool:
    return key == prefix or key.startswith(prefix + keys.SEP)


def audit(
    graph: Graph,
    advisories: Iterable[Advisory],
    packages: Sequence[Package],
    sources: Sequence[Source] = (),
    mode: str = SOURCES_AND_ROOTS,
) -> AuditReport:
    """Match the advisories to the packages and answer each finding's symbols with one search."""
    advisories = list(advisories)
    by_name: dict[tuple[str, str], list[Package]] = {}
    for package in packages:
        by_name.setdefault((package.ecosystem, normalize(package.ecosystem, package.name)), []).append(
            package
        )
    matched: list[tuple[Advisory, Package, Affected, str]] = []
    withdrawn = []
    for advisory in advisories:
        if advisory.withdrawn:
            withdrawn.append(advisory.id)
            continue
        for entry in advisory.affected:
            for package in by_name.get((entry.ecosystem, normalize(entry.ecosystem, entry.package)), []):
                match = affects(entry.ecosystem, package.version, entry.ranges, entry.versions)
                if match.affected:
                    matched.append((advisory, package, entry, match.unsure))
    wanted: dict[str, Target] = {}
    plans: list[tuple[Advisory, Package, Affected, str, list[str], str]] = []
    for advisory, package, entry, unsure in matched:
        if entry.symbols:
            targets, scope = list(entry.symbols), "symbol"
        else:
            targets, scope = [p + keys.SEP + "*" for p in prefixes(package)], "package"
        for key in targets:
            wanted.setdefault(key, Target.by_key(key))
        plans.append((advisory, package, entry, unsure, targets, scope))
    answers: dict[str, ReachResult] = {}
    if wanted:
        ordered = sorted(wanted)
        results = reach(graph, Query(tuple(wanted[k] for k in ordered), tuple(sources), mode))
        answers = dict(zip(ordered, results, strict=True))
    imports = _imports(graph)
    findings = []
    for advisory, package, entry, unsure, targets, scope in plans:
        imported_at = _first_import(imports, prefixes(package))
        imported = imported_at is not None or any(
            _under(key, p) for key in imports.referenced for p in prefixes(package)
        )
        answered = []
        for key in targets:
            result = answers[key]
            status = (
                "called"
                if result.status == "found"
                else "uncertain"
                if result.status == "uncertain"
                else "imported"
                if imported
                else "required"
            )
            answered.append(SymbolAnswer(key, status, result))
        # the strongest status first, a called symbol of the shortest path first, then by key
        answered.sort(key=lambda a: (STATUSES.index(a.status), len(a.result.path), a.key))
        findings.append(
            Finding(
                advisory,
                package,
                answered[0].status,
                scope,
                tuple(answered),
                _fixed(entry),
                unsure,
                imported_at,
            )
        )
    findings.sort(key=lambda f: (STATUSES.index(f.status), f.advisory.id, f.package))
    return AuditReport(tuple(findings), len(advisories), len(packages), tuple(withdrawn))


def _fixed(entry: Affected) -> tuple[str, ...]:
    return tuple(sorted({v for r in entry.ranges for kind, v in r.events if kind == "fixed"}))


class _Imports:
    """The external keys code of the graph refers to (imports, calls, references), and the sites of
    the project's own references, by key."""

    def __init__(self, graph: Graph) -> None:
        nodes = graph.node_by_key
        self.referenced: set[str] = set()
        self.sites: dict[str, Site] = {}
        for edge in graph.edges:
            callee = nodes.get(edge.callee)
            if callee is None or callee.kind != "external" or edge.kind == "package":
                continue
            self.referenced.add(edge.callee)
            caller = nodes.get(edge.caller)
            if caller is not None and not caller.unit and edge.site.path:
                known = self.sites.get(edge.callee)
                if known is None or edge.site < known:
                    self.sites[edge.callee] = edge.site


def _imports(graph: Graph) -> _Imports:
    return _Imports(graph)


def _first_import(imports: _Imports, package_prefixes: Sequence[str]) -> Site | None:
    sites = [site for key, site in imports.sites.items() if any(_under(key, p) for p in package_prefixes)]
    return min(sites) if sites else None
