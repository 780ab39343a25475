"""Go: packages, imports, functions, methods with receivers, types with method sets and embedding,
calls with chained receivers, result types by position, bindings, build constraints."""

from projectgraph.languages.base import specs_from_folder

LANGUAGES = specs_from_folder(__file__)
