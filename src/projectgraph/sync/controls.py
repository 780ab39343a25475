"""Control files: the files that are not source but change the graph (manifests, configs).

A control file is read whole on every sync, with no size or time shortcut: there are few of them and
they are small. Which names count is each language's to say (``LanguageSpec.control_files`` and its
families of names): every file the link stage reads for that language (the manifests, the
JavaScript, Go, Rust and Java linkers' package.json, tsconfig, go.mod, Cargo.toml, Maven and Gradle
lookups); ``projectgraph.toml`` (``config.load_config``) is this module's own. Nested ones count in
every folder that holds a source file or is above one, as the linkers look for them there, and so
does a config a tsconfig ``extends``, wherever it is. The ``src`` folder counts too (its presence
adds a Python import root), as the pseudo path ``src/``. The link reads them once, before the linkers
(``manifests.read_controls``, by the same names); a linker that comes to need another file
must have it named in its language's record, or a change to it goes unseen until a file changes
(``tests/test_sync_oracle.py`` edits manifests to catch that).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from projectgraph import safefs
from projectgraph.languages import all_languages

ROOT_NAMES = frozenset({"projectgraph.toml"})  # the tool's own configuration, at the root only
SOURCE_ROOT = "src/"
_EXTENDS = re.compile(rb'"extends"\s*:\s*"(\.[^"]*)"')


@dataclass(frozen=True, order=True)
class ControlFile:
    path: str  # relative to the project root; "src/" for the src folder
    digest: str  # sha256 of the bytes ("" for the src folder)
    size: int
    mtime_ns: int

    def read_digest(self, root: Path) -> str:
        """The digest of the file's bytes now ("" when it cannot be read)."""
        if self.path == SOURCE_ROOT:
            return ""
        try:
            return hashlib.sha256(safefs.read_bytes(root / self.path, root=root)).hexdigest()
        except OSError:
            return ""


@cache
def folder_names() -> frozenset[str]:
    """The control-file names of every language (``LanguageSpec.control_files``): in any folder."""
    return frozenset(name for spec in all_languages().values() for name in spec.control_files)


@cache
def _patterns() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The (prefix, suffix) families of every language: those of any folder, those of the root."""
    specs = all_languages().values()
    anywhere = sorted({pattern for spec in specs for pattern in spec.control_patterns})
    at_root = sorted({pattern for spec in specs for pattern in spec.root_control_patterns})
    return tuple(anywhere), tuple(at_root)


def _in_family(name: str, patterns: Iterable[tuple[str, str]]) -> bool:
    return any(name.startswith(prefix) and name.endswith(suffix) for prefix, suffix in patterns)


def is_control_name(path: str) -> bool:
    """Whether a project path names a control file (at the root, or in any folder for nested ones)."""
    folder, _, name = path.rpartition("/")
    anywhere, at_root = _patterns()
    if name in folder_names() or _in_family(name, anywhere):
        return True  # a tsconfig may be extended from anywhere
    if folder:
        return False
    return name in ROOT_NAMES or _in_family(name, at_root)


def _folders(paths: Iterable[str]) -> set[str]:
    """Every folder that holds one of the paths, and every folder above it ("" is the root)."""
    folders = {""}
    for path in paths:
        folder = path.rpartition("/")[0]
        while folder and folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return folders


def control_files(root: Path, source_paths: Iterable[str], digests: bool = True) -> tuple[ControlFile, ...]:
    """The control files of the project whose source files are ``source_paths``, sorted by path
    (without ``digests``, only stamped: the digest is left empty)."""
    candidates: set[str] = set()
    names = folder_names()
    try:
        for entry in os.scandir(root):
            if is_control_name(entry.name):
                candidates.add(entry.name)
    except OSError:
        pass
    for folder in _folders(source_paths):
        if folder:
            candidates.update(f"{folder}/{name}" for name in names)
    found: dict[str, ControlFile] = {}
    queue = sorted(candidates)
    base = os.fspath(root)
    while queue:
        rel = queue.pop()
        if rel in found:
            continue
        full = os.path.join(base, rel)  # strings, not Paths: a few thousand probes per sync
        try:
            st = os.stat(full)
            if not stat.S_ISREG(st.st_mode) or not safefs.inside(full, base):
                continue  # a FIFO would block; a link out of the project is not read (manifests)
            data = b""
            if digests or rel.endswith(".json"):
                data = safefs.read_bytes(full, root=base)
        except OSError:
            continue
        digest = hashlib.sha256(data).hexdigest() if digests else ""
        found[rel] = ControlFile(rel, digest, st.st_size, st.st_mtime_ns)
        if _in_family(rel.rpartition("/")[2], _patterns()[0]):
            queue.extend(_extended(rel, data))
    if os.path.isdir(root / "src"):
        found[SOURCE_ROOT] = ControlFile(SOURCE_ROOT, "", -1, -1)
    return tuple(sorted(found.values()))


def _extended(rel: str, data: bytes) -> list[str]:
    """The configs a config of a family (a tsconfig, a jsconfig) extends by a relative path (the
    JavaScript linker reads them wherever they are), inside the project."""
    found = []
    for target in _EXTENDS.findall(data):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target.decode("utf-8", "replace")))
        path = path if path.endswith(".json") else path + ".json"
        if not path.startswith(".."):
            found.append(path)
    return found
