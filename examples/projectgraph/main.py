"""Run the stages of projectgraph from the command line through the Python API.

    python examples/projectgraph/main.py PROJECT TARGET... [-source path:name]... [-sources-only]

index -> link (roots are marked by link) -> reach, each stage a call whose output is a record.
Exit codes: 0 every target found, 1 a target not found, 3 a target uncertain or unknown,
2 a usage error (as -sources-only with no -source, or an unknown source).
"""

from __future__ import annotations

import argparse
import sys

import projectgraph as pg


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="projectgraph-example", description=__doc__.split("\n")[0])
    parser.add_argument("project")
    parser.add_argument("targets", nargs="+", help="external keys such as yaml//load")
    parser.add_argument("-source", action="append", default=[], help="an entry point: path:Qualified.name")
    parser.add_argument("-sources-only", action="store_true", help="search from the sources alone")
    args = parser.parse_args(argv)
    if args.sources_only and not args.source:
        print("projectgraph-example: -sources-only needs at least one -source", file=sys.stderr)
        return 2

    indexed = pg.run_index(args.project)  # 1. index: one FileIndex per file
    graph = pg.build(  # 2. link (and 3. roots, which link marks)
        indexed.indexes, pg.LinkOptions(root=args.project, files=indexed.statuses)
    )
    print(
        f"{len(indexed.indexes)} files indexed; {len(graph.nodes)} nodes, {len(graph.edges)} edges, "
        f"{len(graph.roots)} roots",
        file=sys.stderr,
    )
    try:
        query = pg.Query(
            targets=tuple(pg.Target.by_key(t) for t in args.targets),
            sources=tuple(pg.Source.parse(s) for s in args.source),
            mode=pg.SOURCES_ONLY if args.sources_only else pg.SOURCES_AND_ROOTS,
        )
        results = pg.reach(graph, query)  # 4. reach
    except (pg.ReachError, ValueError) as error:
        print(f"projectgraph-example: {error}", file=sys.stderr)
        return 2
    for result in results:
        print(result)
    statuses = {r.status for r in results}
    if statuses & {"uncertain", "no-such-target"}:
        return 3
    return 1 if "not-found" in statuses else 0


if __name__ == "__main__":
    sys.exit(main())
