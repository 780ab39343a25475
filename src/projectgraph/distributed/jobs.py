"""Job lists: the package versions a distributed run summarises, read from what users already have.

A job list is one of: a file of ``<ecosystem>:<name>@<version>`` lines (``pypi:PyYAML@6.0.2``,
``npm:@babel/core@7.24.0``), a requirements file or a ``pip freeze`` (``name==version`` lines, with
extras, environment markers and hash options allowed), or an npm ``package-lock.json`` (lockfile
versions 1 to 3). Blank lines and ``#`` comments are ignored. A line that names no registry version
(an unpinned requirement, an editable or URL install, an npm entry linked from a folder) is not a
job: it is kept in ``JobList.rejected`` with its line and reason, so a caller shows it rather than
dropping it. Jobs are unique by (ecosystem, normalized name, version) and sorted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectgraph.units import DepsError, split_name, unit_name

ECOSYSTEMS = ("npm", "pypi")
_PIN = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*===?\s*([A-Za-z0-9][A-Za-z0-9.+!_-]*)\s*$"
)


class JobListError(ValueError):
    """A job list that cannot be read at all (not a file, not JSON where JSON was expected)."""


def normalize(ecosystem: str, name: str) -> str:
    """The name a registry looks a package up by: PEP 503 for PyPI, the name itself for npm."""
    return re.sub(r"[-_.]+", "-", name).lower() if ecosystem == "pypi" else name


@dataclass(frozen=True, order=True)
class Job:
    """One package version to summarise. ``name`` is as the list wrote it; the unit's name comes from
    the package's own metadata once fetched (``pyyaml`` is the unit ``pypi:PyYAML@6.0.2``)."""

    ecosystem: str
    normalized: str
    version: str
    name: str

    @property
    def spec(self) -> str:
        return f"{self.ecosystem}:{self.name}@{self.version}"

    @property
    def lookup(self) -> str:
        """The store's lookup key: ecosystem, normalized name and version."""
        return f"{self.ecosystem}:{self.normalized}@{self.version}"

    @staticmethod
    def of(ecosystem: str, name: str, version: str) -> Job:
        if ecosystem not in ECOSYSTEMS:
            raise DepsError(f"no registry for the ecosystem {ecosystem!r} (known: {', '.join(ECOSYSTEMS)})")
        unit_name(ecosystem, name, version)  # checks the key grammar
        return Job(ecosystem, normalize(ecosystem, name), version, name)

    def to_json(self) -> dict[str, str]:
        return {"ecosystem": self.ecosystem, "name": self.name, "version": self.version}


@dataclass(frozen=True)
class Rejected:
    """A line of a job list that names no registry version, and why."""

    line: int
    text: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text, "reason": self.reason}


@dataclass(frozen=True)
class JobList:
    jobs: tuple[Job, ...]
    rejected: tuple[Rejected, ...]


def read_jobs(path: str | Path) -> JobList:
    """The jobs of a job list file (see the module docstring for the formats)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise JobListError(f"cannot read the job list {file}: {error}") from None
    return parse_jobs(text, file.name)


def parse_jobs(text: str, filename: str = "") -> JobList:
    """The jobs of a job list's text; ``filename`` tells a ``package-lock.json`` by its name."""
    if filename.endswith(".json") or text.lstrip().startswith("{"):
        return _package_lock(text, filename or "the job list")
    jobs: list[Job] = []
    rejected: list[Rejected] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        try:
            job = _line_job(line)
        except DepsError as error:
            rejected.append(Rejected(number, raw.strip(), str(error)))
            continue
        if job is None:
            rejected.append(
                Rejected(number, raw.strip(), "not pinned to one registry version (name==version)")
            )
        else:
            jobs.append(job)
    return JobList(_unique(jobs), tuple(rejected))


def _line_job(line: str) -> Job | None:
    """The job of one line: ``eco:name@version``, or a pinned requirement (markers, hashes dropped)."""
    head = line.split(";", 1)[0].strip()
    if re.match(r"^[a-z][a-z0-9]*:", head) and "==" not in head and "://" not in head:
        ecosystem, name, version = split_name(head)
        return Job.of(ecosystem, name, version)
    if head.startswith("-"):
        raise DepsError("an option line (-e, -r, --index-url, ...) names no registry version")
    head = re.split(r"\s+--hash", head, maxsplit=1)[0].strip().rstrip("\\").strip()
    if " @ " in head:
        raise DepsError("a direct URL or file reference, not a registry version")
    match = _PIN.match(head)
    if match is None:
        return None
    return Job.of("pypi", match.group(1), match.group(2))


def _package_lock(text: str, where: str) -> JobList:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise JobListError(f"{where}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise JobListError(f"{where}: not a package-lock.json object")
    jobs: list[Job] = []
    rejected: list[Rejected] = []
    packages = data.get("packages")
    entries: list[tuple[str, Any]] = []
    if isinstance(packages, dict):  # lockfile versions 2 and 3
        for path, entry in sorted(packages.items()):
            if path and "node_modules/" in path:
                entries.append((path.rsplit("node_modules/", 1)[1], entry))
    else:  # lockfile version 1: nested dependencies
        stack = [data.get("dependencies")]
        while stack:
            level = stack.pop()
            if not isinstance(level, dict):
                continue
            for name, entry in sorted(level.items()):
                entries.append((name, entry))
                if isinstance(entry, dict):
                    stack.append(entry.get("dependencies"))
    for position, (name, entry) in enumerate(entries, 1):
        version = entry.get("version") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or entry.get("link") or not isinstance(version, str):
            rejected.append(Rejected(position, name, "linked from a folder or without a version"))
            continue
        if version.startswith(("file:", "git", "http", "link:")):
            rejected.append(Rejected(position, f"{name}@{version}", "not a registry version"))
            continue
        try:
            jobs.append(Job.of("npm", str(entry.get("name") or name), version))
        except DepsError as error:
            rejected.append(Rejected(position, f"{name}@{version}", str(error)))
    return JobList(_unique(jobs), tuple(rejected))


def _unique(jobs: list[Job]) -> tuple[Job, ...]:
    by_lookup: dict[str, Job] = {}
    for job in jobs:
        by_lookup.setdefault(job.lookup, job)
    return tuple(sorted(by_lookup.values()))
