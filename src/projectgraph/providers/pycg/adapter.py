"""The pycg adapter's work: find the files, run PyCG, turn its answer into protocol rows."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from types import ModuleType
from typing import Any

INSTALL_HINT = "PyCG is not installed: pip install 'projectgraph[pycg]' (pycg==0.0.8)"
_SKIPPED = frozenset({".git", ".projectgraph", "node_modules", "__pycache__", ".venv", "venv", ".tox"})


def load_pycg() -> ModuleType | None:
    """PyCG's package under the name ``pycg`` its own imports use, or None when it is not installed."""
    if "pycg" in sys.modules:
        return sys.modules["pycg"]
    spec = importlib.util.find_spec("PyCG") or importlib.util.find_spec("pycg")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = next(iter(spec.submodule_search_locations))
    alias = importlib.util.spec_from_file_location(
        "pycg", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    if alias is None or alias.loader is None:
        return None
    module = importlib.util.module_from_spec(alias)
    sys.modules["pycg"] = module
    alias.loader.exec_module(module)
    return module


def python_files(root: str) -> list[str]:
    """The project's .py files, relative and sorted; hidden folders and environments left out."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(
            d
            for d in subfolders
            if d not in _SKIPPED
            and not d.startswith(".")
            and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg"))
        )
        for name in names:
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return sorted(found)


def module_name(path: str) -> str:
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


_SCOPES = frozenset({"listcomp", "setcomp", "dictcomp", "genexpr"})


def _owner(name: str) -> str:
    """The definition a PyCG scope name belongs to: comprehensions and lambdas are their function's."""
    parts = name.split(".")
    while len(parts) > 1 and (parts[-1] in _SCOPES or parts[-1].startswith("<")):
        parts.pop()
    return ".".join(parts)


def rows(
    call_graph: dict[str, Any], defs: dict[str, str], modules: dict[str, str], imports: dict[str, Any]
) -> dict[str, Any]:
    """Protocol rows from PyCG's call graph, definition types, module files and imports.

    ``defs`` holds PyCG's own definitions only (``definitions``: not the names an import binds); a
    comprehension's or a lambda's calls are its enclosing definition's, as in the language."""

    def place(name: str) -> tuple[str, str] | None:
        """(path, qualified rest) of a dotted name under a project module, longest module first."""
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            path = modules.get(".".join(parts[:cut]))
            if path is not None:
                return path, ".".join(parts[cut:])
        return None

    def qualified(name: str) -> str:
        placed = place(name)
        if placed is None:
            return name
        path, rest = placed
        return f"{path}::{rest}" if rest else path

    nodes = [
        {
            "kind": "file",
            "name": path.rsplit("/", 1)[-1],
            "qualified_name": path,
            "path": path,
            "language": "python",
        }
        for path in sorted(set(modules.values()))
    ]
    edges: list[dict[str, Any]] = []
    for name in sorted(defs):
        kind = defs[name]
        placed = place(name)
        if placed is None or not placed[1] or kind not in ("FUNCTIONDEF", "CLASSDEF") or _owner(name) != name:
            continue
        path, rest = placed
        parent = name.rsplit(".", 1)[0]
        node_kind = (
            "class" if kind == "CLASSDEF" else "method" if defs.get(parent) == "CLASSDEF" else "function"
        )
        nodes.append(
            {
                "kind": node_kind,
                "name": rest.rsplit(".", 1)[-1],
                "qualified_name": f"{path}::{rest}",
                "path": path,
                "language": "python",
            }
        )
        if defs.get(parent) in ("FUNCTIONDEF", "CLASSDEF", "MODULEDEF") or parent in modules:
            edges.append(
                {
                    "kind": "contains",
                    "source_qn": qualified(parent),
                    "target_qn": f"{path}::{rest}",
                    "confidence": 1,
                }
            )
    calls = {(_owner(caller), _owner(callee)) for caller, callees in call_graph.items() for callee in callees}
    for caller, callee in sorted(calls):
        if caller != callee or callee in call_graph.get(callee, ()):
            edges.append(
                {
                    "kind": "calls",
                    "source_qn": qualified(caller),
                    "target_qn": qualified(callee),
                    "confidence": 1,
                }
            )
    for module in sorted(imports):
        if module not in modules:
            continue
        for target in sorted(imports[module].get("imports", ())):
            edges.append(
                {
                    "kind": "imports",
                    "source_qn": modules[module],
                    "target_qn": qualified(target),
                    "confidence": 1,
                }
            )
    return {"nodes": nodes, "edges": edges}


def definitions(raw: dict[str, Any]) -> dict[str, str]:
    """PyCG's definitions by name and type, less the names an import binds (``from .text import
    Text`` gives ``console.Text`` a class definition pointing at ``text.Text``)."""
    out = {}
    for ns, definition in raw.items():
        kind = definition.get_type()
        pointed = set(definition.get_name_pointer().get())
        # an alias points at the definition it imports and not at itself; a real definition's set is
        # empty or holds itself (and, for a method, the overrides PyCG found)
        alias = kind in ("FUNCTIONDEF", "CLASSDEF") and bool(pointed) and ns not in pointed
        if alias and any(raw[p].get_type() == kind for p in pointed if p in raw):
            continue
        out[ns] = kind
    return out


def build(root: str) -> dict[str, Any]:
    load_pycg()
    from pycg.pycg import CallGraphGenerator  # type: ignore[import-not-found]

    files = python_files(root)
    modules = {module_name(p): p for p in files}
    raw = os.environ.get("PROJECTGRAPH_PYCG_MAX_ITER", "")
    max_iter = int(raw) if raw.isdigit() and int(raw) > 0 else -1  # -1: PyCG's own fixpoint
    generator = CallGraphGenerator([os.path.join(root, p) for p in files], root, max_iter, "call-graph")
    generator.analyze()
    defs = definitions(generator.def_manager.get_defs())
    data = rows(generator.output(), defs, modules, generator.import_manager.get_import_graph())
    data["files_seen"] = len(files)
    data["files_parsed"] = len(files)
    data["limitations"] = [{"code": "no_lines", "detail": "PyCG keeps no line numbers"}]
    if max_iter > 0:
        detail = (
            f"PROJECTGRAPH_PYCG_MAX_ITER={max_iter}: at most {max_iter} passes, maybe short of the fixpoint"
        )
        data["limitations"].append({"code": "max_iter", "detail": detail})
    return data


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # PyCG's passes iterate over sets of names: with a random string hash, a run stopped before
        # its fixpoint (--max-iter) gives another graph each time; one seed gives one graph
        os.execve(sys.executable, sys.orig_argv, {**os.environ, "PYTHONHASHSEED": "0"})
    request = json.loads(sys.stdin.readline())
    available = load_pycg() is not None
    if request.get("op") == "capabilities":
        caps: dict[str, Any] = {"languages": ["python"], "edge_kinds": ["calls", "contains", "imports"]}
        caps |= {"communities": False, "embeddings": False}
        if not available:
            caps["unavailable"] = INSTALL_HINT
        print(json.dumps({"ok": True, "data": caps}), flush=True)
        return
    if not available:
        print(
            json.dumps({"ok": False, "error": {"code": "unavailable", "message": INSTALL_HINT}}), flush=True
        )
        return
    try:
        data = build(request["repo_root"])
    except Exception as error:  # PyCG's own failure: said, never a partial graph
        message = f"{type(error).__name__}: {error}"
        print(json.dumps({"ok": False, "error": {"code": "pycg_failed", "message": message}}), flush=True)
        return
    print(json.dumps({"ok": True, "data": data}), flush=True)


if __name__ == "__main__":  # stdlib only: it also runs as a script, outside any environment
    main()
