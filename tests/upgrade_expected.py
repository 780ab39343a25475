"""Rewrite an expected.json of the schemas before issue 27 into the one schema (tests/fixtures/README.md).

    .venv/bin/python tests/upgrade_expected.py tests/fixtures/go/NEW_CASE [more case folders] \
        [--known tests/test_go.py] [--complete calls,unresolved,roots]

For branches that wrote fixtures in the old per-language forms while the schema changed: each
folder's ``expected.json`` is rewritten in place (``unresolved`` rows as objects, the generic
tier's ``import_edges`` as ``imports``; bless its ``index.golden.json`` with
``PROJECTGRAPH_BLESS=1 pytest tests/test_generic_languages.py``), and the ``KNOWN_GAPS`` /
``KNOWN_EXTRAS`` dicts of the ``--known`` test module (keyed by case name, or ``language/case``)
become its ``known_gaps``. The default ``complete`` is what the old harness of the language
checked whole: ``calls`` (Python, JavaScript, TypeScript, Go), ``calls, unresolved, roots`` (Rust,
Java). A file already in the new schema is left alone. Remove this script once no branch holds
old-schema fixtures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ORDER = ("calls", "not_calls", "imports", "hierarchy", "definitions", "unresolved", "roots", "reach")
WHOLE = {"rust": ["calls", "unresolved", "roots"], "java": ["calls", "unresolved", "roots"]}


def dump(data: dict[str, Any]) -> str:
    """One row per line, so a change reads as a diff of rows."""
    parts = []
    for name in (*ORDER, "known_gaps"):
        if name in data:
            rows = data[name]
            body = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows)
            parts.append(f' "{name}": [\n{body}\n ]' if rows else f' "{name}": []')
    if "complete" in data:
        parts.append(f' "complete": {json.dumps(data["complete"])}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def known(module: Path | None) -> tuple[dict[str, Any], dict[str, Any]]:
    if module is None:
        return {}, {}
    sys.path.insert(0, str(module.parent))
    spec = importlib.util.spec_from_file_location(module.stem, module)
    assert spec and spec.loader
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return getattr(loaded, "KNOWN_GAPS", {}), getattr(loaded, "KNOWN_EXTRAS", {})


def upgrade(folder: Path, gaps: dict[str, Any], extras: dict[str, Any], complete: list[str] | None) -> bool:
    path = folder / "expected.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    if "complete" in old or "known_gaps" in old:
        return False
    language = folder.parent.name
    new: dict[str, Any] = {k: old[k] for k in ORDER if k in old}
    if "import_edges" in old:  # the generic tier: every list was whole
        new["imports"] = old["import_edges"]
        new["calls"] = [{"caller": a, "callee": b, "kind": k} for a, b, k in old["calls"]]
        complete = complete or ["calls", "imports", "hierarchy", "definitions", "unresolved", "roots"]
    new["unresolved"] = [
        u if isinstance(u, dict) else {"caller": u[0], "reason": u[1], "name": u[2]}
        for u in old.get("unresolved", [])
    ]
    new["complete"] = complete or WHOLE.get(language, ["calls"])
    if "unresolved" not in new["complete"] and not new["unresolved"]:
        del new["unresolved"]
    if "roots" in new["complete"]:
        new.setdefault("roots", [])
    rows = []
    for table, gap in ((gaps, "missing"), (extras, "extra")):
        entry = table.get(folder.name) or table.get(f"{language}/{folder.name}") or {}
        rows += [{"caller": a, "callee": b, "gap": gap, "reason": r} for (a, b), r in sorted(entry.items())]
    if rows:
        new["known_gaps"] = rows
    path.write_text(dump(new), encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--known", type=Path, help="a test module holding KNOWN_GAPS / KNOWN_EXTRAS")
    parser.add_argument("--complete", help="comma-separated sections listed whole")
    args = parser.parse_args(argv)
    gaps, extras = known(args.known)
    complete = args.complete.split(",") if args.complete else None
    for folder in args.folders:
        print(
            f"{folder}: {'upgraded' if upgrade(folder, gaps, extras, complete) else 'already in the schema'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
