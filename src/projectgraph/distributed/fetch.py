"""Fetching one package version's source from its registry and laying it out as a unit folder.

PyPI: ``pip download --no-deps --no-binary :all:`` fetches the sdist (pip checks the registry's hash
and prepares the metadata: the build backend runs, in its isolated environment); npm: ``npm pack``
fetches the tarball, which is what ``npm install`` unpacks into ``node_modules``. Archives are
unpacked with tarfile's ``data`` filter (no absolute paths, no links out, no devices).

An sdist holds more than the wheel installs (tests, docs, build scripts). Its unit keeps the import
packages the wheel would give: the names of ``*.egg-info/top_level.txt`` when the sdist ships one,
else the package folders (with ``__init__.py``) and modules at its import root (``src/`` when the
sdist has one) minus the folders and scripts of its own tooling (``tests``, ``docs``, ``setup.py``,
...). They are copied into a staging folder that is the unit's import root, so the unit's keys are
those of the installed distribution (``pypi:idna@3.10//idna/core.py//encode``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path

from projectgraph.distributed.jobs import Job, normalize
from projectgraph.units import unit_name

FETCH_TIMEOUT = 300.0  # seconds for one registry download (an sdist's metadata build included)
_TOOLING = frozenset(
    {
        "test", "tests", "testing", "doc", "docs", "example", "examples", "benchmark", "benchmarks",
        "bench", "build", "dist", "scripts", "tools", "ci", "setup", "conftest", "noxfile", "tasks",
        "fabfile", "runtests", "bootstrap",
    }
)  # fmt: skip


class FetchError(RuntimeError):
    """A package version the registry did not give, or whose archive is not a package."""


@dataclass(frozen=True)
class Fetched:
    """A fetched package version laid out as a unit folder: its unit name and folder."""

    unit: str
    folder: Path
    archive_bytes: int
    # the normalized names of the packages it must have installed to run (PyPI's Requires-Dist with
    # no extra marker, npm's dependencies), or None when its metadata does not say
    requires: tuple[str, ...] | None


def fetch(job: Job, into: Path) -> Fetched:
    """Download ``job``'s source into the folder ``into`` and lay it out (see the module docstring)."""
    into.mkdir(parents=True, exist_ok=True)
    if job.ecosystem == "pypi":
        return _pypi(job, into)
    if job.ecosystem == "npm":
        return _npm(job, into)
    raise FetchError(f"no registry for {job.ecosystem}")


def _run(what: str, command: list[str], cwd: Path) -> str:
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=FETCH_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise FetchError(f"{command[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise FetchError(f"{what} took more than {FETCH_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        said = done.stderr if done.stderr.strip() else done.stdout  # npm --json errors go to stdout
        with contextlib.suppress(ValueError, LookupError, TypeError):
            said = str(json.loads(said)["error"]["summary"])
        lines = [line.strip() for line in said.splitlines() if line.strip() and "is ignored" not in line]
        raise FetchError(f"{what} failed ({done.returncode}): " + " | ".join(lines[-4:]))
    return done.stdout


def _pypi(job: Job, into: Path) -> Fetched:
    downloads = into / "download"
    _run(
        f"pip download {job.name}=={job.version}",
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"),
            *("--no-deps", "--no-binary", ":all:", "--dest", str(downloads)),
            f"{job.name}=={job.version}",
        ],
        into,
    )
    archives = sorted(downloads.iterdir())
    if len(archives) != 1:
        raise FetchError(f"pip download gave {len(archives)} files for {job.spec}")
    top = _unpack(archives[0], into / "unpacked")
    name, version, requires = _pkg_info(top, job)
    unit = unit_name("pypi", name, version)
    stage = into / "unit"
    stage.mkdir()
    for entry in _import_entries(top):
        target = stage / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(entry, target)
    if not any(stage.rglob("*.py")):
        raise FetchError(f"the sdist of {job.spec} has no Python package to summarise")
    return Fetched(unit, stage, archives[0].stat().st_size, requires)


def _npm(job: Job, into: Path) -> Fetched:
    out = _run(
        f"npm pack {job.name}@{job.version}",
        ["npm", "pack", "--json", "--silent", "--pack-destination", str(into), f"{job.name}@{job.version}"],
        into,
    )
    try:
        filename = json.loads(out)[0]["filename"]
    except (ValueError, LookupError, TypeError):
        raise FetchError(f"npm pack printed no tarball name for {job.spec}: {out[:200]!r}") from None
    archive = into / str(filename).replace("@", "").replace("/", "-")
    if not archive.is_file():
        found = sorted(into.glob("*.tgz"))
        if len(found) != 1:
            raise FetchError(f"npm pack left no tarball for {job.spec}")
        archive = found[0]
    top = _unpack(archive, into / "unpacked")
    try:
        manifest = json.loads((top / "package.json").read_text(encoding="utf-8"))
        name, version = str(manifest["name"]), str(manifest["version"])
        dependencies = manifest.get("dependencies") or {}
        requires = tuple(sorted(str(d) for d in dependencies)) if isinstance(dependencies, dict) else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise FetchError(f"the tarball of {job.spec} has no usable package.json: {error}") from None
    return Fetched(unit_name("npm", name, version), top, archive.stat().st_size, requires)


def _unpack(archive: Path, into: Path) -> Path:
    """Unpack an archive and return its one top folder."""
    into.mkdir()
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as packed:
                for member in packed.namelist():
                    if member.startswith("/") or ".." in Path(member).parts:
                        raise FetchError(f"{archive.name}: a member outside the archive: {member}")
                packed.extractall(into)
        else:
            with tarfile.open(archive) as packed:
                packed.extractall(into, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, OSError) as error:
        raise FetchError(f"cannot unpack {archive.name}: {error}") from None
    tops = sorted(into.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        raise FetchError(f"{archive.name} has no single top folder")
    return tops[0]


def _pkg_info(top: Path, job: Job) -> tuple[str, str, tuple[str, ...] | None]:
    """The distribution's name and version as its PKG-INFO writes them (what METADATA will say),
    and the names it requires with no extra (None when neither PKG-INFO's Requires-Dist, from
    metadata 2.1, nor an egg-info's requires.txt says)."""
    try:
        text = (top / "PKG-INFO").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return job.name, job.version, None
    headers = HeaderParser().parsestr(text.split("\n\n", 1)[0] + "\n")
    name = (headers.get("Name") or job.name).strip()
    version = (headers.get("Version") or job.version).strip()
    requires: set[str] | None = None
    listed = headers.get_all("Requires-Dist")
    infos = sorted(top.glob("*.egg-info")) + sorted(top.glob("src/*.egg-info"))
    if listed is not None:
        requires = {_requirement_name(line) for line in listed if "extra" not in line.partition(";")[2]}
    elif infos:  # setuptools writes requires.txt when there is a requirement
        requires = set()
        if (infos[0] / "requires.txt").is_file():
            for line in (infos[0] / "requires.txt").read_text(errors="replace").splitlines():
                if line.startswith("["):
                    break  # the extras' sections follow the required names
                if line.strip():
                    requires.add(_requirement_name(line))
    elif _metadata_version(headers.get("Metadata-Version")) >= (2, 1):
        requires = set()  # a backend that writes metadata 2.1 lists every Requires-Dist
    found = None if requires is None else tuple(sorted(normalize("pypi", r) for r in requires if r))
    return name, version, found


def _metadata_version(text: str | None) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in (text or "0").strip().split("."))
    except ValueError:
        return (0,)


def _requirement_name(line: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
    return match.group(1) if match else ""


def _import_entries(top: Path) -> list[Path]:
    """The package folders and modules of an sdist that its wheel installs (module docstring)."""
    src = top / "src"
    root = src if src.is_dir() and any(_is_importable(p) for p in src.iterdir()) else top
    named: set[str] = set()
    for info in (*sorted(root.glob("*.egg-info")), *sorted(top.glob("*.egg-info"))):
        listed = info / "top_level.txt"
        if listed.is_file():
            named.update(
                line.strip().split("/")[0] for line in listed.read_text(errors="replace").splitlines()
            )
    found = []
    for entry in sorted(root.iterdir()):
        stem = entry.name.removesuffix(".py")
        if not _is_importable(entry):
            continue
        if named:
            if stem in named:
                found.append(entry)
        elif stem.lower() not in _TOOLING and not stem.startswith(("test_", "_version_")):
            found.append(entry)
    return found


def _is_importable(entry: Path) -> bool:
    if entry.name.startswith("."):
        return False
    if entry.is_dir():
        return entry.name.isidentifier() and os.path.isfile(entry / "__init__.py")
    return entry.suffix == ".py" and entry.stem.isidentifier()
