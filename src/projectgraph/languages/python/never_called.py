"""Python's never-called rule: what lets code take a function as a value without writing its name.

``reach.unmentioned`` reads this record (``LanguageSpec.never_called``): a first-party Python
function whose name no file holds is never called, unless one of these lets code reach it anyway.
"""

from projectgraph.languages.base import NeverCalled

# Words whose presence lets code take a function as a value without its name: namespaces read as
# mappings, frames, closures, the garbage collector, computed lookups and evaluation
_ENUMERATORS = (
    "globals",
    "locals",
    "vars",
    "dir",
    "__dict__",
    "getmembers",
    "f_globals",
    "f_locals",
    "__closure__",
    "get_objects",
    "get_referrers",
    "getattr_static",
    "__getattribute__",
    "attrgetter",
    "methodcaller",
    "import_module",
    "__import__",
    "eval",
    "exec",
    "compile",
    # resolvers that turn a dotted name (which may be built from parts) into the value it names
    "resolve_name",
    "import_string",
    "symbol_by_name",
    "import_object",
    "find_class",
    "load_entry_point",
    "iter_entry_points",
    "entry_points",
)
# lookups by a name the code computes: a direct call with a computed name is a dynamic flag of
# the index, but one through an alias (``look = getattr``) or handed on as a value
# (``reduce(getattr, parts, module)``) is an edge of another kind or relation
_LOOKUPS = ("builtins//getattr",)
# The external modules whose functions take no name from a text to look it up: a claim needs every
# external the graph calls to be one of them. Any other package may read a name from a file no
# word filter holds (an .ini, .yaml or .json config, a template: ``yaml.safe_load`` and
# ``pkgutil.resolve_name``, ``logging.config.fileConfig``, a framework's ``render``) and call it.
_QUIET_MODULES = frozenset(
    (
        "abc", "array", "bisect", "builtins", "cmath", "collections", "contextlib", "copy",
        "dataclasses", "datetime", "decimal", "enum", "fractions", "functools", "heapq",
        "itertools", "logging", "math", "numbers", "operator", "queue", "random", "re",
        "statistics", "string", "sys", "textwrap", "threading", "time", "typing", "weakref",
    )
)  # fmt: skip
# but these, which read files, evaluate text or take names (a module's entry covers its names)
_LOUD_EXTERNALS = frozenset(
    (
        "builtins//open", "builtins//eval", "builtins//exec", "builtins//compile",
        "builtins//__import__", "builtins//breakpoint", "builtins//help", "builtins//input",
        "logging//config", "operator//attrgetter", "operator//methodcaller",
    )
)  # fmt: skip
# names a runner or framework calls by convention (pytest, unittest, nose, WSGI and CLI loaders)
_CONVENTIONS = ("test", "Test", "pytest_", "setup", "setUp", "teardown", "tearDown", "load_tests")
_CONVENTIONAL = frozenset(
    ("main", "app", "application", "create_app", "make_app", "handler", "lambda_handler")
)

NEVER_CALLED = NeverCalled(
    enumerators=_ENUMERATORS,
    lookups=_LOOKUPS,
    quiet_modules=_QUIET_MODULES,
    loud_externals=_LOUD_EXTERNALS,
    conventions=_CONVENTIONS,
    conventional=_CONVENTIONAL,
)
