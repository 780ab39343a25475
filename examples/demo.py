"""`make demo`: index the bundled example project and show what was found."""

from __future__ import annotations

import sys
from pathlib import Path

from projectgraph import IndexOptions, run_index

EXAMPLE = Path(__file__).parent / "shop"


def main() -> int:
    result = run_index(EXAMPLE, IndexOptions(languages=("python",)))
    summary = result.summary()
    print(f"indexed {summary['files']} files of {EXAMPLE.name}: {summary['statuses']}")
    print(f"{summary['definitions']} definitions, {summary['calls']} calls, {summary['imports']} imports")
    for index in result.indexes:
        names = ", ".join(d.qualname for d in index.definitions)
        print(f"  {index.path}: {names}")
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
