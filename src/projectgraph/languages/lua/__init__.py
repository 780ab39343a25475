"""Lua at the generic tier: functions (global, local, ``M.f``, ``M:f``, and functions assigned to
names), calls with receivers (``.`` and ``:``), ``require`` (dots are folders) and ``dofile``.
"""

from projectgraph.languages.generic import from_folder

GENERIC, LANGUAGES, extract = from_folder(__name__, __file__)
