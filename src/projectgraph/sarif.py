"""SARIF 2.1.0 logs of reach answers and audit findings, so CI code scanning can show them.

One run, tool ``projectgraph``; one result per finding: a reach target that is found or uncertain
(``projectgraph reach ... --format sarif``), an audit finding (``projectgraph audit --format
sarif``). A result's path is a code flow with one thread-flow location per hop (where the hop's
call is, or the root's definition), its uncertainties are related locations (the site that causes
each, with its kind and reason), and its primary location is the call of the target (found) or the
first uncertainty's site.

Conventions: an artifact URI is relative to the project root (``uriBaseId`` ``%SRCROOT%``); a file
of dependency code is relative to its unit, whose name is the ``uriBaseId``
(``pypi:PyYAML@6.0.4``). SARIF columns are 1-based (ours are 0-based). The log is deterministic:
the results in the order given, no time stamp and no absolute path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from projectgraph.graph import Graph, Site
from projectgraph.reach import Hop, ReachResult, Uncertainty, path_string

VERSION = "2.1.0"
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
LEVELS = ("error", "warning", "note", "none")


@dataclass(frozen=True)
class Rule:
    """A kind of finding: its id, a one-line description and the level of its results."""

    id: str
    description: str
    level: str
    help: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "shortDescription": {"text": self.description},
            "defaultConfiguration": {"level": self.level},
        }
        if self.help:
            out["help"] = {"text": self.help}
        return out


@dataclass(frozen=True)
class Finding:
    """One result: the rule, the message, and what locates it (the path, the uncertainties)."""

    rule: str
    level: str
    message: str
    path: tuple[Hop, ...] = ()
    uncertainties: tuple[Uncertainty, ...] = ()
    site: Site | None = None  # the primary location when known; else taken from the path or the causes
    subject: str = ""  # the key the finding is about (a target, a symbol)
    properties: dict[str, Any] = field(default_factory=dict)


REACH_RULES = (
    Rule(
        "projectgraph/reach/found",
        "Code that runs reaches the target",
        "warning",
        "A path from a root (or a query source) of the call graph reaches the target; the code flow is "
        "the shortest path, the primary location the call of the target.",
    ),
    Rule(
        "projectgraph/reach/uncertain",
        "The target may be reached: something the tool could not resolve concerns it",
        "note",
        "No path reaches the target, but an unresolved call, a dynamic feature, a budget or the root "
        "fallback concerns it; the related locations are the causes.",
    ),
)


def reach_findings(results: Iterable[ReachResult]) -> list[Finding]:
    """A finding per found or uncertain target (not-found and no-such-target give none)."""
    found, uncertain = REACH_RULES
    out = []
    for result in results:
        if result.status == "found":
            out.append(
                Finding(
                    found.id,
                    found.level,
                    f"{result.target} is reached: {path_string(result.path)}",
                    result.path,
                    subject=result.target,
                    properties={"status": result.status, "target": result.target},
                )
            )
        elif result.status == "uncertain":
            counts = result.searched.get("uncertainties", {})
            causes = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
            out.append(
                Finding(
                    uncertain.id,
                    uncertain.level,
                    f"{result.target} is uncertain: no path reaches it, but {causes or 'an uncertainty'} "
                    "concern(s) it",
                    (),
                    result.uncertainties,
                    subject=result.target,
                    properties={"status": result.status, "target": result.target, "uncertainties": counts},
                )
            )
    return out


def log(findings: Sequence[Finding], rules: Sequence[Rule], graph: Graph | None = None) -> dict[str, Any]:
    """The SARIF log of the findings (``graph`` gives the definitions' lines for root hops)."""
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for finding in findings:
        if finding.level not in LEVELS:
            raise ValueError(f"not a SARIF level: {finding.level!r}")
        results.append(_result(finding, index[finding.rule], graph))
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "projectgraph",
                        "version": _version(),
                        "informationUri": "https://pypi.org/project/projectgraph/",
                        "rules": [rule.to_json() for rule in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def _version() -> str:
    try:
        return version("projectgraph")
    except PackageNotFoundError:  # a source checkout run without installing
        return "0"


def _result(finding: Finding, rule_index: int, graph: Graph | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.level,
        "message": {"text": finding.message},
    }
    primary = finding.site or _primary(finding)
    if primary is not None:
        out["locations"] = [_location(primary, finding.subject)]
    elif finding.subject:
        out["locations"] = [{"logicalLocations": [{"fullyQualifiedName": finding.subject}]}]
    if finding.path:
        out["codeFlows"] = [
            {
                "message": {"text": path_string(finding.path)},
                "threadFlows": [{"locations": [_hop(hop, graph) for hop in finding.path]}],
            }
        ]
    related = []
    for number, u in enumerate(finding.uncertainties):
        text = f"{u.kind}: {u.reason}" + (f" (in {u.caller})" if u.caller else "")
        where = _location(u.site, u.caller) if u.site is not None and u.site.path else {}
        related.append({"id": number, **where, "message": {"text": text}})
    if related:
        out["relatedLocations"] = related
    if finding.properties:
        out["properties"] = finding.properties
    return out


def _primary(finding: Finding) -> Site | None:
    for hop in reversed(finding.path):
        if hop.site is not None and hop.site.path:
            return hop.site
    for u in finding.uncertainties:
        if u.site is not None and u.site.path:
            return u.site
    return None


def _artifact(path: str) -> dict[str, Any]:
    unit, sep, rest = path.partition("//")
    if sep and ":" in unit:  # a file of dependency code: relative to its unit
        return {"uri": rest, "uriBaseId": unit}
    return {"uri": path, "uriBaseId": SOURCE_ROOT}


def _location(site: Site, key: str = "") -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(site.line, 1)}
    if site.line >= 1:
        region["startColumn"] = site.column + 1
    out: dict[str, Any] = {"physicalLocation": {"artifactLocation": _artifact(site.path), "region": region}}
    if key:
        out["logicalLocations"] = [{"fullyQualifiedName": key}]
    return out


def _hop(hop: Hop, graph: Graph | None) -> dict[str, Any]:
    """A thread-flow location: where the hop's call is, else (a root, a package edge) the node."""
    text = f"{hop.key} ({hop.kind}" + (f", {hop.via}" if hop.via else "") + ")"
    site = hop.site
    if site is None and graph is not None:
        node = graph.node_by_key.get(hop.key)
        if node is not None and node.path:
            site = Site(node.path, max(node.line, 1), 0)
    location: dict[str, Any] = _location(site, hop.key) if site is not None else {}
    if not location:
        location = {"logicalLocations": [{"fullyQualifiedName": hop.key}]}
    location["message"] = {"text": text}
    return {"location": location}
