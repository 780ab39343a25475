"""Python: imports, definitions, calls, receivers and dynamic features."""

import sys
from pathlib import Path

from projectgraph.fileindex import FileIndex
from projectgraph.languages.base import LanguageSpec, StandardLibrary, import_prefixes
from projectgraph.languages.python.never_called import NEVER_CALLED

ROOTS = str(Path(__file__).with_name("roots.yaml"))  # the root rules of this folder's languages

STANDARD = StandardLibrary(
    tops=frozenset(sys.stdlib_module_names),
    ecosystem="python",
    main_module="__main__",
    builtins_module="builtins",
    # builtins whose code reaches other modules whatever is passed to them
    not_leaves=frozenset({"__import__", "exec", "eval", "compile", "breakpoint", "help"}),
    compiled_modules=frozenset(sys.builtin_module_names) - {"builtins"},
    compiled_leaves=True,
    # compiled standard modules that import or run code by name (the others call back only what is
    # passed to them, which the link step follows by reference edges)
    compiled_not_leaves=frozenset(
        {
            "_pickle",
            "_imp",
            "_frozen_importlib",
            "_frozen_importlib_external",
            "_xxsubinterpreters",
            "marshal",
        }
    ),
)

LANGUAGES = (
    LanguageSpec(
        name="python",
        extensions=(".py", ".pyi"),
        grammar="python",
        extractor="projectgraph.languages.python.extract:extract",
        tier="deep",
        roots=ROOTS,
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
        module_separator=".",
        # nested pyproject.toml and setup.cfg: a monorepo package's entry points
        control_files=("pyproject.toml", "setup.cfg"),
        root_control_patterns=(("requirements", ".txt"),),
        standard=STANDARD,
        units="projectgraph.languages.python.units:discover",
        ecosystems=("pypi", "python"),
        linker="projectgraph.link.python:make_linker",
        unit_names="projectgraph.languages.python:unit_names",
        advisory_ecosystem="PyPI",
        tracked_link=True,
        never_called=NEVER_CALLED,
    ),
)


def unit_names(index: FileIndex) -> set[str]:
    """Each absolute import and its dotted prefixes (``a``, ``a.b`` of ``a.b.c``)."""
    return import_prefixes(index, ".")
