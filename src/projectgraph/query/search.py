"""Search: BM25 over the FTS5 index of names (split on case and underscores), qualified names,
signatures and doc comments; semantic similarity over embedded symbols (``semantic``: the optional
extra and ``projectgraph embed``); ``hybrid`` (the default) fuses both by reciprocal rank. Without
the model or without vectors, ``semantic`` answers nothing and ``hybrid`` is keyword-only, and the
answer's ``semantic`` field says why and what to do.

Matching: the query is split into words as names are (``parseHTTPRequest`` -> parse, http,
request); a symbol matches when it has every word (the last one as a prefix), or, when no symbol
has them all, any of them. Ranking: every definition whose name or qualified name is exactly the
query comes first (looked up by name, so BM25 cannot push it out of the candidates), first-party
before external; then one whose name matches but for case; then the BM25 order (names weigh 10,
qualified names 5, signatures 2, doc comments 1). ``score`` is the BM25 score (higher is better).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from projectgraph.query import semantic
from projectgraph.store import sqlite as sql

MODES = ("keyword", "semantic", "hybrid")


_PART = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    """The query's words as the index splits names: ``parseHTTPRequest`` -> parse, http, request."""
    words: list[str] = []
    for part in _PART.findall(text):
        pieces = sql.search_words(part).split()
        words.extend(pieces[1:] if len(pieces) > 1 else pieces)
    return list(dict.fromkeys(words))


def _expression(words: list[str], joiner: str) -> str:
    """An FTS5 query of the words; the last one, of three letters or more, is a prefix
    (``request`` finds ``requests``; a shorter one would expand to half the index)."""
    last = f'"{words[-1]}"*' if len(words[-1]) >= 3 else f'"{words[-1]}"'
    return f" {joiner} ".join([*(f'"{w}"' for w in words[:-1]), last])


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
    query = text.strip()
    words = _words(query)
    if not words:
        return []
    exact = sql.nodes_named(connection, query, limit)
    # every word must match; only when nothing does, any word may (BM25 over the union of common
    # words' matches costs tens of milliseconds on a large project, so it is the fallback)
    expression = _expression(words, "AND")
    first = [row[0] for row in exact]
    rows = sql.fts_search(connection, expression, max(limit * 5, 50), first)
    if not rows and not exact and len(words) > 1:
        rows = sql.fts_search(connection, _expression(words, "OR"), max(limit * 5, 50))
    scores = {row[0]: -float(row[-1]) for row in rows}
    candidates = {row[0]: row[: len(row) - 1] for row in rows}
    for row in exact:
        candidates.setdefault(row[0], row)
    order = {row[0]: position for position, row in enumerate(exact)}
    offset = len(order)
    for position, row in enumerate(rows):
        order.setdefault(row[0], offset + position)
    lowered = query.lower()

    def rank(row: tuple[Any, ...]) -> tuple[int, int, int]:
        name, qualname, kind = row[3], row[4], row[2]
        if qualname == query:  # a top-level `reverse` before the methods named reverse
            tier = 0
        elif name == query:
            tier = 1
        elif name.lower() == lowered or qualname.lower() == lowered:
            tier = 2
        else:
            tier = 3
        return (tier, 1 if kind in ("external", "module") else 0, order[row[0]])

    ordered = sorted(candidates.values(), key=rank)[:limit]
    return [_hit(row, scores.get(row[0], 0.0)) for row in ordered]


def semantic_available() -> bool:
    """Whether an embedding model can serve semantic search here (the ``semantic`` extra)."""
    return semantic.model_available()


UNAVAILABLE = f"unavailable: no embedding model is installed with projectgraph ({semantic.INSTALL_HINT})"
NO_VECTORS = "unavailable: this project has no vectors yet (run `projectgraph embed` once)"


def _semantic_hits(connection: sqlite3.Connection, text: str, limit: int) -> list[dict[str, Any]]:
    near = semantic.nearest(connection, text, limit)
    rows = sql.nodes_by_keys(connection, [key for key, _ in near])
    return [_hit(rows[key], score) for key, score in near if key in rows]


def search(
    connection: sqlite3.Connection, text: str, mode: str = "hybrid", limit: int = 20
) -> dict[str, Any]:
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r} (use {', '.join(MODES)})")
    if limit < 1:
        raise ValueError("--limit must be at least 1")
    if mode == "keyword":
        return {
            "query": text,
            "mode": mode,
            "semantic": "not used",
            "results": keyword(connection, text, limit),
        }
    why = ""
    if not semantic_available():
        why = UNAVAILABLE
    elif not semantic.has_vectors(connection):
        why = NO_VECTORS
    if mode == "semantic":
        if why:
            return {"query": text, "mode": mode, "semantic": f"{why}; use --mode keyword", "results": []}
        return {
            "query": text,
            "mode": mode,
            "semantic": "used",
            "results": _semantic_hits(connection, text, limit),
        }
    if why:
        results = keyword(connection, text, limit)
        return {"query": text, "mode": mode, "semantic": f"{why}: keyword only", "results": results}
    words = keyword(connection, text, max(limit * 3, 30))
    near = _semantic_hits(connection, text, max(limit * 3, 30))
    by_key = {hit["key"]: hit for hit in [*near, *words]}
    fused = semantic.fuse([[h["key"] for h in words], [h["key"] for h in near]], limit)
    results = [by_key[key] | {"score": round(score, 6)} for key, score in fused]
    return {"query": text, "mode": mode, "semantic": "used", "results": results}
