"""The doc graph (issue 20): the seed's invariants, one named test each, over a real fixture corpus
(tests/fixtures/docgraph/corpus) and small corpora written here; the recorded graph of the fixture
corpus is the assertion (re-recorded with PROJECTGRAPH_BLESS=1 and a bump of docgraph.VERSION)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, write_tree
from projectgraph import docgraph
from projectgraph.docgraph.anchors import AnchorPathError, Resolvers, SourceTree, normalize
from projectgraph.docgraph.census import Row, build_census, parse_document
from projectgraph.docgraph.edges import UNBOUND_REASONS
from projectgraph.docgraph.links import LINK_CLASSES
from projectgraph.docgraph.taxonomy import TaxonomyError, load_taxonomy, parse_taxonomy
from projectgraph.store.sqlite import SqliteStore

CORPUS = FIXTURES / "docgraph" / "corpus"
RECORDED = FIXTURES / "docgraph" / "recorded.json"
REPO = Path(__file__).parent.parent
CLI = Path(sys.executable).with_name("projectgraph")
BLESS = os.environ.get("PROJECTGRAPH_BLESS") == "1"


@pytest.fixture(scope="module")
def graph() -> docgraph.DocGraph:
    return docgraph.build(CORPUS)


def _census(root: Path) -> tuple[Row, ...]:
    taxonomy = load_taxonomy(root)
    assert taxonomy is not None
    return build_census(root, taxonomy.exclude)


def test_every_node_of_the_graph_is_a_row_of_the_census_that_resolved_a_kind(
    graph: docgraph.DocGraph,
) -> None:
    rows = {row.path: row for row in _census(CORPUS)}
    assert graph.nodes
    for node in graph.nodes:
        row = rows[node.path]
        assert row.document is not None and row.document.front is not None
        assert str(row.document.front["id"]) == node.id
        assert node.kind in graph.taxonomy.kinds
    # a document with an identifier and no kind is no node; an excluded one keeps its identity
    ids = {n.id for n in graph.nodes}
    assert "PG-NOTES" not in ids
    assert "PG-ARCHIVED" in ids and next(n for n in graph.nodes if n.id == "PG-ARCHIVED").excluded


def test_two_spellings_of_one_anchor_are_one_node(graph: docgraph.DocGraph) -> None:
    assert normalize("./src//engine/../engine/core.py") == "src/engine/core.py"
    assert normalize(" src\\engine\\core.py ") == "src/engine/core.py"
    assert normalize("src/engine/") == "src/engine"
    core = [e for e in graph.edges if e.target.variant == "anchor" and e.target.value == "src/engine/core.py"]
    assert {e.source for e in core} == {"PG-ENGINE", "PG-TOOLS"}  # written two ways, one node


@pytest.mark.parametrize("bad", ["", "   ", "/etc/passwd", "C:\\x", "..", "a/../../b", "./."])
def test_normalize_refuses_absolute_empty_and_above_the_base(bad: str) -> None:
    with pytest.raises(AnchorPathError):
        normalize(bad)


def test_both_halves_of_a_reciprocal_pair_normalize_to_one_triple(graph: docgraph.DocGraph) -> None:
    halves = [e for e in graph.edges if e.declared == "supersedes"]
    assert {(e.source, e.relation, e.inverse) for e in halves} == {
        ("PG-ENGINE", "supersedes", False),
        ("PG-OLD", "superseded_by", True),
    }
    assert {e.declared_triple for e in halves} == {("PG-ENGINE", "supersedes", "PG-OLD")}


def test_every_edge_half_falls_in_exactly_one_class(graph: docgraph.DocGraph) -> None:
    variants = {"document", "anchor", "withheld", "unbound"}
    for edge in graph.edges:
        target = edge.target
        assert target.variant in variants
        assert (target.variant == "unbound") == (target.reason in UNBOUND_REASONS)
        assert (target.variant == "anchor") == bool(target.anchor_kind and target.matched)
    assert {e.target.variant for e in graph.edges} == variants  # the corpus holds each
    reasons = {e.target.reason for e in graph.edges if e.target.variant == "unbound"}
    assert {"nothing", "untyped-document", "anchor-unresolved", "document-by-path"} <= reasons
    withheld = [e for e in graph.edges if e.target.variant == "withheld"]
    assert [(e.relation, e.target.reason) for e in withheld] == [
        ("mentions", "the relation declares no 'to'")
    ]
    # the refused declaration is reported once, against the declaration, not per target
    refused = [f for f in docgraph.check(graph) if f.kind == "refused-relation"]
    assert len(refused) == 1 and refused[0].owner == "taxonomy"


def test_the_six_unbound_reasons_each_arise() -> None:
    taxonomy = parse_taxonomy(
        {
            "kinds": {"design": {}},
            "relations": {
                "cites": {"to": ["design"]},
                "touches": {"to": ["src", "lib"]},
                "names": {"to": ["design", "src"]},
            },
            "anchors": {
                "src": {"resolver": "source-tree"},
                "lib": {"resolver": "source-tree", "scope": ["lib/**"]},
            },
        }
    )
    rows = (
        Row(
            "a.md",
            "",
            parse_document(
                b"---\nid: A\nkind: design\nrelations:\n  cites: [Z, U]\n"
                b"  touches: [lib/x.py, nope.py]\n  names: b.md\n---\n"
            ),
        ),
        Row("b.md", "", parse_document(b"---\nid: B\nkind: design\n---\n")),
        Row("u.md", "", parse_document(b"---\nid: U\n---\n")),
        Row("lib/x.py", "", None),
    )
    graph = docgraph.build_from_census(rows, taxonomy)
    reasons = {e.target.value: e.target.reason for e in graph.edges}
    assert reasons == {
        "Z": "nothing",
        "U": "untyped-document",
        "lib/x.py": "ambiguous-anchor",  # both anchor kinds claim it
        "nope.py": "anchor-unresolved",
        "b.md": "document-by-path",
    }
    no_resolver = parse_taxonomy(
        {"relations": {"touches": {"to": ["x"]}}, "anchors": {"x": {"resolver": "comment-scan"}}}
    )
    only = docgraph.build_from_census((Row("a.md", "", parse_document(b"---\nid: A\n---\n")),), no_resolver)
    assert only.edges == ()  # an untyped document is no node: its relations are not the graph's
    typed = parse_taxonomy(
        {
            "kinds": {"d": {}},
            "relations": {"touches": {"to": ["x"]}},
            "anchors": {"x": {"resolver": "comment-scan"}},
        }
    )
    one = docgraph.build_from_census(
        (Row("a.md", "", parse_document(b"---\nid: A\nkind: d\nrelations:\n  touches: src/a.py\n---\n")),),
        typed,
    )
    assert [e.target.reason for e in one.edges] == ["no-resolver"]
    assert set(UNBOUND_REASONS) == {*reasons.values(), "no-resolver"}


def test_an_untyped_target_and_a_target_that_is_nothing_are_two_reports(graph: docgraph.DocGraph) -> None:
    findings = docgraph.check(graph)
    untyped = [f for f in findings if f.kind == "untyped-document"]
    nothing = [f for f in findings if f.kind == "nothing" and "PG-NOWHERE" in f.detail]
    assert [(f.owner, f.path) for f in untyped] == [("target-document", "docs/my notes.md")]
    assert [(f.owner, f.path) for f in nothing] == [("link", "docs/design/engine.md")]


def test_a_quoted_link_is_counted_and_never_bound(graph: docgraph.DocGraph) -> None:
    quoted = [link for link in graph.links if link.klass == "quoted"]
    assert [(q.line, q.destination, q.target) for q in quoted] == [(14, "design/engine.md", "")]
    classes = {link.klass for link in graph.links}
    assert classes == set(LINK_CLASSES)
    by_destination = {link.destination: link for link in graph.links}
    assert by_destination["my%20notes.md"].target == "docs/my notes.md"  # percent-decoded
    assert by_destination["my notes.md"].target == "docs/my notes.md"  # raw
    assert (
        by_destination["/design/tools.md?plain=1"].target == "docs/design/tools.md"
    )  # corpus root, query off
    assert by_destination["design/engine.md#shape"].fragment == "shape"
    assert by_destination["archive/old.md"].rule == "exclude: docs/archive/**"
    assert by_destination["design/gone.md"].klass == "broken"
    assert "y.md" not in by_destination and "fenced.md" not in by_destination  # code holds no link


def test_an_anchor_inside_an_exclusion_resolves_and_names_the_rule(graph: docgraph.DocGraph) -> None:
    edges = {e.target.value: e.target for e in graph.edges if e.source == "PG-TOOLS"}
    literal = edges["src/generated/gen.py"]
    assert (literal.variant, literal.exclusion) == ("anchor", "exclude: src/generated/**")
    wildcard = edges["src/generated/*.py"]  # an excluded entry is no match of a wildcard
    assert (wildcard.variant, wildcard.reason) == ("unbound", "anchor-unresolved")


def test_a_pattern_that_opens_on_a_wildcard_is_refused() -> None:
    tree = SourceTree([Row("src/a.py", "", None), Row("src/b/c.py", "", None)])
    assert tree.resolve_for("*.py", "A").error.startswith("a pattern that opens on a wildcard")
    assert tree.resolve_for("src/*.py", "A").matched == ("src/a.py",)
    assert tree.resolve_for("src/**/*.py", "A").matched == ("src/a.py", "src/b/c.py")
    assert tree.resolve_for("src/b", "A").matched == ("src/b/c.py",)
    with pytest.raises(ValueError, match="second resolver"):
        Resolvers.over([]).with_(SourceTree([]))


def test_the_relation_names_a_document_and_a_template_can_write_are_one_set(graph: docgraph.DocGraph) -> None:
    taxonomy = graph.taxonomy
    assert docgraph.template_relations(taxonomy) == taxonomy.vocabulary
    text = docgraph.template(taxonomy, "design")
    written = {
        line.strip().removeprefix("# ").split(":")[0] for line in text.splitlines() if line.startswith("  #")
    }
    assert written == taxonomy.vocabulary
    for name in written:
        assert taxonomy.relation(name) is not None or name in dict(taxonomy.refused)


def test_governed_scope_contains_reach_and_unmatched(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "projectgraph-docs.toml": (
                '[anchors.src]\nresolver = "source-tree"\nscope = ["src/**", "gone/**"]\n'
            ),
            "src/a.py": "x = 1\n",
        },
    )
    graph = docgraph.build(root)
    (scope,) = graph.scopes
    assert scope.admitted == (("src/**", 1), ("gone/**", 0))
    assert scope.unmatched == ("gone/**",)
    assert [f.kind for f in docgraph.check(graph)] == ["unmatched-scope"]


def test_no_pass_opens_a_document_and_no_resolver_opens_a_socket(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _census(CORPUS)
    taxonomy = load_taxonomy(CORPUS)
    assert taxonomy is not None

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a resolver opened a socket")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    before = len(opened)
    docgraph.build_from_census(rows, taxonomy)
    assert [p for p in opened[before:] if p.endswith(".md")] == []


def test_the_census_parse_is_cached_in_the_store_by_content(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root)
    store = SqliteStore(tmp_path / "graph.db")
    first = docgraph.build(root, store=store).to_json()
    cached = store.connection.execute(
        "SELECT count(*) FROM plugin_artifact WHERE plugin='docgraph-census'"
    ).fetchone()[0]
    assert cached == sum(1 for p in root.rglob("*.md"))
    assert docgraph.build(root, store=store).to_json() == first
    (root / "docs" / "overview.md").write_text(
        "---\nid: PG-OVERVIEW\nkind: overview\n---\n", encoding="utf-8"
    )
    changed = docgraph.build(root, store=store)
    assert not [e for e in changed.edges if e.source == "PG-OVERVIEW"]


def test_bad_taxonomies_are_clear_errors(tmp_path: Path) -> None:
    for text, message in [
        ("[kinds.a]\nfoo = 1\n", "unknown key"),
        ('[relations.r]\nto = ["nope"]\n', "names no kind"),
        ("not toml = = 1\n", "not valid TOML"),
        ('[anchors.a]\nscope = ["x"]\n', "needs a resolver"),
    ]:
        root = write_tree(tmp_path / str(abs(hash(text))), {"projectgraph-docs.toml": text})
        with pytest.raises(TaxonomyError, match=message):
            docgraph.build(root)


def test_the_recorded_graph_of_the_fixture_corpus(graph: docgraph.DocGraph) -> None:
    text = json.dumps(graph.to_json(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    recorded = RECORDED.read_text(encoding="utf-8") if RECORDED.exists() else ""
    if BLESS and recorded != text:
        old = json.loads(recorded)["version"] if recorded else 0
        assert old != docgraph.VERSION, (
            "the recorded graph changed: bump docgraph.VERSION with the rule change"
        )
        RECORDED.write_text(text, encoding="utf-8")
        return
    assert recorded == text


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), "docs", *args, "--project", str(root)], capture_output=True, text=True, timeout=120
    )


def test_docs_check_groups_by_owner_and_exits_non_zero() -> None:
    done = run_cli(CORPUS, "check")
    assert done.returncode == 1, done.stderr
    assert "to repair in the target document" in done.stdout
    assert "to repair in the link" in done.stdout
    assert "docs/overview.md: broken-link: line 16: design/gone.md" in done.stdout
    findings = json.loads(run_cli(CORPUS, "check", "--json").stdout)["findings"]
    assert {f["owner"] for f in findings} == {"target-document", "link", "taxonomy"}


def test_docs_governing_a_symbol(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root)
    done = run_cli(root, "governing", "src/engine/core.py:run", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["path"] == "src/engine/core.py"
    assert {(r["id"], r["anchor"]) for r in answer["results"]} == {
        ("PG-ENGINE", "src/engine"),
        ("PG-ENGINE", "src/engine/core.py"),
    }
    other = json.loads(run_cli(root, "governing", "src/other.py", "--json").stdout)
    assert other["results"] == []


def test_the_projects_own_docs_pass_docs_check() -> None:
    done = run_cli(REPO, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    graph = docgraph.build(REPO)
    assert len(graph.nodes) >= 2
    assert any(e.target.variant == "anchor" for e in graph.edges)
