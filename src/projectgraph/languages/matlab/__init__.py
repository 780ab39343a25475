"""MATLAB at the generic tier: functions (help text as doc), ``classdef`` classes with their
superclasses and methods, calls (an index ``a(1)`` reads as a call), ``obj.f()``, ``import``.
"""

from projectgraph.languages.generic import TEST_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="matlab",
    module=__name__,
    source=__file__,
    extensions=(".m",),
    grammar="matlab",
    roots=TEST_ROOTS,
    separators=(".",),
    self_names=("obj", "self", "this"),
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
