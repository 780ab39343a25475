"""Go: packages, imports, functions, methods with receivers, types with method sets and embedding,
calls with chained receivers, result types by position, bindings, build constraints."""

from pathlib import Path

from projectgraph.languages.base import LanguageSpec, StandardLibrary

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

LANGUAGES = (
    LanguageSpec(
        name="go",
        extensions=(".go",),
        grammar="go",
        extractor="projectgraph.languages.go.extract:extract",
        tier="deep",
        roots=ROOTS,
        module_separator="/",
        control_files=("go.mod",),
        standard=StandardLibrary(dotless=True),  # a module path of a download starts with its host
        units="projectgraph.languages.go.units:discover",
        ecosystems=("go",),
        surface="projectgraph.link.go:unit_surface",
        linker="projectgraph.link.go:make_linker",
        advisory_ecosystem="Go",
        generated_marker=rb"^// Code generated .* DO NOT EDIT\.\r?$",  # Go's convention
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
