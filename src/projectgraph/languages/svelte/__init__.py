"""Svelte components: instance and module scripts by the JS/TS rules, template calls."""

from pathlib import Path

from projectgraph.languages.base import LanguageSpec

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

LANGUAGES = (
    LanguageSpec(
        name="svelte",
        extensions=(".svelte",),
        grammar="svelte",
        extractor="projectgraph.languages.javascript.sfc:extract_svelte",
        tier="deep",
        roots=ROOTS,
        linker="projectgraph.link.javascript:make_linker",
        edge_kinds=("direct", "import", "export", "member", "assignment", "cha", "field", "reference"),
        extracts=("scripts (instance, module) as JS/TS", "template handlers, expressions and components"),
    ),
)
