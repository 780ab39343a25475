"""Go: packages, imports, functions, methods with receivers, types with method sets and embedding,
calls with chained receivers, result types by position, bindings, build constraints."""

from projectgraph.languages.base import LanguageSpec

LANGUAGES = (
    LanguageSpec(
        name="go",
        extensions=(".go",),
        grammar="go",
        extractor="projectgraph.languages.go.extract:extract",
        tier="deep",
        edge_kinds=(
            "direct",
            "import",
            "member",
            "assignment",
            "cha",
            "name",
            "reference",
            "extends",
            "implements",
        ),
        extracts=(
            "package",
            "imports",
            "definitions",
            "methods",
            "types",
            "function literals",
            "calls",
            "result types",
            "references",
            "assignments",
            "build constraints",
            "dynamic",
        ),
    ),
)
