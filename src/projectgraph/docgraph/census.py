"""The census: every file the project lists (discovery's list, before languages), each a row, and for
each Markdown file its parsed document (front matter and prose links), read once.

No pass after this one opens a document file: a second read could disagree with the census. A
document's parse is cached in the store by its content (plugin artifact ``docgraph-census``), like
a file's index, so a re-run reads only changed documents. Lines are 1-based.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from projectgraph import safefs
from projectgraph.discover import project_files
from projectgraph.docgraph.globs import glob_match
from projectgraph.fileindex import Key, content_hash

CENSUS_VERSION = 1  # the parse of a document: front matter, links, quotes
DOCUMENT_SUFFIXES = (".md", ".markdown")
MAX_DOCUMENT_BYTES = 2_000_000


@dataclass(frozen=True)
class Link:
    line: int
    destination: str  # as written, angle brackets and title removed
    quoted: bool  # inside a block quote: another author's claim, counted and never bound


@dataclass(frozen=True)
class Document:
    front: dict[str, Any] | None  # the front matter mapping, None when there is none
    error: str  # why the front matter could not be read ("" when it could)
    links: tuple[Link, ...]


@dataclass(frozen=True)
class Row:
    path: str
    excluded: str  # the exclusion rule that matched ("" when the row is in the corpus)
    document: Document | None  # the parse of a Markdown file, None for any other file


def build_census(root: Path, exclude: tuple[str, ...] = (), store: Any | None = None) -> tuple[Row, ...]:
    """Every listed file of the project under ``root``, in path order, documents parsed."""
    rows = []
    for path in project_files(root):
        excluded = next((pattern for pattern in exclude if glob_match(path, pattern)), "")
        document = _document(root, path, store) if path.lower().endswith(DOCUMENT_SUFFIXES) else None
        rows.append(Row(path, f"exclude: {excluded}" if excluded else "", document))
    return tuple(rows)


def _document(root: Path, path: str, store: Any | None) -> Document:
    data, why = _read(root / path)
    if data is None:
        return Document(None, why, ())
    key = Key(content_hash(data), path, CENSUS_VERSION, "", "markdown")
    if store is not None:
        hit = store.get_artifact(key, "docgraph-census", str(CENSUS_VERSION))
        if hit is not None:
            return _from_json(hit)
    document = parse_document(data)
    if store is not None:
        store.put_artifact(key, "docgraph-census", str(CENSUS_VERSION), _to_json(document))
    return document


def _read(path: Path) -> tuple[bytes | None, str]:
    """A regular file's bytes, never through a link nor blocking on a pipe, at most the bound."""
    try:
        return safefs.read_bytes(path, limit=MAX_DOCUMENT_BYTES, follow=False), ""
    except OSError as error:
        return None, f"unreadable: {error.strerror or error}"


_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_INLINE = re.compile(
    r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_CODE_SPAN = re.compile(r"`+[^`]*`+")
_QUOTE = re.compile(r"^\s{0,3}>")


def parse_document(data: bytes) -> Document:
    """The front matter (YAML between a first line ``---`` and the next ``---`` or ``...``) and the
    prose links of a Markdown document; fenced code and code spans hold no link."""
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = text.split("\n")
    front: dict[str, Any] | None = None
    error = ""
    body_start = 0
    if lines and lines[0].rstrip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
        if end is None:
            error = "front matter is not closed (no second ---)"
        else:
            body_start = end + 1
            try:
                loaded = yaml.safe_load("\n".join(lines[1:end]))
            except yaml.YAMLError as problem:
                error = f"front matter is not valid YAML: {str(problem).splitlines()[0]}"
            else:
                if loaded is None:
                    front = {}
                elif isinstance(loaded, dict):
                    # dates and other YAML scalars as text: the record has one JSON form
                    front = json.loads(json.dumps({str(k): v for k, v in loaded.items()}, default=str))
                else:
                    error = "front matter is not a mapping"
    links: list[Link] = []
    fenced = False
    for number, line in enumerate(lines[body_start:], start=body_start + 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        quoted = bool(_QUOTE.match(line))
        prose = _CODE_SPAN.sub("", line)
        for match in _INLINE.finditer(prose):
            links.append(Link(number, match.group(1).strip("<>"), quoted))
        reference = _REFERENCE.match(prose)
        if reference:
            links.append(Link(number, reference.group(1).strip("<>"), quoted))
    return Document(front, error, tuple(links))


def _to_json(document: Document) -> dict[str, Any]:
    return {
        "front": document.front,
        "error": document.error,
        "links": [[link.line, link.destination, link.quoted] for link in document.links],
    }


def _from_json(data: dict[str, Any]) -> Document:
    return Document(
        data["front"], data["error"], tuple(Link(int(a), str(b), bool(c)) for a, b, c in data["links"])
    )
