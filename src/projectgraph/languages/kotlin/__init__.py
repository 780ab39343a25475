"""Kotlin at the generic tier: classes, interfaces, objects (companion members belong to their
class), functions, methods, secondary constructors, calls with receivers, constructor calls of
supertypes, imports (a class whose file the import path names gives an edge).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
