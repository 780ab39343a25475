"""Rust: modules, use trees, impl blocks and traits, declared and returned types, macros."""

from projectgraph.languages.base import LanguageSpec

LANGUAGES = (
    LanguageSpec(
        name="rust",
        extensions=(".rs",),
        grammar="rust",
        extractor="projectgraph.languages.rust.extract:extract",
        tier="deep",
        edge_kinds=("direct", "import", "member", "assignment", "cha", "name", "reference", "implements"),
        extracts=("imports", "exports", "definitions", "classes", "calls", "references", "assignments"),
    ),
)
