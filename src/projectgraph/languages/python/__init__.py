"""Python: imports, definitions, calls, receivers and dynamic features."""

import sys

from projectgraph.fileindex import FileIndex
from projectgraph.languages.base import StandardLibrary, import_prefixes, specs_from_folder
from projectgraph.languages.python.never_called import NEVER_CALLED

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

LANGUAGES = specs_from_folder(__file__, standard=STANDARD, never_called=NEVER_CALLED)


def unit_names(index: FileIndex) -> set[str]:
    """Each absolute import and its dotted prefixes (``a``, ``a.b`` of ``a.b.c``)."""
    return import_prefixes(index, ".")
