"""Python units: the distributions of the project's virtual environment, and the standard library.

Auto discovery reads the project's environment: ``.venv`` or ``venv`` in the project folder, else
``$VIRTUAL_ENV`` (an activated environment that lives elsewhere, as Poetry's). Each ``*.dist-info``
of its site-packages is one unit ``pypi:<Name>@<Version>`` (METADATA's name and version as written);
its ``.py`` files come from RECORD (installer files, ``..`` paths and ``__pycache__`` left out), its
import names from ``top_level.txt`` and RECORD's top-level entries (a compiled module, as
``_yaml.cpython-311-x86_64-linux-gnu.so``, counts: it is given, without source), its ``requires`` from
``Requires-Dist`` (every marker, extras too) mapped to the distributions that are installed. A
distribution of compiled code only is a unit with no files (it says its import names are installed);
an editable install (its code is a project's) is none. Each is part of its site-packages'
environment.

The standard library is the unit ``python:std@<major.minor>``: with ``--deps stdlib`` (auto leaves it
out: about 1,800 files to index on a cold run), from the environment's base Python, else the Python
that runs projectgraph. Its tests, ``idlelib``, ``turtledemo``, ``ensurepip`` and ``site-packages`` are
left out; its import names include the modules compiled into the interpreter (``sys``, ``math``) when
that Python is of the unit's version.

Named folders: ``DIR=pypi`` reads DIR as a site-packages; ``DIR=pypi:Name@1.0`` makes DIR one unit (a
package folder, with ``__init__.py``, is given under its own name; another folder is an import root);
``DIR=python:std@3.11`` reads DIR as a standard library folder.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
import sysconfig
from email.parser import HeaderParser
from pathlib import Path

from projectgraph import safefs
from projectgraph.languages import language
from projectgraph.units import DepsConfig, DepsError, Unit, split_name, unit_name

ECOSYSTEMS = language("python").ecosystems  # as its language's record says
LANGUAGES = ("python",)
_STD_SKIP = frozenset(
    {"site-packages", "dist-packages", "test", "tests", "idlelib", "turtledemo", "ensurepip"}
)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def discover(project_root: Path, config: DepsConfig) -> list[Unit]:
    """The Python units ``config`` asks for (see the module docstring)."""
    units: list[Unit] = []
    environment = find_environment(project_root) if (config.auto or config.stdlib) else None
    if config.auto and environment is not None:
        for site in site_packages(environment):
            units.extend(distributions(site))
    if config.stdlib:
        std = stdlib_unit(environment)
        if std is not None:
            units.append(std)
    for folder, what, ecosystem in config.named_of(ECOSYSTEMS):
        path = Path(folder)
        if what == "pypi":
            units.extend(distributions(path))
        elif what == "python":
            raise DepsError(
                f"--deps {folder}={what}: name the standard library's version, as python:std@3.11"
            )
        elif ecosystem == "python":
            units.append(_stdlib_from(path, what))
        else:
            units.append(folder_unit(path, what))
    return units


def find_environment(project_root: Path) -> Path | None:
    """The project's virtual environment: ``.venv``, ``venv``, else ``$VIRTUAL_ENV``."""
    for name in (".venv", "venv"):
        candidate = project_root / name
        if os.path.isfile(candidate / "pyvenv.cfg"):
            return candidate
    active = os.environ.get("VIRTUAL_ENV")
    if active and os.path.isfile(Path(active) / "pyvenv.cfg"):
        return Path(active)
    return None


def site_packages(environment: Path) -> list[Path]:
    """The site-packages folders of an environment (POSIX ``lib/pythonX.Y``, Windows ``Lib``)."""
    found = sorted(environment.glob("lib/python*/site-packages"))
    found += sorted(environment.glob("lib64/python*/site-packages"))
    windows = environment / "Lib" / "site-packages"
    if os.path.isdir(windows):
        found.append(windows)
    unique: list[Path] = []
    for path in found:
        if os.path.isdir(path) and all(not path.samefile(u) for u in unique):
            unique.append(path)
    return unique


def distributions(site: Path) -> list[Unit]:
    """One unit per ``*.dist-info`` of a site-packages folder that has Python files of its own."""
    if not os.path.isdir(site):
        raise DepsError(f"not a folder: {site}")
    read: list[tuple[str, str, tuple[str, ...], tuple[str, ...], list[str], Path]] = []
    for info in sorted(site.glob("*.dist-info")):
        meta = _metadata(info)
        if meta is None:
            continue
        name, version, requires = meta
        files, provides = _record(site, info)
        if files or (provides and not _editable(info)):
            read.append((name, version, files, provides, requires, info))
    installed = {_normalize(name): unit_name("pypi", name, version) for name, version, *_ in read}
    units = []
    for name, version, files, provides, requires, info in read:
        needed = sorted(
            {installed[r] for r in map(_normalize, requires) if r in installed}
            - {installed[_normalize(name)]}
        )
        units.append(
            Unit.of(
                "pypi",
                name,
                version,
                LANGUAGES,
                str(site.resolve()),
                files,
                provides,
                requires=tuple(needed),
                folder=str(info.resolve()),
                environment=str(site.resolve()),
            )
        )
    return units


def _editable(info: Path) -> bool:
    """Whether a dist-info is an editable install (its code is a project's, not the environment's)."""
    try:
        text = safefs.read_text(info / "direct_url.json")
    except OSError:
        return False
    return '"editable":true' in text.replace(" ", "")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _metadata(info: Path) -> tuple[str, str, list[str]] | None:
    """(name, version, Requires-Dist names) of a dist-info, or None when it has no usable METADATA."""
    try:
        text = safefs.read_text(info / "METADATA", errors="replace")
    except OSError:
        return None
    headers = HeaderParser().parsestr(text.split("\n\n", 1)[0] + "\n")
    name, version = (headers.get("Name") or "").strip(), (headers.get("Version") or "").strip()
    if not name or not version:
        return None
    requires = []
    for line in headers.get_all("Requires-Dist") or []:
        match = _REQUIREMENT.match(line)
        if match:
            requires.append(match.group(1))
    try:
        unit_name("pypi", name, version)
    except DepsError:
        return None
    return name, version, requires


def _record(site: Path, info: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the .py files, the import names) a dist-info's RECORD and top_level.txt give."""
    try:
        text = safefs.read_text(info / "RECORD", errors="replace")
    except OSError:
        return (), ()
    files: set[str] = set()
    provides: set[str] = set()
    for row in csv.reader(io.StringIO(text)):
        if not row or not row[0]:
            continue
        path = row[0].replace("\\", "/")
        parts = path.split("/")
        if parts[0] in ("..", "") or parts[0].endswith((".dist-info", ".data")) or "__pycache__" in parts:
            continue
        top = parts[0]
        if len(parts) == 1:
            if top.endswith(".pth"):
                continue
            top = top.split(".", 1)[0]  # mod.py, _ext.cpython-311-x86_64-linux-gnu.so
        if top.isidentifier():
            provides.add(top)
        if path.endswith(".py") and os.path.isfile(site / path):
            files.add(path)
    with contextlib.suppress(OSError):
        provides.update(
            line.strip().replace("/", ".").split(".")[0]
            for line in safefs.read_text(info / "top_level.txt").splitlines()
            if line.strip()
        )
    return tuple(sorted(files)), tuple(sorted(p for p in provides if p.isidentifier()))


def folder_unit(folder: Path, name: str) -> Unit:
    """A named folder as one pypi unit: a package folder under its name, else an import root."""
    ecosystem, package, version = split_name(name)
    if os.path.isfile(folder / "__init__.py"):
        root = folder.parent
        files = tuple(sorted(f"{folder.name}/{p}" for p in _python_files(folder)))
    else:
        root = folder
        files = tuple(sorted(_python_files(folder)))
    if not files:
        raise DepsError(f"--deps {folder}={name}: no Python file under {folder}")
    provides = tuple(sorted({f.split("/")[0].removesuffix(".py") for f in files} - {"__init__"}))
    return Unit(name, ecosystem, package, version, LANGUAGES, str(root.resolve()), files, provides)


def _python_files(folder: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """The ``.py`` files under a folder, relative to it (no hidden folders, no ``__pycache__``)."""
    found: list[str] = []
    for current, dirs, names in os.walk(folder):
        rel = os.path.relpath(current, folder)
        depth0 = rel == "."
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__" and d not in skip)
        prefix = "" if depth0 else rel.replace(os.sep, "/") + "/"
        found.extend(prefix + n for n in names if n.endswith(".py"))
    return found


def stdlib_unit(environment: Path | None) -> Unit | None:
    """``python:std@X.Y`` of the environment's base Python (else of the running one), if found."""
    version, folder = _environment_stdlib(environment) if environment is not None else (None, None)
    if folder is None:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        folder = Path(sysconfig.get_paths()["stdlib"])
    if not os.path.isfile(folder / "os.py"):
        return None
    return _stdlib_from(folder, unit_name("python", "std", version or ""))


def _environment_stdlib(environment: Path) -> tuple[str | None, Path | None]:
    """(X.Y, the stdlib folder) of a virtual environment's base Python, from its pyvenv.cfg."""
    values: dict[str, str] = {}
    try:
        for line in safefs.read_text(environment / "pyvenv.cfg").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                values[key.strip().lower()] = value.strip()
    except OSError:
        return None, None
    full = values.get("version") or values.get("version_info") or ""
    match = re.match(r"^(\d+)\.(\d+)", full)
    if match is None:
        return None, None
    version = f"{match.group(1)}.{match.group(2)}"
    home = values.get("home")
    candidates = []
    if home:
        candidates += [Path(home).parent / "lib" / f"python{version}", Path(home) / "Lib"]
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        candidates.append(Path(sysconfig.get_paths()["stdlib"]))
    for candidate in candidates:
        if os.path.isfile(candidate / "os.py"):
            return version, candidate
    return version, None


def _stdlib_from(folder: Path, name: str) -> Unit:
    ecosystem, package, version = split_name(name)
    if not os.path.isfile(folder / "os.py"):
        raise DepsError(f"--deps {folder}={name}: not a Python standard library folder (no os.py)")
    files = tuple(sorted(_python_files(folder, _STD_SKIP)))
    provides = {f.split("/")[0].removesuffix(".py") for f in files}
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        provides.update(sys.stdlib_module_names)
    provides.discard("__init__")
    return Unit(
        name, ecosystem, package, version, LANGUAGES, str(folder.resolve()), files, tuple(sorted(provides))
    )
