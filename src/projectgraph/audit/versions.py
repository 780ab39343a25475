"""Version order and OSV ranges: which installed or locked version an advisory affects.

OSV (https://ossf.github.io/osv-schema/) gives an affected package ``ranges`` of ``type`` SEMVER,
ECOSYSTEM or GIT, each a list of events ``introduced``, ``fixed``, ``last_affected`` and ``limit``,
and a list of ``versions``. A version is affected when it is listed, or when a range holds it: its
events sorted by version, the last ``introduced`` at or below it comes after every ``fixed`` at or
below it and every ``last_affected`` below it (``introduced: "0"`` is below every version). GIT
ranges name commits, which a lock does not hold: they are left out and the match says so.

The order of an ECOSYSTEM range is the ecosystem's: PEP 440 for PyPI (release, pre, post and dev
segments; a local part is ignored), semantic versioning for npm, crates.io and Go (a Go version's
leading ``v`` dropped; prereleases before their release, compared by identifiers). A version that
does not parse is compared as text, after every parsed one, and the match is marked unsure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import total_ordering
from typing import Any

SEMVER_ECOSYSTEMS = frozenset({"npm", "crates.io", "Go"})

_PEP440 = re.compile(
    r"^v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|alpha|b|beta|rc|c|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:(?:-(?P<post_implicit>\d+))|(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*)))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$",
    re.IGNORECASE,
)
_SEMVER = re.compile(
    r"^v?(?P<major>\d+)(?:\.(?P<minor>\d+))?(?:\.(?P<patch>\d+))?"
    r"(?:-(?P<pre>[0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$"
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


@total_ordering
@dataclass(frozen=True)
class Version:
    """A version of one ecosystem, ordered as the ecosystem orders it."""

    text: str
    key: tuple[Any, ...]
    parsed: bool = True
    floor: bool = False  # OSV's "0": below every version

    @property
    def order(self) -> tuple[Any, ...]:
        return (0,) if self.floor else (1, self.key) if self.parsed else (2, self.key)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.order < other.order

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self.order == other.order

    def __hash__(self) -> int:
        return hash(self.order)


def parse(ecosystem: str, text: str) -> Version:
    """The version ``text`` of ``ecosystem`` (``"0"``, OSV's "every version", is the lowest)."""
    text = text.strip()
    if text == "0":
        return Version(text, (), floor=True)
    if ecosystem == "PyPI":
        return _pep440(text)
    return _semver(text)


def _pep440(text: str) -> Version:
    match = _PEP440.match(text)
    if match is None:
        return Version(text, (text,), parsed=False)
    release = tuple(int(p) for p in match["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]  # 1.0 == 1.0.0
    epoch = int(match["epoch"] or 0)
    pre: tuple[int, int] = (
        (_PRE_RANK[match["pre"].lower()], int(match["pre_n"] or 0)) if match["pre"] else (9, 0)
    )
    post_text = match["post_implicit"] or match["post"]
    post = int(post_text or 0) if (match["post_implicit"] is not None or match["post"] is not None) else -1
    dev = int(match["dev"] or 0) if match["dev"] is not None else None
    if dev is not None and not match["pre"] and post < 0:
        pre = (-1, 0)  # 1.0.dev1 comes before 1.0a1
    return Version(text, (epoch, release, pre, post, (0, dev) if dev is not None else (1, 0)))


def _semver(text: str) -> Version:
    match = _SEMVER.match(text)
    if match is None:
        return Version(text, (text,), parsed=False)
    core = (int(match["major"]), int(match["minor"] or 0), int(match["patch"] or 0))
    if match["pre"] is None:
        return Version(text, (core, 1, ()))
    identifiers = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in match["pre"].split("."))
    return Version(text, (core, 0, identifiers))


@dataclass(frozen=True)
class Range:
    """One OSV range: its type and its events as (event, version text) in file order."""

    type: str  # SEMVER | ECOSYSTEM | GIT
    events: tuple[tuple[str, str], ...]

    def holds(self, ecosystem: str, version_text: str) -> bool:
        """Whether the range holds the version (OSV's evaluation over the sorted events); a SEMVER
        range orders by semantic versioning whatever the ecosystem."""
        order = "SEMVER" if self.type == "SEMVER" else ecosystem
        version = parse(order, version_text)
        events = sorted(
            (parse(order, v), _EVENT_ORDER[kind], kind) for kind, v in self.events if kind in _EVENT_ORDER
        )
        affected = False
        for at, _order, kind in events:
            if kind == "introduced" and at <= version:
                affected = True
            elif (kind == "fixed" and at <= version) or (kind == "last_affected" and at < version):
                affected = False
        limits = [parse(order, v) for kind, v in self.events if kind == "limit"]
        if limits and all(version >= limit for limit in limits):
            return False
        return affected


_EVENT_ORDER = {"introduced": 0, "fixed": 1, "last_affected": 1}


@dataclass(frozen=True)
class Match:
    """Whether an advisory's affected entry holds a version, and how sure that is."""

    affected: bool
    unsure: str = ""  # why the answer may be wrong (a GIT range, a version that did not parse)


def affects(ecosystem: str, version_text: str, ranges: Sequence[Range], versions: Sequence[str]) -> Match:
    """Whether the affected entry (its ranges and listed versions) holds ``version_text``."""
    version = parse(ecosystem, version_text)
    listed = {parse(ecosystem, v) for v in versions}
    notes = []
    if not version.parsed:
        notes.append(f"version {version_text!r} does not parse as a {ecosystem} version")
    if version in listed:
        return Match(True, "; ".join(notes))
    held = False
    for one in ranges:
        if one.type == "GIT":
            notes.append("a GIT range (commits) is not compared with a version")
        elif one.type in ("SEMVER", "ECOSYSTEM"):
            held = held or one.holds(ecosystem, version_text)
        else:
            notes.append(f"a range of type {one.type!r} is not compared")
    return Match(held, "; ".join(notes))
