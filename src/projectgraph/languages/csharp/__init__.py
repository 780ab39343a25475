"""C# at the generic tier: namespaces, classes, structs, interfaces, records, enums, methods,
constructors, local functions, calls with receivers, ``new``, ``using`` directives (namespaces: no file).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
