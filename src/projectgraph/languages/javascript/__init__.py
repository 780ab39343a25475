"""JavaScript, TypeScript and TSX: ESM and CommonJS imports and exports, definitions, calls, JSX."""

from projectgraph.languages.base import LanguageSpec

_EXTRACTOR = "projectgraph.languages.javascript.extract:extract"
_EDGE_KINDS = ("direct", "import", "export", "member", "assignment", "cha", "field", "wildcard", "reference")
_EXTRACTS = ("imports", "exports", "definitions", "classes", "calls", "references", "assignments", "dynamic")

LANGUAGES = (
    LanguageSpec(
        name="javascript",
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        grammar="javascript",
        extractor=_EXTRACTOR,
        tier="deep",
        edge_kinds=_EDGE_KINDS,
        extracts=_EXTRACTS,
        interpreters=("node", "nodejs", "deno", "bun"),
    ),
    # .d.ts / .d.mts / .d.cts end in a TypeScript extension: indexed as typescript, flagged "declarations"
    LanguageSpec(
        name="typescript",
        extensions=(".ts", ".mts", ".cts"),
        grammar="typescript",
        extractor=_EXTRACTOR,
        tier="deep",
        edge_kinds=_EDGE_KINDS,
        extracts=_EXTRACTS,
    ),
    LanguageSpec(
        name="tsx",
        extensions=(".tsx",),
        grammar="tsx",
        extractor=_EXTRACTOR,
        tier="deep",
        edge_kinds=_EDGE_KINDS,
        extracts=_EXTRACTS,
    ),
)
