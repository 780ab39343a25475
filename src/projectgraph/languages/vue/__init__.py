"""Vue single-file components: ``<script>`` and ``<script setup>`` by the JS/TS rules, template calls."""

from pathlib import Path

from projectgraph.languages.base import LanguageSpec

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

LANGUAGES = (
    LanguageSpec(
        name="vue",
        extensions=(".vue",),
        grammar="vue",
        extractor="projectgraph.languages.javascript.sfc:extract_vue",
        tier="deep",
        roots=ROOTS,
        linker="projectgraph.link.javascript:make_linker",
        edge_kinds=("direct", "import", "export", "member", "assignment", "cha", "field", "reference"),
        extracts=("scripts (script, script setup) as JS/TS", "template handlers, expressions and components"),
    ),
)
