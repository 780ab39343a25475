"""C at the generic tier: functions, structs, unions, enums, macros, calls, quoted and system includes.

Headers (``.h``) are C++'s, whose grammar reads C headers too; both languages link as one family.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
