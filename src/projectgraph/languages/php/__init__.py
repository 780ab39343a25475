"""PHP at the generic tier: namespaces, classes (bases, interfaces, used traits), interfaces, traits,
enums, functions, methods, calls with receivers (``->``, ``?->``, ``::``), ``new``, ``use``, and
``require``/``include`` of a path (``__DIR__ . '/x.php'`` too).
"""

from projectgraph.languages.generic import TEST_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="php",
    module=__name__,
    source=__file__,
    extensions=(".php",),
    module_separator="\\",
    grammar="php",
    roots=TEST_ROOTS,
    interpreters=("php",),
    type_bodies_run_on_construction=True,
    separators=("\\", "::"),
    self_names=("$this", "self", "static"),
    super_names=("parent",),
    constructor_names=("__construct",),
    imports={
        "require": (("./{module}",), ("{module}",)),
        # PSR-4: App\Models\User lives in <a source root>/Models/User.php
        "use": (("**/{path}.php",), ("**/{path_tail}.php",)),
    },
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
