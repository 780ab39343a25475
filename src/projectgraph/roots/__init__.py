"""Roots: where code starts to run. The rules are data: the language-free ones in ``rules.yaml``
beside this file, each language's in the file its record names (``LanguageSpec.roots``, a
``roots.yaml`` in its folder); a project can add rules that go over the embedded ones by id.

With no root of kind main, manifest or framework, every exported definition is a root of kind
``fallback``, and ``RootSet.fallback`` says so (reach then marks each answer root-fallback).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from projectgraph import keys, safefs
from projectgraph.fileindex import FileIndex
from projectgraph.graph import Root
from projectgraph.manifests import EntryPoint, Manifests, normalize

RULES_VERSION = 1
_STRONG = ("main", "manifest", "framework")


class RuleError(ValueError):
    """A root rule that cannot be used."""


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    languages: tuple[str, ...]
    frameworks: tuple[str, ...]
    match: dict[str, Any]


@dataclass(frozen=True)
class RootSet:
    roots: tuple[Root, ...]
    fallback: bool


def _parse_rules(data: Any, where: str, languages: tuple[str, ...] = ()) -> list[Rule]:
    """The rules of a file; one with no ``languages`` applies to ``languages`` (none: every one)."""
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise RuleError(f"{where}: expected a mapping with a 'rules' list")
    rules = []
    for raw in data["rules"]:
        if not isinstance(raw, dict) or not raw.get("id"):
            raise RuleError(f"{where}: every rule needs an 'id'")
        kind = raw.get("kind", "framework")
        if kind not in ("main", "manifest", "framework", "test"):
            raise RuleError(f"{where}: rule {raw['id']!r}: unknown kind {kind!r}")
        match = raw.get("match")
        if not isinstance(match, dict) or not match:
            raise RuleError(f"{where}: rule {raw['id']!r} needs a 'match' mapping")
        rules.append(
            Rule(
                id=str(raw["id"]),
                kind=kind,
                languages=tuple(raw["languages"] or ()) if "languages" in raw else languages,
                frameworks=tuple(str(f) for f in raw.get("frameworks") or ()),
                match=match,
            )
        )
    return rules


@cache
def embedded_rules() -> tuple[Rule, ...]:
    """The language-free rules, then each language's: a rule id that several languages' files hold
    is one rule of all their languages (the files must say the same of it but its languages)."""
    from projectgraph.languages import all_languages  # the languages' folders import the engine

    files: dict[str, list[str]] = {str(Path(__file__).with_name("rules.yaml")): []}
    for spec in all_languages().values():
        if spec.roots:
            files.setdefault(spec.roots, []).append(spec.name)
    by_id: dict[str, Rule] = {}
    for path, languages in files.items():
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        for rule in _parse_rules(data, path, tuple(languages)):
            known = by_id.get(rule.id)
            if known is None:
                by_id[rule.id] = rule
            elif replace(known, languages=()) != replace(rule, languages=()):
                raise RuleError(f"{path}: rule {rule.id!r} says otherwise than another file's")
            else:
                merged = tuple(dict.fromkeys((*known.languages, *rule.languages)))
                by_id[rule.id] = replace(known, languages=merged)
    return tuple(by_id.values())


def load_rules(path: str | Path) -> list[Rule]:
    """Read a project's rules file (the same form as the embedded rules.yaml)."""
    try:
        data = yaml.safe_load(safefs.read_text(path))
    except (OSError, yaml.YAMLError) as error:
        raise RuleError(f"{path}: {error}") from None
    return _parse_rules(data, str(path))


def merge_rules(extra: Iterable[Rule]) -> list[Rule]:
    """The embedded rules with ``extra`` going over them by id (new ids are added)."""
    by_id = {rule.id: rule for rule in embedded_rules()}
    for rule in extra:
        by_id[rule.id] = rule
    return list(by_id.values())


# The resolver a language linker gives: (entry point) -> key or None.
EntryResolver = Callable[[EntryPoint], str | None]


def find(
    indexes: Sequence[FileIndex],
    manifests: Manifests,
    resolve_entry: EntryResolver,
    test_paths: Sequence[str],
    rules: Iterable[Rule] = (),
    handler_refs: Callable[[FileIndex, Sequence[str]], Iterable[str]] | None = None,
) -> RootSet:
    """Mark the roots of the graph with the rules."""
    active = merge_rules(rules)
    roots = entry_roots(active, manifests, resolve_entry, {index.path: index for index in indexes})
    for index in indexes:
        roots |= file_roots(active, index, manifests.dependencies, test_paths, handler_refs)
    return with_fallback(roots, (fallback_roots(index, test_paths) for index in indexes))


def entry_roots(
    active: Sequence[Rule],
    manifests: Manifests,
    resolve_entry: EntryResolver,
    indexes: Mapping[str, FileIndex] | None = None,
) -> set[Root]:
    """The roots the manifests' entry points give (the rules that match entry points).

    A library entry of a package.json (``main``, ``exports``, ``module``, ``browser``) is the
    package's surface: the code that imports the package calls what the module exports, so the
    exported definitions of the module, and those it re-exports from the package's files, are roots
    too (``indexes``, by path, gives them)."""
    roots: set[Root] = set()
    for rule in active:
        if rule.match.get("entry_points"):
            for entry in manifests.entry_points:
                key = resolve_entry(entry)
                if key is None:
                    continue
                roots.add(Root(key, rule.kind, rule.id))
                if indexes is not None and entry.group in LIBRARY_ENTRY_GROUPS and key in indexes:
                    roots.update(
                        Root(found, rule.kind, rule.id) for found in surface_definitions(key, indexes)
                    )
    return roots


LIBRARY_ENTRY_GROUPS = frozenset({"main", "exports", "module", "browser"})
_SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_MAX_REEXPORT_HOPS = 10


def surface_definitions(path: str, indexes: Mapping[str, FileIndex]) -> set[str]:
    """The keys of the public definitions a module gives its importers: the definitions its export
    records name (``export function f``, ``export default g``, ``module.exports = {h}``, with their
    members) and, through ``export ... from`` of the project's files, what it re-exports (a named
    re-export gives that name, ``export *`` every exported name), at most 10 hops deep. A script's
    top-level functions are globals, not exports: a module that exports nothing gives nothing."""
    found: set[str] = set()
    seen: set[tuple[str, str | None]] = set()
    pending: list[tuple[str, str | None, int]] = [(path, None, 0)]  # (file, only this name, hops)
    while pending:
        current, only, hops = pending.pop()
        if (current, only) in seen or current not in indexes:
            continue
        seen.add((current, only))
        index = indexes[current]
        names = {e.local or e.name for e in index.exports if not e.module and e.name != "*"}
        if only is not None:
            names &= {only}
        for d in index.definitions:
            if d.kind == "variable" or not _public_chain(d.qualname):
                continue
            head = d.qualname.split(".", 1)[0]
            if head in names:
                found.add(keys.first_party(current, d.qualname))
        if hops >= _MAX_REEXPORT_HOPS:
            continue
        for export in index.exports:
            if not export.module or not export.module.startswith("."):
                continue
            if only is not None and export.name not in (only, "*"):
                continue
            source = _relative_module(current, export.module, indexes)
            if source is None:
                continue
            if export.star:
                pending.append((source, only, hops + 1))
            else:
                pending.append((source, export.local or export.name, hops + 1))
    return found


def _relative_module(importer: str, spec: str, indexes: Mapping[str, FileIndex]) -> str | None:
    """The project file a relative JavaScript/TypeScript module specifier names, if indexed."""
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    candidates = [base]
    stem, suffix = posixpath.splitext(base)
    if suffix in (".js", ".mjs", ".cjs", ".jsx"):  # TypeScript imports name the emitted file
        candidates.extend(stem + s for s in (".ts", ".mts", ".cts", ".tsx"))
    candidates.extend(base + s for s in _SCRIPT_SUFFIXES)
    candidates.extend(posixpath.join(base, "index" + s) for s in _SCRIPT_SUFFIXES)
    return next((c for c in candidates if c in indexes), None)


def file_roots(
    active: Sequence[Rule],
    index: FileIndex,
    deps: frozenset[str],
    test_paths: Sequence[str],
    handler_refs: Callable[[FileIndex, Sequence[str]], Iterable[str]] | None = None,
) -> set[Root]:
    """The roots the rules (but entry points) find in one file: a function of that file alone."""
    roots: set[Root] = set()
    for rule in active:
        if rule.match.get("entry_points"):
            continue
        if rule.languages and index.language not in rule.languages:
            continue
        if rule.frameworks and not _uses_framework(index, rule.frameworks, deps):
            continue
        roots.update(_match_file(rule, index, test_paths, handler_refs))
    return roots


def fallback_roots(index: FileIndex, test_paths: Sequence[str]) -> set[Root]:
    """The roots of one file when no rule finds a strong one (its exported definitions)."""
    if _is_test(index.path, test_paths):
        return set()
    return {
        Root(keys.first_party(index.path, d.qualname), "fallback", "root-fallback")
        for d in index.definitions
        if d.exported and _public_chain(d.qualname) and d.kind != "variable"
    }


def with_fallback(roots: set[Root], fallbacks: Iterable[set[Root]]) -> RootSet:
    """The root set: ``roots``, and the fallback roots when none of them is strong."""
    strong = any(root.kind in _STRONG for root in roots)
    if not strong:
        roots = set(roots)
        for found in fallbacks:
            roots |= found
    return RootSet(tuple(sorted(roots)), fallback=not strong)


def _public_chain(qualname: str) -> bool:
    return all(not part.startswith("_") or part.startswith("__") for part in qualname.split("."))


def _uses_framework(index: FileIndex, frameworks: Sequence[str], deps: frozenset[str]) -> bool:
    for framework in frameworks:
        if normalize(framework) in deps:
            return True
        for imp in index.imports:
            module = imp.module
            if (
                module == framework
                or module.startswith(framework + ".")
                or module.startswith(framework + "/")
            ):
                return True
    return False


def _is_test(path: str, test_paths: Sequence[str]) -> bool:
    return any(_glob(path, pattern) for pattern in test_paths)


def _glob(path: str, pattern: str) -> bool:
    if fnmatchcase(path, pattern):
        return True
    # "**/x" also matches "x" at the root
    return pattern.startswith("**/") and fnmatchcase(path, pattern[3:])


def _match_file(
    rule: Rule,
    index: FileIndex,
    test_paths: Sequence[str],
    handler_refs: Callable[[FileIndex, Sequence[str]], Iterable[str]] | None,
) -> set[Root]:
    match = rule.match
    found: set[Root] = set()
    path = index.path
    if match.get("main_guard") and index.main_guard:
        found.add(Root(path, rule.kind, rule.id))
    flags = match.get("flags")
    if flags and any(flag in index.flags for flag in flags):
        found.add(Root(path, rule.kind, rule.id))
    names = match.get("main_function")
    if names:
        for d in index.definitions:
            if d.qualname in names:
                found.add(Root(keys.first_party(path, d.qualname), rule.kind, rule.id))
    patterns = match.get("decorators")
    if patterns:
        for d in index.definitions:
            if any(fnmatchcase(dec, pattern) for dec in d.decorators for pattern in patterns):
                found.add(Root(keys.first_party(path, d.qualname), rule.kind, rule.id))
    globs = match.get("paths")
    if globs and any(_glob(path, g) for g in globs):
        what = match.get("what", "module")
        found.add(Root(path, rule.kind, rule.id))
        if what in ("definitions", "exported"):
            for d in index.definitions:
                if what == "exported" and not d.exported:
                    continue
                found.add(Root(keys.first_party(path, d.qualname), rule.kind, rule.id))
    methods = match.get("handler_calls")
    if methods and handler_refs is not None:
        for key in handler_refs(index, methods):
            found.add(Root(key, rule.kind, rule.id))
    if match.get("test_paths") and _is_test(path, test_paths):
        found.add(Root(path, rule.kind, rule.id))
        for d in index.definitions:
            found.add(Root(keys.first_party(path, d.qualname), rule.kind, rule.id))
    return found
