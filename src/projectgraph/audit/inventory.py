"""The packages a project installs or locks, with the import names its code would write for each.

Read from files only (no network, no package manager run), at the project root:

- PyPI: the distributions of the project's virtual environment (``.venv``, ``venv``,
  ``$VIRTUAL_ENV``; their import names from RECORD and ``top_level.txt``), and the pins of
  ``requirements*.txt`` (``name==version``), ``poetry.lock`` and ``uv.lock``;
- npm: ``node_modules`` (each package.json with a name and version) and ``package-lock.json``
  (``packages``, lockfile v2/v3);
- Go: the modules ``go.mod`` requires (and ``go.sum`` names), as the Go units read them;
- crates.io: the registry packages of ``Cargo.lock``.

A package found installed and locked at one version is one ``Package`` with both sources. A locked
package that is not installed gets the import name its ecosystem usually gives it (PyPI: the name
in lower case with ``-`` as ``_``; crates.io: ``-`` as ``_``; npm and Go: the name), and says so in
``guessed``.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from projectgraph.languages.go.units import required_modules
from projectgraph.languages.javascript.units import node_modules_units
from projectgraph.languages.python import units as python_units
from projectgraph.languages.rust.units import locked_packages


@dataclass(frozen=True, order=True)
class Package:
    ecosystem: str  # PyPI | npm | Go | crates.io (OSV's names)
    name: str
    version: str
    sources: tuple[str, ...]  # "installed", or the lock file's path relative to the root
    provides: tuple[str, ...]  # the import names (top-level modules, npm package, Go module path)
    guessed: bool = False  # the import names are a guess from the name (locked, not installed)

    @property
    def installed(self) -> bool:
        return "installed" in self.sources

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "sources": list(self.sources), "provides": list(self.provides)}


def normalize(ecosystem: str, name: str) -> str:
    """The name as the ecosystem compares it (PEP 503 for PyPI; crates.io ignores case)."""
    if ecosystem == "PyPI":
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem == "crates.io":
        return name.lower()
    return name


def packages(root: Path) -> list[Package]:
    """The installed and locked packages of the project at ``root``, sorted."""
    found: dict[tuple[str, str, str], tuple[str, str, set[str], set[str], bool]] = {}

    def add(
        ecosystem: str, name: str, version: str, source: str, provides: tuple[str, ...], guessed: bool
    ) -> None:
        slot = (ecosystem, normalize(ecosystem, name), version)
        kept = found.get(slot)
        if kept is None:
            found[slot] = (ecosystem, name, {source}, set(provides), guessed)
            return
        kept[2].add(source)
        if kept[4] and not guessed:  # names read from an installation replace a guess
            found[slot] = (kept[0], name, kept[2], set(provides), False)
        elif not guessed:
            kept[3].update(provides)

    environment = python_units.find_environment(root)
    if environment is not None:
        for site in python_units.site_packages(environment):
            for unit in python_units.distributions(site):
                add("PyPI", unit.package, unit.version, "installed", unit.provides, False)
    for lock, pins in _python_locks(root):
        for name, version in pins:
            add("PyPI", name, version, lock, (name.lower().replace("-", "_").replace(".", "_"),), True)
    modules = root / "node_modules"
    if modules.is_dir():
        for unit in node_modules_units(modules):
            add("npm", unit.package, unit.version, "installed", (unit.package,), False)
    for name, version in _package_lock(root / "package-lock.json"):
        add("npm", name, version, "package-lock.json", (name,), True)
    if (root / "go.mod").is_file():
        for module, version in required_modules(root):
            add("Go", module, version, "go.mod", (module,), False)
    cargo_lock = root / "Cargo.lock"
    if cargo_lock.is_file():
        for locked in locked_packages(cargo_lock):
            if not locked.git:
                add(
                    "crates.io",
                    locked.name,
                    locked.version,
                    "Cargo.lock",
                    (locked.name.replace("-", "_"),),
                    False,
                )
    out = [
        Package(eco, name, version, tuple(sorted(sources)), tuple(sorted(provides)), guessed)
        for (_e, _n, version), (eco, name, sources, provides, guessed) in found.items()
    ]
    return sorted(out)


_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*===?\s*([^\s;#,]+)")


def _python_locks(root: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    locks: list[tuple[str, list[tuple[str, str]]]] = []
    for path in sorted(root.glob("requirements*.txt")):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        pins = [(m.group(1), m.group(2)) for m in map(_PIN.match, lines) if m]
        locks.append((path.name, pins))
    for name in ("poetry.lock", "uv.lock"):
        path = root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        pins = []
        for package in data.get("package") or []:
            if isinstance(package, dict) and isinstance(package.get("name"), str):
                source = package.get("source")
                editable = isinstance(source, dict) and ("editable" in source or "virtual" in source)
                if isinstance(package.get("version"), str) and not editable:
                    pins.append((package["name"], package["version"]))
        locks.append((name, pins))
    return locks


def _package_lock(path: Path) -> list[tuple[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    out = []
    for where, entry in (data.get("packages") or {}).items() if isinstance(data, dict) else ():
        if not where or not isinstance(entry, dict) or entry.get("link"):
            continue
        name = entry.get("name") or where.rpartition("node_modules/")[2]
        if isinstance(name, str) and isinstance(entry.get("version"), str) and "node_modules/" in where:
            out.append((name, entry["version"]))
    return sorted(set(out))
