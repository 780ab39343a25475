"""What a person browsing the graph asks beside the edges: one symbol in full (its roots, the
unresolved sites and dynamic flags in its code), the files with their statuses, the units with
their versions, and the store's sync generation. The viewer (``projectgraph.ui``) shows these;
they are plain dicts like every answer of ``QueryEngine``, in a fixed order.

Sites are 1-based lines and 0-based columns, as everywhere in the graph.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from projectgraph.store import sqlite as sql
from projectgraph.units import DepsError, split_name


def _site(path: str, line: int, column: int) -> dict[str, Any]:
    return {"path": path, "line": line, "column": column}


def node_record(row: tuple[Any, ...]) -> dict[str, Any]:
    """A symbol's short record (its key, kind, names, place, signature) of a ``NODE_COLUMNS`` row."""
    return {
        "key": row[1],
        "kind": row[2],
        "name": row[3],
        "qualname": row[4],
        "path": row[5],
        "line": row[6],
        "end_line": row[7],
        "signature": row[8],
    }


def describe(connection: sqlite3.Connection, row: tuple[Any, ...]) -> dict[str, Any]:
    """The node of ``row`` (a ``NODE_COLUMNS`` row) with its doc, roots, unresolved sites and flags."""
    unresolved, dynamic, roots = sql.sites_of(connection, row[0])
    return {
        "symbol": node_record(row)
        | {"doc": row[9], "language": row[10], "unit": row[11], "external": row[12]},
        "roots": [{"kind": kind, "rule": rule} for kind, rule in roots],
        "unresolved": [
            {
                "site": _site(path, line, col),
                "reason": reason,
                "name": name,
                "text": text,
                "prefix": prefix,
                "covered": bool(covered),
            }
            for path, line, col, reason, name, text, prefix, covered in unresolved
        ],
        "dynamic": [
            {"site": _site(path, line, col), "kind": kind, "prefix": prefix}
            for path, line, col, kind, prefix in dynamic
        ],
    }


def files(connection: sqlite3.Connection, unit: str | None = None) -> dict[str, Any]:
    """The project's files (or one unit's, when ``unit`` names it) with status and reason, the
    count of each status, and every unit with its ecosystem, package, version and file statuses
    (a unit name the store does not hold lists no file)."""
    listed: list[dict[str, Any]] = []
    statuses: dict[str, int] = {}
    units: dict[str, dict[str, Any]] = {}
    for path, language, status, reason, owner in sql.file_rows(connection):
        if owner:
            entry = units.get(owner)
            if entry is None:
                entry = units[owner] = _unit(owner)
            entry["files"] += 1
            entry["statuses"][status] = entry["statuses"].get(status, 0) + 1
        if owner == (unit or ""):
            listed.append({"path": path, "language": language, "status": status, "reason": reason})
            statuses[status] = statuses.get(status, 0) + 1
    for entry in units.values():
        entry["statuses"] = dict(sorted(entry["statuses"].items()))
    return {
        "unit": unit or "",
        "files": listed,
        "statuses": dict(sorted(statuses.items())),
        "units": [units[name] for name in sorted(units)],
    }


def _unit(name: str) -> dict[str, Any]:
    try:
        ecosystem, package, version = split_name(name)
    except DepsError:
        ecosystem, package, version = "", name, ""
    return {
        "unit": name,
        "ecosystem": ecosystem,
        "package": package,
        "version": version,
        "files": 0,
        "statuses": {},
    }


def generation(connection: sqlite3.Connection) -> dict[str, int]:
    """The sync generation: the latest run and the last sync's time (ns); either moves on a sync."""
    run, synced = sql.sync_generation(connection)
    return {"run": run, "synced_at_ns": synced}
