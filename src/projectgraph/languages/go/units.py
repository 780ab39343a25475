"""Go units: the standard library, the modules of ``vendor/``, and the module cache.

A unit is the code of one module version, named ``go:<module path>@<version>``:

- ``go:std@<version>``, with ``--deps stdlib`` (auto leaves it out, as Python's: two thousand
  files to index on a cold run) or named (``--deps $(go env GOROOT)/src=go:std@go1.22.2``):
  ``GOROOT/src``, the GOROOT being ``$GOROOT``, else the go command's env file's, else the folder
  above the ``bin/`` of the go binary on the PATH, which is what ``go env GOROOT`` says (read from
  files: a discoverer starts no process); its version from ``GOROOT/VERSION`` (or
  ``internal/goversion`` of a source tree alone, as ``go1.19``). It gives each import path whose
  first element has no dot (``net/http``); its ``cmd`` module, which no program imports, is left
  out, and its own ``vendor/`` packages are its code under no import path of a program.
- ``vendor/`` of a module, per ``vendor/modules.txt``: each ``# <path> <version>`` block is a unit
  holding the package folders listed under it (``go mod vendor`` copies only those), as
  ``go:golang.org/x/net@v0.61.0`` with root ``vendor/golang.org/x/net``. A replacement
  (``# a v1 => b v2``) is the module ``b`` at ``v2``; one with a local folder is project code.
- the module cache (``$GOMODCACHE``, else ``$GOPATH/pkg/mod``, else ``~/go/pkg/mod``), when the
  module has no ``vendor/``: each module that go.mod requires (``// indirect`` ones too) and each
  that go.sum holds a source hash of, at ``<escaped path>@<version>`` (``!`` before a capital). A
  module only go.sum names is taken at its highest version the cache holds (go.sum keeps versions
  that the build no longer selects); one of go.mod is a unit only when the cache holds it.
- a workspace's ``vendor/`` (``go work vendor``: a go.work with ``vendor/modules.txt`` beside it)
  as a module's, for every module of the workspace.

A unit's files are the ``.go`` files a default build can read: never a ``_test.go`` file, a
``testdata`` folder, a folder with a go.mod of its own (another module), nor a file whose
``//go:build`` constraint needs ``ignore`` or a tag the go command never sets (``purego``), which
``Unit.excluded`` lists. Every GOOS and GOARCH is kept. Paths are relative to the unit root and
use ``/``. A unit gives the import paths of its packages (``provides``); each unit but the
standard library requires it. ``DIR=go`` names a vendor folder, a GOROOT, or a module cache read
per the project's go.mod files.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from projectgraph import safefs
from projectgraph.languages import language
from projectgraph.languages.go import constraints
from projectgraph.units import DepsConfig, DepsError, Unit, split_name, tree

ECOSYSTEMS = language("go").ecosystems  # as its language's record says
LANGUAGES = ("go",)
_PACKAGE_CLAUSE = re.compile(rb"^package[ \t]", re.MULTILINE)
_HEAD_BYTES = 16 * 1024
_NOT_PROJECT = frozenset(("vendor", "testdata", "node_modules"))
_GOVERSION = re.compile(r"const\s+Version\s*=\s*(\d+)")
_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.MULTILINE)
_REQUIRE_BLOCK = re.compile(r"^\s*require\s*\(\s*$(.*?)^\s*\)", re.MULTILINE | re.DOTALL)
_REQUIRE_LINE = re.compile(r"^\s*require\s+(\S+)\s+(v\S+)", re.MULTILINE)
_MODULE_VERSION = re.compile(r"^\s*(\S+)\s+(v[^\s/]+)")
_REPLACE_BLOCK = re.compile(r"^\s*replace\s*\(\s*$(.*?)^\s*\)", re.MULTILINE | re.DOTALL)
_REPLACE_LINE = re.compile(r"^\s*replace\s+(.*=>.*)$", re.MULTILINE)


def discover(project_root: Path, config: DepsConfig) -> list[Unit]:
    """The Go units ``config`` asks for (see the module docstring)."""
    base = Path(project_root)
    found: dict[str, Unit] = {}
    go_mods = _go_mods(base) if (config.auto or config.stdlib or config.named) else []
    is_go = bool(go_mods) or ((config.auto or config.stdlib) and _has_go_files(base))
    if config.stdlib and is_go:
        root = goroot()
        std = standard_library(root) if root is not None else None
        if std is not None:
            found[std.name] = std
    if config.auto:
        cache = module_cache()
        # a workspace (go.work) vendors its modules' dependencies at its own root (go work vendor)
        workspace = _workspace_vendor(base, go_mods)
        for unit in vendored_modules(workspace) if workspace is not None else ():
            found.setdefault(unit.name, unit)
        for go_mod in go_mods:
            folder = go_mod.parent
            if os.path.isfile(folder / "vendor" / "modules.txt"):
                for unit in vendored_modules(folder / "vendor"):
                    found.setdefault(unit.name, unit)
            elif cache is not None and workspace is None:
                for unit in cached_modules(cache, required_modules(folder)):
                    found.setdefault(unit.name, unit)
    for named, what in config.named:
        if what.partition(":")[0] not in ECOSYSTEMS:
            continue
        for unit in named_units(Path(named), what, go_mods):
            found[unit.name] = unit
    units = [found[name] for name in sorted(found)]
    std_names = tuple(u.name for u in units if u.package == "std")
    return [
        unit
        if unit.package == "std" or not std_names
        else replace(unit, requires=tuple(sorted({*unit.requires, *std_names})))
        for unit in units
    ]


def named_units(folder: Path, what: str, go_mods: Sequence[Path] = ()) -> list[Unit]:
    """``DIR=go:std@go1.22.2`` (a GOROOT or its src), ``DIR=go:<module>@<version>`` (a module
    folder), or ``DIR=go``: a vendor folder, a GOROOT, or a module cache read per the project's
    go.mod files."""
    if ":" in what:
        _ecosystem, package, version = split_name(what)
        if package == "std":
            source = folder / "src" if os.path.isfile(folder / "src" / "go.mod") else folder
            files, excluded = module_files(source, skip=("cmd",))
            if not files:
                raise DepsError(f"--deps {folder}={what}: no Go source file in {source}")
            return [_unit("std", version, source, files, excluded, _std_packages(files))]
        files, excluded = module_files(folder)
        if not files:
            raise DepsError(f"--deps {folder}={what}: no Go source file in {folder}")
        return [_unit(package, version, folder, files, excluded, _packages(package, files))]
    if os.path.isfile(folder / "modules.txt"):
        return vendored_modules(folder)
    if os.path.isfile(folder / "src" / "go.mod") or _module_path(folder / "go.mod") == "std":
        std = standard_library(folder if os.path.isdir(folder / "src") else folder.parent)
        if std is None:
            raise DepsError(f"--deps {folder}=go: no Go standard library in {folder}")
        return [std]
    requirements = [r for go_mod in go_mods for r in required_modules(go_mod.parent)]
    units = cached_modules(folder, requirements)
    if not units and not _looks_like_cache(folder):
        raise DepsError(
            f"--deps {folder}=go: neither a vendor folder (modules.txt), a GOROOT nor a module cache"
        )
    return units


def _workspace_vendor(base: Path, go_mods: Sequence[Path]) -> Path | None:
    """The vendor folder of a go.work at the project root or above a go.mod, if it has modules.txt."""
    for folder in dict.fromkeys([base, *(m.parent.parent for m in go_mods)]):
        if os.path.isfile(folder / "go.work") and os.path.isfile(folder / "vendor" / "modules.txt"):
            return folder / "vendor"
    return None


def _looks_like_cache(folder: Path) -> bool:
    """A module cache: its ``cache/download`` folder, or a ``<path>@<version>`` folder near its top."""
    if os.path.isdir(folder / "cache" / "download"):
        return True
    return any(any(folder.glob("/".join(["*"] * depth) + "@*")) for depth in range(0, 4))


def _unit(
    module: str,
    version: str,
    root: Path,
    files: Sequence[str],
    excluded: Sequence[str],
    provides: Sequence[str],
) -> Unit:
    return Unit.of(
        "go",
        module,
        version,
        LANGUAGES,
        str(root.resolve()),
        tuple(sorted(files)),
        tuple(sorted(provides)),
        excluded=tuple(sorted(excluded)),
    )


def _packages(module: str, files: Iterable[str]) -> list[str]:
    """The import paths of the packages of a module's files."""
    folders = {posixpath.dirname(f) for f in files}
    return sorted(f"{module}/{folder}" if folder else module for folder in folders)


def _std_packages(files: Iterable[str]) -> list[str]:
    """The import paths the standard library gives: its folders, less its own vendor/."""
    folders = {posixpath.dirname(f) for f in files}
    return sorted(f for f in folders if f and not f.startswith("vendor/") and f != "vendor")


def _module_path(go_mod: Path) -> str:
    try:
        text = safefs.read_text(go_mod, errors="replace")
    except OSError:
        return ""
    match = _MODULE_LINE.search(text)
    return match.group(1) if match else ""


# ---- the standard library --------------------------------------------------------------------


def goroot() -> Path | None:
    """``$GOROOT``; else the GOROOT of the go command's env file; else the folder above the
    ``bin/`` of the go binary on the PATH, as ``go env GOROOT`` gives it (read from files: a
    discoverer starts no process)."""
    env = os.environ.get("GOROOT") or _go_env("GOROOT")
    if env:
        return Path(env)
    go = shutil.which("go")
    if go is None:
        return None
    binary = Path(go).resolve()
    root = binary.parent.parent
    return root if os.path.isdir(root / "src") else None


def _go_env(name: str) -> str:
    """A value of the go command's env file (``go env -w``): ``$GOENV``, else ``~/.config/go/env``."""
    path = Path(os.environ.get("GOENV") or Path.home() / ".config" / "go" / "env")
    try:
        text = safefs.read_text(path, errors="replace")
    except OSError:
        return ""
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == name:
            return value.strip()
    return ""


def go_version(root: Path) -> str:
    """The version of a GOROOT: the first line of VERSION (``go1.22.2``), else ``go1.N`` of
    ``src/internal/goversion`` (a source tree alone, as Debian's golang-src), else ``unknown``."""
    try:
        first = safefs.read_text(root / "VERSION", errors="replace").splitlines()[0].strip()
        if first:
            return first
    except (OSError, IndexError):
        pass
    try:
        text = safefs.read_text(root / "src" / "internal" / "goversion" / "goversion.go")
    except OSError:
        return "unknown"
    match = _GOVERSION.search(text)
    return f"go1.{match.group(1)}" if match else "unknown"


def standard_library(root: Path) -> Unit | None:
    """The unit ``go:std@<version>`` of a GOROOT, with its ``cmd`` module left out."""
    source = root / "src"
    if _module_path(source / "go.mod") != "std" and not os.path.isdir(source / "runtime"):
        return None
    files, excluded = module_files(source, skip=("cmd",))
    if not files:
        return None
    return _unit("std", go_version(root), source, files, excluded, _std_packages(files))


# ---- vendor/ ---------------------------------------------------------------------------------


def vendored_modules(vendor: Path) -> list[Unit]:
    """A unit per module block of ``vendor/modules.txt``, holding the package folders it lists."""
    try:
        text = safefs.read_text(vendor / "modules.txt", errors="replace")
    except OSError:
        return []
    blocks: list[tuple[str, str, list[str]]] = []  # (module path, version, packages)
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("## ") or not line:
            continue
        if line.startswith("# "):
            parts = line[2:].split()
            if "=>" in parts:  # a replacement: the module that stands in, unless it is a folder
                arrow = parts.index("=>")
                target = parts[arrow + 1 :]
                if not target or target[0].startswith((".", "/")) or len(target) < 2:
                    blocks.append(("", "", []))
                    continue
                written = parts[0]
                blocks.append((written, target[1], []))
                continue
            if len(parts) >= 2:
                blocks.append((parts[0], parts[1], []))
            else:
                blocks.append(("", "", []))
        elif blocks and blocks[-1][0]:
            blocks[-1][2].append(line)
    units: list[Unit] = []
    for path, version, packages in blocks:
        if not path or not packages:
            continue
        root = vendor / path
        files: list[str] = []
        excluded: list[str] = []
        for package in packages:
            if package != path and not package.startswith(path + "/"):
                continue
            relative = package[len(path) + 1 :] if package != path else ""
            inside, left_out = _package_files(root / relative if relative else root)
            files += [f"{relative}/{name}" if relative else name for name in inside]
            excluded += [f"{relative}/{name}" if relative else name for name in left_out]
        if files:
            units.append(_unit(path, version, root, files, excluded, _packages(path, files)))
    return units


# ---- the module cache ------------------------------------------------------------------------


def module_cache() -> Path | None:
    """``$GOMODCACHE``, else the first GOPATH entry's ``pkg/mod``, else ``~/go/pkg/mod``."""
    env = os.environ.get("GOMODCACHE")
    if env:
        return Path(env)
    gopath = os.environ.get("GOPATH", "")
    first = gopath.split(os.pathsep)[0] if gopath else ""
    cache = Path(first) / "pkg" / "mod" if first else Path.home() / "go" / "pkg" / "mod"
    return cache if os.path.isdir(cache) else None


def escape_module_path(path: str) -> str:
    """The module cache's spelling of a path: ``!`` and the lower case for each capital."""
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in path)


def required_modules(folder: Path) -> list[tuple[str, str]]:
    """(path, version) of each module that go.mod requires or go.sum holds a source hash of, with
    go.mod's replacements by another module applied (a replacement by a folder is project code)."""
    found: dict[str, str] = {}
    try:
        text = safefs.read_text(folder / "go.mod", errors="replace")
    except OSError:
        text = ""
    text = re.sub(r"//.*", "", text)
    for block in _REQUIRE_BLOCK.findall(text):
        for line in block.splitlines():
            match = _MODULE_VERSION.match(line)
            if match:
                found[match.group(1)] = match.group(2)
    for path, version in _REQUIRE_LINE.findall(text):
        found[path] = version
    try:
        sums = safefs.read_text(folder / "go.sum", errors="replace")
    except OSError:
        sums = ""
    summed: dict[str, list[str]] = {}
    for line in sums.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not parts[1].endswith("/go.mod") and parts[0] not in found:
            summed.setdefault(parts[0], []).append(parts[1])  # go.mod's selected version wins
    replaced = _replacements(text)
    candidates = [(path, [version]) for path, version in found.items()]
    # a module only go.sum names: its versions, the highest first (the one a build would select)
    candidates += [
        (path, sorted(set(versions), key=_semver, reverse=True)) for path, versions in summed.items()
    ]
    out: list[tuple[str, str]] = []
    for path, versions in sorted(candidates):
        for version in versions:
            target = replaced.get((path, version)) or replaced.get((path, ""))
            if target is None:
                out.append((path, version))
            elif target[1]:  # another module at a version
                out.append(target)
    return out


def _semver(version: str) -> tuple[tuple[int, ...], int, str]:
    """A sort key of a module version: v1.10.0 after v1.9.2, a pre-release before its release."""
    core, _, pre = version.lstrip("v").partition("+")[0].partition("-")
    numbers = tuple(int(n) if n.isdigit() else 0 for n in core.split("."))
    return numbers, 0 if pre else 1, pre


def _replacements(text: str) -> dict[tuple[str, str], tuple[str, str]]:
    lines = [line for block in _REPLACE_BLOCK.findall(text) for line in block.splitlines()]
    lines += _REPLACE_LINE.findall(text)
    table: dict[tuple[str, str], tuple[str, str]] = {}
    for line in lines:
        left, arrow, right = line.partition("=>")
        if not arrow:
            continue
        old, new = left.split(), right.split()
        if not old or not new:
            continue
        source = (old[0], old[1] if len(old) > 1 else "")
        table[source] = (new[0], new[1]) if len(new) > 1 and not new[0].startswith((".", "/")) else ("", "")
    return table


def cached_modules(cache: Path, requirements: Iterable[tuple[str, str]]) -> list[Unit]:
    """The unit of each ``path@version`` that the module cache holds, each requiring the others it
    holds of its own go.mod."""
    units: dict[str, Unit] = {}
    for path, version in requirements:
        if path in units:  # a higher version of a module only go.sum names was there
            continue
        root = cache / f"{escape_module_path(path)}@{version}"
        if not os.path.isdir(root):
            continue
        files, excluded = module_files(root)
        if files:
            units[path] = _unit(path, version, root, files, excluded, _packages(path, files))
    out = []
    for path, unit in sorted(units.items()):
        needed = {units[p].name for p, _ in required_modules(Path(unit.root)) if p in units and p != path}
        out.append(replace(unit, requires=tuple(sorted(needed))))
    return out


# ---- files -----------------------------------------------------------------------------------


def module_files(root: Path, skip: Sequence[str] = ()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The .go files a default build can read under a module root, and those a constraint leaves
    out; a nested module (a folder with its own go.mod), ``testdata``, hidden and ``_`` folders
    and the top-level folders of ``skip`` are not walked."""
    files: list[str] = []
    excluded: list[str] = []
    for folder, names, filenames in os.walk(root):
        here = Path(folder)
        relative = here.relative_to(root).as_posix()
        relative = "" if relative == "." else relative
        keep = []
        for name in names:
            if name == "testdata" or name.startswith((".", "_")):
                continue
            if not relative and name in skip:
                continue
            if os.path.exists(here / name / "go.mod"):
                continue
            keep.append(name)
        names[:] = sorted(keep)
        inside, left_out = _split_files(here, filenames)
        files += [f"{relative}/{n}" if relative else n for n in inside]
        excluded += [f"{relative}/{n}" if relative else n for n in left_out]
    return tuple(sorted(files)), tuple(sorted(excluded))


def _package_files(folder: Path) -> tuple[list[str], list[str]]:
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.is_file()]
    except OSError:
        return [], []
    return _split_files(folder, names)


def _split_files(folder: Path, names: Iterable[str]) -> tuple[list[str], list[str]]:
    inside: list[str] = []
    left_out: list[str] = []
    for name in sorted(names):
        if not name.endswith(".go") or name.endswith("_test.go") or name.startswith((".", "_")):
            continue
        (left_out if build_excluded(folder / name) else inside).append(name)
    return inside, left_out


def build_excluded(path: Path) -> bool:
    """Whether the file's ``//go:build`` header keeps every default build from reading it."""
    try:
        head = safefs.read_head(path, _HEAD_BYTES)
    except OSError:
        return False
    clause = _PACKAGE_CLAUSE.search(head)
    return constraints.excluded(head[: clause.start()] if clause else head)


def _go_mods(base: Path) -> list[Path]:
    """The go.mod files of the project: at the root, and in folders up to ``tree.DEPTH`` below it
    (a workspace's modules), not in vendor/, testdata, node_modules or hidden folders."""
    skip = lambda name: name in _NOT_PROJECT or name.startswith("_")  # noqa: E731
    return [base / rel / "go.mod" for rel, _, filenames in tree.walked(base, skip) if "go.mod" in filenames]


def _has_go_files(base: Path) -> bool:
    """Whether a .go file is at the root or up to ``tree.DEPTH`` folders below it."""
    for _, _, filenames in tree.walked(base, _NOT_PROJECT.__contains__):
        if any(name.endswith(".go") for name in filenames):
            return True
    return False
