"""Rust: modules, use trees, impl blocks and traits, declared and returned types, macros."""

from projectgraph.languages.base import LanguageSpec, StandardLibrary

LANGUAGES = (
    LanguageSpec(
        name="rust",
        extensions=(".rs",),
        grammar="rust",
        extractor="projectgraph.languages.rust.extract:extract",
        tier="deep",
        module_separator="::",
        control_files=("Cargo.toml",),
        standard=StandardLibrary(tops=frozenset({"std", "core", "alloc", "proc_macro", "test"})),
        units="projectgraph.units.rust:discover",
        ecosystems=("cargo",),
        surface="projectgraph.link.rust:unit_surface",
        linker="projectgraph.link.rust:make_linker",
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
            "module tree (mod, #[path], inline)",
            "imports (use trees, extern crate)",
            "re-exports (pub use)",
            "definitions",
            "impl blocks",
            "traits",
            "macros",
            "closures",
            "calls (macro bodies as tokens)",
            "result types",
            "declared types",
            "references",
        ),
    ),
)
