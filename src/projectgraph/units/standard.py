"""Which external keys name a language's standard library, and which standard names are leaves.

The reach query scopes a call into code the graph does not hold by each language's
``StandardLibrary`` record (``LanguageSpec.standard``, in the language's folder): a standard library
function reaches only standard library targets (its code imports no third-party package), and a
leaf (a Python builtin such as ``len``, a module compiled into the interpreter such as ``sys``, a
compiled standard module such as ``_sre`` when the standard library unit shows it has no source)
reaches none, as what it calls back is the code passed to it, which the link step already follows.
A language with no record has no standard scope: a call into code the graph does not hold concerns
every target.
"""

from __future__ import annotations

from functools import cache

from projectgraph.keys import SEP
from projectgraph.languages import all_languages
from projectgraph.languages.base import StandardLibrary


@cache
def _standard(language: str) -> StandardLibrary | None:
    spec = all_languages().get(language)
    return spec.standard if spec is not None else None


def has_standard(language: str) -> bool:
    """Whether the language has a standard scope here."""
    return _standard(language) is not None


def standard_ecosystem(language: str) -> str:
    """The ecosystem of the language's standard library unit (``python``), or ""."""
    standard = _standard(language)
    return standard.ecosystem if standard is not None else ""


@cache
def standard_ecosystems() -> frozenset[str]:
    """The ecosystems of every language's standard library unit: indexed when a project asks."""
    return frozenset(e for e in (standard_ecosystem(name) for name in all_languages()) if e)


def is_standard(language: str, key: str) -> bool:
    """Whether an external key names the language's standard library (``os//path//join``)."""
    standard = _standard(language)
    if standard is None:
        return False
    top = key.split(SEP, 1)[0]
    if standard.dotless:
        return "." not in top and top != "*"
    if standard.prefixes and top.startswith(standard.prefixes):
        return True
    return top in standard.tops


def is_leaf(language: str, key: str) -> bool:
    """Whether a standard name reaches no target of its own (a Python builtin function or class, a
    JavaScript global such as ``JSON//parse``)."""
    standard = _standard(language)
    if standard is None:
        return False
    parts = key.split(SEP)
    if parts[0] in standard.leaf_tops:
        return True
    if standard.main_module and parts[0] == standard.main_module:
        return True  # the program's own main module: project code, in the graph
    if standard.builtins_module and parts[0] == standard.builtins_module:
        return len(parts) >= 2 and parts[1] not in standard.not_leaves
    # a module compiled into the interpreter (sys, time, itertools): no source anywhere, a compiled
    # leaf whether or not the standard library is a unit
    return parts[0] in standard.compiled_modules and is_compiled_leaf(language, parts[0])


def is_compiled_leaf(language: str, top: str) -> bool:
    """Whether a compiled module of the standard library (one with no source in its unit: ``_sre``,
    ``math``) reaches no target of its own."""
    standard = _standard(language)
    return standard is not None and standard.compiled_leaves and top not in standard.compiled_not_leaves


__all__ = [
    "has_standard",
    "is_compiled_leaf",
    "is_leaf",
    "is_standard",
    "standard_ecosystem",
    "standard_ecosystems",
]
