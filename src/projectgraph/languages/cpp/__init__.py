"""C++ at the generic tier: functions, methods (in and out of their class), classes, structs,
namespaces, calls with receivers, ``new``, includes; C headers (``.h``) too, whose C the grammar reads.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
