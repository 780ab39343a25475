"""Provider runs in the store: a run row opened at the start, closed with its rows in one step."""

from __future__ import annotations

from pathlib import Path

from projectgraph.store import sqlite as sql
from projectgraph.store.sqlite import SqliteStore


def test_a_run_keeps_its_rows_and_a_failed_run_keeps_none(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "graph.db")
    try:
        ok = sql.start_provider_run(store.connection, "mine", "/p", 1.0)
        node = ("function", "f", "a.py::f", "a.py", 1, 2, "", "python", "")
        edge = ("contains", "a.py", "a.py::f", 1.0)
        sql.finish_provider_run(store.connection, ok, "ok", [], {"progress": 1}, (1, 1), ([node], [edge]))
        failed = sql.start_provider_run(store.connection, "mine", "/p", 2.0)
        limitation = {"code": "provider_unavailable", "detail": "timeout after 1 s"}
        sql.finish_provider_run(store.connection, failed, "failed", [limitation], {})
        runs = sql.provider_runs(store.connection, "mine")
        assert [(r["id"], r["status"], r["limitations"]) for r in runs] == [
            (ok, "ok", []),
            (failed, "failed", [limitation]),
        ]
        assert runs[0]["files_parsed"] == 1 and runs[0]["stats"] == {"progress": 1}
        assert sql.provider_rows(store.connection, ok) == ([node], [edge])
        assert sql.provider_rows(store.connection, failed) == ([], [])
        assert sql.provider_runs(store.connection, "other") == []
    finally:
        store.close()
