"""The gold fixtures of every language: one schema, one reader, one set of checks.

A case is a folder ``tests/fixtures/<language>/<case>/`` (``<language>`` a registered language)
holding a small project, a one-line ``README.md`` saying what the case checks, and
``expected.json`` in the schema ``tests/schemas/expected.schema.json`` (``tests/fixtures/README.md``
says what each section means). A source line may carry its own expectation, read here so that a
line added above never breaks it: ``# <- calls: helper`` (``//``, ``--``, ``%`` or ``;`` as the
language comments) says the call site on that line has a call edge to a callee named ``helper``
(the key's last segments: ``helper``, ``Shop//open`` or a whole key); ``<- unresolved: what`` says
an unresolved site is on that line, ``what`` its name, its reason or its text. Lines are 1-based.

Each check returns its problems as strings (empty: it holds), so that ``test_fixtures.py`` and the
tests of the harness itself run the same code. A graph is built once per case and process
(``case_run``), whoever asks: the harness, the goldens, the oracles and ``bench/edge_scores.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from projectgraph.fileindex import FileIndex
from projectgraph.graph import CONFIDENCE, RANK, Graph
from projectgraph.indexer import IndexOptions
from projectgraph.languages import all_languages
from projectgraph.languages.base import parser
from projectgraph.languages.javascript.link.linker import GLOBALS
from projectgraph.pipeline import ProjectRun, build_graph
from projectgraph.reach import SOURCES_ONLY, Query, Source, Target, reach

FIXTURES = Path(__file__).parent / "fixtures"
SCHEMA_FILE = Path(__file__).parent / "schemas" / "expected.schema.json"
LANGUAGES = tuple(sorted(all_languages()))

Pair = tuple[str, str]
LISTS = ("calls", "not_calls", "imports", "hierarchy", "definitions", "unresolved", "roots", "reach")
COMPLETE_ABLE = ("calls", "imports", "hierarchy", "definitions", "unresolved", "roots")
HIERARCHY = ("extends", "implements")

# a comment leader, then `<- calls: a, b` or `<- unresolved: name`, to the end of the line
MARK = re.compile(r"(?:#|//|--|%|;)\s*<-\s*(calls|unresolved):\s*(.*?)\s*(?:\*/)?\s*$")
NOT_SOURCE = {"expected.json", "README.md", "graph.golden.json", "index.golden.json"}


def ignored_callee(language: str, key: str) -> bool:
    """A callee no gold lists and no score counts: Python builtins, JavaScript globals."""
    if language == "python":
        return key.startswith("builtins//")
    if language in ("javascript", "typescript", "tsx"):
        return key.split("//", 1)[0] in GLOBALS
    return False


@dataclass(frozen=True)
class Mark:
    """One inline expectation: the site on ``path:line`` calls (or leaves unresolved) ``name``."""

    path: str
    line: int
    what: str  # calls | unresolved
    name: str


@dataclass(frozen=True)
class Case:
    """One fixture folder and what it expects."""

    language: str
    name: str
    folder: Path
    expected: dict[str, Any]
    marks: tuple[Mark, ...]
    error: str = ""  # why expected.json could not be read

    @property
    def id(self) -> str:
        return f"{self.language}/{self.name}"

    @property
    def complete(self) -> frozenset[str]:
        return frozenset(self.expected.get("complete", ()))

    def section(self, name: str) -> list[Any]:
        rows: list[Any] = self.expected.get(name, [])
        return rows

    def calls(self) -> set[Pair]:
        return {call_pair(row) for row in self.section("calls")}

    def gaps(self, gap: str) -> dict[Pair, str]:
        return {
            (g["caller"], g["callee"]): g["reason"] for g in self.section("known_gaps") if g["gap"] == gap
        }


def call_pair(row: list[str] | dict[str, str]) -> Pair:
    if isinstance(row, dict):
        return row["caller"], row["callee"]
    return row[0], row[1]


def read_marks(folder: Path) -> tuple[Mark, ...]:
    marks = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in NOT_SOURCE:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if "<-" not in text:
            continue
        relative = path.relative_to(folder).as_posix()
        for number, line in enumerate(text.splitlines(), start=1):
            found = MARK.search(line)
            if found:
                for name in found.group(2).split(","):
                    marks.append(Mark(relative, number, found.group(1), name.strip()))
    return tuple(marks)


def load_case(folder: Path, language: str | None = None) -> Case:
    """The case of one folder; a missing or unreadable ``expected.json`` is an empty expectation
    with its error (the well-formed check fails on it), never a skipped case."""
    path = folder / "expected.json"
    expected: dict[str, Any] = {}
    error = ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        error = "no expected.json"
    except (OSError, ValueError) as failure:
        error = f"expected.json is not readable JSON: {failure}"
    else:
        if isinstance(data, dict):
            expected = data
        else:
            error = "expected.json is not a JSON object"
    return Case(language or folder.parent.name, folder.name, folder, expected, read_marks(folder), error)


def discover(root: Path = FIXTURES, languages: Iterable[str] = LANGUAGES) -> list[Case]:
    """Every case of every language, sorted by id."""
    cases = []
    for language in sorted(languages):
        base = root / language
        if base.is_dir():
            cases += [
                load_case(p, language) for p in sorted(base.iterdir()) if (p / "expected.json").exists()
            ]
    return cases


@cache
def case_run(folder: Path) -> ProjectRun:
    """The index and graph of one case, built once per process."""
    return build_graph(folder, IndexOptions(workers=1))


def case_graph(case: Case) -> Graph:
    return case_run(case.folder).graph


@cache
def _validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


# ---- what the graph has ---------------------------------------------------------------------------


def graph_calls(case: Case, graph: Graph) -> set[Pair]:
    """The graph's call edges as (caller, callee), the language's ignored callees left out."""
    return {
        (e.caller, e.callee)
        for e in graph.edges
        if e.relation == "calls" and not ignored_callee(case.language, e.callee)
    }


def scores(case: Case) -> tuple[set[Pair], set[Pair], set[Pair]]:
    """(true positives, false positives, false negatives) of one case, edge level; false positives
    only count where ``calls`` is complete (elsewhere the gold does not say what is extra)."""
    got, want = graph_calls(case, case_graph(case)), case.calls()
    extra = got - want if "calls" in case.complete else set()
    return got & want, extra, want - got


def precision_recall(tp: int, fp: int, fn: int) -> tuple[float, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


SCORES_BLOCK = re.compile(r"(<!-- scores:start -->\n<!--[^\n]*-->\n).*?(<!-- scores:end -->)", re.S)


def scores_table(cases: Iterable[Case] | None = None) -> str:
    """Precision and recall per language over the cases with gold calls, as README.md's table."""
    totals: dict[str, list[int]] = {}
    for case in discover() if cases is None else cases:
        if case.calls():
            hits, extra, missing = scores(case)
            total = totals.setdefault(case.language, [0, 0, 0, 0])
            total[:] = [total[0] + 1, total[1] + len(hits), total[2] + len(extra), total[3] + len(missing)]
    lines = ["| language | fixtures | gold edges | precision | recall |", "|---|---:|---:|---:|---:|"]
    for language, (n, tp, fp, fn) in sorted(totals.items()):
        precision, recall = precision_recall(tp, fp, fn)
        lines.append(f"| {language} | {n} | {tp + fn} | {precision:.3f} | {recall:.3f} |")
    return "\n".join(lines) + "\n"


def readme_with_scores(text: str) -> str:
    """The README text with its scores table (between ``scores:start`` and ``scores:end``) current."""
    if not SCORES_BLOCK.search(text):
        raise ValueError("no <!-- scores:start --> ... <!-- scores:end --> block")
    table = scores_table()
    return SCORES_BLOCK.sub(lambda m: f"{m.group(1)}\n{table}\n{m.group(2)}", text)


# ---- the checks -----------------------------------------------------------------------------------


def _compare(name: str, want: set[Any], got: set[Any], complete: bool) -> list[str]:
    problems = [f"{name}: the graph lacks {row!r}" for row in sorted(want - got, key=repr)]
    if complete:
        problems += [
            f"{name}: the graph has {row!r}, which the gold lacks" for row in sorted(got - want, key=repr)
        ]
    return problems


def check_well_formed(case: Case) -> list[str]:
    """The folder is a case: its schema, its README, an expectation, and names the graph knows."""
    problems = [
        f"expected.json: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in _validator().iter_errors(case.expected)
    ]
    if case.error:
        problems.append(case.error)
    readme = case.folder / "README.md"
    text = readme.read_text(encoding="utf-8").strip() if readme.is_file() else ""
    if not text or "\n" in text:
        problems.append("README.md must be one line saying what the case checks")
    if problems:
        return problems
    if not any(case.section(name) for name in LISTS) and not case.marks and not case.complete:
        return ["no expectation: expected.json lists nothing and no source line has a mark"]
    for name in LISTS:
        rows = [json.dumps(row, sort_keys=True) for row in case.section(name)]
        problems += [
            f"{name}: {row} is listed twice" for row in sorted({r for r in rows if rows.count(r) > 1})
        ]
    nodes = case_graph(case).node_by_key
    named = case.calls() | {(a, b) for a, b in case.section("not_calls")}
    for caller, callee in sorted(named):
        if caller not in nodes:
            problems.append(f"calls: the caller {caller!r} is no node of the graph")
        if ignored_callee(case.language, callee):
            problems.append(f"calls: {callee!r} is a builtin or global, which the gold leaves out")
        elif (case.folder / callee.split("//")[0]).is_file() and callee not in nodes:
            problems.append(f"calls: the callee {callee!r} is no node of the graph")
    calls = case.calls()
    for pair in sorted(case.gaps("missing")):
        if pair not in calls:
            problems.append(f"known_gaps: the missing edge {pair!r} is not listed in calls")
    for pair in sorted(case.gaps("extra")):
        if pair in calls:
            problems.append(f"known_gaps: the extra edge {pair!r} is listed in calls")
    if case.gaps("extra") and "calls" not in case.complete:
        problems.append("known_gaps: an extra edge needs calls to be complete")
    for name in sorted(case.complete):
        if name not in COMPLETE_ABLE:
            problems.append(f"complete: {name} cannot be complete")
    return problems


def check_calls(case: Case) -> list[str]:
    """Every listed call is in the graph (with its kind and at least its confidence), except the
    known missing ones, which must still be missing."""
    graph = case_graph(case)
    got = graph_calls(case, graph)
    missing = case.calls() - got
    gaps = case.gaps("missing")
    problems = [f"calls: the graph misses {p!r}" for p in sorted(missing - set(gaps))]
    problems += [f"known_gaps: the graph now has {p!r}: remove the gap" for p in sorted(set(gaps) - missing)]
    kinds: dict[Pair, set[str]] = {}
    for e in graph.edges:
        if e.relation == "calls":
            kinds.setdefault((e.caller, e.callee), set()).add(e.kind)
    for row in case.section("calls"):
        if not isinstance(row, dict) or call_pair(row) in missing:
            continue
        pair, have = call_pair(row), kinds.get(call_pair(row), set())
        if "kind" in row and row["kind"] not in have:
            problems.append(f"calls: {pair!r} is of kind {sorted(have)}, not {row['kind']!r}")
        if "confidence" in row:
            best = max((RANK[CONFIDENCE.get(k, "low")] for k in have), default=0)
            if best < RANK[row["confidence"]]:
                problems.append(f"calls: {pair!r} is below the confidence {row['confidence']!r}")
    if "calls" in case.complete:
        listed: dict[Pair, set[str]] = {}
        for row in case.section("calls"):
            if isinstance(row, dict) and "kind" in row:
                listed.setdefault(call_pair(row), set()).add(row["kind"])
        for pair, want in sorted(listed.items()):
            if pair in kinds and kinds[pair] != want:
                problems.append(
                    f"calls: {pair!r} has the kinds {sorted(kinds[pair])}, the gold {sorted(want)}"
                )
    return problems


def check_precision(case: Case) -> list[str]:
    """Every call edge of the graph is listed (``calls`` is complete), except the known extras,
    which must still be there."""
    extra = graph_calls(case, case_graph(case)) - case.calls()
    known = case.gaps("extra")
    problems = [
        f"calls: the graph has {p!r}, which the program never makes" for p in sorted(extra - set(known))
    ]
    return problems + [
        f"known_gaps: the graph no longer has {p!r}: remove the gap" for p in sorted(set(known) - extra)
    ]


def check_not_calls(case: Case) -> list[str]:
    got = {(e.caller, e.callee) for e in case_graph(case).edges if e.relation == "calls"}
    return [f"not_calls: the graph has {tuple(p)!r}" for p in case.section("not_calls") if tuple(p) in got]


def check_imports(case: Case) -> list[str]:
    got = {(e.caller, e.callee) for e in case_graph(case).edges if e.relation == "imports"}
    want = {(a, b) for a, b in case.section("imports")}
    return _compare("imports", want, got, "imports" in case.complete)


def check_hierarchy(case: Case) -> list[str]:
    got = {(e.caller, e.callee, e.relation) for e in case_graph(case).edges if e.relation in HIERARCHY}
    want = {(a, b, r) for a, b, r in case.section("hierarchy")}
    return _compare("hierarchy", want, got, "hierarchy" in case.complete)


def check_definitions(case: Case) -> list[str]:
    nodes = case_graph(case).nodes
    got = {(n.key, n.kind, n.doc) for n in nodes if n.path and n.kind != "module"}
    want = {(k, kind, doc) for k, kind, doc in case.section("definitions")}
    return _compare("definitions", want, got, "definitions" in case.complete)


def check_unresolved(case: Case) -> list[str]:
    got = {(u.caller, u.reason, u.name) for u in case_graph(case).unresolved}
    want = {(u["caller"], u["reason"], u["name"]) for u in case.section("unresolved")}
    return _compare("unresolved", want, got, "unresolved" in case.complete)


def check_roots(case: Case) -> list[str]:
    roots = case_graph(case).roots
    complete = "roots" in case.complete
    got = {(r.key, r.kind) for r in roots if not complete or r.kind != "fallback"}
    return _compare("roots", {(k, kind) for k, kind in case.section("roots")}, got, complete)


def check_reach(case: Case) -> list[str]:
    graph = case_graph(case)
    problems = []
    by_source: dict[str, list[dict[str, str]]] = {}
    for row in case.section("reach"):
        by_source.setdefault(row.get("source", ""), []).append(row)
    for source, rows in sorted(by_source.items()):
        targets = tuple(Target.by_key(r["target"]) for r in rows)
        query = (
            Query(targets=targets, sources=(Source.by_key(source),), mode=SOURCES_ONLY)
            if source
            else Query(targets)
        )
        got = {r.target: r.status for r in reach(graph, query)}
        origin = f"from {source}" if source else "from the roots"
        for row in rows:
            if got.get(row["target"]) != row["status"]:
                problems.append(
                    f"reach {origin}: {row['target']} is {got.get(row['target'])!r}, not {row['status']!r}"
                )
    return problems


def check_marks(case: Case) -> list[str]:
    """Each mark's line has what it names; a problem says the mark's file and line."""
    graph = case_graph(case)
    calls: dict[tuple[str, int], set[str]] = {}
    for e in graph.edges:
        if e.relation == "calls":
            calls.setdefault((e.site.path, e.site.line), set()).add(e.callee)
    unresolved: dict[tuple[str, int], set[str]] = {}
    for u in graph.unresolved:
        unresolved.setdefault((u.site.path, u.site.line), set()).update(
            w for w in (u.name, u.reason, u.text) if w
        )
    problems = []
    for mark in case.marks:
        where = f"{case.folder / mark.path}:{mark.line}"
        if mark.what == "calls":
            callees = calls.get((mark.path, mark.line), set())
            if not any(c == mark.name or c.endswith("//" + mark.name) for c in callees):
                problems.append(
                    f"{where}: the mark says it calls {mark.name!r}; the graph's calls from this line "
                    f"go to {sorted(callees) or 'nothing'}"
                )
        elif mark.name not in unresolved.get((mark.path, mark.line), set()):
            problems.append(
                f"{where}: the mark says {mark.name!r} is unresolved here; the graph's unresolved "
                f"sites on this line are {sorted(unresolved.get((mark.path, mark.line), set())) or 'none'}"
            )
    return problems


CHECKS: dict[str, Callable[[Case], list[str]]] = {
    "well_formed": check_well_formed,
    "calls": check_calls,
    "precision": check_precision,
    "not_calls": check_not_calls,
    "imports": check_imports,
    "hierarchy": check_hierarchy,
    "definitions": check_definitions,
    "unresolved": check_unresolved,
    "roots": check_roots,
    "reach": check_reach,
    "marks": check_marks,
}


def checks_of(case: Case) -> list[str]:
    """The checks that have something to check in this case (well_formed always does)."""
    wanted = ["well_formed"]
    for name in CHECKS:
        if name in ("well_formed", "precision", "marks"):
            continue
        # a complete section checks even when empty (the graph must have none); calls is the
        # exception: its complete form is the precision check
        if case.section(name) or (name in case.complete and name != "calls"):
            wanted.append(name)
    if "calls" in case.complete:
        wanted.append("precision")
    if case.marks:
        wanted.append("marks")
    return wanted


def run_check(case: Case, check: str) -> list[str]:
    return CHECKS[check](case)


def index_source(language: str, source: str, path: str) -> FileIndex:
    """The index of one source text, as the extractor of ``language`` makes it (a real parse)."""
    spec = all_languages()[language]
    data = source.encode("utf-8")
    return spec.extract_function()(parser(spec.grammar).parse(data), data, path, "hash")
