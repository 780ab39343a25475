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
        extracts=("imports", "definitions", "classes", "calls", "references", "assignments"),
    ),
)
