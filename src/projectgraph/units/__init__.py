"""Units of dependency code: the code of one package version, found beside a project.

A ``Unit`` is named ``<ecosystem>:<package>@<version>`` (``pypi:PyYAML@6.0.2``, ``npm:lodash@4.17.21``,
``python:std@3.11``). The index stage parses its files like a project's (the store caches them by
content, so a unit is parsed once per version); the link stage links each unit as a project of its
own, prefixes its keys with the unit name (``pypi:PyYAML@6.0.2//yaml/__init__.py//load``) and joins
each external key another package writes (``yaml//load``) to the unit's definition by a ``package``
edge.

Discovery reads the language records: each unit finder a language names (``LanguageSpec.units``,
``discover(project_root: Path, config: DepsConfig) -> list[Unit]``, with the ``ecosystems`` it
serves) is called once, in the order of the first language naming it. The contract of a
``discover`` function:

- it returns the units of its ecosystems that ``config`` asks for: with ``config.auto``, what it
  finds under ``project_root`` itself (a Python virtual environment, ``node_modules``, ...); and for
  each ``config.named`` entry whose ecosystem is one of its language's ``ecosystems``, the unit(s)
  of that folder;
- it reads files only (no subprocess, no network) and raises ``DepsError`` with a message that names
  the folder for a folder it was asked for and cannot read as a unit;
- each ``Unit`` it returns is complete: ``root`` an absolute folder, ``files`` the source files to
  index relative to ``root`` (``/``-separated, sorted, no duplicates, each of one of ``languages``),
  ``provides`` the import names the code of other packages writes to reach it (a Python top-level
  module, an npm package name), sorted; a unit may have no files (a package of compiled code only):
  it still says which import names are installed;
- a unit found as part of a whole environment (every package of a site-packages or a node_modules)
  sets ``environment`` to that folder, so a call of its code into a package the environment does not
  hold is known not to run.

``discover_units`` calls every module, checks that each named entry was served, and returns the
units sorted by name; a name found twice keeps the named entry's unit (then the first found).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from projectgraph.keys import SEP

# a package may hold single slashes (a Go module path golang.org/x/net, an npm scope), never //
_NAME = re.compile(r"^([a-z][a-z0-9]*):(@?[^/@\s]+(?:/[^/@\s]+)*)@([^/\s]+)$")
_ECOSYSTEM = re.compile(r"^[a-z][a-z0-9]*$")


class DepsError(ValueError):
    """A ``--deps`` value or a unit folder that cannot be used, with the value or folder named."""


@dataclass(frozen=True, order=True)
class Unit:
    """The code of one package version. ``files`` are relative to ``root``, sorted, ``/``-separated."""

    name: str  # <ecosystem>:<package>@<version>
    ecosystem: str  # pypi | python | npm | go | cargo | ...
    package: str  # as the ecosystem names it: PyYAML, lodash, std
    version: str
    languages: tuple[str, ...]  # the languages of its files, sorted
    root: str  # the absolute folder the files are relative to
    files: tuple[str, ...]  # the source files to index, relative to root
    provides: tuple[str, ...]  # the import names it gives (yaml, _yaml), sorted
    requires: tuple[str, ...] = ()  # names of the units it depends on that were found (its closure's start)
    folder: str = ""  # where the unit's own metadata lives (a .dist-info, a package.json folder), if any
    # files of the unit left out by a rule (a build constraint), relative to root
    excluded: tuple[str, ...] = ()
    # the folder of the whole environment the unit was found in (a site-packages, a node_modules), or
    # "" for a unit named alone: a package that no unit of that environment gives is not installed
    # there, so the unit's code cannot run it
    environment: str = ""

    @classmethod
    def of(
        cls,
        ecosystem: str,
        package: str,
        version: str,
        languages: tuple[str, ...],
        root: str,
        files: tuple[str, ...],
        provides: tuple[str, ...],
        **rest: Any,
    ) -> Unit:
        """The unit of ``package`` at ``version``, named by ``unit_name`` (``rest``: the other fields)."""
        name = unit_name(ecosystem, package, version)
        return cls(name, ecosystem, package, version, languages, root, files, provides, **rest)

    def __post_init__(self) -> None:
        if self.name != unit_name(self.ecosystem, self.package, self.version):
            raise DepsError(f"unit name {self.name!r} is not {self.ecosystem}:{self.package}@{self.version}")

    def key(self, path: str, qualname_key: str = "") -> str:
        """The unit key of a file of the unit (and a ``//``-joined name in it)."""
        return SEP.join(p for p in (self.name, path, qualname_key) if p)


def unit_name(ecosystem: str, package: str, version: str) -> str:
    """``<ecosystem>:<package>@<version>``, checked against the key grammar."""
    name = f"{ecosystem}:{package}@{version}"
    if not _NAME.match(name):
        raise DepsError(f"invalid unit name {name!r} (expected <ecosystem>:<package>@<version>)")
    return name


def split_name(name: str) -> tuple[str, str, str]:
    """``(ecosystem, package, version)`` of a unit name; ``DepsError`` for another text."""
    match = _NAME.match(name)
    if match is None:
        raise DepsError(f"invalid unit name {name!r} (expected <ecosystem>:<package>@<version>)")
    return match.group(1), match.group(2), match.group(3)


@dataclass(frozen=True)
class DepsConfig:
    """Which units a run discovers: ``--deps auto`` (the default), ``none``, ``stdlib``, ``DIR=UNIT``.

    ``named`` holds ``(absolute folder, what)`` pairs: ``what`` is a unit name (the folder is that
    one unit) or an ecosystem alone (the folder holds units of it: a site-packages, a node_modules).
    """

    auto: bool = True
    stdlib: bool = False  # the standard library of the project's own toolchain, when one is found
    named: tuple[tuple[str, str], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.auto or self.stdlib or self.named)

    def named_of(self, ecosystems: Iterable[str]) -> list[tuple[str, str, str]]:
        """The ``(folder, what, ecosystem)`` of each named folder whose ecosystem is one of these."""
        wanted = set(ecosystems)
        found = ((folder, what, what.partition(":")[0]) for folder, what in self.named)
        return [item for item in found if item[2] in wanted]

    def to_json(self) -> dict[str, Any]:
        return {"auto": self.auto, "stdlib": self.stdlib, "named": [list(pair) for pair in self.named]}

    @staticmethod
    def from_json(data: Any) -> DepsConfig | None:
        """The config a ``to_json`` form holds, or None for anything else."""
        if not isinstance(data, dict):
            return None
        named = data.get("named", [])
        if not isinstance(named, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in named
        ):
            return None
        return DepsConfig(bool(data.get("auto")), bool(data.get("stdlib")), tuple((a, b) for a, b in named))


NO_DEPS = DepsConfig(auto=False)
AUTO_DEPS = DepsConfig()


def parse_deps(values: Iterable[str], base: str | os.PathLike[str] = ".") -> DepsConfig:
    """A ``DepsConfig`` from ``--deps`` values (relative folders are taken from ``base``).

    ``auto`` (alone, or with others: the default) discovers what the project holds; ``none``
    discovers nothing and cannot be combined; ``stdlib`` adds the standard library (to ``auto``);
    ``DIR=UNIT`` names a folder as one unit (``vendor/yaml=pypi:PyYAML@6.0.2``) or as a folder of
    units of one ecosystem (``/opt/site-packages=pypi``). Naming folders turns ``auto`` off unless
    it is given too.
    """
    items = [v.strip() for v in values]
    if not items:
        return DepsConfig()
    auto = False
    stdlib = False
    none = False
    named: list[tuple[str, str]] = []
    for item in items:
        if item == "auto":
            auto = True
        elif item == "none":
            none = True
        elif item == "stdlib":
            stdlib = True
        elif "=" in item:
            folder, _, what = item.partition("=")
            folder, what = folder.strip(), what.strip()
            if not folder or not what:
                raise DepsError(
                    f"--deps {item!r}: expected DIR=UNIT, as site-packages/yaml=pypi:PyYAML@6.0.2"
                )
            if not _ECOSYSTEM.match(what):
                try:
                    split_name(what)
                except DepsError as error:
                    raise DepsError(f"--deps {item!r}: {error}") from None
            path = Path(base, folder).resolve()
            if not os.path.isdir(path):
                raise DepsError(f"--deps {item!r}: not a folder: {path}")
            if what not in known_ecosystems() and what.partition(":")[0] not in known_ecosystems():
                known = ", ".join(known_ecosystems())
                raise DepsError(
                    f"--deps {item!r}: no discoverer knows the ecosystem of {what!r} (known: {known})"
                )
            named.append((str(path), what))
        else:
            raise DepsError(
                f"--deps {item!r}: expected auto, none, stdlib, DIR=UNIT or DIR=ECOSYSTEM (a folder of units)"
            )
    if none and (auto or stdlib or named):
        raise DepsError("--deps none cannot be combined with other --deps values")
    if none:
        return NO_DEPS
    if not named:
        auto = True
    return DepsConfig(auto=auto, stdlib=stdlib, named=tuple(named))


Discoverer = Callable[[Path, DepsConfig], list[Unit]]


@cache
def _modules() -> tuple[tuple[tuple[str, ...], Discoverer], ...]:
    """``(ecosystems, discover)`` of every unit finder a language names, once each."""
    from projectgraph.languages import all_languages  # the languages' folders import this module

    found: dict[str, tuple[tuple[str, ...], Discoverer]] = {}
    for spec in all_languages().values():
        if spec.units and spec.units not in found:
            found[spec.units] = (spec.ecosystems, spec.hook("units"))
    return tuple(found.values())


def known_ecosystems() -> tuple[str, ...]:
    return tuple(sorted({e for ecosystems, _ in _modules() for e in ecosystems}))


def discover_units(
    project_root: str | os.PathLike[str], config: DepsConfig | None = None
) -> tuple[Unit, ...]:
    """Every unit ``config`` asks for, sorted by name (none for ``NO_DEPS``)."""
    config = config if config is not None else DepsConfig()
    if config.empty:
        return ()
    root = Path(project_root).resolve()
    by_name: dict[str, Unit] = {}
    named_folders = {folder for folder, _ in config.named}
    from projectgraph.units import tree  # (the finders' modules import this one)

    with tree.listed():  # the finders share one listing of the top folders
        for _ecosystems, function in _modules():
            for unit in function(root, config):
                kept = by_name.get(unit.name)
                if kept is None or (unit.root in named_folders and kept.root not in named_folders):
                    by_name[unit.name] = unit
    return tuple(by_name[name] for name in sorted(by_name))


__all__ = [
    "AUTO_DEPS",
    "NO_DEPS",
    "DepsConfig",
    "DepsError",
    "Unit",
    "discover_units",
    "known_ecosystems",
    "parse_deps",
    "split_name",
    "unit_name",
]
