"""Swift at the generic tier: classes, structs, enums, actors, protocols, extensions (members of
their type), functions, methods, initializers, calls with receivers, ``import`` of modules (no file).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
