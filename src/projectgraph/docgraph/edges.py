"""Pass 2: each node's relation block becomes edges.

An entry is a scalar target or a mapping with ``to:`` and instance attributes; both give the same
edge, and one entry is the same as a sequence of one. The identity of an edge is the triple (source
identifier, relation name, normalized target); list order means nothing. An edge keeps the
direction the author wrote and the one the taxonomy declares (``declared_triple``), so both halves
of a reciprocal pair give one triple.

A target is a Document, an Anchor, Withheld (its relation's declaration was refused, reported once
against the declaration) or Unbound with one of six reasons: ``nothing``, ``untyped-document`` (a
document with no kind carries the identifier), ``no-resolver`` (no anchor kind of the relation
claims it), ``anchor-unresolved``, ``ambiguous-anchor`` (two anchor kinds claim it) and
``document-by-path`` (the path of a typed document: the report names the identifier to write).
Where the relation's ``to`` holds a kind and an anchor kind, the index goes first, then the
resolvers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from projectgraph.docgraph.anchors import AnchorPathError, Resolution, Resolvers, normalize
from projectgraph.docgraph.census import Row
from projectgraph.docgraph.index import Index
from projectgraph.docgraph.taxonomy import Taxonomy

UNBOUND_REASONS = (
    "nothing",
    "untyped-document",
    "no-resolver",
    "anchor-unresolved",
    "ambiguous-anchor",
    "document-by-path",
)


@dataclass(frozen=True)
class Target:
    variant: str  # document | anchor | withheld | unbound
    value: str  # the identifier, the anchor node, or the target as written (normalized where it could be)
    anchor_kind: str = ""
    reason: str = ""  # an unbound reason, or why a target is withheld
    detail: str = ""  # the identifier to write (document-by-path), the near miss, the resolver's error
    matched: tuple[str, ...] = ()  # the census paths an anchor matched
    exclusion: str = ""  # the exclusion rule a literal anchor onto an excluded file carries


@dataclass(frozen=True)
class Edge:
    source: str
    relation: str  # as the author wrote it
    declared: str  # the declared relation's name (the written one, or the relation it is the inverse of)
    inverse: bool  # written as the inverse half
    target: Target
    attributes: tuple[tuple[str, str], ...] = ()

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.source, self.relation, self.target.value)

    @property
    def declared_triple(self) -> tuple[str, str, str]:
        """The triple in the declared direction: both halves of a reciprocal pair give this one."""
        if self.inverse:
            return (self.target.value, self.declared, self.source)
        return (self.source, self.declared, self.target.value)


@dataclass(frozen=True)
class Problem:
    path: str
    kind: str  # repeated-triple | source-has-no-identifier | unknown-relation | bad-entry
    detail: str


def build_edges(
    rows: tuple[Row, ...], index: Index, taxonomy: Taxonomy, resolvers: Resolvers
) -> tuple[tuple[Edge, ...], tuple[Problem, ...]]:
    edges: list[Edge] = []
    problems: list[Problem] = []
    refused = dict(taxonomy.refused)
    by_path = {node.path: node for node in index.typed.values()}
    for row in rows:
        document = row.document
        if document is None or document.front is None or document.error:
            continue
        block = document.front.get(taxonomy.relations_key)
        if block is None:
            continue
        node = by_path.get(row.path)
        if node is None:
            if taxonomy.id_key not in document.front:
                problems.append(
                    Problem(row.path, "source-has-no-identifier", "relations declared, no identifier")
                )
            continue  # an untyped document's relations are not the graph's (it is no node)
        if not isinstance(block, dict):
            problems.append(Problem(row.path, "bad-entry", f"{taxonomy.relations_key} must be a mapping"))
            continue
        seen: set[tuple[str, str, str]] = set()
        for written in sorted(block, key=str):
            entries = block[written]
            for entry in entries if isinstance(entries, list) else [entries]:
                edge = _edge(
                    node.id, str(written), entry, taxonomy, refused, index, resolvers, row.path, problems
                )
                if edge is None:
                    continue
                if edge.triple in seen:
                    problems.append(Problem(row.path, "repeated-triple", " ".join(edge.triple)))
                    continue
                seen.add(edge.triple)
                edges.append(edge)
    edges.sort(key=lambda e: (e.triple, e.target.variant))
    return tuple(edges), tuple(problems)


def _edge(
    source: str,
    written: str,
    entry: Any,
    taxonomy: Taxonomy,
    refused: dict[str, str],
    index: Index,
    resolvers: Resolvers,
    path: str,
    problems: list[Problem],
) -> Edge | None:
    attributes: tuple[tuple[str, str], ...] = ()
    if isinstance(entry, dict):
        raw = entry.get("to")
        attributes = tuple(sorted((str(k), str(v)) for k, v in entry.items() if k != "to"))
    else:
        raw = entry
    if not isinstance(raw, str | int) or isinstance(raw, bool) or not str(raw).strip():
        problems.append(
            Problem(path, "bad-entry", f"{written}: a target must be a scalar or a mapping with to:")
        )
        return None
    text = str(raw).strip()
    if written in refused:
        return Edge(
            source, written, written, False, Target("withheld", text, reason=refused[written]), attributes
        )
    found = taxonomy.relation(written)
    if found is None:
        problems.append(Problem(path, "unknown-relation", f"{written} is not a relation of the taxonomy"))
        return None
    decl, inverse = found
    target = resolve_target(text, decl.to, taxonomy, index, resolvers, source)
    return Edge(source, written, decl.name, inverse, target, attributes)


def resolve_target(
    text: str, to: tuple[str, ...], taxonomy: Taxonomy, index: Index, resolvers: Resolvers, declaring_id: str
) -> Target:
    kinds = [t for t in to if t in taxonomy.kinds]
    anchor_kinds = [t for t in to if t in taxonomy.anchors]
    if kinds:
        node = index.typed.get(text)
        if node is not None:
            return Target("document", text)
    try:
        as_path = normalize(text)
    except AnchorPathError:
        as_path = ""
    by_path = next((n for n in index.typed.values() if n.path == as_path), None) if as_path else None
    if by_path is not None:
        return Target(
            "unbound", as_path, reason="document-by-path", detail=f"write its identifier: {by_path.id}"
        )
    claimed: list[tuple[str, Resolution]] = []
    for anchor_kind in anchor_kinds:
        decl = taxonomy.anchors[anchor_kind]
        resolver = resolvers.get(decl.resolver)
        if resolver is not None and resolver.claims(text, decl.scope):
            claimed.append((anchor_kind, resolver.resolve_for(text, declaring_id)))
    if len(claimed) > 1:
        names = ", ".join(kind for kind, _ in claimed)
        return Target("unbound", as_path or text, reason="ambiguous-anchor", detail=f"claimed by {names}")
    if claimed:
        anchor_kind, resolution = claimed[0]
        if resolution.error:
            return Target(
                "unbound", resolution.node, anchor_kind, reason="anchor-unresolved", detail=resolution.error
            )
        return Target(
            "anchor",
            resolution.node,
            anchor_kind,
            matched=resolution.matched,
            exclusion=resolution.exclusion,
        )
    near = index.near_miss(text)
    if near is not None:
        return Target("unbound", text, reason="untyped-document", detail=f"{near} has no kind")
    if kinds:
        return Target("unbound", text, reason="nothing")
    return Target("unbound", text, reason="no-resolver")
