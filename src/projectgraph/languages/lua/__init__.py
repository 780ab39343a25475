"""Lua at the generic tier: functions (global, local, ``M.f``, ``M:f``, and functions assigned to
names), calls with receivers (``.`` and ``:``), ``require`` (dots are folders) and ``dofile``.
"""

from projectgraph.languages.generic import TEST_ROOTS, GenericLanguage

GENERIC = GenericLanguage(
    name="lua",
    module=__name__,
    source=__file__,
    extensions=(".lua",),
    grammar="lua",
    roots=TEST_ROOTS,
    interpreters=("lua", "luajit"),
    separators=(".", ":"),
    self_names=("self",),
    imports={
        "require": (
            ("{path}.lua", "{path}/init.lua"),
            ("./{module}",),
            ("**/{path}.lua",),
            ("**/{path}/init.lua",),
        ),
    },
)
LANGUAGES = (GENERIC.spec,)
extract = GENERIC.extract
