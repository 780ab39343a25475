"""Pass 1: the identifier index and the path index.

An edge target is an identifier, never a path, so edge resolution reads the identifier index; a
prose link is a relative path, so link binding reads the path index. One index with both keys would
accept a path as an edge target.

The identifier index has two parts: ``typed`` is the node set (a census row whose document has a
kind and declares an identifier); ``untyped`` holds every other document that declares one, so a
report can tell a target that is a document with no kind (the target document's defect) from a
target that is nothing (the link's). The path index holds every census row, so a link to an
excluded file says so rather than being broken.
"""

from __future__ import annotations

from dataclasses import dataclass

from projectgraph.docgraph.census import Row
from projectgraph.docgraph.globs import glob_match
from projectgraph.docgraph.taxonomy import Taxonomy


@dataclass(frozen=True)
class DocNode:
    id: str
    kind: str
    path: str
    excluded: str  # a generated or excluded document keeps its identity: it can be an end of an edge


@dataclass(frozen=True)
class Defect:
    """What the index could not make of a document."""

    path: str
    kind: str  # no-identifier | non-scalar-identifier | duplicate-identifier | unknown-kind | front-matter
    detail: str


@dataclass(frozen=True)
class Index:
    typed: dict[str, DocNode]
    untyped: dict[str, str]  # identifier -> path of a document with no kind
    paths: dict[str, Row]
    defects: tuple[Defect, ...]

    def near_miss(self, identifier: str) -> str | None:
        """The document with no kind that carries this identifier, if one does."""
        return self.untyped.get(identifier)


def kind_of(row: Row, taxonomy: Taxonomy) -> tuple[str, str]:
    """(kind, defect detail): the front matter's ``kind`` when declared, else the first kind (by
    name) whose path globs match."""
    front = row.document.front if row.document is not None else None
    written = front.get("kind") if front else None
    if written is not None:
        if isinstance(written, str) and written in taxonomy.kinds:
            return written, ""
        return "", f"kind {written!r} is not declared in the taxonomy"
    for kind in sorted(taxonomy.kinds):
        if any(glob_match(row.path, pattern) for pattern in taxonomy.kinds[kind]):
            return kind, ""
    return "", ""


def build_index(rows: tuple[Row, ...], taxonomy: Taxonomy) -> Index:
    typed: dict[str, DocNode] = {}
    untyped: dict[str, str] = {}
    defects: list[Defect] = []
    seen: dict[str, str] = {}  # identifier -> first path that declared it
    for row in rows:
        document = row.document
        if document is None:
            continue
        if document.error:
            defects.append(Defect(row.path, "front-matter", document.error))
            continue
        front = document.front
        if front is None:
            continue
        kind, why = kind_of(row, taxonomy)
        if why:
            defects.append(Defect(row.path, "unknown-kind", why))
        raw = front.get(taxonomy.id_key)
        if raw is None:
            if kind:
                defects.append(
                    Defect(row.path, "no-identifier", f"a {kind} document declares no {taxonomy.id_key}")
                )
            continue
        if not isinstance(raw, str | int) or isinstance(raw, bool) or not str(raw).strip():
            defects.append(
                Defect(row.path, "non-scalar-identifier", f"{taxonomy.id_key} is {type(raw).__name__}")
            )
            continue
        identifier = str(raw).strip()
        if identifier in seen:
            defects.append(
                Defect(
                    row.path, "duplicate-identifier", f"{identifier} is also declared by {seen[identifier]}"
                )
            )
            continue
        seen[identifier] = row.path
        if kind:
            typed[identifier] = DocNode(identifier, kind, row.path, row.excluded)
        else:
            untyped[identifier] = row.path
    return Index(typed, untyped, {row.path: row for row in rows}, tuple(defects))
