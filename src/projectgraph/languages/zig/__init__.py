"""Zig at the generic tier: functions, container types (``const T = struct { ... }``), ``test``
blocks, calls with receivers, ``@import`` (a file relative to the importing one; ``std`` is none).
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="zig",
    module=__name__,
    source=__file__,
    extensions=(".zig",),
    grammar="zig",
    roots=MAIN_ROOTS,
    separators=(".",),
    self_names=("self",),
    imports={"import": (("./{module}",),)},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
