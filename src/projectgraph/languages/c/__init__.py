"""C at the generic tier: functions, structs, unions, enums, macros, calls, quoted and system includes.

Headers (``.h``) are C++'s, whose grammar reads C headers too; both languages link as one family.
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

_INCLUDES = {"include": (("./{module}",), ("{module}",), ("**/{module}",))}

GENERIC = GenericLanguage(
    name="c",
    module=__name__,
    source=__file__,
    extensions=(".c",),
    grammar="c",
    roots=MAIN_ROOTS,
    separators=(),
    self_names=(),
    imports=_INCLUDES,
    family="c",
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
