"""The crg adapter's work: run code-review-graph's build, read its database, answer in protocol rows."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from typing import Any

INSTALL_HINT = (
    "code-review-graph is not installed: install code-review-graph==2.3.9 in an environment of its own "
    "(it needs mcp<2; projectgraph needs mcp>=2.3), e.g. `python -m venv ~/.crg && ~/.crg/bin/pip install "
    "code-review-graph==2.3.9`, then put ~/.crg/bin on PATH or set PROJECTGRAPH_CRG_PYTHON=~/.crg/bin/python"
)
NODE_KINDS = {"File": "file", "Class": "class", "Function": "function", "Type": "type", "Test": "test"}
EDGE_KINDS = {
    "CALLS": "calls",
    "IMPORTS_FROM": "imports",
    "INHERITS": "extends",
    "IMPLEMENTS": "implements",
    "CONTAINS": "contains",
    "TESTED_BY": "tests",
}


def engine_python() -> str | None:
    """A Python that imports code_review_graph: PROJECTGRAPH_CRG_PYTHON, the interpreter of
    ``code-review-graph`` on PATH (its first line), or this one."""
    named = os.environ.get("PROJECTGRAPH_CRG_PYTHON")
    if named:
        return named if os.access(named, os.X_OK) else None
    script = shutil.which("code-review-graph")
    if script:
        try:
            with open(script, "rb") as head:
                first = head.readline().decode("utf-8", errors="replace").strip()
        except OSError:
            first = ""
        interpreter = first[2:].strip().split(" ")[0] if first.startswith("#!") else ""
        if interpreter and os.access(interpreter, os.X_OK):
            return interpreter
    if importlib.util.find_spec("code_review_graph") is not None:
        return sys.executable
    return None


# Run in the engine's own Python: its full build (parse every file, then its resolvers) into a
# database outside the project, and the list of files it could not parse.
WORKER = """
import json, sys
from pathlib import Path
from code_review_graph.graph import GraphStore
from code_review_graph.incremental import full_build
store = GraphStore(sys.argv[2])
try:
    result = full_build(Path(sys.argv[1]), store)
finally:
    store.close()
print(json.dumps({"errors": [str(e.get("file", "?")) for e in result.get("errors", [])]}))
"""


class Paths:
    """Absolute paths of the engine's rows made relative to the repository root."""

    def __init__(self, root: str) -> None:
        self.prefixes = sorted({os.path.abspath(root), os.path.realpath(root)}, key=len, reverse=True)

    def relative(self, path: str) -> str:
        for prefix in self.prefixes:
            if path == prefix:
                return "."
            if path.startswith(prefix + "/"):
                return path[len(prefix) + 1 :]
        return path

    def name(self, qualified: str) -> str:
        path, sep, rest = qualified.partition("::")
        return self.relative(path) + sep + rest if path.startswith("/") else qualified


def rows(database: str, root: str) -> dict[str, Any]:
    paths = Paths(root)
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        node_rows = connection.execute(
            "SELECT kind, name, qualified_name, file_path, line_start, line_end, language, parent_name, "
            "file_hash FROM nodes ORDER BY id"
        ).fetchall()
        edge_rows = connection.execute(
            "SELECT kind, source_qualified, target_qualified, confidence FROM edges ORDER BY id"
        ).fetchall()
    finally:
        connection.close()
    classes = {(row[3], row[1]) for row in node_rows if row[0] == "Class"}
    nodes = []
    for kind, name, qualified, file_path, start, end, language, parent, file_hash in node_rows:
        ours = NODE_KINDS.get(kind, str(kind).lower())
        if ours == "function" and parent and (file_path, parent.rsplit(".", 1)[-1]) in classes:
            ours = "method"
        path = paths.relative(file_path)
        nodes.append(
            {
                "kind": ours,
                "name": path if ours == "file" else name,
                "qualified_name": path if ours == "file" else paths.name(qualified),
                "path": path,
                "line_start": start,
                "line_end": end,
                "language": language or "",
                "content_hash": file_hash or "",
            }
        )
    edges = []
    for kind, source, target, confidence in edge_rows:
        ours = EDGE_KINDS.get(kind, str(kind).lower())
        source, target = paths.name(source), paths.name(target)
        if ours == "tests":
            source, target = target, source  # TESTED_BY: code -> test; ours: test -> code
        edges.append({"kind": ours, "source_qn": source, "target_qn": target, "confidence": confidence})
    files = sum(1 for n in nodes if n["kind"] == "file")
    return {"nodes": nodes, "edges": edges, "files_parsed": files, "limitations": []}


def build(python: str, root: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="projectgraph-crg-") as tmp:
        database = os.path.join(tmp, "graph.db")
        env = dict(os.environ, CRG_DATA_DIR=tmp, CRG_HOME=os.path.join(tmp, "home"), NO_COLOR="1")
        done = subprocess.run(
            [python, "-c", WORKER, root, database],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            check=False,
        )
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", errors="replace").strip()[-1500:]
            raise RuntimeError(f"code-review-graph's build exited {done.returncode}: {tail}")
        report = json.loads(done.stdout.decode("utf-8", errors="replace").strip().splitlines()[-1])
        data = rows(database, root)
        if report["errors"]:
            failed = report["errors"]
            detail = f"{len(failed)} files code-review-graph could not parse: {', '.join(failed[:5])}"
            data["limitations"].append({"code": "parse_errors", "detail": detail})
        return data


def main() -> None:
    request = json.loads(sys.stdin.readline())
    command = engine_python()
    if request.get("op") == "capabilities":
        caps: dict[str, Any] = {"languages": ["go", "java", "javascript", "python", "rust", "typescript"]}
        caps |= {"edge_kinds": sorted(set(EDGE_KINDS.values())), "communities": False, "embeddings": False}
        if command is None:
            caps["unavailable"] = INSTALL_HINT
        print(json.dumps({"ok": True, "data": caps}), flush=True)
        return
    if command is None:
        print(
            json.dumps({"ok": False, "error": {"code": "unavailable", "message": INSTALL_HINT}}), flush=True
        )
        return
    try:
        data = build(command, request["repo_root"])
    except (OSError, RuntimeError, ValueError, sqlite3.Error) as error:
        print(json.dumps({"ok": False, "error": {"code": "crg_failed", "message": str(error)}}), flush=True)
        return
    print(json.dumps({"ok": True, "data": data}), flush=True)


if __name__ == "__main__":  # stdlib only: it also runs as a script, outside any environment
    main()
