"""Python: imports, definitions, calls, receivers and dynamic features."""

from projectgraph.languages.base import LanguageSpec

LANGUAGES = (
    LanguageSpec(
        name="python",
        extensions=(".py", ".pyi"),
        grammar="python",
        extractor="projectgraph.languages.python.extract:extract",
        tier="deep",
        edge_kinds=(
            "direct",
            "import",
            "export",
            "member",
            "assignment",
            "cha",
            "name",
            "wildcard",
            "reference",
            "returned",
            "protocol",
            "property",
            "container",
            "argument",
        ),
        extracts=(
            "imports",
            "definitions",
            "classes",
            "calls",
            "calls with no call written (with, for, raise)",
            "attribute reads",
            "references",
            "assignments",
            "dynamic",
        ),
        interpreters=("python", "pypy"),
    ),
)
