"""Java: packages and imports, classes and their members, declared types, calls, constructors."""

from pathlib import Path

from projectgraph.languages.base import LanguageSpec, StandardLibrary

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

LANGUAGES = (
    LanguageSpec(
        name="java",
        extensions=(".java",),
        grammar="java",
        extractor="projectgraph.languages.java.extract:extract",
        tier="deep",
        roots=ROOTS,
        module_separator=".",
        control_files=("pom.xml", "build.gradle", "build.gradle.kts"),
        standard=StandardLibrary(tops=frozenset({"java", "javax", "jdk", "sun"})),
        linker="projectgraph.link.java:make_linker",
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
