"""Zig at the generic tier: functions, container types (``const T = struct { ... }``), ``test``
blocks, calls with receivers, ``@import`` (a file relative to the importing one; ``std`` is none).
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
