"""What every language module declares, and the shared helpers of the extractors.

A language is one folder under ``projectgraph/languages/``: its ``__init__.py`` sets ``LANGUAGES``,
a tuple of :class:`LanguageSpec`, and its extractor reads ``queries.scm`` beside it. The registry
finds the folders by itself, so adding a language touches no other file.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node

    from projectgraph.fileindex import FileIndex

Extract = Callable[[Any, bytes, str, str], "FileIndex"]


@dataclass(frozen=True)
class StandardLibrary:
    """Which external keys of a language name its standard library, and which of them are leaves.

    The reach query scopes a call into code the graph does not hold by this record (``units.standard``
    reads it): a standard library function reaches only standard library targets, and a leaf (a
    Python builtin such as ``len``, a JavaScript global such as ``JSON//parse``) reaches none, as what
    it calls back is the code passed to it, which the link step already follows.
    """

    tops: frozenset[str] = frozenset()  # the first key segments that are standard (``os``, ``std``)
    prefixes: tuple[str, ...] = ()  # a first segment starting so is standard too (``node:``)
    # every first segment with no dot in it is standard (Go: a module path of a download has a host)
    dotless: bool = False
    ecosystem: str = ""  # the ecosystem of the standard library's unit (``python:std@3.11``), if any
    leaf_tops: frozenset[str] = frozenset()  # a key under one of these first segments is a leaf
    main_module: str = ""  # the program's own main module (``__main__``): project code, a leaf here
    builtins_module: str = ""  # the module of the builtins: a name under it is a leaf ...
    not_leaves: frozenset[str] = frozenset()  # ... unless it is one of these (``exec``, ``__import__``)
    compiled_modules: frozenset[str] = frozenset()  # modules compiled into the interpreter (``sys``)
    # a compiled module with no source (in the interpreter or in the standard library's unit) reaches
    # nothing of its own, unless it is one of these (it imports or runs code by name)
    compiled_leaves: bool = False
    compiled_not_leaves: frozenset[str] = frozenset()


@dataclass(frozen=True)
class NeverCalled:
    """A language's never-called rule (``reach.unmentioned``): a first-party function of it whose
    name no file's word filter holds is never called, unless the graph holds one of these ways to
    take a function as a value without its name."""

    # words that let code take a function as a value without its name (``getattr``, ``vars``)
    enumerators: tuple[str, ...]
    # the external keys of lookups by a computed name: one taken as a value makes no claim possible
    lookups: tuple[str, ...]
    # the external modules that take no name from a text: the graph must call no other external
    quiet_modules: frozenset[str]
    # but these, which read files, evaluate text or take names (an entry covers the keys under it)
    loud_externals: frozenset[str]
    # name prefixes and names a runner or a framework calls by convention: never claimed
    conventions: tuple[str, ...]
    conventional: frozenset[str]


@dataclass(frozen=True)
class LanguageSpec:
    """One language: its name, file extensions, tree-sitter grammar and extractor, and every fact the
    other stages need of it (each stage reads it here, none keeps a table of languages)."""

    name: str
    extensions: tuple[str, ...]
    grammar: str
    extractor: str  # "module.path:function"
    tier: str = "deep"  # deep | generic
    edge_kinds: tuple[str, ...] = ()
    extracts: tuple[str, ...] = ()
    # the interpreters a shebang line names for a script of this language with no extension of its
    # own (``#!/usr/bin/env python3``: a version suffix is dropped before the lookup)
    interpreters: tuple[str, ...] = ()
    # how the language writes a module path (``.`` in Python, ``/`` in an ES import, ``::`` in Rust):
    # ``keys.external`` makes it ``//``
    module_separator: str = "."
    # the control files the link or the configuration reads for this language (``sync.controls``):
    # names in any folder that holds or is above a source file, (prefix, suffix) families of config
    # files anywhere (a tsconfig may be extended from any folder, by a relative ``"extends"``), and
    # (prefix, suffix) families at the project root only (``requirements*.txt``)
    control_files: tuple[str, ...] = ()
    control_patterns: tuple[tuple[str, str], ...] = ()
    root_control_patterns: tuple[tuple[str, str], ...] = ()
    standard: StandardLibrary | None = None  # None: no standard scope (a call out concerns every target)
    # content flags the indexer sets (``indexer._content_flags``): a line matching this regex in the
    # first 64 KiB marks the file "generated" (Go's ``// Code generated ... DO NOT EDIT.``); with
    # ``minified_lines``, a file whose lines of 1,000 bytes or more hold most of it is "minified"
    generated_marker: bytes = b""
    minified_lines: bool = False
    # the unit finder (``units.discover_units`` calls it: "module:function") and the ecosystems of
    # the units it gives (a ``--deps DIR=ECOSYSTEM`` names one); languages that share one finder
    # name it each, it runs once
    units: str = ""
    ecosystems: tuple[str, ...] = ()
    # how the link names the definitions of this language's units ("module:function", whose module
    # may set ``SURFACE_VERSION``), where a unit's keys are not the plain ``module//name`` of a
    # file (an npm package's exports map): ``link.units`` uses it for each of ``ecosystems``
    surface: str = ""
    # the linker's maker ("module:function"; ``link.build`` calls each once, in the order of the
    # first language naming it): every generic-tier language names the generic linker
    linker: str = ""
    # a pass that runs after every linker, over the indexes of every language ("module:function" of
    # ``(indexes, builder)``; ``link.build`` calls each once, in the order of the first language
    # naming it): a framework whose calls cross languages (Tauri: a front end's invoke to a Rust
    # command)
    link_pass: str = ""
    # the language's root rules (a file of the ``roots/rules.yaml`` form, beside its ``__init__``):
    # ``roots.embedded_rules`` reads the language-free file, then each language's, once each
    roots: str = ""
    # the names a file asks dependency units by (``indexer.index_units``: "module:function", of a
    # ``FileIndex``); empty: each absolute import and its prefixes, split at ``/``
    unit_names: str = ""
    # the ecosystem of the language's packages as OSV names it (``PyPI``, ``crates.io``): ``audit``
    # writes an advisory's symbols as this language's external keys
    advisory_ecosystem: str = ""
    # the linker has a tracked form (``python.link.incremental.build_tracked``): a sync keeps its state
    tracked_link: bool = False
    # the never-called rule of ``reach.unmentioned``, for the language's first-party functions
    never_called: NeverCalled | None = None

    def hook(self, name: str) -> Any:
        """The object a "module:attribute" field of this record names (``extractor``, ``units``,
        ``surface``, ``linker``, ``unit_names``), imported at the first call."""
        module, _, attribute = getattr(self, name).partition(":")
        return getattr(importlib.import_module(module), attribute)

    def extract_function(self) -> Extract:
        extract: Extract = self.hook("extractor")
        return extract


# ---- a folder's declaration ---------------------------------------------------------------------

DECLARATION = "language.toml"  # a language folder's record as data, beside its __init__.py


class DeclarationError(ValueError):
    """A ``language.toml`` that is not a language's record (the message names the file)."""


def read_declaration(source: str) -> tuple[Path, dict[str, Any]]:
    """The ``language.toml`` beside ``source`` (a folder's ``__file__``), parsed."""
    path = Path(source).with_name(DECLARATION)
    try:
        return path, tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise DeclarationError(f"{path}: not a language declaration ({error})") from None


def record_values(path: Path, data: dict[str, Any], record: type, exclude: frozenset[str]) -> dict[str, Any]:
    """The keyword arguments of ``record`` (a dataclass) that a declaration's table gives: its lists
    as tuples (of tuples), its ``standard`` table a ``StandardLibrary``; an unknown key is an error."""
    known = {f.name for f in fields(record)} - exclude
    unknown = sorted(set(data) - known)
    if unknown:
        raise DeclarationError(
            f"{path}: not a language declaration (unknown field(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known))})"
        )
    values = {key: _tuples(value) for key, value in data.items()}
    if "standard" in data:
        sets = {f.name for f in fields(StandardLibrary) if f.type == "frozenset[str]"}
        table: dict[str, Any] = {k: frozenset(v) if k in sets else v for k, v in values["standard"].items()}
        try:
            values["standard"] = StandardLibrary(**table)
        except TypeError as error:
            raise DeclarationError(f"{path}: not a language declaration ([standard]: {error})") from None
    return values


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _tuples(item) for key, item in value.items()}
    return value


def specs_from_folder(source: str, **code: Any) -> tuple[LanguageSpec, ...]:
    """The ``LANGUAGES`` of a folder whose ``language.toml`` declares them: each ``[[language]]``
    table over the ``[shared]`` one, ``roots`` a file beside it, ``generated_marker`` a text (made
    bytes); ``code`` gives the fields data cannot hold (a table made from ``sys``), for each one."""
    path, data = read_declaration(source)
    shared = data.get("shared", {})
    unknown = sorted(set(data) - {"shared", "language"})
    tables = data.get("language", [])
    try:
        if unknown or not tables:
            found = ", ".join(unknown) or "no [[language]]"
            raise TypeError(f"the tables are [shared] and [[language]], found {found}")
        specs = []
        for table in tables:
            values = record_values(path, shared | table, LanguageSpec, frozenset(code))
            if "roots" in values:
                values["roots"] = str(path.with_name(values["roots"]))
            if "generated_marker" in values:
                values["generated_marker"] = values["generated_marker"].encode("utf-8")
            specs.append(LanguageSpec(**values, **code))
    except (TypeError, ValueError) as error:
        if isinstance(error, DeclarationError):
            raise
        raise DeclarationError(f"{path}: not a language declaration ({error})") from None
    return tuple(specs)


@cache
def grammar_language(grammar: str) -> Any:
    from tree_sitter_language_pack import get_language

    return get_language(grammar)  # type: ignore[arg-type]


@cache
def grammar_version(grammar: str) -> str:
    """The grammar's version as the cache key uses it: the pack's version and the grammar's ABI."""
    language = grammar_language(grammar)
    semantic = getattr(language, "semantic_version", None)
    abi = getattr(language, "abi_version", "")
    sem = ".".join(str(part) for part in semantic) if semantic else "0"
    return f"{_pack_version()}/{sem}/{abi}"


def pack_version() -> str:
    """The grammar pack's installed version: its own distribution's metadata, found beside the
    package (importlib.metadata scans every installed distribution: 60-185 ms of a no-op sync)."""
    return _pack_version()


@cache
def _pack_version() -> str:
    import importlib.util

    spec = importlib.util.find_spec("tree_sitter_language_pack")
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        infos = sorted(site.glob("tree_sitter_language_pack-*.dist-info"))
        if len(infos) == 1:
            try:
                for line in (infos[0] / "METADATA").read_text(encoding="utf-8").splitlines():
                    if line.startswith("Version:"):
                        return line.removeprefix("Version:").strip()
                    if not line:
                        break  # the headers end at the first empty line
            except OSError:
                pass
    from importlib.metadata import version

    return version("tree-sitter-language-pack")


@cache
def parser(grammar: str) -> Any:
    from tree_sitter import Parser

    return Parser(grammar_language(grammar))


CAPTURE = re.compile(r"@([A-Za-z_][\w.]*)")
# the predicates tree-sitter's Python binding applies: it ignores any other, so the pattern would
# match everything
_KNOWN_PREDICATES = ("eq?", "not-eq?", "match?", "not-match?", "any-of?")


def folder_text(module_file: str, parts: Sequence[str] = ("queries.scm",)) -> str:
    """The query of a language folder: its ``parts`` beside ``module_file``, one after another."""
    folder = Path(module_file).parent
    return "\n".join((folder / part).read_text(encoding="utf-8") for part in parts)


@cache
def folder_query(module_file: str, grammar: str, kinds: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
    """The ``queries.scm`` beside ``module_file`` compiled for ``grammar``, with each pattern's kind
    (its one capture named in ``kinds``), once per process."""
    return kind_query(grammar, folder_text(module_file), frozenset(kinds).__contains__, grammar)


def folder_matches(
    module_file: str, grammar: str, kinds: tuple[str, ...], root: Node
) -> dict[str, list[dict[str, list[Node]]]]:
    """The matches (captures by name) of the ``folder_query`` in the tree ``root``, grouped by their
    pattern's kind: every one of ``kinds`` is a key, and each list is in match order."""
    from tree_sitter import QueryCursor

    query, pattern_kinds = folder_query(module_file, grammar, kinds)
    groups: dict[str, list[dict[str, list[Node]]]] = {kind: [] for kind in kinds}
    add = [groups[kind].append for kind in pattern_kinds]
    for index, captures in QueryCursor(query).matches(root):
        add[index](captures)
    return groups


def kind_query(
    grammar: str, text: str, is_kind: Callable[[str], bool], where: str
) -> tuple[Any, tuple[str, ...]]:
    """The query ``text`` compiled for ``grammar`` and the kind of each pattern: the one capture of
    it that ``is_kind`` (an error names ``where``). Every extractor that reads kinds loads so."""
    from tree_sitter import Query

    for predicate in re.findall(r"#([\w-]+\?)", uncommented(text)):
        if predicate not in _KNOWN_PREDICATES:
            raise ValueError(f"{where}: queries.scm uses #{predicate}, which tree-sitter ignores here")
    query = Query(grammar_language(grammar), text)
    kinds = []
    for index in range(query.pattern_count):
        pattern = uncommented(text[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)])
        found = {name for name in CAPTURE.findall(pattern) if is_kind(name)}
        if len(found) != 1:
            raise ValueError(f"{where}: queries.scm pattern {index} needs one kind capture: {pattern!r}")
        kinds.append(found.pop())
    return query, tuple(kinds)


def uncommented(text: str) -> str:
    """Query text without its ``;`` comments (outside strings, which a query keeps on one line)."""
    lines = []
    for line in text.splitlines():
        out, quoted, escaped = [], False, False
        for ch in line:
            if ch == ";" and not quoted:
                break
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = not quoted
        lines.append("".join(out))
    return "\n".join(lines)


def import_prefixes(index: FileIndex, separator: str = "/") -> set[str]:
    """Every absolute import of the index and each of its prefixes (``@s``, ``@s/p`` of ``@s/p/x``):
    the names a file asks dependency units by, where its language says no other way."""
    names: set[str] = set()
    for imp in index.imports:
        module = imp.module
        if imp.level or not module or module.startswith("."):
            continue
        parts = module.split(separator)
        for end in range(1, len(parts) + 1):
            names.add(separator.join(parts[:end]))
    return names


def short_text(raw: bytes, limit: int) -> str:
    """The first ``limit`` characters of a node's text on one line."""
    text = " ".join(raw[: limit * 4].decode("utf-8", "replace").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
