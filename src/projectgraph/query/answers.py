"""Answers an agent can afford: the engine's answers summarised first, their lists capped, ranked
and paged, so that no MCP answer at the defaults runs past ``BUDGET`` characters.

Three levels of ``detail``: ``summary`` (counts and the few top entries), ``normal`` (the summary
and one page of each list: the default), ``full`` (every entry). A list's ``total`` is always
exact, whatever is shown; ``nextCursor`` is the cursor of the next page (None on the last), and
the pages of one list, read one after another with the same arguments, are the whole list in the
same order. A cursor is the offset of the page's first entry, as text.

Ranks: impacted symbols by depth (nearest first), then fan-in (the number of calls, extends and
implements edges into the symbol: the most depended-on first), then key; callers and callees as
the engine orders them (strongest edge first, then key and site). Entries are grouped by file in
``byFile`` (count per path, most first), test files counted apart (``tests``).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Any

from projectgraph.graph import IMPACT_RELATIONS
from projectgraph.store import sqlite as sql

DETAILS = ("summary", "normal", "full")
BUDGET = 8000
"""Characters an answer at the defaults stays under (checked by the tests on the example)."""
PAGE = 20  # entries of a list's page at detail normal
TOP = 5  # entries a summary shows
UNCERTAIN_SHOWN = 5  # uncertain callers listed at detail normal (summary: 3)
FILES_SHOWN = 10
RANK = "depth, then fan-in (edges into it, most first), then key"


class CursorError(ValueError):
    """A cursor that is not one this list gave."""


def page(items: Sequence[Any], limit: int, cursor: str | None) -> tuple[list[Any], str | None]:
    """The page of ``items`` at ``cursor`` and the cursor of the next one."""
    start = 0
    if cursor is not None:
        if not cursor.isdigit() or int(cursor) > len(items):
            raise CursorError(f"cursor {cursor!r} is not a cursor of this list (0 to {len(items)})")
        start = int(cursor)
    end = start + limit
    return list(items[start:end]), (str(end) if end < len(items) else None)


def impact_page(answer: dict[str, Any], limit: int, cursor: str | None) -> dict[str, Any]:
    """An engine impact answer with one page of its impacted symbols in the engine's order (depth,
    then key), the root first on every page; ``total`` counts every impacted symbol (the CLI's)."""
    if limit < 1:
        raise CursorError("--limit must be at least 1")
    root, *rest = answer["impacted"]
    items, following = page(rest, limit, cursor)
    return answer | {
        "impacted": [root, *items],
        "total": len(rest),
        "truncated": len(items) < len(rest),
        "nextCursor": following,
    }


def is_test_path(path: str) -> bool:
    """A file of tests by the usual layouts (tests/ folders, test_*.py, *_test.go, *.test.ts...)."""
    name = path.rsplit("/", 1)[-1]
    parts = path.split("/")[:-1]
    return (
        any(p in ("test", "tests", "__tests__", "testing") for p in parts)
        or name.startswith("test_")
        or any(marker in name for marker in ("_test.", ".test.", ".spec.", "_spec."))
    )


def by_file(items: Sequence[dict[str, Any]], field: str = "path") -> dict[str, Any]:
    """How many entries each file holds, most first, the first ``FILES_SHOWN`` of them."""
    counts = Counter(str(item.get(field) or "(external)") for item in items)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "files": len(ranked),
        "top": [{"path": path, "count": n} for path, n in ranked[:FILES_SHOWN]],
    }


def fan_in(connection: sqlite3.Connection, keys: Sequence[str]) -> dict[str, int]:
    """The number of calls, extends and implements edges into each key's node."""
    ids = {row[0]: row[1] for key in keys for row in sql.nodes_where(connection, "key", key, 1)}
    degree: Counter[int] = Counter(e[1] for e in sql.edges_touching(connection, ids, "in", IMPACT_RELATIONS))
    return {key: degree[node] for node, key in ids.items()}


def impact(
    connection: sqlite3.Connection,
    answer: dict[str, Any],
    detail: str,
    limit: int | None,
    cursor: str | None,
    uncertain_limit: int | None = None,
) -> dict[str, Any]:
    """An impact answer summarised: counts per depth, file and test file, the top entries by rank,
    one page of the ranked impacted symbols (``normal``) or all of them (``full``)."""
    root, *rest = answer["impacted"]
    degree = fan_in(connection, [i["key"] for i in rest])
    ranked = sorted(rest, key=lambda i: (i["depth"], -degree.get(i["key"], 0), i["key"]))
    for item in ranked:
        item["fanIn"] = degree.get(item["key"], 0)
    tests = [i for i in ranked if is_test_path(i.get("path") or "")]
    out: dict[str, Any] = {
        "root": answer["root"],
        "status": answer["status"],
        "detail": detail,
        "rank": RANK,
        "total": len(ranked),
        "edgeCount": answer["edgeCount"],
        "byDepth": answer["byDepth"],
        "byFile": by_file(ranked),
        "tests": {"impacted": len(tests), **by_file(tests)},
        "roots": answer["roots"],
    }
    shown_uncertain = uncertain_limit
    if shown_uncertain is None:
        shown_uncertain = {"summary": 3, "normal": UNCERTAIN_SHOWN}.get(
            detail, len(answer["uncertain"]["results"])
        )
    uncertain = answer["uncertain"]
    listed = uncertain["results"][:shown_uncertain]
    out["uncertain"] = uncertain | {
        "results": listed if detail == "full" else [_short_uncertain(u, answer["root"]) for u in listed],
        "truncated": uncertain["total"] > len(listed),
    }
    if detail == "summary":
        out["top"] = [_short(i) for i in ranked[:TOP]]
        return out
    items, following = page(ranked, limit or (PAGE if detail == "normal" else len(ranked) or 1), cursor)
    if detail != "full":
        root, items = _short(root), [_short(i) for i in items]
    out["impacted"] = [root, *items] if cursor in (None, "0") else items
    out["nextCursor"] = following
    return out


FLAGS = ("low_confidence", "uncertain", "stale", "missing")


def _short(item: dict[str, Any]) -> dict[str, Any]:
    """An impacted entry less what its key says (a first-party key starts with its path)."""
    short: dict[str, Any] = {k: item[k] for k in ("key", "depth", "fanIn", "line") if k in item}
    if not str(item["key"]).startswith(f"{item.get('path')}"):
        short["path"] = item.get("path")
    return short | {flag: True for flag in FLAGS if item.get(flag)}


def _short_uncertain(item: dict[str, Any], root: str = "") -> dict[str, Any]:
    """An uncertain caller less its defaults: the site's line (its path is the caller's), the
    node it may call when it is not the root."""
    site = item.get("site")
    short: dict[str, Any] = {"key": item["key"], "rule": item["rule"], "reason": item["reason"]}
    if site:
        short["line"] = site["line"]
        if not str(item["key"]).startswith(site["path"]):
            short["path"] = site["path"]
    if "depth" in item:
        short["depth"] = item["depth"]
    if item.get("of") and item["of"] != root:
        short["of"] = item["of"]
    return short | {flag: True for flag in FLAGS if item.get(flag)}


def neighbours(answer: dict[str, Any], detail: str, limit: int | None, cursor: str | None) -> dict[str, Any]:
    """A callers or callees answer grouped by file, with one page of its entries."""
    results = answer["results"]
    out = {k: v for k, v in answer.items() if k not in ("results", "truncated", "uncertain")}
    out |= {"detail": detail, "total": len(results), "byFile": by_file(results, "path")}
    if "uncertain" in answer:
        shown = {"summary": 3, "normal": UNCERTAIN_SHOWN}.get(detail, len(answer["uncertain"]["results"]))
        uncertain = answer["uncertain"]
        listed = uncertain["results"][:shown]
        out["uncertain"] = uncertain | {
            "results": listed if detail == "full" else [_short_uncertain(u) for u in listed],
            "truncated": uncertain["total"] > len(listed),
        }
    if detail == "summary":
        out["top"] = [_neighbour(r) for r in results[:TOP]]
        return out
    items, following = page(results, limit or (PAGE if detail == "normal" else len(results) or 1), cursor)
    out["results"] = items if detail == "full" else [_neighbour(r) for r in items]
    out["truncated"] = following is not None or (cursor not in (None, "0"))
    out["nextCursor"] = following
    return out


def _neighbour(item: dict[str, Any]) -> dict[str, Any]:
    """An edge entry without what its key already says (name, node kind)."""
    site = item.get("site")
    short: dict[str, Any] = {
        "key": item["key"],
        "relation": item["relation"],
        "kind": item["kind"],
        "confidence": item["confidence"],
        "line": site["line"] if site else item.get("line"),
    }
    if site and not str(item["key"]).startswith(site["path"]):
        short["path"] = site["path"]
    return short | {flag: True for flag in FLAGS if item.get(flag)}
