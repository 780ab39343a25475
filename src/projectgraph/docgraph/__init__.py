"""The doc graph: design documents bound to the code they govern.

A corpus of Markdown documents whose front matter declares an identifier (``id``) and typed
``relations:`` to other documents or to anchors in the source tree; a taxonomy file
(``projectgraph-docs.toml``, see ``taxonomy``) declares the kinds, the relations and the anchor
kinds. ``build`` runs four passes in a fixed order over the census (every listed file, each
Markdown file's front matter and links parsed once, ``census``):

1. ``index``: the identifier index (typed: the node set; untyped: documents with an identifier and
   no kind), the path index (every census row), defects;
2. ``edges``: each node's relation block resolved to Document, Anchor, Withheld or Unbound targets;
3. ``links``: every prose link bound to a census row (never an edge);
4. ``scope``: each anchor kind's governed scope through its resolver.

The first three passes read census rows only and the fourth reads them through the resolvers: no
pass opens a document. The stage decides identity, never legality: it writes no severity; ``check``
(``projectgraph docs check``) groups the defects by who can repair them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from projectgraph.docgraph.anchors import Resolvers, SourceTree
from projectgraph.docgraph.census import Row, build_census
from projectgraph.docgraph.edges import Edge, Problem, build_edges
from projectgraph.docgraph.index import Defect, DocNode, Index, build_index
from projectgraph.docgraph.links import BoundLink, bind_links
from projectgraph.docgraph.scope import Scope, ScopeReport
from projectgraph.docgraph.taxonomy import TAXONOMY_FILE, Taxonomy, TaxonomyError, load_taxonomy

VERSION = 1  # the doc graph's rules; the recorded graph of the fixture corpus carries it


@dataclass(frozen=True)
class DocGraph:
    taxonomy: Taxonomy
    nodes: tuple[DocNode, ...]
    edges: tuple[Edge, ...]
    links: tuple[BoundLink, ...]
    defects: tuple[Defect, ...]
    problems: tuple[Problem, ...]
    scopes: tuple[ScopeReport, ...]
    index: Index = field(repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "nodes": [
                {"id": n.id, "kind": n.kind, "path": n.path, "excluded": n.excluded} for n in self.nodes
            ],
            "edges": [_edge_json(e) for e in self.edges],
            "links": [
                {
                    "path": link.path,
                    "line": link.line,
                    "destination": link.destination,
                    "class": link.klass,
                    "target": link.target,
                    "fragment": link.fragment,
                    "rule": link.rule,
                }
                for link in self.links
            ],
            "defects": [{"path": d.path, "kind": d.kind, "detail": d.detail} for d in self.defects],
            "problems": [{"path": p.path, "kind": p.kind, "detail": p.detail} for p in self.problems],
            "refused": [{"relation": r, "reason": why} for r, why in self.taxonomy.refused],
            "scopes": [
                {
                    "anchor_kind": s.anchor_kind,
                    "admitted": [{"pattern": p, "count": n} for p, n in s.admitted],
                    "unmatched": list(s.unmatched),
                }
                for s in self.scopes
            ],
        }

    def governing(self, path: str) -> list[tuple[DocNode, Edge]]:
        """The documents whose anchors hold ``path`` (a file of the source tree), with the edge."""
        by_id = {n.id: n for n in self.nodes}
        found = []
        for edge in self.edges:
            target = edge.target
            if target.variant != "anchor" or edge.inverse:
                continue
            if path in target.matched:  # a folder anchor matched every census path under it
                found.append((by_id[edge.source], edge))
        return found


def _edge_json(edge: Edge) -> dict[str, Any]:
    target = edge.target
    return {
        "source": edge.source,
        "relation": edge.relation,
        "declared": edge.declared,
        "inverse": edge.inverse,
        "target": {
            "variant": target.variant,
            "value": target.value,
            "anchor_kind": target.anchor_kind,
            "reason": target.reason,
            "detail": target.detail,
            "matched": len(target.matched),
            "exclusion": target.exclusion,
        },
        "attributes": dict(edge.attributes),
    }


def build(root: str | Path, taxonomy: Taxonomy | None = None, store: Any | None = None) -> DocGraph:
    """The doc graph of the project under ``root`` (its taxonomy file unless one is given)."""
    base = Path(root)
    if taxonomy is None:
        taxonomy = load_taxonomy(base)
        if taxonomy is None:
            raise TaxonomyError(f"{base}: no {TAXONOMY_FILE}: the doc graph needs a taxonomy")
    rows = build_census(base, taxonomy.exclude, store)
    return build_from_census(rows, taxonomy)


def build_from_census(
    rows: tuple[Row, ...], taxonomy: Taxonomy, resolvers: Resolvers | None = None
) -> DocGraph:
    """The four passes over census rows."""
    index = build_index(rows, taxonomy)
    resolvers = resolvers or Resolvers.over(rows)
    edges, problems = build_edges(rows, index, taxonomy, resolvers)
    links = bind_links(rows, taxonomy.corpus)
    tree = resolvers.get("source-tree")
    scopes = tuple(
        Scope(decl, tree).report()
        for decl in sorted(taxonomy.anchors.values(), key=lambda d: d.name)
        if decl.scope and isinstance(tree, SourceTree) and decl.resolver == "source-tree"
    )
    nodes = tuple(sorted(index.typed.values(), key=lambda n: n.id))
    return DocGraph(taxonomy, nodes, edges, links, index.defects, problems, scopes, index)


def template(taxonomy: Taxonomy, kind: str) -> str:
    """The front matter a new document of ``kind`` starts from: its identifier and every relation it
    can write (each declared name and its inverse), commented out."""
    if kind not in taxonomy.kinds:
        raise TaxonomyError(f"no kind {kind!r} in the taxonomy (kinds: {', '.join(sorted(taxonomy.kinds))})")
    lines = ["---", f"{taxonomy.id_key}: ", f"kind: {kind}", f"{taxonomy.relations_key}:"]
    for name in sorted(template_relations(taxonomy)):
        lines.append(f"  # {name}: ")
    lines.append("---")
    return "\n".join(lines) + "\n"


def template_relations(taxonomy: Taxonomy) -> frozenset[str]:
    """The relation names a template writes: what a document can write, read off the declarations."""
    names = {decl.name for decl in taxonomy.relations.values()}
    names |= {decl.inverse for decl in taxonomy.relations.values() if decl.inverse}
    names |= {name for name, _ in taxonomy.refused}
    return frozenset(names)


# ---- the check: defects grouped by who can repair them ------------------------------------------

_TARGET_REASONS = {"untyped-document"}  # the target document lacks what the edge needs
_LINK_DEFECTS = ("broken",)


@dataclass(frozen=True)
class Finding:
    owner: str  # target-document | link | taxonomy
    path: str
    kind: str
    detail: str


def check(graph: DocGraph) -> list[Finding]:
    """Every defect of the graph, grouped by who can repair it: the target document, the link (the
    document that wrote it), or the taxonomy."""
    by_id = {n.id: n for n in graph.nodes}
    findings: list[Finding] = []
    paths = graph.index.paths

    def excused(path: str) -> bool:  # an excluded document keeps its identity, not its checks
        row = paths.get(path)
        return row is not None and bool(row.excluded)

    for defect in graph.defects:
        if excused(defect.path):
            continue
        findings.append(Finding("target-document", defect.path, defect.kind, defect.detail))
    for edge in graph.edges:
        target = edge.target
        if target.variant != "unbound":
            continue
        where = by_id[edge.source].path
        if excused(where):
            continue
        text = (
            f"{edge.relation} {target.value}: {target.detail}"
            if target.detail
            else f"{edge.relation} {target.value}"
        )
        if target.reason in _TARGET_REASONS:
            near = graph.index.near_miss(target.value) or where
            findings.append(
                Finding("target-document", near, target.reason, f"named by {edge.source}: {text}")
            )
        else:
            findings.append(Finding("link", where, target.reason, text))
    for problem in graph.problems:
        if excused(problem.path):
            continue
        findings.append(Finding("link", problem.path, problem.kind, problem.detail))
    for link in graph.links:
        if link.klass in _LINK_DEFECTS and not excused(link.path):
            findings.append(
                Finding("link", link.path, f"{link.klass}-link", f"line {link.line}: {link.destination}")
            )
    for relation, why in graph.taxonomy.refused:
        findings.append(Finding("taxonomy", graph.taxonomy.source, "refused-relation", f"{relation}: {why}"))
    for scope in graph.scopes:
        for pattern in scope.unmatched:
            findings.append(
                Finding(
                    "taxonomy",
                    graph.taxonomy.source,
                    "unmatched-scope",
                    f"anchors.{scope.anchor_kind}: {pattern}",
                )
            )
    return sorted(findings, key=lambda f: (f.owner, f.path, f.kind, f.detail))


__all__ = ["DocGraph", "Finding", "TaxonomyError", "build", "build_from_census", "check"]
