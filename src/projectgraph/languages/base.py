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
class LanguageSpec:
    """One language: its name, file extensions, tree-sitter grammar and extractor."""

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
