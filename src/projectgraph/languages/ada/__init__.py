"""Ada at the generic tier: package specs and bodies, subprogram bodies, expression functions,
tasks, protected bodies, record and derived types, calls (``Pkg.Sub (X)`` too), ``with`` clauses
(GNAT file names: ``Shop.Util`` is ``shop-util.ads`` and ``shop-util.adb``).
"""

from projectgraph.languages.generic import TEST_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="ada",
    module=__name__,
    source=__file__,
    extensions=(".adb", ".ads", ".ada"),
    grammar="ada",
    roots=TEST_ROOTS,
    separators=(".",),
    self_names=(),
    imports={"with": (("**/{dashed}.ads", "**/{dashed}.adb"),)},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
