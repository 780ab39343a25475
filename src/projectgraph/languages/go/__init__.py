"""Go: packages, imports, functions, methods with receivers, types with method sets and embedding,
calls with chained receivers, result types by position, bindings, build constraints."""

from projectgraph.languages.base import specs_from_folder

NO_BODY = "no-body"
"""The last of a definition's ``decorators`` when a function or method is declared without a body
(its code is in assembly or, by ``//go:linkname``, another package's function)."""

LANGUAGES = specs_from_folder(__file__)
