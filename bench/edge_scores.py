"""Precision and recall of the call edges over the gold fixtures, per language (or per fixture).

    .venv/bin/python bench/edge_scores.py [--language X ...] [--fixtures] [-v] [--markdown]
    .venv/bin/python bench/edge_scores.py --readme README.md     # what `make scores` runs

Edge level: a (caller, callee) pair of relation ``calls`` is a true positive when the fixture's
``expected.json`` lists it (``tests/fixtures/README.md``); the language's builtins and globals are
left out on both sides. Known gaps count as misses and extras here (the tests let them pass, the
numbers do not hide them). Precision counts only the fixtures whose ``calls`` is complete, since
elsewhere the gold does not say which edge is extra. ``--fixtures`` adds a row per fixture, ``-v``
lists each miss and each extra edge, ``--markdown`` prints the README's table
and ``--readme`` writes it between the README's ``scores:start`` and ``scores:end`` marks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fixture_cases as fc

ROW = "{:40} {:>5} {:>5} {:>5} {:>4} {:>4} {:>4} {:>9} {:>7}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", action="append", choices=fc.LANGUAGES, help="repeatable; default all")
    parser.add_argument("--fixtures", action="store_true", help="a row per fixture")
    parser.add_argument("-v", "--verbose", action="store_true", help="list each miss and extra edge")
    parser.add_argument("--markdown", action="store_true", help="the per-language table, as Markdown")
    parser.add_argument("--readme", type=Path, help="write the Markdown table into this README")
    args = parser.parse_args(argv)
    if args.readme:
        return write_readme(args.readme)
    cases = [c for c in fc.discover() if c.calls() and (not args.language or c.language in args.language)]
    totals: dict[str, list[int]] = {}
    if args.markdown:
        print(fc.scores_table(cases), end="")
        return 0
    print(ROW.format("fixture", "cases", "gold", "graph", "tp", "fp", "fn", "precision", "recall"))
    for case in cases:
        hits, extra, missing = fc.scores(case)
        row = [1, len(hits) + len(missing), len(hits) + len(extra), len(hits), len(extra), len(missing)]
        total = totals.setdefault(case.language, [0] * len(row))
        total[:] = [a + b for a, b in zip(total, row, strict=True)]
        if args.fixtures or args.verbose:
            print(_line(case.id, row))
        if args.verbose:
            for caller, callee in sorted(missing):
                print(f"    miss  {caller} -> {callee}")
            for caller, callee in sorted(extra):
                print(f"    extra {caller} -> {callee}")
    for language, row in sorted(totals.items()):
        print(_line(language, row))
    return 0


def write_readme(readme: Path) -> int:
    """Refresh the table between the README's marks (the marks must be there: nothing is added)."""
    text = readme.read_text(encoding="utf-8")
    try:
        readme.write_text(fc.readme_with_scores(text), encoding="utf-8")
    except ValueError as error:
        print(f"{readme}: {error}", file=sys.stderr)
        return 2
    print(f"{readme}: the scores table is refreshed")
    return 0


def _line(name: str, row: list[int]) -> str:
    n, gold, graph, tp, fp, fn = row
    precision, recall = fc.precision_recall(tp, fp, fn)
    return ROW.format(name, n, gold, graph, tp, fp, fn, f"{precision:.3f}", f"{recall:.3f}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
