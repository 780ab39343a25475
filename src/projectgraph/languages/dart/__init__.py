"""Dart at the generic tier: classes (superclass, mixins, interfaces), mixins, enums, extensions,
functions, methods, getters, setters, constructors, calls with receivers, ``new``/``const``,
``import`` (relative and ``package:`` URIs), ``export`` and ``part``.
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

_URI = (("./{module}",), ("lib/{package}",), ("**/lib/{package}",))

GENERIC = GenericLanguage(
    name="dart",
    module=__name__,
    source=__file__,
    extensions=(".dart",),
    grammar="dart",
    roots=MAIN_ROOTS,
    type_bodies_run_on_construction=True,
    separators=(".",),
    self_names=("this",),
    super_names=("super",),
    imports={"import": _URI, "export": _URI, "part": _URI},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
