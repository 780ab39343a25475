"""npm units: the packages of a project's ``node_modules``, each package version one unit.

Auto discovery reads ``<project>/node_modules``: each folder with a package.json that has a string
``name`` and ``version`` is the unit ``npm:<name>@<version>`` (``npm:lodash@4.17.21``,
``npm:@babel/core@7.24.0``), scoped folders (``@scope/name``) included. A package's own
``node_modules`` holds the versions npm could not hoist (``send/node_modules/ms``): each of them is a
unit of its own, and never part of the files of the package around it. A symlinked package (a pnpm
layout, an ``npm link``) is read at its target; one folder is read once. Hidden entries
(``.bin``, ``.cache``, ``.package-lock.json``, pnpm's ``.pnpm`` store) are not packages.

A unit's files are its JavaScript and TypeScript sources, relative to the package folder. Left out,
and listed in ``Unit.excluded`` (never silently; ``package_files`` gives each one's reason): type
declarations (``.d.ts``, ``.d.mts``, ``.d.cts``: they stand for no code), test and example folders
(``test``, ``__tests__``, ``example``, ``benchmark``, ``docs``, ...), ``*.test.js`` / ``*.spec.js``
files and a ``test.js`` or ``tests.js`` at the top, the configuration of the package's own tools at
its top (``eslint.config.mjs``, ``karma.conf.js``, ``Gruntfile.js``), and a minified copy
(``x.min.js``) of a file the package ships unminified (``x.js``). A file that the package.json names
(``main``, ``module``, ``browser``, ``bin``, an ``exports`` target) is always kept.

A unit of a ``node_modules`` folder names it as its ``environment`` when Node finds nothing
outside it (no ``node_modules`` above the project's folder, as a workspace root's hoisted packages,
no ``NODE_PATH``, no ``~/.node_modules``): a package missing from it cannot be loaded, so a call of a
unit's code into it cannot run (a devDependency of a build script, an optional dependency).

``requires`` follows Node's resolution: each name of ``dependencies``, ``optionalDependencies`` and
``peerDependencies`` is looked up in the ``node_modules`` folders from the package's own up to the
project's, so ``send`` requires the ``ms`` nested in it, and ``debug`` the hoisted one.

Named folders: ``DIR=npm`` reads DIR as a ``node_modules`` folder; ``DIR=npm:name@1.0.0`` makes DIR
(a package folder) that one unit.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph import safefs
from projectgraph.languages import language
from projectgraph.units import DepsConfig, DepsError, Unit, split_name, unit_name

ECOSYSTEMS = language("javascript").ecosystems  # as its language's record says
_LANGUAGE_OF = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
}
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
_MINIFIED = (".min.js", ".min.mjs", ".min.cjs")
# folders of a package that hold no code a dependent runs, by the reason they are left out
_SKIPPED_FOLDERS = {
    "test": "tests",
    "tests": "tests",
    "__tests__": "tests",
    "__mocks__": "tests",
    "spec": "tests",
    "specs": "tests",
    "example": "examples",
    "examples": "examples",
    "demo": "examples",
    "demos": "examples",
    "benchmark": "benchmarks",
    "benchmarks": "benchmarks",
    "bench": "benchmarks",
    "doc": "docs",
    "docs": "docs",
    "coverage": "tests",
}
_TEST_SUFFIXES = tuple(f"{kind}{ext}" for kind in (".test", ".spec") for ext in _LANGUAGE_OF)
# the configuration of a package's own build and test tools, at its top (eslint.config.mjs,
# karma.conf.js, Gruntfile.js): no dependent loads it
_TOOL_CONFIGS = tuple(
    f"{stem}."
    for stem in """eslint.config .eslintrc karma.conf Gruntfile gruntfile gulpfile Gulpfile webpack.config
    rollup.config vite.config jest.config babel.config .babelrc prettier.config .prettierrc
    vitest.config tsup.config esbuild.config .mocharc mocha.config .c8rc .nycrc""".split()
)
_DEPENDENCY_TABLES = ("dependencies", "optionalDependencies", "peerDependencies")


@dataclass(frozen=True)
class _Package:
    folder: Path  # the package folder as found (a node_modules/<name> entry)
    real: Path  # its resolved folder
    name: str
    version: str
    manifest: dict[str, Any]


def discover(project_root: Path, config: DepsConfig) -> list[Unit]:
    """The npm units ``config`` asks for (see the module docstring)."""
    units: list[Unit] = []
    if config.auto:
        modules = project_root / "node_modules"
        if os.path.isdir(modules):
            units.extend(node_modules_units(modules))
    for folder, what, _ecosystem in config.named_of(ECOSYSTEMS):
        named = Path(folder)
        if what == "npm":
            if not os.path.isdir(named):
                raise DepsError(f"--deps {folder}=npm: not a folder")
            units.extend(node_modules_units(named))
        else:
            units.append(folder_unit(named, what))
    return units


def node_modules_units(folder: Path) -> list[Unit]:
    """One unit per package of a ``node_modules`` folder and of the ones nested in its packages."""
    packages: list[_Package] = []
    seen: set[Path] = set()
    scanned: set[Path] = set()
    pending = [folder.resolve()]
    while pending:
        current = pending.pop(0)
        if current in scanned:
            continue
        scanned.add(current)
        for package in _packages_in(current, seen):
            packages.append(package)
            pending.append(package.real / "node_modules")
            # a symlinked package (pnpm) finds its dependencies beside its real folder
            beside = package.real.parent.parent if package.name.startswith("@") else package.real.parent
            if beside.name == "node_modules":
                pending.append(beside)
    environment = str(folder.resolve()) if _whole_environment(folder) else ""
    return [_unit(package, _requires(package), environment) for package in packages]


def _whole_environment(folder: Path) -> bool:
    """Whether Node finds every package the code of this ``node_modules`` can load in it: no
    ``node_modules`` in a folder above the project's (a workspace root's hoisted packages), no
    ``NODE_PATH``, no legacy global folder (``~/.node_modules``, ``~/.node_libraries``)."""
    if os.environ.get("NODE_PATH"):
        return False
    home = Path.home()
    if any(os.path.isdir(home / legacy) for legacy in (".node_modules", ".node_libraries")):
        return False
    return not any(os.path.isdir(above / "node_modules") for above in folder.resolve().parent.parents)


def folder_unit(folder: Path, name: str) -> Unit:
    """A named package folder as the one unit ``name``."""
    _ecosystem, package, version = split_name(name)
    if not os.path.isdir(folder):
        raise DepsError(f"--deps {folder}={name}: not a folder")
    manifest = _read_manifest(folder) or {}
    unit = _unit(_Package(folder, folder.resolve(), package, version, manifest), ())
    if not unit.files:
        raise DepsError(f"--deps {folder}={name}: no JavaScript or TypeScript file under {folder}")
    return unit


def _packages_in(folder: Path, seen: set[Path]) -> list[_Package]:
    """The packages directly in a ``node_modules`` folder (``@scope/*`` included), in name order."""
    found: list[_Package] = []
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return found
    candidates: list[Path] = []
    for entry in entries:
        if entry.startswith("."):
            continue
        path = folder / entry
        if entry.startswith("@"):
            try:
                candidates.extend(path / sub for sub in sorted(os.listdir(path)) if not sub.startswith("."))
            except OSError:
                continue
        else:
            candidates.append(path)
    for path in candidates:
        if not os.path.isdir(path):
            continue
        real = path.resolve()
        if real in seen:
            continue
        manifest = _read_manifest(real)
        if manifest is None:
            continue
        name, version = manifest.get("name"), manifest.get("version")
        if not isinstance(name, str) or not isinstance(version, str) or not name or not version:
            continue
        try:
            unit_name("npm", name, version)
        except DepsError:
            continue
        seen.add(real)
        found.append(_Package(path, real, name, version, manifest))
    return found


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(safefs.read_text(folder / "package.json"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _requires(package: _Package) -> tuple[str, ...]:
    """The units of the package's dependencies as Node resolves them from its (real) folder: the
    ``node_modules`` of each folder from the package's own up to the file system's root."""
    names: set[str] = set()
    for table in _DEPENDENCY_TABLES:
        deps = package.manifest.get(table)
        if isinstance(deps, dict):
            names.update(n for n in deps if isinstance(n, str))
    found: set[str] = set()
    folders = [f for f in (package.real, *package.real.parents) if f.name != "node_modules"]
    for dep in sorted(names):
        for folder in folders:
            candidate = folder / "node_modules" / dep
            manifest = _read_manifest(candidate) if os.path.isdir(candidate) else None
            if manifest is None:
                continue
            version = manifest.get("version")
            if isinstance(version, str):
                with contextlib.suppress(DepsError):
                    found.add(unit_name("npm", dep, version))
            break
    own = unit_name("npm", package.name, package.version)
    return tuple(sorted(found - {own}))


def _unit(package: _Package, requires: tuple[str, ...], environment: str = "") -> Unit:
    files, excluded = package_files(package.real, _named_files(package.manifest))
    languages = sorted({_LANGUAGE_OF[_extension(f)] for f in files})
    return Unit.of(
        "npm",
        package.name,
        package.version,
        tuple(languages),
        str(package.real),
        files,
        (package.name,),
        requires=requires,
        folder=str(package.real),
        excluded=tuple(path for path, _reason in excluded),
        environment=environment,
    )


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def package_files(
    folder: Path, keep: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(the source files to index, the (file, reason) of each source file left out) of a package
    folder, relative to it; ``keep`` holds files the package.json names, never left out."""
    files: list[str] = []
    excluded: list[tuple[str, str]] = []
    for current, dirs, names in os.walk(folder):
        rel = os.path.relpath(current, folder)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        skipped = {d: _SKIPPED_FOLDERS[d] for d in dirs if d in _SKIPPED_FOLDERS}
        # a nested node_modules holds packages of their own; hidden folders hold no package code
        dirs[:] = sorted(
            d for d in dirs if d != "node_modules" and not d.startswith(".") and d not in skipped
        )
        for name in sorted(skipped):
            for path in _sources_under(Path(current) / name, f"{prefix}{name}/"):
                if path in keep:
                    files.append(path)
                else:
                    excluded.append((path, skipped[name]))
        for name in names:
            if _extension(name) not in _LANGUAGE_OF:
                continue
            path = prefix + name
            reason = _left_out(path, names)
            if reason and path not in keep:
                excluded.append((path, reason))
            else:
                files.append(path)
    return tuple(sorted(files)), tuple(sorted(excluded))


def _left_out(path: str, siblings: list[str]) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.endswith(_DECLARATIONS):
        return "declarations"
    if name.endswith(_TEST_SUFFIXES) or ("/" not in path and name.startswith(("test.", "tests."))):
        return "tests"
    if "/" not in path and name.startswith(_TOOL_CONFIGS):
        return "tool configuration"
    if name.endswith(_MINIFIED):
        stem, _, ext = name.rpartition(".min.")
        if f"{stem}.{ext}" in siblings:
            return "minified copy"
    return ""


def _sources_under(folder: Path, prefix: str) -> list[str]:
    found: list[str] = []
    for current, dirs, names in os.walk(folder):
        rel = os.path.relpath(current, folder)
        inner = prefix if rel == "." else prefix + rel.replace(os.sep, "/") + "/"
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        found.extend(inner + n for n in sorted(names) if _extension(n) in _LANGUAGE_OF)
    return found


def _named_files(manifest: dict[str, Any]) -> frozenset[str]:
    """The files a package.json names (entries, bins, ``exports`` targets), normalized."""
    targets: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, str):
            targets.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for field_name in ("main", "module", "browser", "bin", "exports"):
        collect(manifest.get(field_name))
    named: set[str] = set()
    for target in targets:
        if "*" in target:
            continue
        path = os.path.normpath(target).replace(os.sep, "/").removeprefix("./")
        named.add(path)
        if _extension(path) not in _LANGUAGE_OF:
            named.update(f"{path}{ext}" for ext in (".js", ".cjs", ".mjs"))
            named.update(f"{path}/index{ext}" for ext in (".js", ".cjs", ".mjs"))
    return frozenset(named)


__all__ = ["ECOSYSTEMS", "discover", "folder_unit", "node_modules_units", "package_files"]
