"""C++ at the generic tier: functions, methods (in and out of their class), classes, structs,
namespaces, calls with receivers, ``new``, includes; C headers (``.h``) too, whose C the grammar reads.
"""

from projectgraph.languages.generic import MAIN_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="cpp",
    module=__name__,
    source=__file__,
    extensions=(".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl", ".tpp"),
    module_separator="::",
    grammar="cpp",
    roots=MAIN_ROOTS,
    type_bodies_run_on_construction=True,
    separators=("::",),
    self_names=("this",),
    imports={"include": (("./{module}",), ("{module}",), ("**/{module}",))},
    family="c",
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
