"""Precision and recall of the call edges of the deep linkers (Go, Rust, Java) over their gold
fixtures, per fixture and in total.

    .venv/bin/python bench/edge_scores_deep.py [go|rust|java ...] [-v]

Edge level: a (caller, callee) pair of relation ``calls`` is a true positive when the fixture's
``expected.json`` lists it under ``calls``. The gold is exhaustive, so every other call edge of the
graph is a false positive. Known gaps and extras the tests allow count here (the numbers hide
nothing). ``-v`` lists each miss and each extra edge.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from projectgraph.indexer import IndexOptions
from projectgraph.pipeline import build_graph

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
LANGUAGES = ("go", "rust", "java")


def scores(folder: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]], set[tuple[str, str]]]:
    """(hits, extra, missing) call edges of one fixture."""
    gold = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    want = {(str(a), str(b)) for a, b, *_ in gold["calls"]}
    graph = build_graph(folder, IndexOptions(workers=1)).graph
    got = {(e.caller, e.callee) for e in graph.edges if e.relation == "calls"}
    return want & got, got - want, want - got


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    chosen = [a for a in argv if a in LANGUAGES] or list(LANGUAGES)
    header = ("fixture", "gold", "graph", "tp", "fp", "fn", "precision", "recall")
    print("{:44} {:>5} {:>5} {:>4} {:>4} {:>4} {:>9} {:>7}".format(*header))
    for language in chosen:
        total_tp = total_fp = total_fn = 0
        cases = sorted(p.parent for p in (FIXTURES / language).glob("*/expected.json"))
        for folder in cases:
            hits, extra, missing = scores(folder)
            tp, fp, fn = len(hits), len(extra), len(missing)
            total_tp, total_fp, total_fn = total_tp + tp, total_fp + fp, total_fn + fn
            name = f"{language}/{folder.name}"
            print(
                f"{name:44} {tp + fn:5} {tp + fp:5} {tp:4} {fp:4} {fn:4} "
                f"{ratio(tp, tp + fp):9.3f} {ratio(tp, tp + fn):7.3f}"
            )
            if verbose:
                for caller, callee in sorted(missing):
                    print(f"    miss  {caller} -> {callee}")
                for caller, callee in sorted(extra):
                    print(f"    extra {caller} -> {callee}")
        print(
            f"{language + ' total (' + str(len(cases)) + ' fixtures)':44} {total_tp + total_fn:5} "
            f"{total_tp + total_fp:5} {total_tp:4} {total_fp:4} {total_fn:4} "
            f"{ratio(total_tp, total_tp + total_fp):9.3f} {ratio(total_tp, total_tp + total_fn):7.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
