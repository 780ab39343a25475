"""Kotlin at the generic tier: classes, interfaces, objects (companion members belong to their
class), functions, methods, secondary constructors, calls with receivers, constructor calls of
supertypes, imports (a class whose file the import path names gives an edge).
"""

from projectgraph.languages.base import StandardLibrary
from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="kotlin",
    module=__name__,
    source=__file__,
    extensions=(".kt", ".kts"),
    module_separator=".",
    standard=StandardLibrary(tops=frozenset({"java", "javax", "jdk", "kotlin", "kotlinx"})),
    grammar="kotlin",
    roots=MAIN_ROOTS,
    type_bodies_run_on_construction=True,
    separators=(".",),
    self_names=("this",),
    super_names=("super",),
    constructor_names=("constructor", "init"),
    imports={"import": (("**/{path}.kt",),)},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
