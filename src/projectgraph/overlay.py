"""Overlays: files of ``llm`` edges that resolve unresolved sites of a built graph.

No code of projectgraph calls a model. A person writes an overlay file, or an outside job asks a
model for the callee of each unresolved site (``projectgraph overlay sites --json`` lists them) and
writes what it answers; a reviewer removes an edge by editing the file. The file is one JSON object::

    {"version": 1,
     "edges": [{"caller": "main.py//dispatch",
                "site": {"path": "main.py", "line": 7, "column": 11},
                "callee": "parsers.py//parse",
                "kind": "llm", "confidence": "low",
                "model": "m1", "prompt_version": "v2",
                "input_hash": "sha256:9f2c...", "raw_output": "parsers.parse"}]}

``caller`` and ``site`` name an unresolved site of the graph (its caller's key; its path, 1-based
line and 0-based column, as ``projectgraph graph --json`` writes them); ``callee`` is the key of a
node the graph holds, first party or external; ``kind`` is ``llm`` and ``confidence`` ``low``;
``model``, ``prompt_version``, ``input_hash`` (of the prompt input) and ``raw_output`` (what the
model answered) let a reader audit the edge. Every field is required and a string but ``site``.

Decoding is strict, so a file of another format, or a model output that holds two objects, never
merges in part: an unknown or missing field, a second JSON value after the object, a duplicate key,
a version other than ``VERSION`` or a confidence other than ``low`` is an ``OverlayError`` and
nothing of the file is used.

``merge`` adds each edge as a ``calls`` edge of kind ``llm`` whose ``via`` names the resolver model
and prompt (``model m1, prompt v2``), so a path through it names them. It drops, and lists in the
report's diagnostics, an edge whose callee is no node of the graph (``undefined-callee``) and an
edge whose caller and site match no unresolved site (``no-unresolved-site``). The unresolved sites
stay in the graph: an overlay can turn a target no path reaches into found, but it never removes an
uncertainty, so it never turns uncertain into not-found.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph.graph import Edge, Graph, Site, strongest

VERSION = 1
"""overlay.Version: the file form. A file of another version is an error."""

KIND = "llm"
CONFIDENCE = "low"
UNDEFINED_CALLEE = "undefined-callee"
NO_UNRESOLVED_SITE = "no-unresolved-site"

_TOP_FIELDS = ("version", "edges")
_EDGE_FIELDS = (
    "caller",
    "site",
    "callee",
    "kind",
    "confidence",
    "model",
    "prompt_version",
    "input_hash",
    "raw_output",
)
_SITE_FIELDS = ("path", "line", "column")


class OverlayError(ValueError):
    """An overlay file that cannot be used as a whole, with the file and the place named."""


@dataclass(frozen=True, order=True)
class OverlayEdge:
    """One edge of an overlay file: a model's callee for one unresolved site."""

    caller: str
    site: Site
    callee: str
    model: str
    prompt_version: str
    input_hash: str
    raw_output: str

    @property
    def via(self) -> str:
        """What a path through the edge says made it."""
        return f"model {self.model}, prompt {self.prompt_version}"

    def to_json(self) -> dict[str, Any]:
        return {
            "caller": self.caller,
            "site": self.site.to_json(),
            "callee": self.callee,
            "kind": KIND,
            "confidence": CONFIDENCE,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "input_hash": self.input_hash,
            "raw_output": self.raw_output,
        }


@dataclass(frozen=True)
class Overlay:
    """A decoded overlay file: its edges in file order, and where it came from."""

    edges: tuple[OverlayEdge, ...]
    source: str = ""
    version: int = VERSION

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "edges": [e.to_json() for e in self.edges]}


@dataclass(frozen=True, order=True)
class Diagnostic:
    """An overlay edge that ``merge`` dropped, and why."""

    source: str
    index: int  # the edge's position in its file, from 0
    kind: str  # undefined-callee | no-unresolved-site
    edge: OverlayEdge

    @property
    def message(self) -> str:
        e = self.edge
        where = f"{e.site.path}:{e.site.line}:{e.site.column}"
        if self.kind == UNDEFINED_CALLEE:
            return f"edge {self.index}: callee {e.callee} is no node of the graph"
        return f"edge {self.index}: no unresolved site of {e.caller} at {where}"

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "index": self.index,
            "kind": self.kind,
            "message": self.message,
            "edge": self.edge.to_json(),
        }


@dataclass(frozen=True)
class Report:
    """What ``merge`` did: the edges it added (those the link already had count as added) and the
    ones it dropped."""

    merged: tuple[OverlayEdge, ...]
    diagnostics: tuple[Diagnostic, ...]
    sources: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "files": list(self.sources),
            "merged": len(self.merged),
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def read_file(path: str | Path) -> Overlay:
    """Decode and validate an overlay file (``OverlayError`` names the file and the place)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OverlayError(f"{where}: cannot read: {error}") from None
    return loads(text, where)


def loads(text: str, source: str = "<overlay>") -> Overlay:
    """Decode and validate the text of an overlay file."""
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates)
    start = len(text) - len(text.lstrip())
    try:
        value, end = decoder.raw_decode(text, start)
    except _DuplicateKey as error:
        raise OverlayError(f"{source}: duplicate key {error.args[0]!r}") from None
    except json.JSONDecodeError as error:
        raise OverlayError(f"{source}: not JSON: {error}") from None
    rest = text[end:].strip()
    if rest:
        line = text.count("\n", 0, end) + 1
        raise OverlayError(
            f"{source}: a second JSON value after the overlay object (line {line}): one object per file"
        )
    if not isinstance(value, dict):
        raise OverlayError(f"{source}: the overlay must be a JSON object, not {_type(value)}")
    _fields(value, _TOP_FIELDS, source)
    version = value["version"]
    if type(version) is not int or version != VERSION:
        raise OverlayError(f"{source}: version {json.dumps(version)} is not {VERSION}")
    edges = value["edges"]
    if not isinstance(edges, list):
        raise OverlayError(f"{source}: 'edges' must be a list, not {_type(edges)}")
    return Overlay(tuple(_edge(item, f"{source}: edge {i}") for i, item in enumerate(edges)), source)


def _edge(item: Any, where: str) -> OverlayEdge:
    if not isinstance(item, dict):
        raise OverlayError(f"{where}: must be an object, not {_type(item)}")
    _fields(item, _EDGE_FIELDS, where)
    for name in _EDGE_FIELDS:
        if name != "site" and not isinstance(item[name], str):
            raise OverlayError(f"{where}: '{name}' must be a string, not {_type(item[name])}")
    if item["kind"] != KIND:
        raise OverlayError(f"{where}: kind {item['kind']!r} is not {KIND!r}")
    if item["confidence"] != CONFIDENCE:
        raise OverlayError(f"{where}: confidence {item['confidence']!r} is not {CONFIDENCE!r}")
    for name in ("caller", "callee", "model", "prompt_version", "input_hash"):
        if not item[name].strip():
            raise OverlayError(f"{where}: '{name}' is empty")
    site = item["site"]
    if not isinstance(site, dict):
        raise OverlayError(f"{where}: 'site' must be an object, not {_type(site)}")
    _fields(site, _SITE_FIELDS, f"{where}: site")
    if not isinstance(site["path"], str) or not site["path"]:
        raise OverlayError(f"{where}: site 'path' must be a non-empty string")
    for name, least in (("line", 1), ("column", 0)):
        number = site[name]
        if type(number) is not int or number < least:
            raise OverlayError(f"{where}: site '{name}' must be an integer of at least {least}")
    return OverlayEdge(
        caller=item["caller"],
        site=Site(site["path"], site["line"], site["column"]),
        callee=item["callee"],
        model=item["model"],
        prompt_version=item["prompt_version"],
        input_hash=item["input_hash"],
        raw_output=item["raw_output"],
    )


def _fields(value: dict[str, Any], known: Sequence[str], where: str) -> None:
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise OverlayError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(known)})")
    missing = [name for name in known if name not in value]
    if missing:
        raise OverlayError(f"{where}: missing field(s) {', '.join(missing)}")


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def merge(graph: Graph, overlays: Overlay | Iterable[Overlay]) -> tuple[Graph, Report]:
    """The graph with the overlays' edges added as ``llm`` edges, and the report of what was dropped.

    The graph's unresolved sites, dynamic flags, roots and other edges are kept as they are."""
    files = (overlays,) if isinstance(overlays, Overlay) else tuple(overlays)
    sites = {(u.caller, u.site) for u in graph.unresolved}
    nodes = graph.node_by_key
    merged: list[OverlayEdge] = []
    diagnostics: list[Diagnostic] = []
    added: list[Edge] = []
    for overlay in files:
        for index, edge in enumerate(overlay.edges):
            if edge.callee not in nodes:
                diagnostics.append(Diagnostic(overlay.source, index, UNDEFINED_CALLEE, edge))
            elif (edge.caller, edge.site) not in sites:
                diagnostics.append(Diagnostic(overlay.source, index, NO_UNRESOLVED_SITE, edge))
            else:
                merged.append(edge)
                added.append(Edge(edge.caller, edge.callee, "calls", KIND, edge.site, edge.via))
    report = Report(tuple(merged), tuple(diagnostics), tuple(o.source for o in files))
    if not added:
        return graph, report
    taken = {(e[0], e[1], e[4]) for e in graph.edges}
    # an edge the link already made at the slot stays: the overlay adds only what the link lacks
    fresh = [e for e in added if (e[0], e[1], e[4]) not in taken]
    stats = dict(graph.stats)
    stats["overlay"] = {"files": list(report.sources), "edges": len(merged)}
    edges = tuple(strongest((*graph.edges, *fresh)))
    return dataclasses.replace(graph, edges=edges, stats=stats), report


def added_edges(before: Graph, after: Graph) -> list[Edge]:
    """The edges ``after`` has that ``before`` has not (an overlay's, after ``merge``)."""
    old = set(before.edges)
    return [e for e in after.edges if e not in old]


MAX_CANDIDATES = 20


def sites(graph: Graph, include_units: bool = False) -> list[dict[str, Any]]:
    """The unresolved sites in the form a model job needs, in graph order.

    Each: the caller and the site (what an overlay edge names), the reason, the called name and the
    call text, the enclosing definition's code span (path, first and last line), and the nodes the
    name could call: definitions of that name and external keys whose last segment it is (at most
    ``MAX_CANDIDATES``, with the full count). A site whose values are all reference edges already
    (``covered``) is no uncertainty and is left out, as is dependency code unless
    ``include_units``."""
    nodes = graph.node_by_key
    by_name: dict[str, list[str]] = {}
    for node in graph.nodes:
        name = node.name or node.key.rsplit("//", 1)[-1]
        if node.kind == "external" or node.path:
            by_name.setdefault(name, []).append(node.key)
    last_line: dict[str, int] = {}  # a module top level's span: to the last line of a node of its file
    for node in graph.nodes:
        if node.path:
            last_line[node.path] = max(last_line.get(node.path, 0), node.end_line, node.line)
    for site in graph.unresolved:
        last_line[site.site.path] = max(last_line.get(site.site.path, 0), site.site.line)
    out: list[dict[str, Any]] = []
    for site in graph.unresolved:
        caller = nodes.get(site.caller)
        if site.covered or caller is None or (caller.unit and not include_units):
            continue
        candidates = by_name.get(site.name, []) if site.name else []
        out.append(
            {
                "caller": site.caller,
                "site": site.site.to_json(),
                "reason": site.reason,
                "name": site.name,
                "text": site.text,
                "span": {
                    "path": caller.path or site.site.path,
                    "start_line": caller.line or 1,
                    "end_line": (
                        last_line.get(caller.path or site.site.path, site.site.line)
                        if caller.kind == "module" or not caller.end_line
                        else caller.end_line
                    ),
                },
                "candidates": candidates[:MAX_CANDIDATES],
                "candidates_total": len(candidates),
            }
        )
    return out
