"""Assembly at the generic tier: labels as functions (each runs to the next label), ``call``,
``jmp``, branches and conditional jumps to a label, ``.include``/``%include`` of a file.
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="asm",
    module=__name__,
    source=__file__,
    extensions=(".s", ".S", ".asm"),
    grammar="asm",
    roots=MAIN_ROOTS,
    separators=(),
    self_names=(),
    imports={"include": (("./{module}",), ("{module}",), ("**/{module}",))},
    flat=True,
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
