"""Ruby at the generic tier: modules, classes (with their superclass and included modules), methods
and singleton methods, calls with receivers, ``Foo.new``, ``require``/``require_relative``/``load``.
"""

from projectgraph.languages.generic import TEST_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="ruby",
    module=__name__,
    source=__file__,
    extensions=(".rb", ".rake"),
    grammar="ruby",
    roots=TEST_ROOTS,
    interpreters=("ruby",),
    separators=("::", "."),
    self_names=("self",),
    constructor_names=("initialize",),
    new_methods=("new",),
    imports={
        "require": (("lib/{module}.rb", "{module}.rb"), ("**/lib/{module}.rb",), ("**/{module}.rb",)),
        "require_relative": (("./{module}.rb", "./{module}"),),
        "load": (("./{module}", "{module}"),),
    },
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
