"""One call for a task: the few symbols a question is about, each with what an agent would
otherwise ask four more tools for, in one bounded answer.

For each of the first ``limit`` search hits (a definition of exactly that name first, then BM25):
its key, kind, lines, signature, the start of its doc comment, a short excerpt of its code (read
from the working copy, at most ``EXCERPT_LINES`` lines, each cut at ``LINE_CHARS``), its callers and
callees one hop away (the first ``NEIGHBOURS`` of each with their totals and the callers' status),
and where it sits: the class that holds a method, the bases and subclass count of a class.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectgraph import keys

if TYPE_CHECKING:
    from projectgraph.query import QueryEngine

EXCERPT_LINES = 12
LINE_CHARS = 120
DOC_CHARS = 240
NEIGHBOURS = 5


def _excerpt(root: Path | None, path: str, line: int, end_line: int) -> str:
    """The first lines of a definition as the working copy has them ("" when unreadable)."""
    if root is None or not path or line < 1:
        return ""
    try:
        with (root / path).open(encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return ""
    last = min(end_line or line, line + EXCERPT_LINES - 1)
    shown = [text[:LINE_CHARS] for text in lines[line - 1 : last]]
    if (end_line or line) > last:
        shown.append(f"... ({end_line - last} more lines)")
    return "\n".join(shown)


def _neighbours(answer: dict[str, Any]) -> dict[str, Any]:
    """The first neighbours, one entry per symbol (its strongest edge), and the edges' total."""
    listed: dict[str, dict[str, Any]] = {}
    for r in answer["results"]:
        listed.setdefault(
            r["key"], {"key": r["key"], "relation": r["relation"], "confidence": r["confidence"]}
        )
    return {"total": answer["total"], "results": list(listed.values())[:NEIGHBOURS]}


def explore(engine: QueryEngine, text: str, root: Path | None, limit: int) -> dict[str, Any]:
    """The symbols a question is about, each with its context (see the module docstring)."""
    found = engine.search(text, "hybrid", limit)
    symbols = []
    for hit in found["results"][:limit]:
        key = hit["key"]
        row = engine.resolve(key)
        callers = engine.callers(key, NEIGHBOURS * 4)
        entry: dict[str, Any] = {
            "key": key,
            "kind": hit["kind"],
            "path": hit["path"],
            "line": hit["line"],
            "end_line": hit["end_line"],
            "signature": hit["signature"],
            "doc": (row[9] or "")[:DOC_CHARS],
            "code": _excerpt(root, hit["path"], hit["line"], hit["end_line"]),
            "callers": _neighbours(callers) | {"status": callers["status"]},
            "callees": _neighbours(engine.callees(key, NEIGHBOURS * 4)),
        }
        entry["uncertainCallers"] = callers["uncertain"]["total"]
        parent, _, _name = key.rpartition(keys.SEP)
        if hit["kind"] in ("method", "constructor", "getter", "setter") and parent:
            entry["in"] = parent
        if hit["kind"] == "class":
            shape = engine.hierarchy(key)
            entry["bases"] = [b["key"] for b in shape["bases"][:NEIGHBOURS]]
            entry["subclasses"] = len(shape["subclasses"])
        symbols.append(entry)
    return {"query": text, "semantic": found.get("semantic"), "symbols": symbols}
