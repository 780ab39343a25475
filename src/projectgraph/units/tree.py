"""The top of a project's tree, listed once for every unit finder.

The Go and Rust finders look for go.mod, .go files, Cargo.lock and Cargo.toml files in the top
folders of a project (the root and ``DEPTH`` levels below it). Each walked those folders itself:
four walks of the same folders, most of a no-op sync's unit discovery on Django (2,000 folders).
``top_folders`` lists them once per ``listed`` block (``discover_units``), in ``os.walk`` order
(top-down, each folder's subfolders by name), and each finder keeps the folders its own rules
walk into (``walked``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

DEPTH = 3
"""How many levels below the root the finders look (a folder this deep is listed, not entered)."""

Folder = tuple[str, tuple[str, ...], frozenset[str]]
"""A listed folder: its path relative to the root ('' for the root, '/'-separated), its
subfolders (sorted by name, hidden ones left out), the names of its files."""

_LISTED: dict[str, tuple[Folder, ...]] = {}
_DEPTH_OF_BLOCK = [0]


@contextmanager
def listed() -> Iterator[None]:
    """Within the block, a project's top folders are listed once (then forgotten: a tree changes)."""
    _DEPTH_OF_BLOCK[0] += 1
    try:
        yield
    finally:
        _DEPTH_OF_BLOCK[0] -= 1
        if not _DEPTH_OF_BLOCK[0]:
            _LISTED.clear()


def top_folders(base: Path) -> tuple[Folder, ...]:
    """The root and the folders up to ``DEPTH`` below it, not hidden (no name starting with '.'),
    in ``os.walk`` order; symlinked folders are not entered (as ``os.walk`` does not)."""
    root = os.fspath(base)
    kept = _LISTED.get(root)
    if kept is not None:
        return kept
    out: list[Folder] = []
    for folder, names, filenames in os.walk(root):
        rest = folder[len(root) :].strip(os.sep)
        depth = rest.count(os.sep) + 1 if rest else 0
        names[:] = sorted(n for n in names if not n.startswith(".")) if depth < DEPTH else []
        out.append((rest.replace(os.sep, "/"), tuple(names), frozenset(filenames)))
    listing = tuple(out)
    if _DEPTH_OF_BLOCK[0]:
        _LISTED[root] = listing
    return listing


def walked(base: Path, skip: Callable[[str], bool]) -> Iterator[Folder]:
    """The top folders a walk enters that leaves out every folder whose name ``skip`` says
    (and what is below it), in ``os.walk`` order."""
    pruned: set[str] = set()
    for folder in top_folders(base):
        rel = folder[0]
        if rel:
            parts = rel.split("/")
            if skip(parts[-1]) or any("/".join(parts[:i]) in pruned for i in range(1, len(parts))):
                pruned.add(rel)
                continue
        yield folder
