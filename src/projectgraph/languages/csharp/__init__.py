"""C# at the generic tier: namespaces, classes, structs, interfaces, records, enums, methods,
constructors, local functions, calls with receivers, ``new``, ``using`` directives (namespaces: no file).
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="csharp",
    module=__name__,
    source=__file__,
    extensions=(".cs",),
    grammar="csharp",
    roots=MAIN_ROOTS,
    type_bodies_run_on_construction=True,
    separators=(".",),
    self_names=("this",),
    super_names=("base",),
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
