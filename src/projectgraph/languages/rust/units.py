"""Rust units: the crates of Cargo.lock, from ``vendor/`` or a cargo registry's sources.

A unit is the code of one crate version, named ``cargo:<name>@<version>`` (``cargo:serde@1.0.210``,
the name as Cargo.lock spells it). Cargo.lock (at the project root, else at the first folder below
it that holds one) lists each package with its version; a package with no ``source`` is a member
of the workspace, project code. The crate's folder is the first of:

- the vendor folder: ``[source.*] directory`` of ``.cargo/config.toml`` (or ``.cargo/config``),
  else ``vendor/``, as ``<name>-<version>`` or ``<name>`` (``cargo vendor`` writes the latest
  version of a crate without its version) whose Cargo.toml has the version;
- ``$CARGO_HOME/registry/src/*/<name>-<version>`` (``~/.cargo`` by default);
- ``/usr/share/cargo/registry/<name>-<version>``, where Debian's ``librust-*-dev`` packages put
  crate sources;
- for a git dependency, cargo's checkout (``$CARGO_HOME/git/checkouts/<repo>-<hash>/<rev>/``, the
  crate at its top or in a workspace folder below it) whose Cargo.toml has the name and version.

A crate with no folder on this machine is no unit: a call into it stays an external key, and its
sites say no-dependency-source. A unit's files are the ``.rs`` files of its lib target's folder
(``[lib] path``, else ``src/lib.rs``: the folder of the crate root and every folder under it);
tests, benches, examples and ``build.rs`` are never part of what another crate calls. Paths are
relative to the unit root and use ``/``. The linker reads the unit's Cargo.toml for its crate
name and its own dependencies (with their renames).

A unit gives its crate name as code writes it (``[lib] name``, ``-`` read as ``_``) and the names
the project's Cargo.toml files rename it to (``helper = { package = "kit" }``: the unit of kit
gives ``helper`` too); it requires the units of its Cargo.lock dependencies. ``DIR=cargo:<name>@
<version>`` names a crate folder, ``DIR=cargo`` a folder of crates (a vendor folder, a registry's
``src``) read per Cargo.lock.
"""

from __future__ import annotations

import os
import posixpath
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from projectgraph import safefs
from projectgraph.languages import language
from projectgraph.units import DepsConfig, DepsError, Unit, split_name, tree

ECOSYSTEMS = language("rust").ecosystems  # as its language's record says
LANGUAGES = ("rust",)
DEBIAN_REGISTRY = Path("/usr/share/cargo/registry")
_NOT_PROJECT = frozenset(("vendor", "target", "node_modules"))
# folders of the other targets (binaries, tests, benches, examples) and of build output
_NOT_LIB = frozenset(("src/bin", "bin", "tests", "benches", "examples", "target"))


@dataclass(frozen=True)
class Locked:
    """A package of Cargo.lock that comes from a registry or git, and what it depends on."""

    name: str
    version: str
    dependencies: tuple[tuple[str, str], ...]  # (name, version or "" when Cargo.lock leaves it out)
    git: bool = False  # a git dependency: its source is a checkout, not a registry's


def discover(project_root: Path, config: DepsConfig) -> list[Unit]:
    """The Rust units ``config`` asks for (see the module docstring)."""
    base = Path(project_root)
    found: dict[str, Unit] = {}
    lock = _lock_file(base) if (config.auto or config.named) else None
    packages = locked_packages(lock) if lock is not None else []
    if config.auto and lock is not None:
        vendors = vendor_folders(lock.parent, base)
        registries = registry_folders()
        checkouts = git_checkouts() if any(p.git for p in packages) else {}
        for package in packages:
            root = crate_folder(package.name, package.version, vendors, registries)
            if root is None and package.git:
                root = checkouts.get((package.name, package.version))
            unit = crate_unit(package.name, package.version, root) if root is not None else None
            if unit is not None:
                found.setdefault(unit.name, unit)
    for named, what in config.named:
        if what.partition(":")[0] not in ECOSYSTEMS:
            continue
        folder = Path(named)
        if ":" in what:
            _ecosystem, name, version = split_name(what)
            unit = crate_unit(name, version, folder)
            if unit is None:
                raise DepsError(
                    f"--deps {folder}={what}: no lib crate (Cargo.toml and its lib root) in {folder}"
                )
            found[unit.name] = unit
            continue
        # a folder of crates (a vendor folder, a registry's src): the packages of Cargo.lock in it
        served = 0
        for package in packages:
            root = crate_folder(package.name, package.version, [folder], [folder])
            unit = crate_unit(package.name, package.version, root) if root is not None else None
            if unit is not None:
                found[unit.name] = unit
                served += 1
        if not served and not any(os.path.isfile(child / "Cargo.toml") for child in _children(folder)):
            raise DepsError(
                f"--deps {folder}=cargo: no crate folder (<name>-<version>/Cargo.toml) in {folder}"
            )
    renames = renamed_dependencies(lock.parent if lock is not None else base)
    for name, unit in list(found.items()):
        written = renames.get(unit.package)
        if written:
            found[name] = replace(unit, provides=tuple(sorted({*unit.provides, *written})))
    by_package = {(u.package, u.version): u.name for u in found.values()}
    latest = {u.package: u.name for u in sorted(found.values())}
    requires: dict[str, tuple[str, ...]] = {}
    for package in packages:
        unit_of = by_package.get((package.name, package.version))
        if unit_of is None:
            continue
        needed = {
            by_package.get((dep, version)) if version else latest.get(dep)
            for dep, version in package.dependencies
        }
        requires[unit_of] = tuple(sorted(n for n in needed if n is not None and n != unit_of))
    return [replace(found[key], requires=requires.get(key, ())) for key in sorted(found)]


def crate_unit(name: str, version: str, root: Path) -> Unit | None:
    """The unit of the crate in ``root``: its lib target's files, the crate name code writes."""
    files = lib_files(root)
    if not files:
        return None
    return Unit.of(
        "cargo",
        name,
        version,
        LANGUAGES,
        str(root.resolve()),
        files,
        (lib_name(root) or name.replace("-", "_"),),
    )


def locked_packages(lock: Path) -> list[Locked]:
    """Each package of a Cargo.lock that comes from a registry or git (not a workspace member)."""
    try:
        data = tomllib.loads(safefs.read_text(lock))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    out: dict[tuple[str, str], Locked] = {}
    for package in data.get("package") or []:
        if not isinstance(package, dict):
            continue
        name, version, source = package.get("name"), package.get("version"), package.get("source")
        if isinstance(name, str) and isinstance(version, str) and isinstance(source, str):
            dependencies = []
            for written in package.get("dependencies") or []:
                if isinstance(written, str) and written.split():
                    parts = written.split()
                    dependencies.append((parts[0], parts[1] if len(parts) > 1 else ""))
            out[(name, version)] = Locked(name, version, tuple(dependencies), source.startswith("git+"))
    return [out[slot] for slot in sorted(out)]


def renamed_dependencies(folder: Path) -> dict[str, set[str]]:
    """Package name -> the names the project's Cargo.toml files give it (``helper = { package =
    "kit" }``: kit -> helper), so a unit of kit gives the paths the project writes with helper."""
    found: dict[str, set[str]] = {}
    for where, _, filenames in tree.walked(folder, _NOT_PROJECT.__contains__):
        if "Cargo.toml" not in filenames:
            continue
        try:
            data = tomllib.loads(safefs.read_text(folder / where / "Cargo.toml"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        for table in _dependency_tables(data):
            for written, spec in table.items():
                real = spec.get("package") if isinstance(spec, dict) else None
                if isinstance(real, str) and real != written:
                    found.setdefault(real, set()).add(written.replace("-", "_"))
    return found


def _dependency_tables(data: dict[str, Any]) -> list[dict[str, Any]]:
    tables: list[dict[str, Any]] = []
    holders = [data, *[t for t in (data.get("target") or {}).values() if isinstance(t, dict)]]
    workspace = data.get("workspace")
    if isinstance(workspace, dict):
        holders.append(workspace)
    for holder in holders:
        for name in ("dependencies", "dev-dependencies", "build-dependencies"):
            table = holder.get(name)
            if isinstance(table, dict):
                tables.append(table)
    return tables


def lib_name(root: Path) -> str:
    """``[lib] name`` of a crate's Cargo.toml, else its package name, as code writes it."""
    try:
        data = tomllib.loads(safefs.read_text(root / "Cargo.toml"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return ""
    for table in (data.get("lib"), data.get("package")):
        if isinstance(table, dict) and isinstance(table.get("name"), str):
            return str(table["name"]).replace("-", "_")
    return ""


def _children(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if os.path.isdir(p))
    except OSError:
        return []


def vendor_folders(folder: Path, base: Path) -> list[Path]:
    """The folders that ``.cargo/config.toml`` replaces a source with, then ``vendor/``."""
    found: list[Path] = []
    for where in dict.fromkeys((folder, base)):
        for config in (where / ".cargo" / "config.toml", where / ".cargo" / "config"):
            try:
                data = tomllib.loads(safefs.read_text(config))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
            for source in (data.get("source") or {}).values():
                if isinstance(source, dict) and isinstance(source.get("directory"), str):
                    found.append((where / source["directory"]).resolve())
        found.append(where / "vendor")
    return [path for path in dict.fromkeys(found) if os.path.isdir(path)]


def registry_folders() -> list[Path]:
    """``$CARGO_HOME/registry/src/*`` (``~/.cargo`` by default), then Debian's crate registry."""
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    found: list[Path] = []
    source = home / "registry" / "src"
    if os.path.isdir(source):
        found += sorted(p for p in source.iterdir() if os.path.isdir(p))
    if os.path.isdir(DEBIAN_REGISTRY):
        found.append(DEBIAN_REGISTRY)
    return found


def git_checkouts() -> dict[tuple[str, str], Path]:
    """(name, version) -> folder of each crate in cargo's git checkouts
    (``$CARGO_HOME/git/checkouts/<repo>-<hash>/<rev>/``, the crate at the top or in a workspace
    folder up to two levels down)."""
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    found: dict[tuple[str, str], Path] = {}
    checkouts = home / "git" / "checkouts"
    for revision in sorted(checkouts.glob("*/*")) if os.path.isdir(checkouts) else ():
        for where, names, filenames in os.walk(revision):
            depth = len(Path(where).relative_to(revision).parts)
            names[:] = (
                [] if depth >= 2 else sorted(n for n in names if not n.startswith(".") and n != "target")
            )
            if "Cargo.toml" in filenames:
                manifest = _manifest_version(Path(where))
                if manifest is not None:
                    found.setdefault(manifest, Path(where))
    return found


def crate_folder(name: str, version: str, vendors: list[Path], registries: list[Path]) -> Path | None:
    """The folder of ``name@version``: a vendor folder first, then the registries."""
    for vendor in vendors:
        for candidate in (vendor / f"{name}-{version}", vendor / name):
            if _manifest_version(candidate) == (name, version):
                return candidate
    for registry in registries:
        candidate = registry / f"{name}-{version}"
        if os.path.isfile(candidate / "Cargo.toml"):
            return candidate
    return None


def lib_files(root: Path) -> tuple[str, ...]:
    """The .rs files of a crate's lib target: the crate root's folder and the folders under it."""
    lib = "src/lib.rs"
    try:
        data = tomllib.loads(safefs.read_text(root / "Cargo.toml"))
        table = data.get("lib") or {}
        if isinstance(table, dict) and isinstance(table.get("path"), str):
            lib = posixpath.normpath(table["path"])
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        pass
    if not os.path.isfile(root / lib):
        return ()
    folder = posixpath.dirname(lib)
    start = root / folder if folder else root
    files: list[str] = []
    for where, names, filenames in os.walk(start):
        relative = Path(where).relative_to(root).as_posix()
        prefix = "" if relative == "." else relative + "/"
        names[:] = sorted(n for n in names if not n.startswith(".") and prefix + n not in _NOT_LIB)
        for filename in filenames:
            if filename.endswith(".rs") and (folder or relative != "." or filename != "build.rs"):
                files.append(filename if relative == "." else f"{relative}/{filename}")
    return tuple(sorted(files))


def _manifest_version(folder: Path) -> tuple[str, str] | None:
    try:
        data = tomllib.loads(safefs.read_text(folder / "Cargo.toml"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    package = data.get("package") or {}
    if not isinstance(package, dict):
        return None
    name, version = package.get("name"), package.get("version")
    return (name, version) if isinstance(name, str) and isinstance(version, str) else None


def _lock_file(base: Path) -> Path | None:
    if os.path.isfile(base / "Cargo.lock"):
        return base / "Cargo.lock"
    for folder, _, filenames in tree.walked(base, _NOT_PROJECT.__contains__):
        if "Cargo.lock" in filenames:
            return base / folder / "Cargo.lock"
    return None
