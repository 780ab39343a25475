"""Scala at the generic tier: classes, objects (their members called as ``Obj.f``), traits, enums,
functions and methods, calls with receivers (and ``a op b`` infix calls by name), ``new``, imports
(selectors and renames; a class whose file the import path names gives an edge).
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="scala",
    module=__name__,
    source=__file__,
    extensions=(".scala", ".sc"),
    module_separator=".",
    grammar="scala",
    roots=MAIN_ROOTS,
    type_bodies_run_on_construction=True,
    separators=(".",),
    self_names=("this",),
    super_names=("super",),
    imports={"import": (("**/{path}.scala",),)},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
