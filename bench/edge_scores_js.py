"""Precision and recall of the JavaScript/TypeScript call edges over the gold fixtures, per fixture
and in total.

    .venv/bin/python bench/edge_scores_js.py [-v]

Edge level: a (caller, callee) pair of relation ``calls`` is a true positive when the fixture's
``expected.json`` lists it; edges to JavaScript globals (``console//log``, ``Array//push``) are left
out on both sides. Known gaps count as misses here (the tests let them pass, the numbers do not
hide them). ``-v`` lists each miss and each extra edge.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_js_fixtures import CASES, precision_recall, scores


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    total_tp = total_fp = total_fn = 0
    header = ("fixture", "gold", "graph", "tp", "fp", "fn", "precision", "recall")
    print("{:34} {:>5} {:>5} {:>4} {:>4} {:>4} {:>9} {:>7}".format(*header))
    for case in CASES:
        hits, extra, missing = scores(case)
        tp, fp, fn = len(hits), len(extra), len(missing)
        total_tp, total_fp, total_fn = total_tp + tp, total_fp + fp, total_fn + fn
        precision, recall = precision_recall(tp, fp, fn)
        print(f"{case:34} {tp + fn:5} {tp + fp:5} {tp:4} {fp:4} {fn:4} {precision:9.3f} {recall:7.3f}")
        if verbose:
            for caller, callee in sorted(missing):
                print(f"    miss  {caller} -> {callee}")
            for caller, callee in sorted(extra):
                print(f"    extra {caller} -> {callee}")
    precision, recall = precision_recall(total_tp, total_fp, total_fn)
    print(
        f"{'total':34} {total_tp + total_fn:5} {total_tp + total_fp:5} {total_tp:4} {total_fp:4} "
        f"{total_fn:4} {precision:9.3f} {recall:7.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
