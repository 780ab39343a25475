"""The key grammar, in one module: first-party, external and dependency-unit keys.

- first party: ``path//Qualified//name``; a module top level is its path alone (``app/main.py``).
- external: the module as its language writes it with ``//`` for the language's separator
  (``.`` in Python and Java, ``/`` in JavaScript and Go import paths, ``::`` in Rust), then the
  names: ``yaml//load``, ``lodash//template``, ``os//exec//Command``. ``//*`` ends a wildcard.
- unit: ``<ecosystem>:<name>@<version>//<path in unit>//<qualified name>``.
"""

from __future__ import annotations

import re
from functools import cache

SEP = "//"
# a package name may hold single slashes (a Go module path golang.org/x/net, an npm scope), never //
_UNIT = re.compile(r"^[a-z][a-z0-9]*:@?[^/@\s]+(?:/[^/@\s]+)*@[^/\s]+$")


class KeyError_(ValueError):
    """A key that no node can have."""


def first_party(path: str, qualname: str = "") -> str:
    """``path//A//b`` for qualname ``A.b``; the module top level is the path alone."""
    if not qualname:
        return path
    return path + SEP + qualname.replace(".", SEP)


def external(module: str, language: str, *names: str) -> str:
    """The external key of a module (as its language writes it) and names under it."""
    separator = _separator(language)
    parts = [p for p in module.split(separator) if p] if module else []
    parts.extend(n for n in names if n)
    return SEP.join(parts)


@cache
def _separator(language: str) -> str:
    """The language's module separator, as its ``LANGUAGE`` record says (``.`` for an unknown name)."""
    from projectgraph.languages import all_languages  # the registry imports keys' users: at call time

    spec = all_languages().get(language)
    return spec.module_separator if spec is not None else "."


def join(key: str, *names: str) -> str:
    return SEP.join([key, *names]) if key else SEP.join(names)


def last_segment(key: str) -> str:
    return key.rsplit(SEP, 1)[-1]


def package_of(key: str) -> str:
    """The package an external key is under: its first segment (``yaml`` of ``yaml//load``), and
    for an npm scope the next one too, as npm names the package (``@babel/core`` of
    ``@babel//core//parse``)."""
    first, sep, rest = key.partition(SEP)
    if first.startswith("@") and sep:
        return f"{first}/{rest.partition(SEP)[0]}"
    return first


def split_unit(key: str) -> tuple[str, str]:
    """``(unit, rest)`` of a unit key, or ``("", key)`` for any other key."""
    head, sep, rest = key.partition(SEP)
    if sep and _UNIT.match(head):
        return head, rest
    return "", key


def validate_target(key: str) -> str:
    """Check a target key: ``//``-separated non-empty segments, an optional final ``//*``."""
    if not key or key.strip() != key:
        raise KeyError_(f"invalid target key {key!r}: empty or surrounded by spaces")
    parts = key.split(SEP)
    for index, part in enumerate(parts):
        if not part:
            raise KeyError_(f"invalid target key {key!r}: empty segment (use '//' between names)")
        if part == "*" and index != len(parts) - 1:
            raise KeyError_(f"invalid target key {key!r}: '*' must be the last segment")
        if "*" in part and part != "*":
            raise KeyError_(f"invalid target key {key!r}: '*' must be a whole segment")
        if any(ch.isspace() for ch in part):
            raise KeyError_(f"invalid target key {key!r}: a segment holds a space")
    if parts == ["*"]:
        raise KeyError_(f"invalid target key {key!r}: a wildcard needs a prefix")
    return key


def matches(target: str, key: str) -> bool:
    """Whether ``key`` is the target, or under a ``//*`` target."""
    if target.endswith(SEP + "*"):
        prefix = target[:-1]
        return key.startswith(prefix)
    return key == target
