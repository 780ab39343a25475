"""The conformance gate: a provider runs over one small project per language before it may build.

``providers conform NAME`` copies each fixture of ``fixtures/<language>/`` (go, java, python, rust,
typescript) to a temporary folder, asks the provider to build it, and scores the answer against the
fixture's ``expected.json`` (hand-written from the language's rules, in canonical names, see
``projectgraph.providers.agreement``):

- node recall: the expected definitions and files the provider gave, by canonical name and kind
  group (file; class and type; function, method and test);
- edge recall: the expected edges (contains, calls, imports, extends, implements) it gave.

A fixture passes when node recall >= ``NODE_FLOOR`` (0.9) and edge recall >= ``EDGE_FLOOR`` (0.8);
the floors leave room for one engine's naming of one odd case, not for a missing relation. The result
goes to ``.projectgraph/conform-NAME.json``. ``build`` refuses when a language present in the project
(its files, by the reference walker's extension map; ``typescript`` stands for tsx, javascript, jsx
and mjs too) has a failed fixture, or when there is no result file; a language without a fixture is
not judged, and a result with no fixture list falls back to its overall ``passed``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from projectgraph import safefs
from projectgraph.providers.agreement import canonical
from projectgraph.providers.host import ProviderUnavailable

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_LANGUAGES = ("go", "java", "python", "rust", "typescript")
NODE_FLOOR = 0.9
EDGE_FLOOR = 0.8
_FIXTURE_OF = {"typescript": "typescript", "tsx": "typescript", "javascript": "typescript"}
_GROUP = {"file": "file", "module": "file", "class": "class", "type": "class", "function": "function"}
_GROUP |= {"method": "function", "test": "function", "route": "route"}


class GateRefused(Exception):
    """No conformance result, or a failed fixture for a language the project holds."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def result_path(root: Path, name: str) -> Path:
    return root / ".projectgraph" / f"conform-{name}.json"


def fixture_language(language: str) -> str:
    """The fixture that judges a file of ``language`` (typescript for javascript and tsx)."""
    return _FIXTURE_OF.get(language, language)


def present_languages(root: Path) -> list[str]:
    """The fixture languages of the project's files, sorted."""
    from projectgraph.config import load_config
    from projectgraph.discover import discover
    from projectgraph.languages import all_languages

    config = load_config(root)
    found = {
        fixture_language(f.language) for f in discover(root, list(all_languages().values()), config).files
    }
    return sorted(found)


def _score(expected: dict[str, Any], graph: Any) -> dict[str, Any]:
    got = canonical(graph)
    got_nodes = {(_GROUP.get(k, k), n) for k, n in got.nodes}
    want_nodes = {(_GROUP.get(k, k), n) for k, n in expected["nodes"]}
    want_edges = {tuple(e) for e in expected["edges"]}
    node_hits = want_nodes & got_nodes
    edge_hits = want_edges & set(got.edges)
    nodes = round(len(node_hits) / len(want_nodes), 3) if want_nodes else 1.0
    edges = round(len(edge_hits) / len(want_edges), 3) if want_edges else 1.0
    return {
        "passed": nodes >= NODE_FLOOR and edges >= EDGE_FLOOR,
        "node_recall": nodes,
        "edge_recall": edges,
        "missing_nodes": sorted(f"{k} {n}" for k, n in want_nodes - got_nodes),
        "missing_edges": sorted(" ".join(e) for e in want_edges - edge_hits),
    }


def conform(root: Path, name: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Run provider ``name`` over every fixture and write ``.projectgraph/conform-NAME.json``."""
    from projectgraph.providers import build as builds
    from projectgraph.providers.reference import from_graph

    env = dict(os.environ if environ is None else environ)
    results = []
    prepared = None
    refusal = ""
    if name != "reference":
        try:
            prepared = builds.prepare(root, name, env, allow_unverified=True)  # conform always runs
        except builds.BuildRefused as error:
            refusal = error.message
    for language in FIXTURE_LANGUAGES:
        expected = json.loads((FIXTURES / language / "expected.json").read_text(encoding="utf-8"))
        row: dict[str, Any] = {"fixture": language, "language": language}
        with tempfile.TemporaryDirectory(prefix=f"projectgraph-conform-{language}-") as tmp:
            clone = Path(tmp) / language
            shutil.copytree(
                FIXTURES / language, clone, ignore=shutil.ignore_patterns("expected.json", "README.md")
            )
            try:
                if refusal:
                    raise ProviderUnavailable(refusal)
                if prepared is None:
                    from projectgraph.indexer import IndexOptions
                    from projectgraph.project import Project

                    with Project(clone) as project:
                        graph = from_graph(project.refresh(IndexOptions(workers=1)).graph)
                else:
                    graph, _progress = builds.ask_build(prepared, clone, env)
                row |= _score(expected, graph)
            except ProviderUnavailable as error:
                row |= {"passed": False, "node_recall": 0.0, "edge_recall": 0.0, "error": error.detail}
        results.append(row)
    report = {
        "provider": name,
        "written_at": time.time(),
        "floors": {"node_recall": NODE_FLOOR, "edge_recall": EDGE_FLOOR},
        "passed": all(r["passed"] for r in results),
        "fixtures": results,
    }
    folder = safefs.index_folder(root)  # written without following a link (issue 24)
    safefs.create_in_folder(folder / ".gitignore", b"*\n")
    text = json.dumps(report, indent=2, sort_keys=True) + "\n"
    safefs.write_in_folder(result_path(root, name), text.encode("utf-8"))
    return report


def read_result(root: Path, name: str) -> dict[str, Any] | None:
    try:
        data = json.loads(safefs.read_text(result_path(root, name), follow=False))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def language_split(result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(conformed, failed) fixture languages of a result."""
    rows = result.get("fixtures")
    if not isinstance(rows, list):
        return [], []
    conformed = sorted(
        str(r.get("language")) for r in rows if isinstance(r, dict) and r.get("passed") is True
    )
    failed = sorted(
        str(r.get("language")) for r in rows if isinstance(r, dict) and r.get("passed") is not True
    )
    return conformed, failed


def summary(result: dict[str, Any] | None) -> str:
    if result is None:
        return "no conformance result"
    conformed, failed = language_split(result)
    if not conformed and not failed:
        return "passed" if result.get("passed") is True else "failed"
    return f"conformed: {', '.join(conformed) or '-'}; failed: {', '.join(failed) or '-'}"


def check_gate(root: Path, name: str) -> None:
    """Refuse a build on a project that holds a language the provider failed (or was never judged on)."""
    result = read_result(root, name)
    hint = f"run: projectgraph providers conform {name}"
    if result is None:
        raise GateRefused("not_conformed", f"provider {name!r} has no conformance result; {hint}")
    if not isinstance(result.get("fixtures"), list):
        if result.get("passed") is not True:
            raise GateRefused("not_conformed", f"provider {name!r} failed conformance; {hint}")
        return
    _conformed, failed = language_split(result)
    blocking = sorted(set(failed) & set(present_languages(root)))
    if blocking:
        raise GateRefused(
            "not_conformed",
            f"provider {name!r} failed conformance for {', '.join(blocking)}, present in {root}; {hint}",
        )
