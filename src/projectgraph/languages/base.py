"""What every language module declares, and the shared helpers of the extractors.

A language is one folder under ``projectgraph/languages/``: its ``__init__.py`` sets ``LANGUAGES``,
a tuple of :class:`LanguageSpec`, and its extractor reads ``queries.scm`` beside it. The registry
finds the folders by itself, so adding a language touches no other file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    # the language's root rules (a file of the ``roots/rules.yaml`` form, beside its ``__init__``):
    # ``roots.embedded_rules`` reads the language-free file, then each language's, once each
    roots: str = ""

    def extract_function(self) -> Extract:
        module, _, function = self.extractor.partition(":")
        extract: Extract = getattr(importlib.import_module(module), function)
        return extract


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


@cache
def _pack_version() -> str:
    """The grammar pack's installed version (a scan of the installed distributions: once)."""
    from importlib.metadata import version

    return version("tree-sitter-language-pack")


@cache
def parser(grammar: str) -> Any:
    from tree_sitter import Parser

    return Parser(grammar_language(grammar))


@cache
def _query(grammar: str, path: str) -> Any:
    from tree_sitter import Query

    return Query(grammar_language(grammar), Path(path).read_text(encoding="utf-8"))


def compiled_query(grammar: str, module_file: str, name: str = "queries.scm") -> Any:
    """The query in ``name`` beside ``module_file``, compiled once per process per grammar."""
    return _query(grammar, str(Path(module_file).with_name(name)))


def short_text(raw: bytes, limit: int) -> str:
    """The first ``limit`` characters of a node's text on one line."""
    text = " ".join(raw[: limit * 4].decode("utf-8", "replace").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
