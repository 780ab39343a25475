"""The language registry: every sub-package that declares ``LANGUAGES`` is a language."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from projectgraph.languages.base import LanguageSpec


@cache
def all_languages() -> dict[str, LanguageSpec]:
    """Every known language by name, in name order."""
    found: dict[str, LanguageSpec] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{module.name}")
        for spec in getattr(package, "LANGUAGES", ()):
            found[spec.name] = spec
    return dict(sorted(found.items()))


def language(name: str) -> LanguageSpec:
    try:
        return all_languages()[name]
    except KeyError:
        known = ", ".join(all_languages())
        raise ValueError(f"unknown language {name!r} (known: {known})") from None


@cache
def advisory_language(ecosystem: str) -> LanguageSpec | None:
    """The language whose packages OSV files under ``ecosystem`` (``PyPI``, ``npm``), if any."""
    return next((s for s in all_languages().values() if s.advisory_ecosystem == ecosystem), None)


@cache
def ecosystem_language(ecosystem: str) -> str:
    """The name of the first language (in name order) whose units come from ``ecosystem``
    (``pypi``: python, ``npm``: javascript), or "" when none does."""
    return next((s.name for s in all_languages().values() if ecosystem in s.ecosystems), "")


__all__ = ["LanguageSpec", "advisory_language", "all_languages", "ecosystem_language", "language"]
