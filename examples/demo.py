"""`make demo`: index the bundled example project, then ask whether its code reaches yaml.load."""

from __future__ import annotations

import sys
from pathlib import Path

from projectgraph.pipeline import build_graph
from projectgraph.reach import Query, Target, reach

EXAMPLE = Path(__file__).parent / "shop"


def main() -> int:
    run = build_graph(EXAMPLE)
    summary = run.index.summary()
    graph = run.graph
    print(f"indexed {summary['files']} files of examples/{EXAMPLE.name}: {summary['statuses']}")
    print(
        f"{summary['definitions']} definitions, {summary['calls']} calls; graph: "
        f"{graph.stats['nodes']} nodes, {graph.stats['edges']} edges, {graph.stats['roots']} roots"
    )
    for root in graph.roots:
        print(f"  root {root.key} ({root.kind}, rule {root.rule})")
    print()
    print("$ projectgraph reach yaml//load pickle//loads --project examples/shop")
    results = reach(graph, Query((Target.by_key("yaml//load"), Target.by_key("pickle//loads"))))
    for result in results:
        print(result)
    return 0 if results[0].status == "found" else 1


if __name__ == "__main__":
    sys.exit(main())
