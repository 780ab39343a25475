"""A build answer's rows checked and made ours: ``ProviderGraph``.

The rules of protocol v1, applied to what a provider printed (nothing of it is trusted):

- a node or edge whose ``kind`` is not one of ``NODE_KINDS`` / ``EDGE_KINDS`` is dropped; one
  ``unknown_kind`` limitation counts them;
- a node whose path is absolute, has a ``..`` segment (``/`` or ``\\``), a NUL or a drive letter is
  dropped, with the edges to or from its qualified name; one ``bad_path`` limitation counts them;
- a row without its required strings (a node's ``qualified_name`` and ``path``, an edge's
  ``source_qn`` and ``target_qn``) is dropped; one ``malformed_row`` limitation counts them;
- a confidence that is not a number in [0, 1] becomes 0.5 (an absent one is 1.0);
- lines come as ``line_start``/``line_end`` or ``"lines": [a, b]``;
- a limitation is ``{"code", "detail"}`` or a plain string (its code);
- ``files_seen``/``files_parsed`` are taken as given; an absent ``files_parsed`` is the number of file
  nodes, and a ``files_parsed_inferred`` limitation says so.

Rows are sorted, so one answer gives one stored run whatever order the provider printed it in.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from projectgraph.providers.host import ProviderUnavailable

NODE_KINDS = frozenset({"file", "module", "class", "function", "method", "type", "route", "test"})
EDGE_KINDS = ("calls", "contains", "imports", "extends", "implements", "tests", "routes_to")
_DRIVE = re.compile(r"^[A-Za-z]:")


class ProviderNode(NamedTuple):
    kind: str
    name: str
    qualified_name: str
    path: str
    line_start: int | None
    line_end: int | None
    content_hash: str
    language: str
    provider_ref: str

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


class ProviderEdge(NamedTuple):
    kind: str
    source_qn: str
    target_qn: str
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


class Limitation(NamedTuple):
    code: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.detail}


@dataclass(frozen=True)
class ProviderGraph:
    """What one provider's build gave, validated: rows, limitations and the file counts."""

    nodes: tuple[ProviderNode, ...]
    edges: tuple[ProviderEdge, ...]
    limitations: tuple[Limitation, ...]
    files_seen: int | None
    files_parsed: int

    @property
    def empty(self) -> bool:
        """A valid answer with no files: ``empty_build``, not a failure."""
        return self.files_parsed == 0 and not any(n.kind == "file" for n in self.nodes)


def bad_path(path: str) -> bool:
    """Absolute, a ``..`` segment, a NUL or a drive letter: never a path inside the project."""
    if not path or "\0" in path or path.startswith(("/", "\\")) or _DRIVE.match(path):
        return True
    return ".." in re.split(r"[/\\]", path)


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _lines(row: dict[str, Any]) -> tuple[int | None, int | None]:
    lines = row.get("lines")
    if isinstance(lines, list) and len(lines) == 2:
        return _int_or_none(lines[0]), _int_or_none(lines[1])
    return _int_or_none(row.get("line_start")), _int_or_none(row.get("line_end"))


def _confidence(value: Any) -> float:
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.5
    number = float(value)
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else 0.5


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _limitation(value: Any) -> Limitation | None:
    if isinstance(value, str):
        return Limitation(value, "")
    if isinstance(value, dict) and isinstance(value.get("code"), str):
        return Limitation(value["code"], _text(value.get("detail")))
    return None


def validate_build(data: Any) -> ProviderGraph:
    """The rows of a build answer's ``data``, or ProviderUnavailable when it is not a build answer."""
    if not isinstance(data, dict):
        raise ProviderUnavailable("the build answer's data is not an object")
    raw_nodes, raw_edges = data.get("nodes", []), data.get("edges", [])
    if not isinstance(raw_nodes, list) or not isinstance(raw_edges, list):
        raise ProviderUnavailable("the build answer's nodes and edges must be lists")
    unknown = {"nodes": 0, "edges": 0}
    malformed = 0
    bad_nodes = 0
    dropped_names: set[str] = set()
    nodes: list[ProviderNode] = []
    for row in raw_nodes:
        if not isinstance(row, dict) or not isinstance(row.get("kind"), str):
            malformed += 1
            continue
        if row["kind"] not in NODE_KINDS:
            unknown["nodes"] += 1
            continue
        qualified, path = row.get("qualified_name"), row.get("path")
        if not isinstance(qualified, str) or not qualified or not isinstance(path, str):
            malformed += 1
            continue
        if bad_path(path):
            bad_nodes += 1
            dropped_names.add(qualified)
            continue
        start, end = _lines(row)
        name = _text(row.get("name")) or qualified.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
        nodes.append(
            ProviderNode(
                row["kind"],
                name,
                qualified,
                path,
                start,
                end,
                _text(row.get("content_hash")),
                _text(row.get("language")),
                _text(row.get("provider_ref")),
            )
        )
    edges: list[ProviderEdge] = []
    bad_edges = 0
    for row in raw_edges:
        if not isinstance(row, dict) or not isinstance(row.get("kind"), str):
            malformed += 1
            continue
        if row["kind"] not in EDGE_KINDS:
            unknown["edges"] += 1
            continue
        source, target = row.get("source_qn"), row.get("target_qn")
        if not isinstance(source, str) or not isinstance(target, str) or not source or not target:
            malformed += 1
            continue
        if source in dropped_names or target in dropped_names:
            bad_edges += 1
            continue
        edges.append(ProviderEdge(row["kind"], source, target, _confidence(row.get("confidence"))))
    limitations = [lim for lim in map(_limitation, _list(data.get("limitations"))) if lim is not None]
    if unknown["nodes"] or unknown["edges"]:
        count = unknown["nodes"] + unknown["edges"]
        limitations.append(
            Limitation(
                "unknown_kind",
                f"{count} rows of an unknown kind dropped "
                f"({unknown['nodes']} nodes, {unknown['edges']} edges)",
            )
        )
    if bad_nodes:
        limitations.append(
            Limitation(
                "bad_path", f"{bad_nodes} nodes with a bad path dropped, and {bad_edges} edges to them"
            )
        )
    if malformed:
        limitations.append(
            Limitation("malformed_row", f"{malformed} rows without their required fields dropped")
        )
    files_seen = _int_or_none(data.get("files_seen"))
    files_parsed = _int_or_none(data.get("files_parsed"))
    if files_parsed is None:
        files_parsed = sum(1 for n in nodes if n.kind == "file")
        limitations.append(
            Limitation("files_parsed_inferred", f"files_parsed not given: {files_parsed} file nodes counted")
        )
    nodes.sort(key=lambda n: (n.path, n.qualified_name, n.kind, n.line_start or 0, n.line_end or 0))
    edges.sort()
    return ProviderGraph(tuple(nodes), tuple(edges), tuple(limitations), files_seen, files_parsed)


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list) else []


def validate_capabilities(data: Any) -> dict[str, Any]:
    """The capabilities answer's fields we read; ``unavailable`` is the reason an engine is missing."""
    if not isinstance(data, dict):
        raise ProviderUnavailable("the capabilities answer's data is not an object")
    languages = [v for v in _list(data.get("languages")) if isinstance(v, str)]
    edge_kinds = [v for v in _list(data.get("edge_kinds")) if isinstance(v, str)]
    out: dict[str, Any] = {
        "languages": sorted(languages),
        "edge_kinds": sorted(edge_kinds),
        "communities": data.get("communities") is True,
        "embeddings": data.get("embeddings") is True,
    }
    unavailable = data.get("unavailable")
    if isinstance(unavailable, str) and unavailable:
        out["unavailable"] = unavailable
    return out
