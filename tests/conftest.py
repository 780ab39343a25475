"""Shared test helpers: temporary projects written from a dict of path -> text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = Path(__file__).parent.parent / "examples"


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    def make(files: dict[str, str | bytes]) -> Path:
        return write_tree(tmp_path / "project", files)

    return make
