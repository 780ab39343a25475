"""Discover: the files of a project and their language, in one fixed order.

In a git work tree the files are git's own answer (``git ls-files --cached --others
--exclude-standard``), so every .gitignore, ``.git/info/exclude`` and the global excludes file hold.
Elsewhere the tree is walked and .gitignore files are honoured with ``pathspec``. Paths are relative
to the root, ``/``-separated, sorted. Symlinks are never followed out of the root, and a symlinked
directory is never walked (no loops). What is left out, and why, is in ``Discovery.excluded``.
Dependency code in the tree (a virtual environment, a ``node_modules`` folder, a vendored crate, Go's
``vendor/``) is not the project's: its packages are units (``projectgraph.units``).
"""

from __future__ import annotations

import logging
import os
import re
import stat
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectgraph import safefs
from projectgraph.config import ConfigError, ProjectConfig
from projectgraph.languages import LanguageSpec, all_languages

if TYPE_CHECKING:  # (pathspec is imported where a .gitignore or an ignore rule is read: a
    # tree with none, and a git tree, never load it; it was a tenth of a no-op sync's imports)
    import pathspec

_log = logging.getLogger(__name__)

ALWAYS_SKIPPED_DIRS = frozenset({".git", ".projectgraph", ".hg", ".svn"})
VENV_MARKER = "pyvenv.cfg"
# files that make their folder dependency code (units, projectgraph.units), not the project's: a
# virtual environment, a vendored crate (cargo vendor writes a checksum file in each), and Go's
# vendor/ folder of modules.txt
GO_VENDOR_MARKER = "vendor/modules.txt"
CRATE_MARKER = ".cargo-checksum.json"
# a node_modules folder, wherever it is, holds installed npm packages (units: languages/javascript/units.py)
NODE_MODULES = "node_modules"
GENERATED_DART = (".g.dart", ".freezed.dart")
MINIFIED_NAMES = (".min.js", ".min.mjs", ".min.cjs")  # minified whatever the content


@dataclass(frozen=True, order=True)
class SourceFile:
    path: str
    language: str
    flags: tuple[str, ...] = ()  # e.g. "minified" (by name); content flags come at index time


@dataclass(frozen=True, order=True)
class Excluded:
    path: str
    reason: str
    error: bool = False  # left out because it could not be read, not by a rule: the run failed


def _printable(path: str) -> str:
    """A path as valid text: bytes that are not UTF-8 (surrogate escapes) as ``\\xNN``."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class Discovery:
    root: str
    files: tuple[SourceFile, ...]
    excluded: tuple[Excluded, ...]
    git: bool
    # the listed files no language claims, counted by extension ("" for none), sorted: what was not
    # read, so a user sees it (the index report's "no language" counts)
    unclaimed: tuple[tuple[str, int], ...] = ()


SCRIPT = "script"  # the flag of a file whose language its shebang line names (no extension of its own)
_SHEBANG_BYTES = 512  # a shebang line longer than this is not one


def interpreter_map(languages: Iterable[LanguageSpec]) -> dict[str, str]:
    """Interpreter name -> language, from what each language declares."""
    return {name: spec.name for spec in languages for name in spec.interpreters}


def shebang_interpreter(head: bytes) -> str | None:
    """The interpreter a file's first line names (``#!/usr/bin/env -S node --flag``: ``node``;
    ``#!/usr/bin/python3.11``: ``python3.11``), or None when the line is not a shebang."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].rstrip(b"\r")
    try:
        words = line.decode("utf-8").split()
    except UnicodeDecodeError:
        return None
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program == "env":  # env [-S] [-i] [NAME=value ...] interpreter [args]
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        program = rest[0].rsplit("/", 1)[-1]
    return program


def script_language(interpreter: str, interpreters: Mapping[str, str]) -> str | None:
    """The language of an interpreter name, its version suffix dropped (``python3.11``, ``php8``)."""
    if interpreter in interpreters:
        return interpreters[interpreter]
    bare = re.sub(r"[0-9][0-9.]*$", "", interpreter)
    return interpreters.get(bare) if bare else None


def _extension(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    stem, dot, ext = name.lstrip(".").rpartition(".")
    return f".{ext}" if dot and stem else ""


def _head(path: Path) -> bytes | None:
    """The first bytes of a regular file, read without following a link and without blocking on a
    pipe; None when it cannot be read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, _SHEBANG_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


def extension_map(
    languages: Iterable[LanguageSpec], overrides: Iterable[tuple[str, str]] = (), source: str = ""
) -> dict[str, str]:
    """Extension -> language. Two languages claiming one extension is an error; overrides win.

    An override naming a known language outside this run is left out; an unknown one is an error.
    """
    mapping: dict[str, str] = {}
    specs = list(languages)
    for spec in specs:
        for ext in spec.extensions:
            other = mapping.get(ext)
            if other is not None and other != spec.name:
                raise ConfigError(f"languages {other!r} and {spec.name!r} both claim the extension {ext!r}")
            mapping[ext] = spec.name
    names = {spec.name for spec in specs}
    known = names | set(all_languages())
    where = f"{source}: " if source else ""
    seen: dict[str, str] = {}
    for ext, name in overrides:
        if ext in seen and seen[ext] != name:
            raise ConfigError(f"{where}extension {ext!r} is mapped to both {seen[ext]!r} and {name!r}")
        if name not in known:
            listed = ", ".join(sorted(known))
            raise ConfigError(f"{where}unknown language {name!r} for the extension {ext!r} (known: {listed})")
        seen[ext] = name
        if name not in names:
            continue  # an override for a language not indexed in this run
        mapping[ext] = name
    return mapping


def language_of(path: str, mapping: Mapping[str, str]) -> str | None:
    name = path.rsplit("/", 1)[-1]
    # longest suffix first, so ".d.ts" style multi-part extensions can win
    parts = name.split(".")
    for i in range(1, len(parts)):
        ext = "." + ".".join(parts[i:])
        if ext in mapping:
            return mapping[ext]
    return None


_GIT_UNREADABLE = re.compile(r"^warning: could not open directory '(.*)/': (.*)$", re.MULTILINE)


def _git_files(root: Path, excluded: list[Excluded]) -> list[str] | None:
    """git's list of the files under ``root``, or None outside a work tree.

    git skips a folder it cannot open with a warning on stderr (the path from the top of the work
    tree); those warnings become errors in ``excluded``.
    """
    env = {**os.environ, "LC_ALL": "C"}  # git's messages in English, to read the warnings
    try:
        inside = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree", "--show-prefix"],
            cwd=root,
            capture_output=True,
            check=False,
            env=env,
        )
    except OSError:
        return None
    lines = inside.stdout.decode("utf-8", "surrogateescape").splitlines()
    refused = inside.stderr.decode("utf-8", "replace")
    if inside.returncode != 0 and "dubious ownership" in refused:
        _log.warning(
            "projectgraph: git refuses the repository at %s (detected dubious ownership: another user "
            "owns it); walking the tree with its .gitignore files instead (`git config --global --add "
            "safe.directory %s` makes git read it)",
            root,
            root,
        )
        return None
    if inside.returncode != 0 or not lines or lines[0] != "true":
        return None
    prefix = lines[1] if len(lines) > 1 else ""
    listed = subprocess.run(
        ["git", "-c", "core.quotepath=off", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=False,
        env=env,
    )
    if listed.returncode != 0:
        return None
    for folder, why in _GIT_UNREADABLE.findall(listed.stderr.decode("utf-8", "surrogateescape")):
        rel = folder.removeprefix(prefix) if folder.startswith(prefix) else folder
        excluded.append(Excluded(_printable(rel or "."), f"unreadable folder: {why}", error=True))
    names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({name for name in names if name})


def _walk(
    root: Path, excluded: list[Excluded], entries: dict[str, os.DirEntry[str]] | None = None
) -> list[str]:
    """Walk outside git: .gitignore files apply to their folder and below; no symlinked folder.

    ``entries`` (when given) receives each listed file's ``os.DirEntry``: its type as the listing
    gave it, so ``discover`` needs no second ``lstat`` of a regular file."""
    found: list[str] = []
    # folders as strings: a pathlib object per folder was a third of a no-op sync's walk. A folder
    # that no rule ignores is checked for a dependency marker (``_dependency_marker``) from its own
    # listing when it is walked (``probe``), not by two or three stats per folder before it
    stack: list[tuple[str, str, list[tuple[str, pathspec.PathSpec[Any]]], bool]] = [
        (os.fspath(root), "", [], False)
    ]
    while stack:
        folder, rel, specs, probe = stack.pop()
        try:
            entries_here = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            # (a folder that cannot be listed may still let its marker be stat'ed)
            marker = _dependency_marker(folder, rel.rpartition("/")[2]) if probe else None
            if marker is not None:
                found.append(f"{rel}/{marker}")
            else:
                why = f"unreadable folder: {error.strerror}"
                excluded.append(Excluded(_printable(rel or "."), why, True))
            continue
        if probe:
            marker = _listed_marker(rel.rpartition("/")[2], entries_here)
            if marker is not None:
                found.append(f"{rel}/{marker}")  # dependency code (a unit's folder): not walked
                continue
        local = specs
        if any(entry.name == ".gitignore" for entry in entries_here):
            gitignore = Path(folder, ".gitignore")
            try:
                lines = safefs.read_text(gitignore, errors="replace").splitlines()
                # Not GitIgnoreSpec: its reordering for files below an ignored folder misjudges a
                # folder itself ("*" then "!*/"); the walk decides folder by folder, as git does.
                local = [*specs, (rel, gitignore_spec(lines))]
            except OSError as error:
                where = _printable(f"{rel}/.gitignore".lstrip("/"))
                excluded.append(Excluded(where, f"unreadable: {error.strerror}", True))
        for entry in entries_here:
            child = f"{rel}/{entry.name}" if rel else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_dir and (entry.name in ALWAYS_SKIPPED_DIRS or entry.name == NODE_MODULES):
                continue
            if _ignored(child, is_dir, local):
                # an ignored folder is still dependency code when it holds a marker (a .venv that
                # .gitignore names): found, never walked
                marker = _dependency_marker(entry.path, entry.name) if is_dir else None
                if marker is not None:
                    found.append(f"{child}/{marker}")
                continue
            if is_dir:
                stack.append((entry.path, child, local, True))
            elif is_link:
                try:
                    target_is_dir = entry.is_dir()
                except OSError:
                    target_is_dir = False
                if target_is_dir:
                    excluded.append(Excluded(child, "symlinked folder (not followed)"))
                else:
                    found.append(child)
                    if entries is not None:
                        entries[child] = entry
            else:
                found.append(child)
                if entries is not None:
                    entries[child] = entry
    return sorted(found)


def gitignore_spec(lines: Iterable[str]) -> pathspec.PathSpec[Any]:
    """The patterns of a .gitignore as git reads them: a line git cannot use (``!`` or ``\\``
    alone, a trailing unescaped backslash, a bare ``/``) matches nothing and takes nothing from the
    others, where pathspec would raise for the whole file; a backward range (``[z-a]``) is its first
    character, as in git's wildmatch."""
    import pathspec

    try:  # pathspec >= 1.0: "gitignore" as documented, last matching pattern wins
        from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern as _GitIgnorePattern
    except ImportError:  # pathspec 0.12
        from pathspec.patterns import (  # type: ignore[attr-defined, no-redef, unused-ignore]
            GitWildMatchPattern as _GitIgnorePattern,
        )

    patterns = []
    for line in lines:
        body = line.strip().removeprefix("!")
        if not body.strip("/"):
            continue  # "/" or "!/": git matches no path with an empty pattern
        for text in (line, _BACKWARD_RANGE.sub(_first_of_range, line)):
            try:
                patterns.append(_GitIgnorePattern(text))
                break
            except (ValueError, re.error):
                continue
    return pathspec.PathSpec(patterns)


_BACKWARD_RANGE = re.compile(r"\[!?\^?[^\]]*\]")


def _first_of_range(match: re.Match[str]) -> str:
    """A bracket expression with each backward range (``z-a``) as its first character alone, as
    git's wildmatch reads it: ``[z-a]`` matches ``z``."""
    return re.sub(r"(.)-(.)", lambda m: m.group(1) if m.group(1) > m.group(2) else m.group(0), match.group(0))


def _dependency_marker(folder: str, name: str) -> str | None:
    """The marker file that makes a folder dependency code, or None."""
    for marker in (VENV_MARKER, CRATE_MARKER):
        if os.path.isfile(os.path.join(folder, marker)):
            return marker
    if name == "vendor" and os.path.isfile(os.path.join(folder, "modules.txt")):
        return "modules.txt"
    return None


def _listed_marker(name: str, entries: list[os.DirEntry[str]]) -> str | None:
    """``_dependency_marker`` of a folder from its listing (the same answer, without a stat of each
    marker name: a marker is a file, through a link too)."""
    names = {entry.name: entry for entry in entries}
    wanted = [VENV_MARKER, CRATE_MARKER] + (["modules.txt"] if name == "vendor" else [])
    for marker in wanted:
        entry = names.get(marker)
        if entry is not None:
            try:
                if entry.is_file():
                    return marker
            except OSError:
                continue
    return None


def _is_go_vendor(rel: str) -> bool:
    return rel == GO_VENDOR_MARKER or rel.endswith("/" + GO_VENDOR_MARKER)


def _ignored(path: str, is_dir: bool, specs: list[tuple[str, pathspec.PathSpec[Any]]]) -> bool:
    ignored = False
    for base, spec in specs:
        rel = path[len(base) + 1 :] if base else path
        if is_dir:
            rel += "/"
        result = spec.check_file(rel)
        if result.include is not None:
            ignored = bool(result.include)
    return ignored


_NESTED_REPOSITORY = "folder (git submodule or nested repository: its own repository, not indexed)"


def _outside_root(root: Path, rel: str) -> str | None:
    """Why a listed path cannot be read inside the root, or None when it can."""
    try:
        st = os.lstat(os.path.join(root, rel))  # (not pathlib: a third of a no-op sync's discovery)
    except FileNotFoundError:
        return "deleted from the work tree"  # git still lists it: not a file of the project now
    except OSError:
        return None  # unreadable: the indexer gives the file its status and reason
    return _outside_by_mode(root, rel, st)


def _outside_by_mode(root: Path, rel: str, st: os.stat_result) -> str | None:
    """``_outside_root`` once the path's lstat is known."""
    if stat.S_ISREG(st.st_mode):
        return None
    full = root / rel
    if stat.S_ISLNK(st.st_mode):
        try:
            real = full.resolve(strict=True)
        except (OSError, RuntimeError):
            return "broken or looping symlink"
        if not real.is_relative_to(root.resolve()):
            return "symlink out of the project root (not followed)"
        if os.path.isdir(real):
            return "symlinked folder (not followed)"
        if not os.path.isfile(real):
            return "not a regular file"
    elif stat.S_ISDIR(st.st_mode):
        return _NESTED_REPOSITORY
    elif not stat.S_ISREG(st.st_mode):
        return "not a regular file"  # a pipe, socket or device: reading it could block for ever
    return None


def project_files(root: str | os.PathLike[str]) -> list[str]:
    """Every file the project lists under ``root``, before languages and rules (git's list in a work
    tree, the walk with .gitignore elsewhere), without the index folder, VCS folders and
    node_modules; sorted. The doc graph's census is made of it."""
    base = Path(root)
    listed = _git_files(base, [])
    if listed is None:
        listed = _walk(base, [])
    return [
        rel
        for rel in listed
        if not any(part in ALWAYS_SKIPPED_DIRS or part == NODE_MODULES for part in rel.split("/")[:-1])
    ]


def discover(
    root: str | os.PathLike[str],
    languages: Iterable[LanguageSpec],
    config: ProjectConfig | None = None,
) -> Discovery:
    """The files of the project under ``root`` that one of ``languages`` parses, in path order."""
    base = Path(root)
    if not os.path.isdir(base):
        raise FileNotFoundError(f"not a folder: {base}")
    config = config or ProjectConfig()
    specs = list(languages)
    mapping = extension_map(specs, config.extensions, config.source)
    excluded: list[Excluded] = []
    listed = _git_files(base, excluded)
    git = listed is not None
    entries: dict[str, os.DirEntry[str]] = {}  # outside git: each file's entry in the walk's listing
    if listed is None:
        listed = _walk(base, excluded, entries)
    ignore = None
    if config.ignore:
        import pathspec

        ignore = pathspec.GitIgnoreSpec.from_lines(config.ignore)
    # a virtual environment in the tree (a folder with pyvenv.cfg) is dependency code, not the
    # project's: its packages are units (projectgraph.units), git may still list it
    environments = tuple(
        rel[: -len(marker)]
        for rel in listed
        if rel.endswith(_MARKER_ENDINGS)  # (one test for most paths: no marker)
        for marker in _MARKERS
        if rel.endswith("/" + marker) and (marker != GO_VENDOR_MARKER[7:] or _is_go_vendor(rel))
    )
    interpreters = interpreter_map(specs)
    unclaimed: dict[str, int] = {}
    files: list[SourceFile] = []
    for rel in listed:
        if "/" in rel and not _SKIPPED_FOLDERS.isdisjoint(rel.split("/")[:-1]):
            continue
        if environments and rel.startswith(environments):
            continue
        language = language_of(rel, mapping)
        script = False
        entry = entries.get(rel)
        if language is None:
            by_shebang, why = _script(base, rel, interpreters, entry)
            if by_shebang is None:
                ext = _extension(rel)
                unclaimed[ext] = unclaimed.get(ext, 0) + 1
                if why:
                    excluded.append(Excluded(_printable(rel), why))
                continue
            language, script = by_shebang, True
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            excluded.append(Excluded(_printable(rel), "file name is not valid UTF-8", error=True))
            continue
        if ignore is not None and ignore.match_file(rel):
            excluded.append(Excluded(rel, "ignored by the project configuration"))
            continue
        if rel.endswith(GENERATED_DART):
            excluded.append(Excluded(rel, "generated Dart"))
            continue
        # a regular file as the walk listed it (no link: the listing's type, no stat) is inside
        outside = None if entry is not None and _is_regular(entry) else _outside_root(base, rel)
        if outside is not None:
            excluded.append(Excluded(rel, outside))
            continue
        flags = ("minified",) if rel.endswith(MINIFIED_NAMES) else (SCRIPT,) if script else ()
        files.append(SourceFile(rel, language, flags))
    return Discovery(
        root=str(base),
        files=tuple(sorted(files)),
        excluded=tuple(sorted(set(excluded))),
        git=git,
        unclaimed=tuple(sorted(unclaimed.items())),
    )


def _is_regular(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


_MARKERS = (VENV_MARKER, CRATE_MARKER, GO_VENDOR_MARKER[7:])
_MARKER_ENDINGS = tuple(f"/{marker}" for marker in _MARKERS)
_SKIPPED_FOLDERS = ALWAYS_SKIPPED_DIRS | {NODE_MODULES}


def _script(
    root: Path, rel: str, interpreters: Mapping[str, str], entry: os.DirEntry[str] | None = None
) -> tuple[str | None, str]:
    """The language of a file no extension claims, from its shebang line: (language, "") for a
    script, (None, why) for a file to list as excluded, (None, "") for one only counted. Only a file
    with no extension or with the executable bit is read, so a tree of data files costs a stat each
    (the walk's ``entry`` makes it: the same lstat, without building the path again)."""
    try:
        st = entry.stat(follow_symlinks=False) if entry is not None else os.lstat(os.path.join(root, rel))
    except FileNotFoundError:
        return None, ""  # (as _outside_root's "deleted": only counted)
    except OSError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        if _extension(rel) and not st.st_mode & 0o111:
            return None, ""  # (the common case: a data file, no Path made)
    else:
        outside = _outside_by_mode(root, rel, st) if st is not None else None
        if outside is not None:  # a folder git lists is a submodule or a nested repository: say so
            return None, (outside if outside == _NESTED_REPOSITORY else "")
    full = root / rel
    if _extension(rel):
        try:
            mode = st.st_mode if st is not None and stat.S_ISREG(st.st_mode) else full.stat().st_mode
            if not mode & 0o111:
                return None, ""
        except OSError:
            return None, ""
    head = _head(full)
    if not head:
        return None, ""
    interpreter = shebang_interpreter(head)
    if interpreter is None:
        return (None, "binary (no language)") if b"\0" in head else (None, "")
    language = script_language(interpreter, interpreters)
    if language is None:
        return None, f"script for {interpreter} (no language parses it)"
    return language, ""
