"""Pass 3: every prose link bound to what it points at; no link becomes an edge.

A link inside a block quote is counted and never bound (another author's claim). A destination
binds when its raw text or its percent-decoded text names a census row (a file, or a folder of
rows); it is ``broken`` only when neither does, and ``excluded`` (with the rule) when the row it
names is excluded. A query string comes off before binding; a leading ``/`` is the corpus root;
the fragment stays on the record, unresolved (a heading is a check's business). A destination with
a scheme (``https:``, ``mailto:``) or ``//`` is ``external``; a bare ``#fragment`` is ``self``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

from projectgraph.docgraph.anchors import AnchorPathError, normalize
from projectgraph.docgraph.census import Row

LINK_CLASSES = ("bound", "excluded", "broken", "quoted", "external", "self")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class BoundLink:
    path: str  # the document holding the link
    line: int
    destination: str  # as written
    klass: str  # one of LINK_CLASSES
    target: str = ""  # the census path it binds to (bound, excluded)
    fragment: str = ""
    rule: str = ""  # the exclusion rule (excluded), or why the path could not be made (broken)


def bind_links(rows: tuple[Row, ...], corpus: str = "") -> tuple[BoundLink, ...]:
    paths = {row.path: row for row in rows}
    folders = {posixpath.dirname(p) for p in paths}
    folders |= {"/".join(f.split("/")[:i]) for f in list(folders) for i in range(1, f.count("/") + 1)}
    bound: list[BoundLink] = []
    for row in rows:
        if row.document is None:
            continue
        here = posixpath.dirname(row.path)
        for link in row.document.links:
            bound.append(
                _bind(row.path, here, link.line, link.destination, link.quoted, paths, folders, corpus)
            )
    return tuple(bound)


def _bind(
    path: str,
    here: str,
    line: int,
    destination: str,
    quoted: bool,
    paths: dict[str, Row],
    folders: set[str],
    corpus: str,
) -> BoundLink:
    if quoted:
        return BoundLink(path, line, destination, "quoted")
    if _SCHEME.match(destination) or destination.startswith("//"):
        return BoundLink(path, line, destination, "external")
    rest, _, fragment = destination.partition("#")
    rest = rest.partition("?")[0]
    if not rest:
        return BoundLink(path, line, destination, "self", fragment=fragment)
    why = ""
    for candidate in dict.fromkeys((rest, unquote(rest))):
        base = corpus if candidate.startswith("/") else here
        try:
            target = normalize(posixpath.join(base, candidate.lstrip("/")) if base else candidate.lstrip("/"))
        except AnchorPathError as error:
            why = str(error)
            continue
        row = paths.get(target)
        if row is not None:
            if row.excluded:
                return BoundLink(path, line, destination, "excluded", target, fragment, row.excluded)
            return BoundLink(path, line, destination, "bound", target, fragment)
        if target in folders:
            return BoundLink(path, line, destination, "bound", target, fragment)
    return BoundLink(path, line, destination, "broken", fragment=fragment, rule=why or "no such file")
