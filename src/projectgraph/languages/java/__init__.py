"""Java: packages and imports, classes and their members, declared types, calls, constructors."""

from projectgraph.languages.base import LanguageSpec

LANGUAGES = (
    LanguageSpec(
        name="java",
        extensions=(".java",),
        grammar="java",
        extractor="projectgraph.languages.java.extract:extract",
        tier="deep",
        edge_kinds=("direct", "member", "cha", "name", "reference", "extends", "implements"),
        extracts=(
            "package",
            "imports (single, on-demand, static)",
            "classes",
            "interfaces",
            "enums",
            "records",
            "nested types",
            "constructors",
            "annotations",
            "calls",
            "result types",
            "declared types",
            "lambdas",
            "method references",
        ),
    ),
)
