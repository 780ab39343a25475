"""Rust: modules, use trees, impl blocks and traits, declared and returned types, macros."""

from pathlib import Path

from projectgraph.fileindex import FileIndex
from projectgraph.languages.base import LanguageSpec, StandardLibrary

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

LANGUAGES = (
    LanguageSpec(
        name="rust",
        extensions=(".rs",),
        grammar="rust",
        extractor="projectgraph.languages.rust.extract:extract",
        tier="deep",
        roots=ROOTS,
        module_separator="::",
        control_files=("Cargo.toml",),
        standard=StandardLibrary(tops=frozenset({"std", "core", "alloc", "proc_macro", "test"})),
        units="projectgraph.languages.rust.units:discover",
        ecosystems=("cargo",),
        surface="projectgraph.link.rust:unit_surface",
        linker="projectgraph.link.rust:make_linker",
        unit_names="projectgraph.languages.rust:unit_names",
        advisory_ecosystem="crates.io",
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


def unit_names(index: FileIndex) -> set[str]:
    """The first segment of each path a Rust file writes: use paths, extern crates, and calls and
    references by path (``helper::serve()`` with no use), as the crate names units give."""
    heads = {(imp.module or imp.name or "").split("::", 1)[0] for imp in index.imports}
    heads |= {call.callee.split("::", 1)[0] for call in index.calls if "::" in call.callee}
    heads |= {ref.name.split("::", 1)[0] for ref in index.references if "::" in ref.name}
    return {head for head in heads if head}
