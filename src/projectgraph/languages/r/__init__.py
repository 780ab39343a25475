"""R at the generic tier: functions bound by ``<-``/``=``/``<<-``, S4/R5/R6 classes and S4 generics
and methods by name, calls (``pkg::f``, ``obj$f``), ``library``/``require`` (packages: no file) and
``source`` of a file (relative to the sourcing file or the project root).
"""

from projectgraph.languages.generic import TEST_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="r",
    module=__name__,
    source=__file__,
    extensions=(".R", ".r"),
    grammar="r",
    roots=TEST_ROOTS,
    interpreters=("Rscript",),
    separators=(),
    self_names=(".self",),
    imports={"source": (("./{module}",), ("{module}",))},
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
