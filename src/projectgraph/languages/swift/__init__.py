"""Swift at the generic tier: classes, structs, enums, actors, protocols, extensions (members of
their type), functions, methods, initializers, calls with receivers, ``import`` of modules (no file).
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="swift",
    module=__name__,
    source=__file__,
    extensions=(".swift",),
    grammar="swift",
    roots=MAIN_ROOTS,
    type_bodies_run_on_construction=True,
    separators=(".",),
    self_names=("self", "Self"),
    super_names=("super",),
    constructor_names=("init",),
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
